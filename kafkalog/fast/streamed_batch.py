"""A v2 batch whose records decompress past `max_decompressed_bytes`, read as Kafka reads it: as a stream.

Specs: `kafka_record_batch.ksy` and `kafka_record.ksy`, through the same compiled walk as
`kafkalog.fast.record_batch` (the engine's `walk`), over a window of the decompressed records at a time.
Twin: the object path's `kafkalog.formats.record_batch`, which holds a batch's records whole and so refuses
one past the limit.

Kafka's reader streams such a batch and returns every record; a small batch can so hold 40 million. Here
the codec's output (`kafkalog.compression.stream`) fills a window of `WINDOW_BYTES` (less when the limit is
lower); the engine walks the records in it, and a record cut at the window's end is walked again at the
start of the next window. A record parses the same in any window that holds it whole, since its length
bounds it; one that does not parse with more bytes after it, up to the batch's end or the limit, is damage,
worded as when the batch is read whole. The rows go out in parts of at most a table each
(`Item.part`, `Item.more`), so memory is bounded by the window and a table, whatever the count.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog._generated.kafka_record import KafkaRecord
from kafkalog.compression import stream
from kafkalog.errors import DamagedDataError, DecompressionError, DecompressionLimitError
from kafkalog.fast import compiled, walk_codes
from kafkalog.fast.options import WalkOptions
from kafkalog.fast.record_groups import Group, Sections
from kafkalog.fast.runs import Item, Run, RunBuilder
from kafkalog.formats import record_batch


class Walker(Protocol):
    """What a window's walk takes from the walker of whole batches (`kafkalog.fast.record_batch.BatchWalker`)."""

    options: WalkOptions
    table_rows: int  # rows of one walk at most

    def columns(self, batch_headers: np.ndarray, group: Group, walked) -> pa.RecordBatch: ...

    def controls_only(self, batch_headers: np.ndarray, group: Group, walked) -> None: ...

    def kaitai_record(self, group: Group, s: int) -> KafkaRecord: ...

    def parse_damage(self, group: Group, s: int, index: int, count: int, position: int) -> DamagedDataError: ...


#: Decompressed bytes walked at a time (at most the limit).
WINDOW_BYTES = 4 * 1024 * 1024
_NO_CAP = 1 << 62


class StreamedBatch:
    """One batch past the limit: its codec's output a window at a time, walked into parts of runs."""

    def __init__(self, walker: Walker, data: memoryview, batch_headers: np.ndarray, position: int, size: int,
                 magic: int, damage: list[DamagedDataError]):
        self.walker = walker
        self.options = walker.options
        # The batch's header as a table of one row: a group of one section.
        self.batch_headers = np.ascontiguousarray(batch_headers.reshape(1, -1))
        self.batch_header = self.batch_headers[0].tolist()
        self.position, self.size, self.magic = position, size, magic
        self.count = self.batch_header[k.KAFKA_RECORD_BATCH__NUM_RECORDS]
        self.window = max(1, min(self.options.limit, WINDOW_BYTES))
        self.pieces = stream(self.batch_header[k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION], data, 2,
                             self.options.limit)
        self.buffer = np.empty(0, dtype=np.uint8)
        self.filled = 0  # bytes of the window in `buffer`
        self.ended = False  # the codec's output is all in the window (or past the limit)
        self.error: DecompressionError | None = None  # the damage that ended it, if any
        self.before = 0  # records of the batch parsed in earlier windows
        self.parsed = 0  # records of the batch in the parts handed out
        self.cap = _NO_CAP  # no record at or past this index is handed out (known while walking)
        self.part = 0
        self.first_damage = damage  # known before the records (a CRC): on the first part
        self.walked: Any = None  # the last walk's rows (`engine.Walked`)
        #: The (record index, offset, type) of its control records (without columns), and their damage.
        self.controls: list[tuple[int, int, str]] = []
        self.control_damage: list[tuple[int, DamagedDataError]] = []

    def read(self, run: RunBuilder) -> Iterator[Run]:
        """The batch's records into `run`, in parts; the run is handed out after each part."""
        want = self.window
        while True:
            self._fill(want)
            remaining = self.count - self.before
            n = min(self.filled, want)  # (a codec's piece may bring more: it waits for the next window)
            final = self.ended and n == self.filled
            group = Group()
            group.add(self.batch_headers, np.array([self.position]), np.array([self.size]), np.array([self.magic]),
                      np.zeros(1, dtype=np.int64), np.array([n]), {}, {}, None)
            group.seal()
            group.buffer = self.buffer[:n]
            sections = group.sections = Sections.of(group)
            sections.count[0] = remaining
            sections.partial[0] = 1 if final and self.error is not None else 0
            state = np.array([0, 0, 0], dtype=np.int64)
            while True:
                why, self.walked = compiled.walk(group.buffer, sections, state, self.batch_headers,
                                                 self.walker.table_rows, not self.options.columns)
                nrows = self.walked.rows
                if why == walk_codes.WALK_DONE:
                    break
                table = self._rows(group, nrows)
                if sections.trailing_at[0] >= 0:
                    # What decompressed before damage has a record with bytes after its last header: no record
                    # from it on is handed out.
                    self.cap = min(self.cap, self.before + int(sections.trailing_at[0]))
                yield from self._part(run, table, nrows, self.cap, [], more=True)
            good, err, err_pos = int(sections.good[0]), int(sections.err[0]), int(sections.err_pos[0])
            cut = err not in (0, walk_codes.BODY_TRAILING, walk_codes.SECTION_TRAILING) and good < remaining
            if cut and not final:
                # The record at err_pos may only be cut by the window's end: walk it again with more bytes after it.
                yield from self._part(run, self._rows(group, nrows), nrows, self.cap, [], more=True)
                self.before += good
                held = n - err_pos
                want = self.window if held < self.window else 2 * held  # (a record longer than a window)
                if want > self.options.limit:
                    # No window the limit allows holds more of it: it does not parse, as far as the limit goes.
                    damage = self.walker.parse_damage(group, 0, self.before, self.count, self.position)
                    limited = DecompressionLimitError(
                        f"{damage.message}, in the {self.options.limit} bytes the max_decompressed_bytes limit lets "
                        "one record take", path=damage.path, position=damage.position)
                    yield from self._last(run, None, 0, self.before, self.before, [limited])
                    return
                self._keep_from(err_pos)
                continue
            if err == 0 and good == remaining and not final:
                self._fill(n + 1)  # the declared records end at the window's end: do bytes follow?
                final = self.ended and self.filled == n
            extra = 0 if final else self._drain(n)
            if err == 0 and extra and self.error is None:
                # Bytes follow the declared records, past this window: the walk of the whole batch says so.
                sections.err[0], sections.err_pos[0] = walk_codes.SECTION_TRAILING, n
                err, err_pos = walk_codes.SECTION_TRAILING, n
            table = self._rows(group, nrows)
            yield from self._last(run, table, nrows, *self._end(group, good, err, err_pos, extra))
            return

    # -- the window -------------------------------------------------------------------------------------------

    def _fill(self, want: int) -> None:
        """Decompress until the window holds `want` bytes or the batch's output ends."""
        while not self.ended and self.filled < want:
            try:
                piece = next(self.pieces)
            except StopIteration:
                self.ended = True
                break
            except DecompressionError as exc:
                self.ended, self.error = True, exc
                break
            end = self.filled + len(piece)
            if end > len(self.buffer):
                grown = np.empty(max(end, 2 * len(self.buffer), self.window + (1 << 20)), dtype=np.uint8)
                grown[:self.filled] = self.buffer[:self.filled]
                self.buffer = grown
            self.buffer[self.filled:end] = np.frombuffer(piece, dtype=np.uint8)
            self.filled = end

    def _keep_from(self, start: int) -> None:
        """Keep the window from `start` (a record cut at its end) for the next."""
        rest = self.filled - start
        self.buffer[:rest] = self.buffer[start:self.filled].copy()
        self.filled = rest

    def _drain(self, n: int) -> int:
        """The bytes the batch's output has after the window's first `n`, read to its end to learn whether it
        ends in damage (only counted, and at most the limit); the window is left as it is."""
        extra = self.filled - n
        while not self.ended:
            try:
                extra += len(next(self.pieces))
            except StopIteration:
                self.ended = True
            except DecompressionError as exc:
                self.ended, self.error = True, exc
            else:
                if extra > self.options.limit:
                    self.ended, self.error = True, DecompressionLimitError(
                        f"the bytes after the {self.count} records the batch declares decompress to more than "
                        f"{self.options.limit} (the max_decompressed_bytes limit)")
        return extra

    # -- rows and parts ---------------------------------------------------------------------------------------

    def _rows(self, group: Group, nrows: int) -> pa.Table | None:
        """The last walk's rows as a table (with columns; else their control records are noted)."""
        table = None
        if nrows and self.options.columns:
            table = pa.Table.from_batches([self.walker.columns(self.batch_headers, group, self.walked)])
        elif nrows:
            self.walker.controls_only(self.batch_headers, group, self.walked)
            self.controls += [(self.before + i, offset, kind) for i, offset, kind in group.controls.pop(0, [])]
        self.control_damage += [(self.before + i, d) for i, d in group.control_damage.pop(0, [])]
        group.walked.rows[0] += nrows  # (after: a control record's index in the window counts the rows before it)
        return table

    def _part(self, run: RunBuilder, table: pa.Table | None, rows: int, upto: int, damage: list[DamagedDataError],
              more: bool) -> Iterator[Run]:
        """A table of the batch's rows, of which those before record `upto` are handed out."""
        if table is not None:
            run.add_table(table)
        else:
            run.add_rows(rows)
        first = self.parsed
        self.parsed += rows
        if not self.options.columns:
            return  # one item at the end holds every record: no rows are held here
        if self.part == 0:
            damage = self.first_damage + damage
        start, _ = run.assign(rows)
        emitted = max(0, min(rows, upto - first))
        base_offset = self.batch_header[k.KAFKA_RECORD_BATCH__BASE_OFFSET]
        run.add_item(Item(self.position, self.size, self.magic, base_offset, start, start + emitted, damage,
                          header=self.batch_header, part=self.part, more=more))
        self.part += 1
        yield run.finish()

    def _last(self, run: RunBuilder, table: pa.Table | None, rows: int, emitted: int, examined: int,
              damage: list[DamagedDataError]) -> Iterator[Run]:
        """The last part: the records before `emitted` handed out, and the batch's damage; control damage of the
        records before `examined` comes first."""
        damage = [d for i, d in self.control_damage if i < examined] + damage
        yield from self._part(run, table, rows, min(emitted, self.cap), damage, False)
        if self.options.columns:
            return
        start, _ = run.assign(self.parsed)
        controls = [(offset, kind) for i, offset, kind in self.controls if i < emitted]
        base_offset = self.batch_header[k.KAFKA_RECORD_BATCH__BASE_OFFSET]
        run.add_item(Item(self.position, self.size, self.magic, base_offset, start, start + min(emitted, self.cap),
                          self.first_damage + damage, header=self.batch_header, controls=controls))

    def _end(self, group: Group, good: int, err: int, err_pos: int, extra: int
             ) -> tuple[int, int, list[DamagedDataError]]:
        """How the batch ends, as `BatchWalker._finish_section` says it of a batch read whole: (records handed
        out, records whose control keys count, damage)."""
        path, position, count = self.options.path, self.position, self.count
        rows = self.before + good  # records parsed
        if self.error is not None:
            # What decompressed before the damage: its records, less the last declared one.
            if err == walk_codes.BODY_TRAILING:
                # Walked as sound data, it stopped at a record with bytes after its last header; read whole
                # (as data cut by damage), the records after it would have been walked, and it would still be
                # the first such record: the last declared one is withheld anyway.
                if rows == count - 1:
                    return rows, rows, [self.error.with_location(path, position)]
                return rows, rows, [self._trailing_damage(group, rows)]
            emitted = rows - 1 if count and rows == count else rows
            rel = int(group.walked.trailing_at[0])
            if rel >= 0 and self.before + rel < emitted:
                return self.before + rel, self.before + rel, [self._trailing_damage(group, self.before + rel)]
            return emitted, emitted, [self.error.with_location(path, position)]
        if err == walk_codes.SECTION_TRAILING:
            trailing = group.sealed_buffer.size - err_pos + extra
            return rows - 1 if rows else 0, rows, [record_batch.declared_count_damage(
                trailing, count, group.offset_of_last.get(0) if rows else None, path, position)]
        if err == walk_codes.BODY_TRAILING:
            return rows, rows, [self._trailing_damage(group, rows)]
        if err != 0:
            return rows, rows, [self.walker.parse_damage(group, 0, rows, count, position)]
        return rows, rows, []

    def _trailing_damage(self, group: Group, index: int) -> DamagedDataError:
        rec = self.walker.kaitai_record(group, 0)
        return record_batch.record_trailing_damage(index, len(rec.body.trailing), rec.len_body.value, self.options.path,
                                                   self.position)
