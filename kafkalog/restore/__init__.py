"""`kafkalog restore`: the committed records of Kafka's files produced back into a live cluster.

`restore.run.restore` is the one entry point. It creates the missing topics (`restore.topics`), produces each
topic's records in offset order with confluent-kafka (`restore.produce`), keeps the offset map and the state
that lets a second run resume without duplicates (`restore.offset_map`), and commits the consumer groups'
offsets translated through the map (`restore.groups`). What it reads comes from `restore.source`.
"""
