"""kafkalog: read Apache Kafka's on-disk log format through Kaitai Struct specs.

    import kafkalog
    for batch in kafkalog.SegmentReader("00000000000000000000.log"): ...
    table = kafkalog.read_table("/var/lib/kafka/data", subscribe="orders")   # a pyarrow.Table
    partition = kafkalog.Partition("/var/lib/kafka/orders-0")

The layers, from the bytes up, are described in docs/architecture.md.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kafkalog.errors import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    DataLossError,
    DecompressionError,
    DecompressionLimitError,
    EncryptionKeyError,
    FileNameError,
    KafkalogError,
    OffsetGapError,
    RemoteObjectError,
    TargetRefusedError,
    TruncatedError,
    UndecodableRecordError,
    UndecodableValueError,
    UsageError,
)

if TYPE_CHECKING:
    from kafkalog.dataset.reader import read_arrow, read_table
    from kafkalog.dataset.served import partition_bounds
    from kafkalog.log.partition import Partition
    from kafkalog.log.segment import SegmentReader, read_batches
    from kafkalog.model import Batch, Decoder, Header, Record

# The readers, the results, and every exception kafkalog raises on purpose (kafkalog.errors), so that a
# caller catches them by name.
__all__ = [
    "Batch",
    "ChecksumError",
    "CorruptStructureError",
    "DamagedDataError",
    "DataLossError",
    "Decoder",
    "DecompressionError",
    "DecompressionLimitError",
    "EncryptionKeyError",
    "FileNameError",
    "Header",
    "KafkalogError",
    "OffsetGapError",
    "Partition",
    "Record",
    "RemoteObjectError",
    "SegmentReader",
    "TargetRefusedError",
    "TruncatedError",
    "UndecodableRecordError",
    "UndecodableValueError",
    "UsageError",
    "partition_bounds",
    "read_arrow",
    "read_batches",
    "read_table",
]
__version__ = "0.1.0"

# The readers load the fast path (the compiled engine, numpy, pyarrow), the model numpy: they are imported on first
# use, so that `import kafkalog` (for its errors, or `kafkalog --help`) costs nothing, and the command line can
# set numpy's environment before numpy is imported (kafkalog.cli).
_READERS = {
    "Batch": "kafkalog.model",
    "Decoder": "kafkalog.model",
    "Header": "kafkalog.model",
    "Record": "kafkalog.model",
    "SegmentReader": "kafkalog.log.segment",
    "read_batches": "kafkalog.log.segment",
    "Partition": "kafkalog.log.partition",
    "read_arrow": "kafkalog.dataset.reader",
    "read_table": "kafkalog.dataset.reader",
    "partition_bounds": "kafkalog.dataset.served",
}


def __getattr__(name: str) -> Any:
    if name in _READERS:
        return getattr(importlib.import_module(_READERS[name]), name)
    raise AttributeError(f"module 'kafkalog' has no attribute {name!r}")
