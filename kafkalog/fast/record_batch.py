"""v2 record batches into Arrow columns by the compiled engine: the fast path's twin of
`kafkalog.formats.record_batch`.

Specs: `kafka_record_batch.ksy`, `kafka_record.ksy` and `kafka_control_record.ksy`, through the
parsers `parse_kafka_record_batch`, `parse_kafka_record`, `parse_kafka_record__header` and
`parse_kafka_control_record` (`generated/kafka_kernels.pxi`), driven by `kafkalog.fast.engine`.

The CRC-32C of many batches in one compiled call, and their compressed records (LZ4, zstd, snappy or gzip)
decompressed in one (`kafkalog.fast.compression`; what it does not take, one `kafkalog.compression` call per
batch) into one output buffer reused by groups of about 4 MiB of records;
then the engine's `walk` parses every record of a group in one compiled call, with Kafka's offset, timestamp
and sequence rules, into Arrow's buffers. A group of plain batches without damage or control batch (the usual
one) is decoded, walked and made into its record batch by the engine, its batches added to the run in bulk
(`BatchWalker._usual`): Python touches it once. Its batches may be of several producers (their ids, epochs,
transactional flags, leader epochs and timestamp types differing): the engine repeats each batch's values over
its rows.
Damage the engine finds (a record that does not parse, bytes after a record or after the declared records, a
control key that does not parse) is worded by
`kafkalog.formats.record_batch`, and the record that does not parse is shown to the Kaitai parser to say what
is wrong with it, so both paths give the same rows and the same damage.
"""
from __future__ import annotations

import operator
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog._generated.kafka_control_record import KafkaControlRecord
from kafkalog._generated.kafka_record import KafkaRecord
from kafkalog.checksums import V2_CRC_START
from kafkalog.compression import NONE, Output, declared_size, decompress_into
from kafkalog.entries import ENTRY_LENGTH, ENTRY_MAGIC, ENTRY_POS, give_back, pooled_buffer
from kafkalog.errors import DamagedDataError, DecompressionError, DecompressionLimitError
from kafkalog.fast import (
    arrays,
    compiled,
    compression as fast_compression,
    message_set as fast_legacy,
    streamed_batch,
    walk_codes,
)
from kafkalog.fast.columns import RECORD_SCHEMA, SCHEMA
from kafkalog.fast.options import WalkOptions
from kafkalog.fast.record_groups import GROUP_BYTES, Group, Sections
from kafkalog.fast.runs import Item, Run, RunBuilder
from kafkalog.fast.streamed_batch import StreamedBatch
from kafkalog.formats import record_batch
from kafkalog.formats.framing import LOG_OVERHEAD
from kafkalog.formats.parse_errors import PARSE_ERRORS

#: Record rows of one walk before the rows so far are turned into Arrow.
TABLE_ROWS = (1 << 15) + 61

CONTROL_NAMES = [t.name.upper() for t in sorted(KafkaControlRecord.ControlType, key=lambda t: t.value)]
_CONTROL_CODES = {t.value: i for i, t in enumerate(sorted(KafkaControlRecord.ControlType, key=lambda t: t.value))}
_CONTROL_NAMES = arrays.strings([*CONTROL_NAMES, "UNKNOWN"])
_INT64, _INT32 = pa.int64(), pa.int32()
# (made once: a schema's fields and names are new Python objects each time they are asked for)
_HEADER_STRUCT = SCHEMA.field("headers").type.value_type
_NAMES, _RECORD_NAMES = SCHEMA.names, RECORD_SCHEMA.names
_IS_CONTROL = k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL
#: The header fields the batch-level columns are made from.
_BATCH_FIELDS = [k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION,
                 k.KAFKA_RECORD_BATCH__PRODUCER_ID, k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH,
                 k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL, _IS_CONTROL,
                 k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH]
_batch_fields = operator.itemgetter(*_BATCH_FIELDS)
#: Every header field the same in all batches (what `_constant_columns` is made for).
_UNIFORM = [True] * k.KAFKA_RECORD_BATCH__WIDTH
#: The columns whose values are the same on all the rows of a usual walk: made once for those values
#: (`_constant_columns`) and sliced; a usual group's others are the engine's (`compiled.GROUP_COLUMNS`).
_CONSTANT_NAMES = [name for name in _NAMES if name == "control_type"
                   or name not in (*compiled.GROUP_COLUMNS, "batch_position")]
_CONSTANT_INDEX = {name: i for i, name in enumerate(_CONSTANT_NAMES)}


def _layout(schema: pa.Schema, differs: int = 0, controls: bool = False) -> list[int]:
    """Where each column of `schema` comes from in a usual group's record batch (`engine.Group.record_batch`): the
    batch-level columns that differ between its batches (`differs`, bit j for `compiled.BATCH_COLUMNS[j]`) made per
    batch by the engine, `control_type` made by the engine where the group has control batches (`controls`), the
    others sliced from the constants."""
    per_batch = [name for j, name in enumerate(compiled.BATCH_COLUMNS) if differs & (1 << j)]
    made = [name for name in compiled.GROUP_COLUMNS if controls or name != "control_type"]
    return [-1 - compiled.GROUP_COLUMNS.index(name) if name in made else
            -1 - len(compiled.GROUP_COLUMNS) - compiled.BATCH_COLUMNS.index(name) if name in per_batch else
            _CONSTANT_INDEX[name] for name in schema.names]


#: A usual group's layout of the record columns only, without and with control batches.
_RECORD_LAYOUTS = [_layout(RECORD_SCHEMA, 0, controls) for controls in (False, True)]
#: A usual group's layout, without and with control batches, by which batch-level columns differ
#: (`engine.Group.differs`).
_LAYOUTS = [[_layout(SCHEMA, differs, controls) for differs in range(1 << len(compiled.BATCH_COLUMNS))]
            for controls in (False, True)]
#: The names of the timestamp types by their code (`engine.Group.record_batch`'s per-batch `timestamp_type`).
_TIMESTAMP_TYPE_NAMES = tuple(name.encode() for name in fast_legacy.TIMESTAMP_TYPES.to_pylist())
#: The names of the control types by their id, UNKNOWN last: any other id (`engine.Group.record_batch`'s
#: `control_type`; Kafka's `ControlRecordType.parse`).
_CONTROL_TYPE_NAMES = (*((KafkaControlRecord.ControlType(i).name.upper() if i in _CONTROL_CODES else "UNKNOWN").encode()
                          for i in range(max(_CONTROL_CODES) + 1)), b"UNKNOWN")
#: Whether a usual group whose batches' fields differ (`engine.Group.differs`) is made into its record batch by the
#: engine; off, it is walked as a group that is not usual (what tests hold the engine's columns to).
MIXED_GROUPS = True
#: Whether a usual group with control batches (`engine.Group.control_batches`: a transaction's markers) is made into
#: its record batch by the engine; off, it is walked as a group that is not usual (what tests hold it to).
CONTROL_GROUPS = True


class BatchWalker:
    """Walks groups of v2 batches into the runs of a `kafkalog.fast.segment` walk."""

    def __init__(self, options: WalkOptions, table_rows: int):
        self.options = options
        #: Rows of one walk at most.
        self.table_rows = table_rows
        # Where compressed batches are decompressed, one after the other, reused from group to group.
        self.output = Output()
        # Where the engine decompresses a group of plain compressed batches (`plain_batches`), made when needed.
        self._decompressed: np.ndarray | None = None
        self._raw: bytearray | None = None  # (what `_decompressed` views)
        self._no_output = np.empty(0, dtype=np.uint8)
        self._ratio = 1.0  # decompressed bytes per compressed byte in the last compressed group
        # The last usual group's constant columns as the engine has them (`engine.Constants`) and their values: the
        # next group's, as a rule (the walker's own, the `Repeated` lookups skipped).
        self._exported = None
        self._exported_key: tuple | None = None

    def batches(self, buf: np.ndarray, view: memoryview, base: int, entries: np.ndarray, batch_headers: np.ndarray,
                 group: Group, run: RunBuilder, magic_damage: list[DamagedDataError] | None = None
                 ) -> Iterator[Run]:
        """v2 batches (`entries`, their headers `batch_headers`) into the group: all uncompressed or all compressed."""
        pos = entries[:, ENTRY_POS]
        size = LOG_OVERHEAD + entries[:, ENTRY_LENGTH]
        position = base + pos
        magic = entries[:, ENTRY_MAGIC]
        # The CRC-32C of each batch, from its attributes to its end.
        crc = compiled.crc32c_each(buf, pos + V2_CRC_START, size - V2_CRC_START)
        damage = {0: list(magic_damage)} if magic_damage else {}
        for i in np.flatnonzero(crc != batch_headers[:, k.KAFKA_RECORD_BATCH__CRC]).tolist():
            damage.setdefault(i, []).append(record_batch.crc_damage(
                int(crc[i]), int(batch_headers[i, k.KAFKA_RECORD_BATCH__CRC]), self.options.path, int(position[i])))
        if not self.options.records:  # headers only
            run.add_batches(position, size, magic, batch_headers, np.zeros(len(batch_headers), dtype=np.int64), damage)
            return
        data_pos = batch_headers[:, k.KAFKA_RECORD_BATCH__RECORDS_DATA__POS]
        data_len = batch_headers[:, k.KAFKA_RECORD_BATCH__RECORDS_DATA__SIZE]
        codecs = batch_headers[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION]
        if codecs[0] == NONE:
            if group.output is not None:
                yield from self.walk(group, run)  # a group's sections are all in the chunk or all decompressed
            # Groups of about GROUP_BYTES of records.
            i = 0
            while i < len(batch_headers):
                j = min(len(batch_headers),
                        i + 1 + int(np.searchsorted(np.cumsum(data_len[i:]), GROUP_BYTES - group.bytes)))
                group.add(batch_headers[i:j], position[i:j], size[i:j], magic[i:j], data_pos[i:j], data_len[i:j],
                          _shifted(damage, i, j), {}, buf)
                if group.bytes >= GROUP_BYTES:
                    yield from self.walk(group, run)
                i = j
            return
        if group.output is None:
            yield from self.walk(group, run)
        group.use(self.output)
        output = self.output
        starts: list[int] = []
        lengths: list[int] = []
        partial: dict[int, DamagedDataError] = {}
        room = min(self.options.stream_bytes, streamed_batch.WINDOW_BYTES)
        codec_list, pos_list, len_list = codecs.tolist(), data_pos.tolist(), data_len.tolist()
        # Where the consecutive batches of each batch's codec end.
        changes = np.flatnonzero(np.diff(codecs)) + 1
        nbatches = len(batch_headers)
        codec_end = np.append(changes, nbatches)[np.searchsorted(changes, np.arange(nbatches), side="right")].tolist()
        i = j = 0
        while j < len(batch_headers):
            # Consecutive compressed batches of one codec (`fast.compression`), up to the first it does not
            # take; that one is read below, one codec call at a time, as every batch is without the engine.
            taken = fast_compression.decompress_batches(codec_list[j], buf, data_pos[j:codec_end[j]],
                                                        data_len[j:codec_end[j]], output, room, GROUP_BYTES)
            for length in taken.tolist():
                starts.append(output.start)
                lengths.append(length)
                output.start += length  # (`decompress_batches` moved `end` past them all)
                j += 1
                if output.start >= GROUP_BYTES or j == len(batch_headers):
                    yield from self._close_compressed(group, run, batch_headers, position, size, magic, starts, lengths,
                                                      damage, partial, buf, i, j)
                    starts, lengths, partial = [], [], {}
                    i = j
            if j == len(batch_headers):
                break
            if len(taken) and i == j:
                continue  # the group was full: the next run goes on in the next group
            codec, p, n = codec_list[j], pos_list[j], len_list[j]
            # A batch whose records decompress past `stream_bytes` (a window, or the limit) is read as a stream, a
            # window at a time, as Kafka reads it. One that says so in its framing is not decompressed first.
            declared = declared_size(codec, view[p:p + n])
            streamed = declared is not None and declared > self.options.stream_bytes
            if not streamed:
                try:
                    decompress_into(codec, view[p:p + n], 2, self.options.stream_bytes, output)
                except DecompressionLimitError:
                    streamed = True
                except DecompressionError as exc:
                    # The records that decompressed before the damage are handed out, as Kafka's streams do.
                    partial[j - i] = exc
            if streamed:
                # After the batches before it are walked.
                if j > i:
                    group.add(batch_headers[i:j], position[i:j], size[i:j], magic[i:j],
                              np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64),
                              _shifted(damage, i, j), partial, buf)
                yield from self.walk(group, run)
                yield from StreamedBatch(self, view[p:p + n], batch_headers[j], int(position[j]), int(size[j]),
                                         int(magic[j]), damage.get(j, [])).read(run)
                group.use(output)
                starts, lengths, partial = [], [], {}
                j += 1
                i = j
                continue
            starts.append(output.start)
            lengths.append(len(output))
            output.next()
            j += 1
            if output.end >= GROUP_BYTES or j == len(batch_headers):
                yield from self._close_compressed(group, run, batch_headers, position, size, magic, starts, lengths,
                                                  damage, partial, buf, i, j)
                starts, lengths, partial = [], [], {}
                i = j

    def plain_batches(self, buf: np.ndarray, view: memoryview, base: int, entries: np.ndarray,
                      batch_headers: np.ndarray, group: Group, run: RunBuilder) -> Iterator[Run]:
        """v2 batches whose headers parsed (magic 2; `entries`, their headers `batch_headers`): a group of plain
        ones at a time in one call of the engine (`decode_group`: headers, CRC-32C, decompression, the walk into
        Arrow's buffers, without the GIL), wrapped once; the batch that stops a group (damage, a batch past a
        window) and the codecs the engine does not take are read by `batches`, as before."""
        if not self.options.records:
            yield from self.batches(buf, view, base, entries, batch_headers, group, run)
            return
        pos = np.ascontiguousarray(entries[:, ENTRY_POS])
        size = LOG_OVERHEAD + entries[:, ENTRY_LENGTH]
        # (each batch's file position and magic, once for all the groups: sliced for each)
        positions, magics = base + pos, entries[:, ENTRY_MAGIC]
        codecs = batch_headers[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION]
        n = len(entries)
        # Where each batch's records end, counted from the first's start (one pass, not one per group).
        data_ends = np.cumsum(batch_headers[:, k.KAFKA_RECORD_BATCH__RECORDS_DATA__SIZE])
        # (a batch that decompresses past GROUP_BYTES is read by `batches`, which holds it whole or streams it)
        room = min(self.options.stream_bytes, streamed_batch.WINDOW_BYTES, GROUP_BYTES)
        i = 0
        while i < n:
            codec = int(codecs[i])
            if codec not in compiled.GROUP_CODECS:
                # The batches of this codec, up to the next codec: today's path, in bulk.
                changed = np.flatnonzero(codecs[i:] != codec)
                j = i + int(changed[0]) if len(changed) else n
                yield from self.batches(buf, view, base, entries[i:j], batch_headers[i:j], group, run)
                i = j
                continue
            if group.count or group.output is not None:
                yield from self.walk(group, run)  # (what today's path holds goes out first)
            if codec == NONE:
                # Groups of about GROUP_BYTES of records, walked in place in the chunk.
                j = _group_end(data_ends, i, GROUP_BYTES)
                found = compiled.decode_group(buf, pos[i:j], size[i:j], self._no_output, room, self.table_rows,
                                              GROUP_BYTES, not self.options.columns)
                walked_buf = buf
            else:
                # Decompressed one after the other until GROUP_BYTES are held (a batch fits after that). The engine
                # checks the headers and CRCs of all the batches it is given first: given about a group's worth, by
                # the last group's compression ratio, not the rest of the span each time.
                j = _group_end(data_ends, i, 1.25 * GROUP_BYTES / self._ratio)
                walked_buf = self._group_output()
                found = compiled.decode_group(buf, pos[i:j], size[i:j], walked_buf, room, self.table_rows,
                                              GROUP_BYTES, not self.options.columns)
            taken, full = found.taken, found.full
            if taken and codec != NONE:
                compressed = int(batch_headers[i:i + taken, k.KAFKA_RECORD_BATCH__RECORDS_DATA__SIZE].sum())
                run.held += int(found.columns[1, taken - 1])
                self._ratio = max(1.0, int(found.columns[1, taken - 1]) / max(compressed, 1))
            if taken and found.usual and (MIXED_GROUPS or not found.differs) and (
                    CONTROL_GROUPS or not found.control_batches):
                self._usual(found, positions[i:i + taken], size[i:i + taken], magics[i:i + taken], run)
                found = None  # (its buffers go back to the engine's pool when not wrapped)
                i += taken
                if run.full:
                    yield run.finish()
            elif taken:
                _take(group, found, positions[i:i + taken], size[i:i + taken], magics[i:i + taken], walked_buf)
                # (only the group holds the walk's buffers, which it lets go as soon as their rows are in the run:
                # held here too, each group's would be new memory, page-faulted in again, not the last group's)
                found = None
                yield from self.walk(group, run)
                i += taken
            if i < n and i < j and not full and codecs[i] == codec:
                # Not a plain batch (damage, or records past a window): today's path says what it is.
                yield from self.batches(buf, view, base, entries[i:i + 1], batch_headers[i:i + 1], group, run)
                i += 1

    def _usual(self, found, positions: np.ndarray, sizes: np.ndarray, magics: np.ndarray, run: RunBuilder) -> None:
        """A group `decode_group` took whole and found usual (`engine.Group.usual`: no damage, every control key
        known, the walk done): its rows wrapped once, as one record batch made from the walk's buffers, the
        batch-level columns that differ between its batches (`engine.Group.differs`, made per batch by the engine),
        its control records' types (made by the engine) and the constant columns (or, without columns, counted),
        and its batches, all whole ones, added in bulk (without columns, a control batch as an item with its control
        records, `_control_items`); as `walk` has them, without the bookkeeping of a group."""
        controls = found.control_batches != 0
        if found.rows:
            if self.options.columns:
                key = found.key
                exported = self._exported
                if exported is None or key != self._exported_key or exported.batch.num_rows < found.rows:
                    constant = self.options.repeated.batch(key, found.rows, self._constant_columns, self.table_rows)
                    # (once per set of values, not per group, nor per byte range of a read on threads)
                    exported = self._exported = self.options.repeated.exported(key, constant, compiled.constants)
                    self._exported_key = key
                run.add_batch(found.record_batch(
                    exported, _RECORD_LAYOUTS[controls] if self.options.record_columns_only
                    else _LAYOUTS[controls][found.differs],
                    RECORD_SCHEMA if self.options.record_columns_only else SCHEMA, positions, _TIMESTAMP_TYPE_NAMES,
                    _CONTROL_TYPE_NAMES))
            else:
                run.add_rows(found.rows)
                if controls:
                    _control_items(found, positions, sizes, magics, run)
                    return
        run.add_batches(positions, sizes, magics, found.headers, found.columns[4])

    def _group_output(self) -> np.ndarray:
        """The buffer compressed groups are decompressed into by the engine, reused from group to group (a group
        holds GROUP_BYTES and one batch of at most GROUP_BYTES more)."""
        if self._decompressed is None:
            # (kept from walker to walker: a read on threads makes one a byte range, and fresh memory would be
            # page-faulted in again for each)
            self._raw = pooled_buffer(2 * GROUP_BYTES)
            self._decompressed = np.frombuffer(self._raw, dtype=np.uint8)
        return self._decompressed

    def close(self) -> None:
        """Let go of the buffer compressed groups were decompressed into, for the next walker (and of the constant
        columns)."""
        self._exported = self._exported_key = None
        raw, self._raw, self._decompressed = self._raw, None, None
        if raw is not None:
            give_back(raw)

    def _close_compressed(self, group: Group, run: RunBuilder, batch_headers, position, size, magic, starts: list[int],
                          lengths: list[int], damage: dict, partial: dict, buf: np.ndarray, i: int, j: int
                          ) -> Iterator[Run]:
        """Compressed batches [i, j), decompressed, into the group; walked when the group is full."""
        group.add(batch_headers[i:j], position[i:j], size[i:j], magic[i:j], np.array(starts, dtype=np.int64),
                  np.array(lengths, dtype=np.int64), _shifted(damage, i, j), partial, buf)
        if self.output.end >= GROUP_BYTES:
            run.held += self.output.end
            yield from self.walk(group, run)
            group.use(self.output)

    # -- walking the records of a group of batches --------------------------------------------------------------

    def walk(self, group: Group, run: RunBuilder) -> Iterator[Run]:
        """The records of the group's batches into the run, and each batch's item. For what `decode_group` took
        (`_take`), the group's `first` walk is the engine's, done."""
        if not group.count:
            group.clear()  # (it may have been readied for compressed batches that did not come)
            return
        first, group.first = group.first, None
        if first is None:
            group.seal()
            group.sections = Sections.of(group)
            state = np.array([0, group.walked.pos[0], 0], dtype=np.int64)
        else:
            state = first[2]
        buf, batch_headers = group.sealed_buffer, group.batch_headers
        sections = group.walked
        finished = 0  # sections whose items are in the run
        while True:
            if first is not None:
                why, walked, _state = first
                first = None
            else:
                why, walked = compiled.walk(buf, sections, state, batch_headers, self.table_rows,
                                            not self.options.columns)  # (without columns: checked, not copied)
            if walked.rows:
                # Rows so far: every record of the sections done, and those of the one the walk stopped in.
                rows = sections.good.copy()
                if why == walk_codes.WALK_FULL and state[0] < group.count:
                    rows[state[0]] = state[2]
                if self.options.columns:
                    lo, hi = int(walked.row_section[0]), int(walked.row_section[-1]) + 1
                    counts = rows[lo:hi] - sections.rows[lo:hi]
                    run.add_batch(self.columns(batch_headers, group, walked, counts))
                else:
                    self.controls_only(batch_headers, group, walked)
                    run.add_rows(walked.rows)
                sections.rows = rows
            done_upto = int(state[0])
            # The sections done: plain ones (the usual) in bulk, the others one by one.
            errs = sections.err[finished:done_upto]
            special = sorted(set((np.flatnonzero(errs) + finished).tolist()).union(
                s for s in (*group.partial, *group.damage, *group.control_damage, *group.controls)
                if finished <= s < done_upto)) if (np.count_nonzero(errs) or group.partial or group.damage
                                                   or group.control_damage or group.controls) else []
            for s in [*special, done_upto]:
                if s > finished:
                    run.add_batches(group.positions[finished:s], group.sizes[finished:s], group.magics[finished:s],
                                    batch_headers[finished:s], sections.rows[finished:s])
                if s < done_upto:
                    self._finish_section(run, group, s)
                finished = s + 1
            finished = done_upto
            if why == walk_codes.WALK_DONE:
                break
            if state[2] == 0 and run.rows >= self.table_rows:
                # At a batch boundary with a table's worth of rows: hand them out.
                yield run.finish()
        group.clear()
        if run.full:
            yield run.finish()

    def _finish_section(self, run: RunBuilder, group: Group, s: int) -> None:
        """The item of section `s`, which is not a plain whole batch: its rows and its damage, in the reference
        path's order and words."""
        sections = group.walked
        position, magic, size = int(group.positions[s]), int(group.magics[s]), int(group.sizes[s])
        batch_header = group.batch_headers[s].tolist()
        rows = int(sections.rows[s])  # records parsed (and in the run's rows)
        err = int(sections.err[s])
        trailing_at = int(sections.trailing_at[s])
        partial = group.partial.get(s)
        count = int(sections.count[s])
        emitted = rows  # records handed out
        examined = rows  # records whose control keys the object path looks at
        failure: DamagedDataError | None = None
        if partial is not None:
            # What decompressed before the damage: the records in it, less the last declared one.
            emitted = examined = rows - 1 if count and rows == count else rows
            if 0 <= trailing_at < emitted:
                rec = self.kaitai_record(group, s)
                failure = record_batch.record_trailing_damage(trailing_at, len(rec.body.trailing), rec.len_body.value,
                                                              self.options.path, position)
                emitted = examined = trailing_at
            else:
                failure = partial.with_location(self.options.path, position)
        elif err == walk_codes.SECTION_TRAILING:
            emitted = rows - 1 if rows else 0
            last = group.offset_of_last.get(s) if rows else None
            failure = record_batch.declared_count_damage(int(sections.end[s] - sections.err_pos[s]), count, last,
                                                         self.options.path, position)
        elif err == walk_codes.BODY_TRAILING:
            rec = self.kaitai_record(group, s)
            failure = record_batch.record_trailing_damage(int(sections.good[s]), len(rec.body.trailing),
                                                          rec.len_body.value, self.options.path, position)
        elif err != 0:
            failure = self.parse_damage(group, s, int(sections.good[s]), count, position)
        damage = list(group.damage.get(s, [])) + [d for i, d in group.control_damage.pop(s, []) if i < examined]
        if failure is not None:
            damage.append(failure)
        found = group.controls.pop(s, None)
        controls = None if found is None else [(offset, kind) for i, offset, kind in found if i < emitted]
        row_start, _row_end = run.assign(rows)
        run.add_item(Item(position, size, magic, batch_header[k.KAFKA_RECORD_BATCH__BASE_OFFSET], row_start,
                          row_start + emitted, damage, header=batch_header, controls=controls))

    def parse_damage(self, group: Group, s: int, index: int, count: int, position: int) -> DamagedDataError:
        try:
            self.kaitai_record(group, s)
        except PARSE_ERRORS as exc:
            return record_batch.record_parse_damage(index, count, exc, self.options.path, position)
        raise AssertionError(f"{self.options.path}: byte {position}: the kernel and the Kaitai parser disagree "
                             f"on record {index}")  # a generator bug, not a property of the data

    @staticmethod
    def kaitai_record(group: Group, s: int) -> KafkaRecord:
        """The record where a section's damage is, read by the Kaitai parser at the same place in the same bytes."""
        sections = group.walked
        io = KaitaiStream(BytesIO(group.sealed_buffer[sections.pos[s]:sections.end[s]].tobytes()))
        io.seek(int(sections.err_pos[s] - sections.pos[s]))
        return KafkaRecord(io)

    # -- Arrow columns of the rows of one walk ------------------------------------------------------------------

    def columns(self, batch_headers: np.ndarray, group: Group, walked, counts: np.ndarray | None = None
                ) -> pa.RecordBatch:
        """The rows of a walk of the compiled engine (`kafkalog.fast.compiled`), whose buffers it built, with the
        batch-level columns; `counts`, the rows of each section from the walk's first, when known."""
        n, rs = walked.rows, walked.row_section
        _note_last_offsets(group, rs, walked.offset)
        first = int(rs[0])
        if counts is None:
            counts = np.bincount(rs - first)
        # Which header fields are the same in every batch of the walk (the usual): one pass for them all.
        section_headers = batch_headers[first:first + len(counts)]
        uniform = np.logical_and.reduce(section_headers == section_headers[0], axis=0).tolist()
        if (section_headers[0, _IS_CONTROL] if uniform[_IS_CONTROL]
                else np.count_nonzero(section_headers[:, _IS_CONTROL])):
            control = self._control_types(walked, group)
        else:
            control = self.options.repeated.column(None, pa.string(), n)
        record_columns = {
            # (the walk's buffers as they are: Arrow's layout already)
            "offset": pa.Array.from_buffers(_INT64, n, [None, pa.py_buffer(walked.offset)]),
            "timestamp": pa.Array.from_buffers(_INT64, n, [None, pa.py_buffer(walked.timestamp)]),
            "sequence": pa.Array.from_buffers(_INT32, n, [None, pa.py_buffer(walked.sequence)]),
            "key": walked.key,
            "value": walked.value,
            "headers": compiled.header_lists(walked, _HEADER_STRUCT),
            "control_type": control,
        }
        return self._record_batch(record_columns, section_headers, uniform, group, first, counts, n)

    def _record_batch(self, record_columns: dict[str, pa.Array], section_headers: np.ndarray, uniform: list[bool],
                      group: Group, first: int, counts: np.ndarray, n: int) -> pa.RecordBatch:
        """The record columns of a walk's rows (of sections `first`.., `counts` rows each, `section_headers` their
        batches' headers, `uniform` which of their fields are the same in all) with the batch-level columns."""
        if self.options.record_columns_only:  # what a Record holds: the batch-level columns are not made at all
            return pa.RecordBatch.from_arrays([record_columns[name] for name in _RECORD_NAMES], schema=RECORD_SCHEMA)
        magics = group.magics[first:first + len(counts)]
        positions = arrays.from_numpy(compiled.repeat_each(group.positions[first:first + len(counts)], counts, n))
        if all(_batch_fields(uniform)) and magics[0] == magics[-1] and (magics == magics[0]).all():
            # The usual walk: every batch-level column but `batch_position` the same on all its rows, sliced
            # from columns made once for these values (one call, not one per column).
            made = self.options.repeated.batch((*section_headers[0, _BATCH_FIELDS].tolist(), int(magics[0])), n,
                                               self._constant_columns, self.table_rows)
            constant = made.slice(0, n).columns
            return pa.RecordBatch.from_arrays([record_columns[name] if name in record_columns else
                                               positions if name == "batch_position" else
                                               constant[_CONSTANT_INDEX[name]] for name in _NAMES], schema=SCHEMA)
        columns = {**record_columns, **self._batch_columns(section_headers, magics, uniform, counts, n),
                   "batch_position": positions}
        return pa.RecordBatch.from_arrays([columns[name] for name in _NAMES], schema=SCHEMA)

    def _constant_columns(self, key: tuple, m: int) -> dict[str, pa.Array]:
        """The columns of m rows of a walk whose batches' fields are all the same (`key`: the `_BATCH_FIELDS` and the
        magic), in `_CONSTANT_NAMES`' order: the batch-level ones but `batch_position`, and `control_type` (null:
        a usual walk has no control batch)."""
        header = np.zeros((1, k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)
        header[0, _BATCH_FIELDS] = key[:-1]
        columns = {**self._batch_columns(header, np.array(key[-1:]), _UNIFORM, np.array([m]), m),
                   "control_type": self.options.repeated.column(None, pa.string(), m)}
        return {name: columns[name] for name in _CONSTANT_NAMES}

    def _batch_columns(self, section_headers: np.ndarray, magics: np.ndarray, uniform: list[bool], counts: np.ndarray,
                       n: int) -> dict[str, pa.Array]:
        """The batch-level columns but `batch_position` of n rows, of batches (`section_headers`, `magics`)
        of `counts` rows each."""
        repeated = self.options.repeated

        def per_batch(values: np.ndarray, type_: pa.DataType, names: pa.Array | None = None,
                      field: int | None = None) -> pa.Array:
            return repeated.per_batch(values, counts, n, type_, names, None if field is None else uniform[field])

        return {
            "topic": repeated.column(self.options.topic, pa.string(), n),
            "partition": repeated.column(self.options.partition, pa.int32(), n),
            "timestamp_type": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE],
                                        pa.string(), fast_legacy.TIMESTAMP_TYPES,  # (v2: CreateTime or LogAppendTime)
                                        k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE),
            "magic": per_batch(np.asarray(magics), pa.int32()),
            "compression": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION], pa.string(),
                                     fast_legacy.CODECS, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION),
            "producer_id": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__PRODUCER_ID], pa.int64(), None,
                                     k.KAFKA_RECORD_BATCH__PRODUCER_ID),
            "producer_epoch": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH], pa.int32(), None,
                                        k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH),
            "is_transactional": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL] == 1,
                                          pa.bool_(), None, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL),
            "is_control": per_batch(section_headers[:, _IS_CONTROL] == 1, pa.bool_(), None, _IS_CONTROL),
            "partition_leader_epoch": per_batch(section_headers[:, k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH],
                                                pa.int32(), None, k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH),
            "segment": repeated.column(self.options.path, pa.string(), n),
            "damage": repeated.column(None, pa.string(), n),
        }

    def controls_only(self, batch_headers: np.ndarray, group: Group, walked) -> None:
        """Without columns: the offsets of each section's last row in a walk, and the control records' offsets and
        types."""
        rs = walked.row_section
        _note_last_offsets(group, rs, walked.offset)
        if not walked.rows or not batch_headers[int(rs[0]):int(rs[-1]) + 1,
                                                k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL].any():
            return  # (no control batch among the walk's sections, the usual: no pass over its rows)
        is_control = batch_headers[rs, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] == 1
        if not is_control.any():
            return
        types = self._control_types(walked, group).to_pylist()
        for i in np.flatnonzero(is_control).tolist():
            group.controls.setdefault(int(rs[i]), []).append((_index_in_section(group, rs, i), int(walked.offset[i]),
                                                              types[i]))

    def _control_types(self, walked, group: Group) -> pa.Array:
        """The `control_type` column of a walk, whose `control` column holds each control key's type; a key that
        does not parse is UNKNOWN, and its damage noted."""
        types = walked.control.astype(np.int64)
        rs = walked.row_section
        codes = np.full(walked.rows, -1, dtype=np.int64)
        for value, code in _CONTROL_CODES.items():
            codes[types == value] = code
        codes[(types >= 0) & (codes < 0)] = len(CONTROL_NAMES)
        # A type of -1 in a control batch (`walk`'s NOT_CONTROL code): UNKNOWN, as Kafka's `ControlRecordType.parse`.
        codes[(types == compiled.engine.NOT_CONTROL) & (group.batch_headers[rs, _IS_CONTROL] == 1)] = len(CONTROL_NAMES)
        for r in np.flatnonzero(types == compiled.engine.KEY_DOES_NOT_PARSE).tolist():
            # A key that does not parse: UNKNOWN, and the Kaitai parser says why, as the object path does.
            codes[r] = len(CONTROL_NAMES)
            try:
                KafkaControlRecord(KaitaiStream(BytesIO(walked.key[r].as_py() or b"")))
            except PARSE_ERRORS as exc:
                s = int(rs[r])
                group.control_damage.setdefault(s, []).append(
                    (_index_in_section(group, rs, r), record_batch.control_key_damage(exc, self.options.path,
                                                                                       int(group.positions[s]))))
        import pyarrow.compute as pc  # noqa: PLC0415  (start-up: 0.04 s that a read without control records never needs)

        taken = _CONTROL_NAMES.take(arrays.from_numpy(np.maximum(codes, 0)))
        return pc.if_else(arrays.from_numpy(codes < 0), pa.nulls(len(codes), pa.string()), taken)


def _control_items(found, positions: np.ndarray, sizes: np.ndarray, magics: np.ndarray, run: RunBuilder) -> None:
    """The batches of a usual group walked without columns (`engine.Group.usual`, checked), into the run: the control
    batches each an item with its control records' offsets and types (`Item.controls`, as `controls_only` and
    `_finish_section` have them), the others in bulk."""
    headers, rows = found.headers, found.columns[4]
    walked = found.walked
    ends = np.cumsum(rows)
    i = 0
    for j in np.flatnonzero(headers[:, _IS_CONTROL] != 0).tolist():
        if j > i:
            run.add_batches(positions[i:j], sizes[i:j], magics[i:j], headers[i:j], rows[i:j])
        start, end = run.assign(int(rows[j]))
        first = int(ends[j] - rows[j])
        kinds = walked.control[first:int(ends[j])].tolist()
        controls = [(offset, _CONTROL_TYPE_NAMES[min(kind, len(_CONTROL_TYPE_NAMES) - 1)].decode())
                    for offset, kind in zip(walked.offset[first:int(ends[j])].tolist(), kinds, strict=True)]
        header = headers[j].tolist()
        run.add_item(Item(int(positions[j]), int(sizes[j]), int(magics[j]), header[k.KAFKA_RECORD_BATCH__BASE_OFFSET],
                          start, end, [], header=header, controls=controls))
        i = j + 1
    if i < len(headers):
        run.add_batches(positions[i:], sizes[i:], magics[i:], headers[i:], rows[i:])


def _group_end(data_ends: np.ndarray, i: int, group_bytes: float) -> int:
    """The end of the batches from `i` whose records (`data_ends`: where each batch's end, summed from the first)
    reach `group_bytes`, the one that reaches it included; as ``i + 1 + searchsorted(cumsum(sizes[i:]),
    group_bytes)``, capped at the last batch."""
    before = int(data_ends[i - 1]) if i else 0
    return min(len(data_ends), int(np.searchsorted(data_ends, before + group_bytes)) + 1)


def _take(group: Group, found, positions: np.ndarray, sizes: np.ndarray, magics: np.ndarray,
          buffer: np.ndarray) -> None:
    """What `decode_group` took into the (empty) group, as `Group.seal` would have it, its sections walked."""
    taken = found.taken
    group.count = taken
    group.positions, group.sizes, group.magics = positions, sizes, magics
    group.batch_headers = found.headers
    c = found.columns
    group.sections = Sections(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], np.zeros(taken, dtype=np.int64))
    group.buffer = buffer
    group.first = (found.why, found.walked, found.state)


def _note_last_offsets(group: Group, rs: np.ndarray, offset: np.ndarray) -> None:
    """The offset of the last row in this walk of each section with bytes after its declared records: its
    damage is worded with it. (The walk has set the damage of every section whose last rows these are.)"""
    first = int(rs[0])
    err = group.walked.err[first:int(rs[-1]) + 1]
    if not np.count_nonzero(err):
        return  # (no damage in the walk's sections, the usual)
    last = np.flatnonzero(err == walk_codes.SECTION_TRAILING) + first
    for s in last.tolist():
        rows = np.flatnonzero(rs == s)
        if len(rows):
            group.offset_of_last[s] = int(offset[rows[-1]])


def _index_in_section(group: Group, rs: np.ndarray, row: int) -> int:
    """Which record of its batch a row of this walk is (rows of a batch are consecutive, after earlier walks')."""
    s = rs[row]
    return int(group.walked.rows[s]) + row - int(np.searchsorted(rs, s, side="left"))


def _shifted(damage: dict[int, list], start: int, end: int) -> dict[int, list]:
    """The entries of `damage` for keys in [start, end), keyed from `start`."""
    return {i - start: d for i, d in damage.items() if start <= i < end}

