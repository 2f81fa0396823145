"""What `kafkalog dump` prints: records as text and JSON lines, kafka-dump-log.sh's lines, and the other files."""
