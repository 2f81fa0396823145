meta:
  id: kafka_log
  title: Apache Kafka log segment (.log file)
  application: Apache Kafka
  file-extension: log
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
  imports:
    - kafka_record_batch
    - kafka_message_set
doc: |
  A Kafka log segment: the `NNNNNNNNNNNNNNNNNNNN.log` files in a partition
  directory, named by the offset of their first entry. A segment is a plain
  sequence of entries with no file header. Every entry starts with an offset
  (int64) and a size (int32), and its byte 16 is the magic byte that tells
  its format: 0 or 1 for a legacy message (see `kafka_message_set`), 2 for a
  record batch (see `kafka_record_batch`). A segment written across a message
  format upgrade mixes them, and this type reads each entry by its own magic.

  A segment of a broker that crashed may end in a partial entry, and one
  preallocated by the broker (`log.preallocate`) ends in zero bytes; both
  show here as a parse error at the end.
doc-ref:
  - https://kafka.apache.org/documentation/#log
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
seq:
  - id: entries
    type: log_entry
    repeat: eos
    doc: The entries of the segment, in file order.
types:
  log_entry:
    doc: One entry of a segment, in the format its magic byte selects.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
    -webide-representation: 'magic {magic:dec}, {length:dec} bytes'
    seq:
      - id: body
        size: 12 + length
        type:
          switch-on: magic
          cases:
            0: kafka_message_set::entry
            1: kafka_message_set::entry
            2: kafka_record_batch
        doc: The entry, from its offset field to its end.
    instances:
      # These read ahead from the start of the entry: `body` needs both to
      # pick its size and type, so they are evaluated before it is read.
      length:
        pos: _io.pos + 8
        type: s4
        valid:
          min: 14
        doc: The entry's size after the first 12 bytes.
      magic:
        pos: _io.pos + 16
        type: s1
        valid:
          min: 0
          max: 2
        doc: Message format version of the entry.
