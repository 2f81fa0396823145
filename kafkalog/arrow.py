"""A segment's records as Arrow record batches: `read_arrow` and `read_table`.

    import kafkalog
    for batch in kafkalog.read_arrow("00000000000000000000.log"):
        batch.column("offset"), batch.column("value"), ...

Rows come out in file order: each Kafka batch's records (data and control),
and in PERMISSIVE mode one row per damage, where only `segment`,
`batch_position` and `damage` are set. `timestamp` is Kafka's int64
milliseconds (-1 for none). This is what the Spark reader, the UDFs and
`kafkalog ingest` decode through.
"""
from __future__ import annotations

from typing import Iterator

import pyarrow as pa

from kafkalog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES
from kafkalog.errors import ChecksumError, DamagedDataError, UsageError
from kafkalog.model import Batch
from kafkalog.segment import DEFAULT_MAX_ENTRY_BYTES, SegmentReader
from kafkalog.sources import Source

PERMISSIVE, DROPMALFORMED, FAILFAST = "PERMISSIVE", "DROPMALFORMED", "FAILFAST"
MODES = (PERMISSIVE, DROPMALFORMED, FAILFAST)
DEFAULT_ROWS_PER_BATCH = 10_000

HEADERS_TYPE = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))

#: The columns of `read_arrow`'s batches.
SCHEMA = pa.schema([
    ("topic", pa.string()),
    ("partition", pa.int32()),
    ("offset", pa.int64()),
    ("timestamp", pa.int64()),
    ("timestamp_type", pa.string()),
    ("key", pa.binary()),
    ("value", pa.binary()),
    ("headers", HEADERS_TYPE),
    ("magic", pa.int32()),
    ("compression", pa.string()),
    ("producer_id", pa.int64()),
    ("producer_epoch", pa.int32()),
    ("sequence", pa.int32()),
    ("is_transactional", pa.bool_()),
    ("is_control", pa.bool_()),
    ("control_type", pa.string()),
    ("partition_leader_epoch", pa.int32()),
    ("segment", pa.string()),
    ("batch_position", pa.int64()),
    ("damage", pa.string()),
])


def damage_text(damage: DamagedDataError) -> str:
    """The `damage` column: the kind of damage and what is wrong (file and position are columns of their own)."""
    return f"{type(damage).__name__}: {damage.message}"


def read_arrow(
    source: Source,
    *,
    start: int = 0,
    end: int | None = None,
    name: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    mode: str = PERMISSIVE,
    validate_checksums: bool = True,
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH,
    stop_offset: int | None = None,
    max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
    max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES,
    fast: bool = True,
) -> Iterator[pa.RecordBatch]:
    """The records of the entries that start in bytes [start, end) of one segment, as `SCHEMA` batches.

    `source` is a path, bytes or a seekable binary file. `mode` is what to do
    with damaged data: PERMISSIVE gives each damage a row of its own,
    DROPMALFORMED leaves out damaged batches, FAILFAST raises the first damage
    as a `DamagedDataError` naming the file and byte position.
    `validate_checksums=False` takes batches whose CRC does not match as whole.
    `stop_offset` ends the read at the first undamaged v2 batch whose base
    offset is at or above it. `fast=False` decodes through the generated
    Kaitai parsers only (the reference the fast path is tested against).
    """
    if mode not in MODES:
        raise UsageError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    reader = SegmentReader(source, name=name, start=start, end=end, max_entry_bytes=max_entry_bytes,
                           max_decompressed_bytes=max_decompressed_bytes)
    cols = _Columns(topic, partition, reader.name)
    with reader:
        seen = 0
        for batch in reader:
            # Damage before this batch: entries that could not be decoded at all.
            for damage in reader.damage[seen:len(reader.damage) - len(batch.damage)]:
                _damage(cols, damage, mode, validate_checksums)
            seen = len(reader.damage)
            damages = [d for d in batch.damage if validate_checksums or not isinstance(d, ChecksumError)]
            if damages and mode == FAILFAST:
                raise damages[0]
            if stop_offset is not None and not damages and batch.magic >= 2 and batch.base_offset >= stop_offset:
                break
            if not (damages and mode == DROPMALFORMED):
                cols.add_batch(batch)
            if mode == PERMISSIVE:
                for damage in damages:
                    cols.add_damage(damage)
            if cols.rows >= rows_per_batch:
                yield cols.flush()
        else:
            # Structural damage that ended the read (a partial entry, an impossible size).
            for damage in reader.damage[seen:]:
                _damage(cols, damage, mode, validate_checksums)
    if cols.rows:
        yield cols.flush()


def read_table(source: Source, **options) -> pa.Table:
    """All of `read_arrow`'s batches as one `pyarrow.Table`."""
    return pa.Table.from_batches(list(read_arrow(source, **options)), schema=SCHEMA)


def _damage(cols: "_Columns", damage: DamagedDataError, mode: str, validate_checksums: bool) -> None:
    if not validate_checksums and isinstance(damage, ChecksumError):
        return
    if mode == FAILFAST:
        raise damage
    if mode == PERMISSIVE:
        cols.add_damage(damage)


class _Columns:
    """Column lists for one Arrow batch, filled a Kafka batch at a time."""

    def __init__(self, topic: str | None, partition: int | None, segment: str | None):
        self.topic, self.partition, self.segment = topic, partition, segment
        self._reset()

    def _reset(self) -> None:
        self.rows = 0
        self.c: dict[str, list] = {name: [] for name in SCHEMA.names}

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
        for values in self.c.values():
            values.append(None)
        self.c["segment"][-1] = self.segment if self.segment is not None else damage.path
        self.c["batch_position"][-1] = damage.position
        self.c["damage"][-1] = damage_text(damage)
        self.rows += 1

    def flush(self) -> pa.RecordBatch:
        arrays = [pa.array(self.c[f.name], type=f.type) for f in SCHEMA]
        self._reset()
        return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)
