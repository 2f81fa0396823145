"""What a segment read returns: batches, records and headers, as Kafka reports them."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from kafkalog.errors import DamagedDataError

NO_TIMESTAMP = -1
NO_SEQUENCE = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_PARTITION_LEADER_EPOCH = -1

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
NO_TIMESTAMP_TYPE = "NoTimestampType"


class Decoder(Enum):
    """Which decoder reads a segment's batches. Both give the same batches, records and damage, except for a
    batch whose records decompress past the limit, which the fast path reads as a stream and the object path
    refuses."""

    #: The fast path: the compiled engine (built at install; many times faster than the object path).
    FAST = "fast"
    #: The object path: the Kaitai compiler's generated parsers, one object at a time; the reference.
    OBJECT = "object"
    #: The object path until an entry may hold many records, then the fast path: what costs least on a small file.
    AUTO = "auto"


@dataclass(frozen=True, slots=True)
class Header:
    key: str
    value: bytes | None


@dataclass
class Record:
    """A record as a consumer sees it, with absolute offset, timestamp and sequence."""

    offset: int
    timestamp: int
    sequence: int
    key: bytes | None
    value: bytes | None
    headers: list[Header] = field(default_factory=list)
    #: For records of control batches: COMMIT, ABORT, LEADER_CHANGE, ... (UNKNOWN for a type Kafka does not know).
    control_type: str | None = None


@dataclass
class Batch:
    """A v2 record batch, or for magic 0 and 1 one shallow entry (a message or a compressed wrapper).

    Field values are those Kafka's own `RecordBatch` getters return, so a v0/v1
    entry reports -1 for the producer fields and the partition leader epoch.
    """

    position: int
    size: int
    magic: int
    base_offset: int
    last_offset: int
    count: int | None
    compression: str
    crc: int
    crc_valid: bool
    timestamp_type: str
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    last_sequence: int
    partition_leader_epoch: int
    is_transactional: bool
    is_control: bool
    delete_horizon_ms: int | None
    #: The records; a list, or for batches the fast path decoded a sequence that makes them a block at a time,
    #: or for a batch read past the decompression limit its parts as they come (`log.record_list.StreamedRecords`).
    records: Sequence[Record] = field(default_factory=list)
    #: Damage found inside this batch (CRC mismatch, data that does not decompress or parse).
    damage: list[DamagedDataError] = field(default_factory=list)

    @property
    def end_position(self) -> int:
        return self.position + self.size


@dataclass
class BatchColumns:
    """The batches of a run as columns: what `kafkalog verify` checks across many batches
    (`kafkalog.log.segment.SegmentReader.scan_columns`)."""

    position: np.ndarray
    end_position: np.ndarray
    base_offset: np.ndarray
    last_offset: np.ndarray
    max_timestamp: np.ndarray
    records: np.ndarray  # records parsed and handed out
    aborts: list[tuple[int, int]]  # (producer id, offset) of each ABORT marker
    damage: list[DamagedDataError]  # in file order, undecodable entries' included

    @classmethod
    def of(cls, batches: list[Batch], damage: list[DamagedDataError]) -> BatchColumns:
        """The columns of batches read one by one (the object path)."""

        def column(values: list[int]) -> np.ndarray:
            return np.array(values, dtype=np.int64)
        return cls(column([b.position for b in batches]), column([b.position + b.size for b in batches]),
                   column([b.base_offset for b in batches]), column([b.last_offset for b in batches]),
                   column([b.max_timestamp for b in batches]), column([len(b.records) for b in batches]),
                   [(b.producer_id, r.offset) for b in batches for r in b.records if r.control_type == "ABORT"],
                   damage)
