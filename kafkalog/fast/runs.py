"""What the fast path hands out: runs of a segment's entries, their records as one Arrow table.

    for run in decode_runs(scanner):           # kafkalog.fast.segment
        run.table                              # the records, `kafkalog.fast.columns.SCHEMA` columns
        run.items                              # each batch (or undecodable entry): its rows and damage

An entry's `Item` is made only when asked for: most entries are plain whole batches, kept as columns
(`Items`). `batch_of` makes from an item the `Batch` the object path (`kafkalog.formats.record_batch`,
`kafkalog.formats.message_set`) would have made, and `decode_on_object_path` has the object path decode an
entry into a run. Spec: `kafka_log.ksy` (a segment's entries); twin: the object path's `Batch`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.compression import CODEC_NAMES, decompression_limit
from kafkalog.errors import ChecksumError, DamagedDataError
from kafkalog.fast import message_set as fast_legacy
from kafkalog.fast.columns import batch_rows
from kafkalog.fast.options import WalkOptions
from kafkalog.formats import message_set, record_batch
from kafkalog.javaint import increment_sequence, s64
from kafkalog.model import CREATE_TIME, LOG_APPEND_TIME, NO_SEQUENCE, Batch, BatchColumns


@dataclass
class Item:
    """One entry of the segment in a run: a batch and its rows, or an entry that did not decode at all."""

    position: int
    size: int
    magic: int
    base_offset: int
    row_start: int
    row_end: int
    damage: list[DamagedDataError] = field(default_factory=list)
    #: False for an entry with no batch (its header does not parse): only its damage counts.
    is_batch: bool = True
    #: The decoded batch, for the entries the object path decoded (else None).
    batch: Batch | None = None
    #: With `columns=False`: the (offset, type) of each control record of a control batch the fast path decoded.
    controls: list[tuple[int, str]] | None = None
    #: The v2 header as the kernel read it (a list; `k.KAFKA_RECORD_BATCH__*` fields), or a legacy entry's
    #: columns (`fast_legacy`), for the batches the fast path decoded.
    header: list[int] | np.ndarray | None = None
    #: A batch read past the decompression limit comes in parts, each the last entry of its run
    #: (`kafkalog.fast.streamed_batch`): which part this is, and whether more follow in the next runs.
    part: int = 0
    more: bool = False


@dataclass
class Run:
    """Consecutive entries of a segment: their records as one Arrow table, and each entry's rows."""

    table: pa.Table | None  # None when read with columns=False
    items: Items


#: A run is handed out at the first batch boundary past this many rows, or past this many decompressed bytes
#: walked into it: a chunk of compressed batches holds any number of them (300 batches of 30,000 records in 30 KB),
#: whose rows would otherwise all be held at once. Real data stays under both (a chunk of zstd at 4.5:1 is about
#: 180,000 rows and 37 MB), so its runs are cut where they always were: at a chunk's end.
RUN_ROWS = 1 << 20
RUN_BYTES = 64 << 20


class RunBuilder:
    """The tables and items of the run being built; rows are given to items in file order."""

    def __init__(self):
        self.tables: list[pa.Table | pa.RecordBatch] = []
        self.rows = 0
        self.assigned = 0
        #: Decompressed bytes walked into the run's rows (`full`).
        self.held = 0
        self._reset_items()

    @property
    def full(self) -> bool:
        """Whether the run is to be handed out at the next batch boundary (RUN_ROWS, RUN_BYTES)."""
        return self.rows >= RUN_ROWS or self.held >= RUN_BYTES

    def _reset_items(self) -> None:
        self.spans: list[tuple[np.ndarray, ...]] = []  # the columns of each span of items, in order
        self.special: dict[int, Item] = {}
        self.pending: list[Item] = []
        self.count = 0

    def add_table(self, table: pa.Table) -> None:
        self.tables.append(table)
        self.rows += table.num_rows

    def add_batch(self, batch: pa.RecordBatch) -> None:
        """Rows as one record batch (a usual group's: `kafkalog.fast.record_batch`), a table's chunk."""
        self.tables.append(batch)
        self.rows += batch.num_rows

    def add_rows(self, n: int) -> None:
        """Rows that were parsed and checked but not made into columns."""
        self.rows += n

    def assign(self, n: int) -> tuple[int, int]:
        start = self.assigned
        self.assigned += n
        return start, self.assigned

    def add_item(self, item: Item) -> None:
        """An entry that is not a plain whole batch (damage, the object path, a legacy entry, controls)."""
        self.special[self.count] = item
        self.pending.append(item)
        self.count += 1

    def add_batches(self, position: np.ndarray, size: np.ndarray, magic: np.ndarray, batch_headers: np.ndarray,
                    rows: np.ndarray, damage: dict[int, list[DamagedDataError]] | None = None) -> None:
        """Whole v2 batches whose `rows` records are the next rows; those in `damage` (by index) have damage."""
        if damage:
            i = 0
            for j in [*sorted(damage), len(batch_headers)]:
                if j > i:
                    self.add_batches(position[i:j], size[i:j], magic[i:j], batch_headers[i:j], rows[i:j])
                if j < len(batch_headers):
                    start, end = self.assign(int(rows[j]))
                    batch_header = batch_headers[j].tolist()
                    self.add_item(Item(int(position[j]), int(size[j]), int(magic[j]),
                                       batch_header[k.KAFKA_RECORD_BATCH__BASE_OFFSET], start, end, damage[j],
                                       header=batch_header))
                i = j + 1
            return
        self._flush_pending()
        ends = self.assigned + np.cumsum(rows)
        self.spans.append((position, size, magic, batch_headers[:, k.KAFKA_RECORD_BATCH__BASE_OFFSET], ends - rows,
                           ends, batch_headers))
        self.assigned = int(ends[-1]) if len(ends) else self.assigned
        self.count += len(batch_headers)

    def _flush_pending(self) -> None:
        if self.pending:
            n = len(self.pending)
            self.spans.append((*(np.array([getattr(item, name) for item in self.pending], dtype=np.int64)
                                  for name in ("position", "size", "magic", "base_offset", "row_start", "row_end")),
                                np.zeros((n, k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)))
            self.pending = []

    def finish(self) -> Run:
        self._flush_pending()
        table = _table(self.tables) if self.tables else None
        position, size, magic, base_offset, row_start, row_end, header = (
            np.concatenate(c) if len(self.spans) > 1 else c[0] for c in zip(*self.spans, strict=True))
        run = Run(table, Items(position, size, magic, base_offset, row_start, row_end, header, self.special))
        self.tables, self.rows, self.assigned, self.held = [], 0, 0, 0
        self._reset_items()
        return run


def _table(parts: list[pa.Table | pa.RecordBatch]) -> pa.Table:
    """The parts as one table, each a chunk (or its chunks) in order."""
    if all(isinstance(p, pa.RecordBatch) for p in parts):
        return pa.Table.from_batches(parts)
    return pa.concat_tables([pa.Table.from_batches([p]) if isinstance(p, pa.RecordBatch) else p for p in parts])


class Items:
    """The entries of a run, as columns: an `Item` is made only when asked for (most are plain whole batches).

    `special` holds the entries that are not: damaged, decoded by the object
    path, legacy, or with control records read without columns.
    """

    def __init__(self, position: np.ndarray, size: np.ndarray, magic: np.ndarray, base_offset: np.ndarray,
                 row_start: np.ndarray, row_end: np.ndarray, header: np.ndarray, special: dict[int, Item]):
        self.position, self.size, self.magic, self.base_offset = position, size, magic, base_offset
        self.row_start, self.row_end, self.header, self.special = row_start, row_end, header, special

    def __len__(self) -> int:
        return len(self.position)

    def __getitem__(self, i: int) -> Item:
        i = range(len(self))[i]
        item = self.special.get(i)
        if item is None:
            item = Item(int(self.position[i]), int(self.size[i]), int(self.magic[i]), int(self.base_offset[i]),
                        int(self.row_start[i]), int(self.row_end[i]), [], header=self.header[i].tolist())
        return item

    def __iter__(self) -> Iterator[Item]:
        return (self[i] for i in range(len(self)))


def batch_columns(run: Run, path: str | None) -> BatchColumns:
    """`BatchColumns` of a run read with `columns=False`; only the entries that are not plain whole batches
    are looked at one by one."""
    items = run.items
    h = items.header
    base_offset = items.base_offset.copy()
    # Java's long arithmetic: numpy's int64 wraps the same way.
    last_offset = h[:, k.KAFKA_RECORD_BATCH__BASE_OFFSET] + h[:, k.KAFKA_RECORD_BATCH__LAST_OFFSET_DELTA]
    max_timestamp = h[:, k.KAFKA_RECORD_BATCH__MAX_TIMESTAMP].copy()
    is_batch = np.ones(len(items), dtype=bool)
    aborts: list[tuple[int, int]] = []
    damage: list[DamagedDataError] = []
    for i in sorted(items.special):
        item = items.special[i]
        if not item.is_batch:
            is_batch[i] = False
            damage.extend(item.damage)
            continue
        batch = batch_of(item, path)
        damage.extend(batch.damage)
        base_offset[i], last_offset[i], max_timestamp[i] = batch.base_offset, batch.last_offset, batch.max_timestamp
        controls = ([(r.offset, r.control_type) for r in batch.records if r.control_type is not None]
                    if item.batch is not None else item.controls or [])
        aborts.extend((batch.producer_id, offset) for offset, kind in controls if kind == "ABORT")
    return BatchColumns(items.position[is_batch], (items.position + items.size)[is_batch], base_offset[is_batch],
                        last_offset[is_batch], max_timestamp[is_batch], (items.row_end - items.row_start)[is_batch],
                        aborts, damage)


def batch_of(item: Item, path: str | None) -> Batch:
    """The `Batch` of a v2 batch the fast path decoded (records not included), as `record_batch.decode_batch` has it."""
    if item.batch is not None:
        return item.batch
    h = item.header
    assert h is not None, "an entry the fast path decoded has its header"
    if item.magic < 2:
        return fast_legacy.batch_of(np.asarray(h), item.position, item.size, item.base_offset)
    codec = h[k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION]
    base_offset = h[k.KAFKA_RECORD_BATCH__BASE_OFFSET]
    base_sequence = h[k.KAFKA_RECORD_BATCH__BASE_SEQUENCE]
    last_offset_delta = h[k.KAFKA_RECORD_BATCH__LAST_OFFSET_DELTA]
    return Batch(
        position=item.position,
        size=item.size,
        magic=item.magic,
        base_offset=base_offset,
        last_offset=s64(base_offset + last_offset_delta),
        count=h[k.KAFKA_RECORD_BATCH__NUM_RECORDS],
        compression=CODEC_NAMES.get(codec, f"unknown({codec})"),
        crc=h[k.KAFKA_RECORD_BATCH__CRC],
        crc_valid=not any(isinstance(d, ChecksumError) for d in item.damage),
        timestamp_type=LOG_APPEND_TIME if h[k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE] else CREATE_TIME,
        max_timestamp=h[k.KAFKA_RECORD_BATCH__MAX_TIMESTAMP],
        producer_id=h[k.KAFKA_RECORD_BATCH__PRODUCER_ID],
        producer_epoch=h[k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH],
        base_sequence=base_sequence,
        last_sequence=NO_SEQUENCE if base_sequence == NO_SEQUENCE
        else increment_sequence(base_sequence, last_offset_delta),
        partition_leader_epoch=h[k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH],
        is_transactional=bool(h[k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL]),
        is_control=bool(h[k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL]),
        delete_horizon_ms=h[k.KAFKA_RECORD_BATCH__BASE_TIMESTAMP]
        if h[k.KAFKA_RECORD_BATCH__ATTRIBUTES__HAS_DELETE_HORIZON] else None,
        damage=list(item.damage),
    )


def decode_on_object_path(options: WalkOptions, run: RunBuilder, entry: bytes, position: int, magic: int) -> None:
    """Decode one entry with the object path (the Kaitai parsers), as `SegmentReader` does, into the run."""
    try:
        # Within the reader's cap on decompressed bytes, as SegmentReader decodes.
        with decompression_limit(options.limit):
            batch = (record_batch.decode_batch(entry, position, options.path, options.records) if magic >= 2
                     else message_set.decode_entry(entry, position, options.path, options.records))
    except DamagedDataError as exc:
        run.add_item(Item(position, len(entry), magic, 0, run.assigned, run.assigned, [exc], is_batch=False))
        return
    if options.columns:
        options.keep(run, batch_rows(batch, options.topic, options.partition, options.path))
    else:
        run.add_rows(len(batch.records))
    start, end = run.assign(len(batch.records))
    run.add_item(Item(position, len(entry), batch.magic, batch.base_offset, start, end, list(batch.damage),
                      batch=batch))
