"""kafkalog: read Apache Kafka's on-disk log format through Kaitai Struct specs."""
from kafkalog.errors import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    DecompressionError,
    KafkalogError,
    TruncatedError,
    UsageError,
)
from kafkalog.model import Batch, Header, Record
from kafkalog.segment import SegmentReader, read_batches

__all__ = [
    "Batch", "Header", "Record", "SegmentReader", "read_batches",
    "KafkalogError", "DamagedDataError", "TruncatedError", "CorruptStructureError",
    "ChecksumError", "DecompressionError", "UsageError",
]
__version__ = "0.1.0"
