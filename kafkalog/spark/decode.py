"""THE decoding seam of the Spark reader: segment bytes in, Arrow record batches out.

Everything the Spark reader knows about decoding records is behind the two
functions here, `decode_segment_range` and `scan_transaction_markers`; the
data source, the UDFs and the ingest command only call these. A faster
(columnar, compiled) decoder can replace this module as long as it yields
`RAW_ARROW_SCHEMA` batches with the same rows in the same order.

Rows come out in file order: each batch's records (data and control), and in
PERMISSIVE mode one row per damage, where only `segment`, `batch_position` and
`damage` are set. `timestamp` is still Kafka's int64 milliseconds here.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa

from kafkalog.errors import ChecksumError, DamagedDataError
from kafkalog.model import Batch
from kafkalog.segment import SegmentReader
from kafkalog.spark import fs
from kafkalog.spark.options import DEFAULT_ROWS_PER_BATCH, DROPMALFORMED, FAILFAST, PERMISSIVE
from kafkalog.spark.schema import RAW_ARROW_SCHEMA

ABORT = "ABORT"


@dataclass(frozen=True)
class DecodeOptions:
    validate_checksums: bool = True
    mode: str = PERMISSIVE
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH
    #: Stop at the first undamaged v2 batch whose base offset is >= this (an exclusive end offset).
    stop_offset: int | None = None


def damage_text(damage: DamagedDataError) -> str:
    """The `damage` column: the kind of damage and what is wrong (file and position are columns of their own)."""
    return f"{type(damage).__name__}: {damage.message}"


def decode_segment_range(
    source: str | bytes,
    *,
    start: int = 0,
    end: int | None = None,
    segment: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    options: DecodeOptions = DecodeOptions(),
) -> Iterator[pa.RecordBatch]:
    """Decode the entries that start in bytes [start, end) of a segment into `RAW_ARROW_SCHEMA` batches.

    `source` is a location (local path or URI, see `kafkalog.spark.fs`) or the segment's bytes.
    FAILFAST raises the first damage as a `DamagedDataError` naming file and byte position.
    """
    name = segment if segment is not None else (source if isinstance(source, str) else None)
    cols = _Columns(topic, partition, name)
    file = fs.open_binary(source) if isinstance(source, str) else None
    try:
        reader = SegmentReader(file if file is not None else source, name=name, start=start, end=end)
        seen = 0
        for batch in reader:
            # Damage before this batch: entries that could not be decoded at all.
            for damage in reader.damage[seen:len(reader.damage) - len(batch.damage)]:
                _damage(cols, damage, options)
            seen = len(reader.damage)
            damages = [d for d in batch.damage if options.validate_checksums or not isinstance(d, ChecksumError)]
            if damages and options.mode == FAILFAST:
                raise damages[0]
            if (options.stop_offset is not None and not damages and batch.magic >= 2
                    and batch.base_offset >= options.stop_offset):
                break
            if not (damages and options.mode == DROPMALFORMED):
                cols.add_batch(batch)
            if options.mode == PERMISSIVE:
                for damage in damages:
                    cols.add_damage(damage)
            if cols.rows >= options.rows_per_batch:
                yield cols.flush()
        else:
            # Structural damage that ended the read (a partial entry, an impossible size).
            for damage in reader.damage[seen:]:
                _damage(cols, damage, options)
    finally:
        if file is not None:
            file.close()
    if cols.rows:
        yield cols.flush()


def _damage(cols: "_Columns", damage: DamagedDataError, options: DecodeOptions) -> None:
    if not options.validate_checksums and isinstance(damage, ChecksumError):
        return
    if options.mode == FAILFAST:
        raise damage
    if options.mode == PERMISSIVE:
        cols.add_damage(damage)


class _Columns:
    """Column lists for one Arrow batch, filled a Kafka batch at a time."""

    def __init__(self, topic: str | None, partition: int | None, segment: str | None):
        self.topic, self.partition, self.segment = topic, partition, segment
        self._reset()

    def _reset(self) -> None:
        self.rows = 0
        self.c: dict[str, list] = {name: [] for name in RAW_ARROW_SCHEMA.names}

    def add_batch(self, batch: Batch) -> None:
        recs = batch.records
        n = len(recs)
        if not n:
            return
        c = self.c
        c["offset"].extend([r.offset for r in recs])
        c["timestamp"].extend([r.timestamp for r in recs])
        c["key"].extend([r.key for r in recs])
        c["value"].extend([r.value for r in recs])
        c["headers"].extend([[(h.key, h.value) for h in r.headers] for r in recs])
        c["sequence"].extend([r.sequence for r in recs])
        c["control_type"].extend([r.control_type for r in recs])
        for column, value in (
            ("topic", self.topic), ("partition", self.partition), ("timestamp_type", batch.timestamp_type),
            ("magic", batch.magic), ("compression", batch.compression), ("producer_id", batch.producer_id),
            ("producer_epoch", batch.producer_epoch), ("is_transactional", batch.is_transactional),
            ("is_control", batch.is_control), ("partition_leader_epoch", batch.partition_leader_epoch),
            ("segment", self.segment), ("batch_position", batch.position), ("damage", None),
        ):
            c[column].extend([value] * n)
        self.rows += n

    def add_damage(self, damage: DamagedDataError) -> None:
        for name, values in self.c.items():
            values.append(None)
        self.c["segment"][-1] = self.segment if self.segment is not None else damage.path
        self.c["batch_position"][-1] = damage.position
        self.c["damage"][-1] = damage_text(damage)
        self.rows += 1

    def flush(self) -> pa.RecordBatch:
        arrays = [pa.array(self.c[f.name], type=f.type) for f in RAW_ARROW_SCHEMA]
        self._reset()
        return pa.RecordBatch.from_arrays(arrays, schema=RAW_ARROW_SCHEMA)


def scan_transaction_markers(
    ranges: list[tuple[str, int, int]],
    lookahead: list[tuple[str, int, int]] = (),
) -> dict[int, list[tuple[int, str]]]:
    """Transaction markers that decide the transactions of `ranges`: producer id -> [(offset, type)].

    Reads batch headers only (records of transaction-marker batches). Every marker in `ranges`
    is returned; then `lookahead` (what follows in the partition) is scanned until each producer
    with transactional data in `ranges` after its last marker there has its next marker. A
    producer whose transaction has no marker anywhere has no entry after its data.
    """
    markers: dict[int, list[tuple[int, str]]] = defaultdict(list)
    pending: set[int] = set()

    def scan(location: str, start: int, end: int, in_range: bool) -> bool:
        with fs.open_binary(location) as f:
            reader = SegmentReader(f, name=location, start=start, end=end, decode_records=False)
            for batch in reader:
                if not batch.is_transactional:
                    continue
                pid = batch.producer_id
                if batch.is_control:
                    if in_range or pid in pending:
                        markers[pid].append((batch.base_offset, _marker_type(f, location, batch)))
                        pending.discard(pid)
                        if not in_range and not pending:
                            return True
                elif in_range:
                    pending.add(pid)
        return False

    for location, start, end in ranges:
        scan(location, start, end, True)
    for location, start, end in lookahead:
        if not pending or scan(location, start, end, False):
            break
    return dict(markers)


def _marker_type(f, location: str, batch: Batch) -> str:
    reader = SegmentReader(f, name=location, start=batch.position, end=batch.position + 1)
    for decoded in reader:
        for record in decoded.records:
            return record.control_type or "UNKNOWN"
    return "UNKNOWN"
