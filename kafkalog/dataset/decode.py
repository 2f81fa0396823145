"""Segment bytes in, Arrow record batches out: the one place the dataset reader decodes records.

    from kafkalog.dataset.decode import read_segment
    for arrow_batch in read_segment("00000000000000000000.log"):
        arrow_batch.column("offset"), arrow_batch.column("value"), ...

`read_segment` decodes the entries that start in a byte range of one segment (a path, bytes or an
open file); `decode_segment_range` is what `kafkalog.read_arrow` (and so the Spark reader, the UDFs
and `kafkalog ingest`) reads each planned range through: a location (local path or URI, see
`kafkalog.dataset.fs`), remote segments included. `scan_transaction_markers` reads the batch
headers that decide read_committed.

Rows come out in file order: each Kafka batch's records (data and control),
and in PERMISSIVE mode one row per damage, where only `segment`,
`batch_position` and `damage` are set (`RAW_ARROW_SCHEMA`). `timestamp` is Kafka's
int64 milliseconds (-1 for none).

Decoding is the fast path (`kafkalog.fast.segment`) unless `decoder=Decoder.OBJECT`
asks for the object path (the Kaitai parsers) alone; both give the same rows and damage,
except for a batch whose records decompress past `max_decompressed_bytes`: the fast path
reads it as a stream, a window at a time (`kafkalog.fast.streamed_batch`), where
the object path, which holds a batch whole, refuses it.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from kafkalog import file_names
from kafkalog.dataset import fs
from kafkalog.dataset.options import DEFAULT_ROWS_PER_BATCH, DamageMode
from kafkalog.entries import EntryScanner
from kafkalog.errors import ChecksumError, DamagedDataError, RemoteObjectError, UsageError
from kafkalog.fast import segment as fast_segment
from kafkalog.fast.columns import SCHEMA, Repeated, damage_rows
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES, SegmentReader
from kafkalog.model import Batch, Decoder
from kafkalog.sources import Source

ABORT = "ABORT"


def read_segment(
    source: Source,
    *,
    start: int = 0,
    end: int | None = None,
    name: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    mode: DamageMode | str = DamageMode.PERMISSIVE,
    validate_checksums: bool = True,
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH,
    stop_offset: int | None = None,
    max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
    max_decompressed_bytes: int | None = None,
    decoder: Decoder = Decoder.FAST,
    repeated: Repeated | None = None,
) -> Iterator[pa.RecordBatch]:
    """The records of the entries that start in bytes [start, end) of one segment, as `SCHEMA` batches.

    `source` is a path, bytes or a seekable binary file. `mode` is what to do
    with damaged data: PERMISSIVE gives each damage a row of its own,
    DROPMALFORMED leaves out damaged batches, FAILFAST raises the first damage
    as a `DamagedDataError` naming the file and byte position.
    `validate_checksums=False` takes batches whose CRC does not match as whole.
    `stop_offset` ends the read at the first undamaged v2 batch whose base
    offset is at or above it. `decoder=Decoder.OBJECT` decodes through the object
    path only (the reference the fast path is tested against); `Decoder.AUTO` is
    not one here, since the fast path is loaded anyway.
    Arrow batches hold at most `rows_per_batch` rows. `repeated`: the constant columns the other byte ranges of
    this segment, read with the same options, made (`kafkalog.fast.segment.decode_runs`).
    """
    try:
        mode = DamageMode(mode)
    except ValueError:
        raise UsageError(f"mode must be one of {', '.join(DamageMode)}, got {mode!r}") from None
    if decoder is Decoder.AUTO:
        raise UsageError("read_segment decodes with Decoder.FAST or Decoder.OBJECT, not Decoder.AUTO")
    damage: list[DamagedDataError] = []  # the structural damage, which ends the read
    out = _Output(rows_per_batch)
    with EntryScanner(source, name=name, start=start, end=end, max_entry_bytes=max_entry_bytes,
                      damage=damage) as scanner:
        name = scanner.name
        # DROPMALFORMED leaves a damaged batch out whole: it is held whole up to the limit, not handed out in parts.
        runs = fast_segment.decode_runs(scanner, topic, partition, max_decompressed_bytes=max_decompressed_bytes,
                                        object_path=decoder is Decoder.OBJECT,
                                        whole_batches=mode is DamageMode.DROPMALFORMED, repeated=repeated)
        stopped = False
        streamed = _Streamed()
        for run in runs:
            items = run.items
            if not len(items):
                continue
            # Only the entries that are not plain whole batches are looked at one by one (and the first
            # batch at or past stop_offset); the rows between them are kept as they are.
            look = set(items.special)
            if stop_offset is not None:
                past = np.flatnonzero((items.magic >= 2) & (items.base_offset >= stop_offset)).tolist()
                look.update(next(([i] for i in past if i not in items.special), []))
            table = run.table
            kept: int | None = int(items.row_start[0])  # start of the rows being kept
            for i in sorted(look):
                assert kept is not None  # (None only after the run's last item)
                item = items[i]
                damages = _counted(item.damage, validate_checksums)
                if (item.more or item.part) and not (stop_offset is not None and item.part == 0
                                                     and item.base_offset >= stop_offset and not damages):
                    # A part of a batch read past the decompression limit (each the last item of its run).
                    if item.row_start > kept:
                        out.add(_rows(table, kept, item.row_start - kept))
                    kept = None
                    streamed.part(out, table, item, damages, mode, name)
                    continue
                clean = not damages and item.is_batch
                if clean and not (stop_offset is not None and item.magic >= 2 and item.base_offset >= stop_offset):
                    continue
                if item.row_start > kept:
                    out.add(_rows(table, kept, item.row_start - kept))
                kept = int(items.row_start[i + 1]) if i + 1 < len(items) else None
                if not item.is_batch:
                    # An entry that could not be decoded at all.
                    _damage_only(out, damages, mode, name)
                    continue
                if damages and mode is DamageMode.FAILFAST:
                    raise damages[0]
                if not damages:  # an undamaged v2 batch at or past stop_offset
                    stopped = True
                    break
                if mode is not DamageMode.DROPMALFORMED and item.row_end > item.row_start:
                    out.add(_rows(table, item.row_start, item.row_end - item.row_start))
                if mode is DamageMode.PERMISSIVE:
                    out.add(damage_rows(damages, name))
            if not stopped and kept is not None and items.row_end[-1] > kept:
                out.add(_rows(table, kept, int(items.row_end[-1]) - kept))
            if out.full:  # (asked per run: no generator made for a run that does not fill an Arrow batch)
                yield from out.rest()
            # (let go before the next run is decoded: else two runs' buffers are held at once, and the engine's
            # pool of them, made for one, takes fresh memory for the second)
            del run, items, table
            if stopped:
                break
        else:
            # Structural damage that ended the read (a partial entry, an impossible size).
            _damage_only(out, _counted(damage, validate_checksums), mode, name)
    yield from out.rest()


def read_segment_table(source: Source, **options) -> pa.Table:
    """All of `read_segment`'s batches as one `pyarrow.Table`."""
    return pa.Table.from_batches(list(read_segment(source, **options)), schema=SCHEMA)


def _counted(damage: list[DamagedDataError], validate_checksums: bool) -> list[DamagedDataError]:
    """The damage that counts: CRC mismatches only when checksums are validated."""
    return [d for d in damage if validate_checksums or not isinstance(d, ChecksumError)]


def _rows(table: pa.Table | None, start: int, length: int) -> pa.Table:
    """Rows of a run's table: a run with rows to keep has one (None only for a run without rows)."""
    assert table is not None
    return table.slice(start, length)


def _damage_only(out: _Output, damages: list[DamagedDataError], mode: DamageMode, segment: str | None) -> None:
    if damages and mode is DamageMode.FAILFAST:
        raise damages[0]
    if damages and mode is DamageMode.PERMISSIVE:
        out.add(damage_rows(damages, segment))


class _Streamed:
    """The parts of a batch read past the decompression limit, whose rows go out before its end is known.

    Its damage is said after its last part, as after a batch read whole. FAILFAST raises it where it is
    found; DROPMALFORMED leaves out the parts from the one where it is found (those before are already out).
    """

    def __init__(self):
        self.damage: list[DamagedDataError] = []

    def part(self, out: _Output, table: pa.Table, item, damages: list[DamagedDataError], mode: DamageMode,
             segment: str | None) -> None:
        if item.part == 0:
            self.damage = []
        if damages and mode is DamageMode.FAILFAST:
            raise damages[0]
        self.damage += damages
        if item.row_end > item.row_start and not (self.damage and mode is DamageMode.DROPMALFORMED):
            out.add(table.slice(item.row_start, item.row_end - item.row_start))
        if not item.more and self.damage and mode is DamageMode.PERMISSIVE:
            out.add(damage_rows(self.damage, segment))


class _Output:
    """Rows waiting to be handed out, as Arrow batches of at most `rows` rows."""

    def __init__(self, rows: int):
        self.rows = rows
        self.pending: list[pa.Table] = []
        self.count = 0

    def add(self, table: pa.Table) -> None:
        self.pending.append(table)
        self.count += table.num_rows

    @property
    def full(self) -> bool:
        """Whether the rows waiting fill an Arrow batch."""
        return self.count >= self.rows

    def rest(self) -> Iterator[pa.RecordBatch]:
        if not self.count:
            self.pending = []
            return
        table = self.pending[0] if len(self.pending) == 1 else pa.concat_tables(self.pending)
        self.pending, self.count = [], 0
        # Slices of what was decoded, not copies: each piece (a run's rows, a damage's row) stays a chunk of its own,
        # cut at `rows`; nothing is joined, so an Arrow batch may hold fewer rows (ending where a piece ends).
        yield from table.to_batches(max_chunksize=self.rows)


@dataclass(frozen=True)
class DecodeOptions:
    validate_checksums: bool = True
    mode: DamageMode = DamageMode.PERMISSIVE
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH
    #: Stop at the first undamaged v2 batch whose base offset is >= this (an exclusive end offset).
    stop_offset: int | None = None
    #: The private keys of encrypted Aiven remote segments (option remotePrivateKey).
    private_keys: str | None = None


def decode_segment_range(
    source: str | bytes,
    *,
    start: int = 0,
    end: int | None = None,
    segment: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    options: DecodeOptions = DecodeOptions(),
    repeated: Repeated | None = None,
) -> Iterator[pa.RecordBatch]:
    """Decode the entries that start in bytes [start, end) of a segment into `RAW_ARROW_SCHEMA` batches.

    `source` is a location (local path or URI, see `kafkalog.dataset.fs`) or the segment's bytes.
    `repeated`: the constant columns the other byte ranges of this segment made (`read_segment`).
    FAILFAST raises the first damage as a `DamagedDataError` naming file and byte position.
    """
    name = segment if segment is not None else (source if isinstance(source, str) else None)
    try:
        file = fs.open_binary(source, options.private_keys) if isinstance(source, str) else None
    except RemoteObjectError as exc:
        # A remote segment whose manifest does not read: its one damage row, the other segments read on.
        if options.mode is DamageMode.FAILFAST:
            raise
        if options.mode is DamageMode.PERMISSIVE:
            yield from damage_rows([exc], name).to_batches()
        return
    try:
        if name is not None and file_names.is_kafka07_name(name):
            from kafkalog.dataset import kafka_07_rows  # noqa: PLC0415  (Kafka 0.7's reader: only for its logs)

            yield from kafka_07_rows.read_kafka07(file if file is not None else source, name=name,
                                                  start=start, end=end, topic=topic, partition=partition,
                                                  mode=options.mode, validate_checksums=options.validate_checksums,
                                                  rows_per_batch=options.rows_per_batch)
            return
        yield from read_segment(file if file is not None else source, name=name, start=start, end=end,
                                topic=topic, partition=partition, mode=options.mode,
                                validate_checksums=options.validate_checksums,
                                rows_per_batch=options.rows_per_batch, stop_offset=options.stop_offset,
                                repeated=repeated)
    finally:
        if file is not None:
            file.close()


def scan_transaction_markers(
    ranges: list[tuple[str, int, int]],
    lookahead: Sequence[tuple[str, int, int]] = (),
    private_keys: str | None = None,
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
        if file_names.is_kafka07_name(location):
            return False  # Kafka 0.7 had no transactions
        with fs.open_binary(location, private_keys) as f:
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
