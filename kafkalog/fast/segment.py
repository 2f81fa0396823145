"""A segment's entries, each to its decoder: the fast path's reading of `kafka_log.ksy`.

    for run in decode_runs(scanner):           # scanner: a kafkalog.entries.EntryScanner
        run.table                              # the records, `kafkalog.fast.columns.SCHEMA` columns
        run.items                              # each batch (or undecodable entry): its rows and damage

For each chunk of the file (`EntryScanner.entries`, found by the compiled engine's entry scan): the v2
headers and the legacy messages are read by the engine's generated parsers into tables; spans of plain v2
batches go to `kafkalog.fast.record_batch` in bulk, legacy messages to `kafkalog.fast.message_set`,
and whatever the engine does not take (a header that does not parse, a CRC that does not match in a
legacy message, a wrapper the engine cannot walk) to the object path, one entry at a time
(`kafkalog.fast.runs.decode_on_object_path`). Twin: the object path's own reading of a segment,
`SegmentReader` with `Decoder.OBJECT`, which decodes every entry with the Kaitai parsers.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.compression import NONE, max_decompressed_bytes as compression_limit
from kafkalog.entries import ENTRY_MAGIC, ChunkScan, EntryRun
from kafkalog.fast import compiled, message_set as fast_legacy, record_batch as fast_v2, streamed_batch
from kafkalog.fast.columns import Repeated
from kafkalog.fast.options import WalkOptions
from kafkalog.fast.record_groups import Group
from kafkalog.fast.runs import Item, Run, RunBuilder, decode_on_object_path
from kafkalog.formats import record_batch
from kafkalog.formats.framing import LOG_OVERHEAD


class Scanner(Protocol):
    """What `decode_runs` takes from the scanner of a segment's entries (`kafkalog.entries.EntryScanner`), which
    keeps the file, the structural damage and the cursor."""

    name: str | None

    def entries(self, start: int | None = None, chunk_scan: ChunkScan | None = None) -> Iterator[EntryRun]: ...


def decode_runs(scanner: Scanner, topic: str | None = None, partition: int | None = None, *,
                max_decompressed_bytes: int | None = None, start: int | None = None, object_path: bool = False,
                records: bool = True, columns: bool = True, record_columns_only: bool = False,
                whole_batches: bool = False, table_rows: int | None = None, repeated: Repeated | None = None
                ) -> Iterator[Run]:
    """The runs of the scanner's entries from `start` (default: its range's start), in file order; structural
    damage is left in the scanner's `damage`.

    `object_path=True` decodes every entry with the object path (the Kaitai parsers) alone;
    `records=False` reads batch headers and checks CRCs only; `columns=False`
    parses and checks every record but makes no columns (`Run.table` is None),
    only each control record's offset and type (`Item.controls`);
    `record_columns_only=True` makes the `RECORD_COLUMNS` only (what a
    `Record` holds), a third of the memory of every column.
    A batch whose records decompress past a window (`streamed_batch.WINDOW_BYTES`)
    is read in parts (`Item.part`); with `whole_batches=True` only one past
    `max_decompressed_bytes` (None: `kafkalog.compression`'s limit), which it could not hold.
    `repeated`: the constant columns made so far by walks of the same segment with the same options (the byte
    ranges of one segment a read on threads cuts it into share them: made once, not once a range); None: new ones.
    The fast path is the compiled engine's (`kafkalog.fast.compiled`); where it was not built, every entry is
    decoded by the object path.
    """
    limit = max_decompressed_bytes if max_decompressed_bytes is not None else compression_limit()
    options = WalkOptions(scanner.name, topic, partition, limit, records, columns, record_columns_only,
                          stream_bytes=limit if whole_batches else min(limit, streamed_batch.WINDOW_BYTES),
                          repeated=repeated if repeated is not None else Repeated())
    walker = _EntryWalker(options, table_rows or fast_v2.TABLE_ROWS)
    object_path = object_path or not compiled.AVAILABLE
    # (without the engine, the scanner reads one entry header at a time)
    chunk_scan: ChunkScan | None = compiled.scan_entries if compiled.AVAILABLE else None
    try:
        for chunk, base, entries in scanner.entries(start, chunk_scan):
            if object_path:
                yield from walker.object_path_chunk(chunk, base, entries)
            else:
                yield from walker.chunk(chunk, base, entries)
    finally:
        walker.batches.close()


@dataclass(slots=True)
class _Plain:
    """Uncompressed legacy messages waiting to become rows together: their columns of the chunk's message table."""

    messages: np.ndarray
    columns: list[int] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def clear(self) -> None:
        self.columns, self.positions, self.sizes = [], [], []

    def add(self, column: int, position: int, size: int) -> None:
        self.columns.append(column)
        self.positions.append(position)
        self.sizes.append(size)


#: No entries (a chunk without legacy messages).
_NONE = np.empty(0, dtype=np.int64)


class _EntryWalker:
    """Hands each entry of a chunk to its decoder, in file order, into runs."""

    def __init__(self, options: WalkOptions, table_rows: int):
        self.options = options
        self.batches = fast_v2.BatchWalker(options, table_rows)

    def chunk(self, chunk: bytes | memoryview, base: int, entries: np.ndarray) -> Iterator[Run]:
        buf = np.frombuffer(chunk, dtype=np.uint8)
        magics = entries[:, ENTRY_MAGIC]
        if (magics == 2).all():  # the usual chunk, of v2 batches only: each entry is its own header's row
            v2 = column = np.arange(len(entries))  # (each entry's column in its table: headers or messages)
            legacy = _NONE
            errors = np.empty(len(entries), dtype=np.int64)
            header_rows = compiled.parse_batch_headers(buf, entries, errors)  # a batch's header is a row
        else:
            v2 = np.flatnonzero(magics >= 2)
            errors = np.empty(len(v2), dtype=np.int64)
            header_rows = compiled.parse_batch_headers(buf, entries[v2], errors)
            legacy = np.flatnonzero(magics < 2)
            column = np.empty(len(entries), dtype=np.int64)
            column[v2] = np.arange(len(v2))
            column[legacy] = np.arange(len(legacy))
        headers = header_rows.T
        messages, message_errors = compiled.parse_legacy_entries(buf, entries, legacy)
        # Spans of consecutive batches taken in bulk (magic 2, a header that parses): kind 1 uncompressed,
        # 2 compressed; kind 0 entries are taken one by one.
        kind = np.zeros(len(entries), dtype=np.int8)
        bulk = (errors == 0) & (magics[v2] == 2)
        if self.options.records:
            kind[v2[bulk]] = np.where(headers[k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION, bulk] == NONE, 1, 2)
        else:
            kind[v2[bulk]] = 1
        cuts = (np.flatnonzero(np.diff(kind)) + 1).tolist()

        group = Group()
        plain = _Plain(messages)
        run = RunBuilder()
        view = memoryview(chunk)
        for a, b in zip([0, *cuts], [*cuts, len(entries)], strict=True):
            if kind[a] == 0:
                for e in range(a, b):
                    pos, length, magic = entries[e].tolist()
                    if magic < 2:
                        yield from self.batches.walk(group, run)
                        self._legacy_entry(buf, view, chunk, plain, run, pos, base, length, magic, int(column[e]),
                                           message_errors)
                        if run.full and not plain.columns:  # (a chunk of wrappers: as `record_batch` hands out runs)
                            yield run.finish()
                        continue
                    self._flush_plain(buf, plain, run)
                    yield from self.batches.walk(group, run)
                    h = int(column[e])
                    if errors[h] != 0:
                        # A header that does not parse: the object path says why.
                        decode_on_object_path(self.options, run, bytes(chunk[pos:pos + LOG_OVERHEAD + length]),
                                              base + pos, magic)
                    else:
                        # Magic above 2: read as a v2 batch, with the damage said.
                        yield from self.batches.batches(buf, view, base, entries[e:e + 1], header_rows[h:h + 1], group,
                                                 run, [record_batch.magic_damage(magic, self.options.path, base + pos)])
                continue
            self._flush_plain(buf, plain, run)
            h = int(column[a])
            yield from self.batches.plain_batches(buf, view, base, entries[a:b], header_rows[h:h + b - a], group,
                                                  run)
        yield from self.batches.walk(group, run)
        self._flush_plain(buf, plain, run)
        if run.count:
            yield run.finish()

    def _legacy_entry(self, buf, view, chunk, plain, run, pos, base, length, magic, m, message_errors) -> None:
        end = pos + LOG_OVERHEAD + length
        position = base + pos
        entry = plain.messages[:, m]
        if message_errors[m] != 0 or not fast_legacy.crc_matches(view, pos, end, entry):
            self._flush_plain(buf, plain, run)
            decode_on_object_path(self.options, run, bytes(chunk[pos:end]), position, magic)
        elif not self.options.records or int(entry[fast_legacy.CODEC]) == NONE:
            plain.add(m, position, LOG_OVERHEAD + length)
        else:
            self._flush_plain(buf, plain, run)
            self._wrapper(view, run, entry, position, LOG_OVERHEAD + length, bytes(chunk[pos:end]), magic)

    def _flush_plain(self, buf: np.ndarray, plain: _Plain, run: RunBuilder) -> None:
        """Uncompressed legacy messages waiting in `plain`: one record each (none when reading headers only)."""
        if not plain.columns:
            return
        table = plain.messages[:, plain.columns]
        if self.options.records and self.options.columns:
            rows = fast_legacy.plain_rows(buf, table, plain.positions, self.options)
            self.options.keep(run, rows)
        elif self.options.records:
            run.add_rows(len(plain.columns))
        for i, (position, size) in enumerate(zip(plain.positions, plain.sizes, strict=True)):
            entry = table[:, i]
            start, end = run.assign(1 if self.options.records else 0)
            run.add_item(Item(position, size, int(entry[fast_legacy.MAGIC]), int(entry[fast_legacy.OFFSET]), start,
                              end, header=entry))
        plain.clear()

    def _wrapper(self, view, run, entry, position, size, raw: bytes, magic: int) -> None:
        found = fast_legacy.wrapper_rows(view, entry, position, self.options)
        if found is None:
            decode_on_object_path(self.options, run, raw, position, magic)
            return
        table, base_offset = found
        run.held += table.nbytes
        if self.options.columns:
            self.options.keep(run, table)
        else:
            run.add_rows(table.num_rows)
        start, end = run.assign(table.num_rows)
        run.add_item(Item(position, size, magic, base_offset, start, end, header=entry))

    def object_path_chunk(self, chunk: bytes | memoryview, base: int, entries: np.ndarray) -> Iterator[Run]:
        for pos, length, magic in entries.tolist():
            run = RunBuilder()
            decode_on_object_path(self.options, run, bytes(chunk[pos:pos + LOG_OVERHEAD + length]), base + pos,
                                  magic)
            yield run.finish()
