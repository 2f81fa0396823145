"""kafkalog: read Apache Kafka's on-disk log format through Kaitai Struct specs."""
from __future__ import annotations

from typing import Any

from kafkalog.errors import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    DecompressionError,
    DecompressionLimitError,
    KafkalogError,
    TruncatedError,
    UsageError,
)
from kafkalog.model import Batch, Header, Record

__all__ = [
    "Batch", "Header", "Record", "SegmentReader", "read_batches", "read_arrow", "read_table",
    "KafkalogError", "DamagedDataError", "TruncatedError", "CorruptStructureError",
    "ChecksumError", "DecompressionError", "DecompressionLimitError", "UsageError",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The generated parsers import kafkalog.compression (their process routine),
    # so this package must not import them back while it initialises: the
    # reader, which uses them, is imported on first use instead.
    if name in ("SegmentReader", "read_batches"):
        from kafkalog.log import segment

        return getattr(segment, name)
    if name in ("read_arrow", "read_table"):
        from kafkalog.arrow import reader as arrow

        return getattr(arrow, name)
    raise AttributeError(f"module 'kafkalog' has no attribute {name!r}")
