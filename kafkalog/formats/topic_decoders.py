"""The names of the decoders of Kafka's internal topics (`kafkalog dump --decode`), without the decoders.

A module of its own, light to import: the command line offers them as choices without loading the generated
parsers of `kafkalog.formats.internal_topics` (start-up: docs/performance.md).
"""
from __future__ import annotations

OFFSETS, TRANSACTIONS, SHARE, METADATA, REMOTE_LOG_METADATA, SCHEMAS, NONE = (
    "offsets", "transactions", "share", "metadata", "remote-log-metadata", "schemas", "none")
#: The values of `kafkalog dump --decode`.
DECODERS = (OFFSETS, TRANSACTIONS, SHARE, METADATA, REMOTE_LOG_METADATA, SCHEMAS, NONE)
#: Only control records are decoded (a topic that is not internal).
CONTROL_ONLY = "control"
