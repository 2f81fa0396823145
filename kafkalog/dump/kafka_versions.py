"""The Kafka versions whose kafka-dump-log.sh lines `kafkalog dump --format kafka` prints (`--kafka-version`).

A module of its own, light to import: the command line offers them as choices without loading the line writers
(`kafkalog.dump.kafka_dump_log`, start-up: docs/performance.md).
"""
from __future__ import annotations

#: "4.4" (the default; 4.4.0's tool), "4" (Kafka 4.0 to 4.3's) and "3.9". 4.4 differs from 4.0-4.3 only in
#: `--transaction-log-decoder`'s transactionStatus, printed as the state's name.
KAFKA_VERSIONS = ("4.4", "4", "3.9")
DEFAULT_KAFKA_VERSION = "4.4"
