"""The fast path: a segment's batches decoded into Arrow columns by the compiled kernels.

    for run in decode_runs(reader):            # reader: a SegmentReader
        run.table                              # the records, `kafkalog.arrow.reader.SCHEMA` columns
        run.items                              # each batch (or undecodable entry): its rows and damage

For each chunk of the file (`SegmentReader.entries`): the v2 headers are read
by the generated kernel into a table; in Python, per batch, only the CRC-32C
and the codec call (into one output buffer reused by groups of about 4 MiB of
records); then `walk_sections` parses every record of a group in one compiled
loop, and Kafka's offset, timestamp and sequence rules are applied to whole
columns. A run's entries are columns too (`Items`): an `Item` object is made
only for the entries that are not plain whole batches, or when asked for.

Whatever the kernels do not take, the reference path (the Kaitai parsers,
`kafkalog.formats.record_batch` and `kafkalog.formats.message_set`) decodes, batch by batch:
legacy entries, headers that do not parse, data that does not decompress, and
records where the kernels and the reference would have to agree on damage that
is not one of the kinds below. Damage the fast path finds itself (a CRC
mismatch, a record that does not parse, bytes after a record or after the
declared records, a control key that does not parse) is reported in the
reference path's words, and the record that does not parse is shown to the
Kaitai parser to say what is wrong with it, so both paths give the same rows
and the same damage.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import crc32c
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated import kafka_kernels as k
from kafkalog._generated.kafka_control_record import KafkaControlRecord
from kafkalog._generated.kafka_record import KafkaRecord
from kafkalog.checksums import V2_CRC_START
from kafkalog.compression import CODEC_NAMES, NONE, Output, decompress_into, decompression_limit
from kafkalog.errors import ChecksumError, DamagedDataError, DecompressionError
from kafkalog.fast import kernels
from kafkalog.fast import message_set as fast_legacy
from kafkalog.fast.columns import RECORD_SCHEMA, SCHEMA, Repeated, batch_rows, binary_arrays
from kafkalog.formats import message_set, record_batch
from kafkalog.formats.framing import LOG_OVERHEAD
from kafkalog.formats.parse_errors import PARSE_ERRORS
from kafkalog.javaint import increment_sequence, s64
from kafkalog.model import CREATE_TIME, LOG_APPEND_TIME, NO_SEQUENCE, Batch

#: Record rows of one walk before the rows so far are turned into Arrow (the tables are reused). Not a
#: power of two: the tables are column-major, and columns a power of two apart share cache sets.
TABLE_ROWS = (1 << 15) + 61
#: Decompressed bytes held for one walk before it runs: little enough to stay in a core's cache from the
#: codec's output to the walk and the Arrow copies.
GROUP_BYTES = 4 * 1024 * 1024

CONTROL_NAMES = [t.name.upper() for t in sorted(KafkaControlRecord.ControlType, key=lambda t: t.value)]
_CONTROL_CODES = {t.value: i for i, t in enumerate(sorted(KafkaControlRecord.ControlType, key=lambda t: t.value))}
_CONTROL_NAMES = pa.array(CONTROL_NAMES + ["UNKNOWN"])


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
    #: The decoded batch, for the entries the reference path decoded (else None).
    batch: Batch | None = None
    #: With `columns=False`: the (offset, type) of each control record of a control batch the fast path decoded.
    controls: list[tuple[int, str]] | None = None
    #: The v2 header as the kernel read it (a list; `k.KAFKA_RECORD_BATCH__*` fields), or a legacy entry's
    #: columns (`fast_legacy`), for the batches the fast path decoded.
    header: list[int] | np.ndarray | None = None


@dataclass
class Run:
    """Consecutive entries of a segment: their records as one Arrow table, and each entry's rows."""

    table: pa.Table | None  # None when read with columns=False
    items: "Items"


def decode_runs(reader, topic: str | None = None, partition: int | None = None, *, reference: bool = False,
                records: bool = True, columns: bool = True, record_columns_only: bool = False,
                table_rows: int | None = None) -> Iterator[Run]:
    """The runs of a `SegmentReader`'s range, in file order; structural damage is left in `reader.damage`.

    `reference=True` decodes every entry with the Kaitai parsers alone;
    `records=False` reads batch headers and checks CRCs only; `columns=False`
    parses and checks every record but makes no columns (`Run.table` is None),
    only each control record's offset and type (`Item.controls`);
    `record_columns_only=True` makes the `RECORD_COLUMNS` only (what a
    `Record` holds), a third of the memory of every column.
    """
    walker = _Walker(reader.name, topic, partition, reader.max_decompressed_bytes, table_rows or TABLE_ROWS,
                     records, columns, record_columns_only)
    for chunk, base, entries in reader.entries():
        reader.position = base
        if reference:
            yield from walker.reference_chunk(chunk, base, entries)
        else:
            yield from walker.chunk(chunk, base, entries)
        last = entries[-1]
        reader.position = base + int(last[kernels.ENTRY_POS]) + LOG_OVERHEAD + int(last[kernels.ENTRY_LENGTH])


class _Walker:
    def __init__(self, path: str | None, topic: str | None, partition: int | None, limit: int, table_rows: int,
                 records: bool = True, columns: bool = True, record_columns_only: bool = False):
        self.path, self.topic, self.partition, self.limit = path, topic, partition, limit
        self.records = records
        self.columns = columns
        self.record_columns_only = record_columns_only
        # Column-major tables (t[column, row]) that the kernels fill, reused from walk to walk.
        self.rec = np.empty((k.KAFKA_RECORD__WIDTH, table_rows), dtype=np.int64)
        self.hdr = np.empty((k.KAFKA_RECORD__HEADER__WIDTH, table_rows), dtype=np.int64)
        self.row_section = np.empty(table_rows, dtype=np.int64)
        self.ctl = np.empty((k.KAFKA_CONTROL_RECORD__WIDTH, 1), dtype=np.int64)
        # Where compressed batches are decompressed, one after the other, reused from group to group.
        self.output = Output()
        self.repeated = Repeated()

    # -- a chunk of entries -------------------------------------------------------------------------------------

    def chunk(self, chunk: bytes, base: int, entries: np.ndarray) -> Iterator[Run]:
        buf = np.frombuffer(chunk, dtype=np.uint8)
        magics = entries[:, kernels.ENTRY_MAGIC]
        v2 = np.flatnonzero(magics >= 2)
        headers = np.empty((k.KAFKA_RECORD_BATCH__WIDTH, len(v2)), dtype=np.int64)
        errors = np.empty(len(v2), dtype=np.int64)
        kernels.parse_batch_headers(buf, entries, v2, headers, errors)
        legacy = np.flatnonzero(magics < 2)
        messages = np.empty((fast_legacy.WIDTH, len(legacy)), dtype=np.int64)
        message_errors = np.empty(len(legacy), dtype=np.int64)
        kernels.parse_legacy_entries(buf, entries, legacy, messages, message_errors)
        column = np.empty(len(entries), dtype=np.int64)  # each entry's column in its table (headers or messages)
        column[v2] = np.arange(len(v2))
        column[legacy] = np.arange(len(legacy))
        header_rows = np.ascontiguousarray(headers.T)  # a batch's header is a row
        # Spans of consecutive batches taken in bulk (magic 2, a header that parses): kind 1 uncompressed,
        # 2 compressed; kind 0 entries are taken one by one.
        kind = np.zeros(len(entries), dtype=np.int8)
        bulk = (errors == 0) & (magics[v2] == 2)
        if self.records:
            kind[v2[bulk]] = np.where(headers[k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION, bulk] == NONE, 1, 2)
        else:
            kind[v2[bulk]] = 1
        cuts = (np.flatnonzero(np.diff(kind)) + 1).tolist()

        group = _Group()
        plain = _Plain()
        plain.messages = messages
        run = _RunBuilder()
        view = memoryview(chunk)
        for a, b in zip([0] + cuts, cuts + [len(entries)]):
            if kind[a] == 0:
                for e in range(a, b):
                    pos, length, magic = entries[e].tolist()
                    if magic < 2:
                        yield from self._walk(group, run)
                        self._legacy_entry(buf, view, chunk, plain, run, pos, base, length, magic, int(column[e]),
                                           message_errors)
                        continue
                    self._flush_plain(buf, plain, run)
                    yield from self._walk(group, run)
                    h = int(column[e])
                    if errors[h] != 0:
                        # A header that does not parse: the reference path says why.
                        self._reference(run, chunk[pos:pos + LOG_OVERHEAD + length], base + pos, magic)
                    else:
                        # Magic above 2: read as a v2 batch, with the damage said.
                        yield from self._batches(buf, view, base, entries[e:e + 1], header_rows[h:h + 1], group,
                                                 run, [record_batch.magic_damage(magic, self.path, base + pos)])
                continue
            self._flush_plain(buf, plain, run)
            h = int(column[a])
            yield from self._batches(buf, view, base, entries[a:b], header_rows[h:h + b - a], group, run)
        yield from self._walk(group, run)
        self._flush_plain(buf, plain, run)
        if run.count:
            yield run.finish()

    def _legacy_entry(self, buf, view, chunk, plain, run, pos, base, length, magic, m, message_errors) -> None:
        end = pos + LOG_OVERHEAD + length
        position = base + pos
        entry = plain.messages[:, m]
        if message_errors[m] != 0 or not fast_legacy.crc_matches(view, pos, end, entry):
            self._flush_plain(buf, plain, run)
            self._reference(run, chunk[pos:end], position, magic)
        elif not self.records or int(entry[fast_legacy.CODEC]) == NONE:
            plain.add(m, position, LOG_OVERHEAD + length)
        else:
            self._flush_plain(buf, plain, run)
            self._wrapper(view, run, entry, position, LOG_OVERHEAD + length, chunk[pos:end], magic)

    def _batches(self, buf: np.ndarray, view: memoryview, base: int, entries: np.ndarray, hdr: np.ndarray,
                 group: "_Group", run: "_RunBuilder", magic_damage: list[DamagedDataError] | None = None
                 ) -> Iterator[Run]:
        """v2 batches (`entries`, their headers `hdr`) into the group: all uncompressed or all compressed."""
        pos = entries[:, kernels.ENTRY_POS]
        size = LOG_OVERHEAD + entries[:, kernels.ENTRY_LENGTH]
        position = base + pos
        magic = entries[:, kernels.ENTRY_MAGIC]
        # The CRC-32C of each batch, from its attributes to its end: one call each.
        crc = [crc32c.crc32c(view[p + V2_CRC_START:p + n]) for p, n in zip(pos.tolist(), size.tolist())]
        damage = {0: list(magic_damage)} if magic_damage else {}
        for i in np.flatnonzero(np.array(crc, dtype=np.int64) != hdr[:, k.KAFKA_RECORD_BATCH__CRC]).tolist():
            damage.setdefault(i, []).append(record_batch.crc_damage(crc[i], int(hdr[i, k.KAFKA_RECORD_BATCH__CRC]),
                                                                    self.path, int(position[i])))
        if not self.records:  # headers only
            run.add_batches(position, size, magic, hdr, np.zeros(len(hdr), dtype=np.int64), damage)
            return
        data_pos = hdr[:, k.KAFKA_RECORD_BATCH__RECORDS_DATA__POS]
        data_len = hdr[:, k.KAFKA_RECORD_BATCH__RECORDS_DATA__SIZE]
        codecs = hdr[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION]
        if codecs[0] == NONE:
            if group.output is not None:
                yield from self._walk(group, run)  # a group's sections are all in the chunk or all decompressed
            # Groups of about GROUP_BYTES of records.
            i = 0
            while i < len(hdr):
                j = min(len(hdr), i + 1 + int(np.searchsorted(np.cumsum(data_len[i:]), GROUP_BYTES - group.bytes)))
                group.add(hdr[i:j], position[i:j], size[i:j], magic[i:j], data_pos[i:j], data_len[i:j],
                          _shifted(damage, i, j), {}, buf)
                if group.bytes >= GROUP_BYTES:
                    yield from self._walk(group, run)
                i = j
            return
        if group.output is None:
            yield from self._walk(group, run)
        group.use(self.output)
        output = self.output
        starts, lengths, partial = [], [], {}
        i = 0
        for j, (codec, p, n) in enumerate(zip(codecs.tolist(), data_pos.tolist(), data_len.tolist())):
            starts.append(output.start)
            try:
                decompress_into(codec, view[p:p + n], 2, self.limit, output)
            except DecompressionError as exc:
                # The records that decompressed before the damage are handed out, as Kafka's streams do;
                # past the limit, none.
                partial[j - i] = exc
            lengths.append(len(output))
            output.next()
            if output.end >= GROUP_BYTES or j == len(hdr) - 1:
                group.add(hdr[i:j + 1], position[i:j + 1], size[i:j + 1], magic[i:j + 1],
                          np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64),
                          _shifted(damage, i, j + 1), partial, buf)
                starts, lengths, partial = [], [], {}
                i = j + 1
                if output.end >= GROUP_BYTES:
                    yield from self._walk(group, run)
                    group.use(output)

    def _flush_plain(self, buf: np.ndarray, plain: "_Plain", run: "_RunBuilder") -> None:
        """Uncompressed legacy messages waiting in `plain`: one record each (none when reading headers only)."""
        if not plain.columns:
            return
        table = plain.messages[:, plain.columns]
        if self.records and self.columns:
            rows = fast_legacy.plain_rows(buf, table, plain.positions, self.path, self.topic, self.partition,
                                          self.repeated)
            run.add_table(rows.select(RECORD_SCHEMA.names) if self.record_columns_only else rows)
        elif self.records:
            run.add_rows(len(plain.columns))
        for i, (position, size) in enumerate(zip(plain.positions, plain.sizes)):
            entry = table[:, i]
            start, end = run.assign(1 if self.records else 0)
            run.add_item(Item(position, size, int(entry[fast_legacy.MAGIC]), int(entry[fast_legacy.OFFSET]), start,
                              end, header=entry))
        plain.clear()

    def _wrapper(self, view, run, entry, position, size, raw: bytes, magic: int) -> None:
        found = fast_legacy.wrapper_rows(view, entry, position, self.limit, self.path, self.topic, self.partition,
                                         self.repeated)
        if found is None:
            self._reference(run, raw, position, magic)
            return
        table, base_offset = found
        if self.columns:
            run.add_table(table.select(RECORD_SCHEMA.names) if self.record_columns_only else table)
        else:
            run.add_rows(table.num_rows)
        start, end = run.assign(table.num_rows)
        run.add_item(Item(position, size, magic, base_offset, start, end, header=entry))

    def reference_chunk(self, chunk: bytes, base: int, entries: np.ndarray) -> Iterator[Run]:
        for pos, length, magic in entries.tolist():
            run = _RunBuilder()
            self._reference(run, chunk[pos:pos + LOG_OVERHEAD + length], base + pos, magic)
            yield run.finish()

    def _reference(self, run: "_RunBuilder", entry: bytes, position: int, magic: int) -> None:
        """Decode one entry with the Kaitai parsers, as `SegmentReader` does, into the run."""
        try:
            # Within the reader's cap on decompressed bytes, as SegmentReader decodes.
            with decompression_limit(self.limit):
                batch = (record_batch.decode_batch(entry, position, self.path, self.records) if magic >= 2
                         else message_set.decode_entry(entry, position, self.path, self.records))
        except DamagedDataError as exc:
            run.add_item(Item(position, len(entry), magic, 0, run.assigned, run.assigned, [exc], is_batch=False))
            return
        if self.columns:
            table = batch_rows(batch, self.topic, self.partition, self.path)
            run.add_table(table.select(RECORD_SCHEMA.names) if self.record_columns_only else table)
        else:
            run.add_rows(len(batch.records))
        start, end = run.assign(len(batch.records))
        run.add_item(Item(position, len(entry), batch.magic, batch.base_offset, start, end, list(batch.damage),
                          batch=batch))

    # -- walking the records of a group of batches --------------------------------------------------------------

    def _walk(self, group: "_Group", run: "_RunBuilder") -> Iterator[Run]:
        if not group.count:
            return
        group.seal()
        buf, sec_pos, sec_end, hdr = group.buffer, group.starts, group.starts + group.lengths, group.hdr
        nsec = group.count
        sec_count = hdr[:, k.KAFKA_RECORD_BATCH__RECORDS_COUNT].copy()
        sec_partial = np.zeros(nsec, dtype=np.int64)
        sec_partial[list(group.partial)] = 1
        sec_good = np.zeros(nsec, dtype=np.int64)
        sec_err = group.sec_err = np.zeros(nsec, dtype=np.int64)
        sec_err_pos = np.zeros(nsec, dtype=np.int64)
        sec_trailing_at = np.full(nsec, -1, dtype=np.int64)
        state = np.array([0, sec_pos[0], 0], dtype=np.int64)
        group.sec_rows = np.zeros(nsec, dtype=np.int64)  # rows each section has given so far
        finished = 0  # sections whose items are in the run
        while True:
            why, nrows, nhdr = kernels.walk_sections(buf, sec_pos, sec_end, sec_count, sec_partial, state, self.rec,
                                                      self.hdr, self.row_section, sec_good, sec_err, sec_err_pos,
                                                      sec_trailing_at)
            if why == kernels.WALK_HEADERS_FULL:
                self.hdr = np.empty((self.hdr.shape[0], 2 * self.hdr.shape[1] + 61), dtype=np.int64)
                continue
            if nrows:
                if self.columns:
                    run.add_table(pa.Table.from_batches([self._columns(buf, hdr, group, nrows, nhdr)]))
                else:
                    self._controls_only(buf, hdr, group, nrows)
                    run.add_rows(nrows)
                group.sec_rows += np.bincount(self.row_section[:nrows], minlength=nsec)
            done_upto = int(state[0])
            # The sections done: plain ones (the usual) in bulk, the others one by one.
            special = np.flatnonzero(sec_err[finished:done_upto]) + finished
            special = sorted(set(special.tolist()).union(
                s for s in (*group.partial, *group.damage, *group.control_damage, *group.controls)
                if finished <= s < done_upto))
            for s in special + [done_upto]:
                if s > finished:
                    run.add_batches(group.positions[finished:s], group.sizes[finished:s], group.magics[finished:s],
                                    hdr[finished:s], group.sec_rows[finished:s])
                if s < done_upto:
                    self._finish_section(run, buf, hdr, group, s, sec_pos, sec_end, sec_count, sec_good, sec_err,
                                         sec_err_pos, int(sec_trailing_at[s]))
                finished = s + 1
            finished = done_upto
            if why == kernels.WALK_DONE:
                break
            if state[2] == 0 and run.rows >= self.rec.shape[1]:
                # At a batch boundary with a table's worth of rows: hand them out.
                yield run.finish()
        group.clear()

    def _finish_section(self, run, buf, hdr, group, s, sec_pos, sec_end, sec_count, sec_good, sec_err, sec_err_pos,
                        trailing_at: int) -> None:
        """The item of section `s`, which is not a plain whole batch: its rows and its damage, in the reference
        path's order and words."""
        position, magic, size = int(group.positions[s]), int(group.magics[s]), int(group.sizes[s])
        header = hdr[s].tolist()
        rows = int(group.sec_rows[s])  # records parsed (and in the run's rows)
        err = int(sec_err[s])
        partial = group.partial.get(s)
        count = int(sec_count[s])
        emitted = rows  # records handed out
        examined = rows  # records whose control keys the reference path looks at
        failure = None
        if partial is not None:
            # What decompressed before the damage: the records in it, less the last declared one.
            emitted = examined = rows - 1 if count and rows == count else rows
            if 0 <= trailing_at < emitted:
                rec = self._kaitai_record(buf, s, sec_pos, sec_end, sec_err_pos)
                failure = record_batch.record_trailing_damage(trailing_at, len(rec.body.trailing), rec.length.value,
                                                              self.path, position)
                emitted = examined = trailing_at
            else:
                failure = partial.located(self.path, position)
        elif err == kernels.SECTION_TRAILING:
            emitted = rows - 1 if rows else 0
            failure = record_batch.declared_count_damage(int(sec_end[s] - sec_err_pos[s]), count,
                                                         group.offset_of_last.get(s) if rows else None, self.path,
                                                         position)
        elif err == kernels.BODY_TRAILING:
            rec = self._kaitai_record(buf, s, sec_pos, sec_end, sec_err_pos)
            failure = record_batch.record_trailing_damage(int(sec_good[s]), len(rec.body.trailing),
                                                          rec.length.value, self.path, position)
        elif err != 0:
            failure = self._parse_damage(buf, s, sec_pos, sec_end, sec_err_pos, int(sec_good[s]), count, position)
        damage = list(group.damage.get(s, [])) + [d for i, d in group.control_damage.pop(s, []) if i < examined]
        if failure is not None:
            damage.append(failure)
        controls = group.controls.pop(s, None)
        if controls is not None:
            controls = [(offset, kind) for i, offset, kind in controls if i < emitted]
        row_start, row_end = run.assign(rows)
        run.add_item(Item(position, size, magic, header[k.KAFKA_RECORD_BATCH__BASE_OFFSET], row_start,
                          row_start + emitted, damage, header=header, controls=controls))

    def _parse_damage(self, buf, s, sec_pos, sec_end, sec_err_pos, index, count, position) -> DamagedDataError:
        try:
            self._kaitai_record(buf, s, sec_pos, sec_end, sec_err_pos)
        except PARSE_ERRORS as exc:
            return record_batch.record_parse_damage(index, count, exc, self.path, position)
        raise AssertionError(f"{self.path}: byte {position}: the kernel and the Kaitai parser disagree on record "
                             f"{index}")  # a generator bug, not a property of the data

    @staticmethod
    def _kaitai_record(buf, s, sec_pos, sec_end, sec_err_pos) -> KafkaRecord:
        """The record where a section's damage is, read by the Kaitai parser at the same place in the same bytes."""
        io = KaitaiStream(BytesIO(buf[sec_pos[s]:sec_end[s]].tobytes()))
        io.seek(int(sec_err_pos[s] - sec_pos[s]))
        return KafkaRecord(io)

    # -- Arrow columns of the rows of one walk ------------------------------------------------------------------

    def _columns(self, buf: np.ndarray, hdr: np.ndarray, group: "_Group", n: int, nhdr: int) -> pa.RecordBatch:
        rec = self.rec
        rs = self.row_section[:n]
        offset = np.empty(n, dtype=np.int64)
        timestamp = np.empty(n, dtype=np.int64)
        sequence = np.empty(n, dtype=np.int32)
        kernels.record_columns(rec, n, rs, hdr, offset, timestamp, sequence)
        _note_last_offsets(group, rs, offset)
        # Batch-level columns: each section's value on its rows (rows are in section order).
        first = int(rs[0])
        counts = np.bincount(rs - first)
        sections = hdr[first:first + len(counts)]
        control_sections = sections[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL]
        if control_sections.any():
            is_control = np.repeat(control_sections == 1, counts)
            control = self._control_types(buf, rec, rs, is_control, group)
        else:
            control = self.repeated.column(None, pa.string(), n)
        key, value, _ = binary_arrays(buf, rec[k.KAFKA_RECORD__BODY__KEY__POS, :n],
                                      rec[k.KAFKA_RECORD__BODY__KEY__SIZE, :n],
                                      rec[k.KAFKA_RECORD__BODY__VALUE__POS, :n],
                                      rec[k.KAFKA_RECORD__BODY__VALUE__SIZE, :n])
        record_columns = {
            "offset": pa.array(offset),
            "timestamp": pa.array(timestamp),
            "sequence": pa.array(sequence),
            "key": key,
            "value": value,
            "headers": self._headers(buf, rec, self.hdr[:, :nhdr], n),
            "control_type": control,
        }
        if self.record_columns_only:  # what a Record holds: the batch-level columns are not made at all
            return pa.RecordBatch.from_arrays([record_columns[f.name] for f in RECORD_SCHEMA], schema=RECORD_SCHEMA)
        repeated = self.repeated

        def per_batch(values: np.ndarray, type_: pa.DataType, names: pa.Array | None = None) -> pa.Array:
            return repeated.per_batch(values, counts, n, type_, names)

        columns = {
            **record_columns,
            "topic": repeated.column(self.topic, pa.string(), n),
            "partition": repeated.column(self.partition, pa.int32(), n),
            "timestamp_type": per_batch(sections[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE], pa.string(),
                                        fast_legacy.TIMESTAMP_TYPES),  # (v2: CreateTime or LogAppendTime)
            "magic": per_batch(np.asarray(group.magics[first:first + len(counts)]), pa.int32()),
            "compression": per_batch(sections[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION], pa.string(),
                                     fast_legacy.CODECS),
            "producer_id": per_batch(sections[:, k.KAFKA_RECORD_BATCH__PRODUCER_ID], pa.int64()),
            "producer_epoch": per_batch(sections[:, k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH], pa.int32()),
            "is_transactional": per_batch(sections[:, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL] == 1,
                                          pa.bool_()),
            "is_control": per_batch(control_sections == 1, pa.bool_()),
            "partition_leader_epoch": per_batch(sections[:, k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH], pa.int32()),
            "segment": repeated.column(self.path, pa.string(), n),
            "batch_position": pa.array(np.repeat(np.asarray(group.positions[first:first + len(counts)],
                                                            dtype=np.int64), counts)),
            "damage": repeated.column(None, pa.string(), n),
        }
        return pa.RecordBatch.from_arrays([columns[f.name] for f in SCHEMA], schema=SCHEMA)

    def _controls_only(self, buf: np.ndarray, hdr: np.ndarray, group: "_Group", n: int) -> None:
        """Without columns: the offsets of each section's last row, and the control records' offsets and types."""
        rs = self.row_section[:n]
        offset = np.empty(n, dtype=np.int64)
        timestamp = np.empty(n, dtype=np.int64)
        sequence = np.empty(n, dtype=np.int32)
        kernels.record_columns(self.rec, n, rs, hdr, offset, timestamp, sequence)
        _note_last_offsets(group, rs, offset)
        is_control = hdr[rs, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] == 1
        if not is_control.any():
            return
        types = self._control_types(buf, self.rec, rs, is_control, group).to_pylist()
        for i in np.flatnonzero(is_control).tolist():
            group.controls.setdefault(int(rs[i]), []).append((_index_in_section(group, rs, i), int(offset[i]),
                                                              types[i]))

    def _headers(self, buf: np.ndarray, rec: np.ndarray, h: np.ndarray, n: int) -> pa.Array:
        offsets = np.empty(n + 1, dtype=np.int32)
        offsets[:n] = rec[k.KAFKA_RECORD__BODY__HEADERS__FIRST, :n]
        offsets[n] = h.shape[1]
        key_pos, key_size = h[k.KAFKA_RECORD__HEADER__KEY__POS], h[k.KAFKA_RECORD__HEADER__KEY__SIZE]
        keys, values, bad = binary_arrays(buf, key_pos, key_size, h[k.KAFKA_RECORD__HEADER__VALUE__POS],
                                          h[k.KAFKA_RECORD__HEADER__VALUE__SIZE], pa.string())
        if bad >= 0:
            # Kafka decodes header keys with replacement characters; so does the reference path.
            keys = pa.array([buf[p:p + z].tobytes().decode("utf-8", "replace")
                             for p, z in zip(key_pos.tolist(), key_size.tolist())], type=pa.string())
        struct = pa.StructArray.from_arrays([keys, values], fields=list(SCHEMA.field("headers").type.value_type))
        return pa.ListArray.from_arrays(pa.array(offsets), struct)

    def _control_types(self, buf, rec, rs, is_control, group) -> pa.Array:
        rows = np.flatnonzero(is_control)
        key_pos = rec[k.KAFKA_RECORD__BODY__KEY__POS, rows]
        key_size = rec[k.KAFKA_RECORD__BODY__KEY__SIZE, rows]
        types = np.empty(len(rows), dtype=np.int64)
        kernels.control_types(buf, key_pos, key_size, types, self.ctl)
        codes = np.full(len(rs), -1, dtype=np.int64)
        names = [_CONTROL_CODES.get(t, len(CONTROL_NAMES)) if t >= 0 else len(CONTROL_NAMES) for t in types.tolist()]
        codes[rows] = names
        for i in np.flatnonzero(types < 0).tolist():
            # A key that does not parse: UNKNOWN, and the Kaitai parser says why, as the reference path does.
            r = int(rows[i])
            key = buf[key_pos[i]:key_pos[i] + max(key_size[i], 0)].tobytes()
            try:
                KafkaControlRecord(KaitaiStream(BytesIO(key)))
            except PARSE_ERRORS as exc:
                s = int(rs[r])
                group.control_damage.setdefault(s, []).append(
                    (_index_in_section(group, rs, r), record_batch.control_key_damage(exc, self.path,
                                                                                       int(group.positions[s]))))
        taken = _CONTROL_NAMES.take(pa.array(np.maximum(codes, 0)))
        return pc.if_else(pa.array(codes < 0), pa.scalar(None, pa.string()), taken)


def _note_last_offsets(group: "_Group", rs: np.ndarray, offset: np.ndarray) -> None:
    """The offset of the last row in this walk of each section with bytes after its declared records: its
    damage is worded with it. (The walk has set the damage of every section whose last rows these are.)"""
    first = int(rs[0])
    last = np.flatnonzero(group.sec_err[first:int(rs[-1]) + 1] == kernels.SECTION_TRAILING) + first
    for s in last.tolist():
        rows = np.flatnonzero(rs == s)
        if len(rows):
            group.offset_of_last[s] = int(offset[rows[-1]])


def _index_in_section(group: "_Group", rs: np.ndarray, row: int) -> int:
    """Which record of its batch a row of this walk is (rows of a batch are consecutive, after earlier walks')."""
    s = rs[row]
    return int(group.sec_rows[s]) + row - int(np.searchsorted(rs, s, side="left"))


class _Plain:
    """Uncompressed legacy messages waiting to become rows together: their columns of the chunk's message table."""

    def __init__(self):
        self.messages: np.ndarray | None = None
        self.clear()

    def clear(self) -> None:
        self.columns: list[int] = []
        self.positions: list[int] = []
        self.sizes: list[int] = []

    def add(self, column: int, position: int, size: int) -> None:
        self.columns.append(column)
        self.positions.append(position)
        self.sizes.append(size)


class _Group:
    """v2 batches waiting to be walked together: their headers and where their records are, in blocks."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self.blocks: list[tuple[np.ndarray, ...]] = []
        self.count = 0
        self.bytes = 0
        #: Sparse, by section: the damage found before the walk, and the decompression error of a section
        #: that is what decompressed before it.
        self.damage: dict[int, list[DamagedDataError]] = {}
        self.partial: dict[int, DamagedDataError] = {}
        self.control_damage: dict[int, list[tuple[int, DamagedDataError]]] = {}  # (record index, damage)
        self.offset_of_last: dict[int, int] = {}
        self.controls: dict[int, list[tuple[int, int, str]]] = {}  # (record index, offset, type)
        self.sec_rows: np.ndarray | None = None
        self.chunk: np.ndarray | None = None
        self.buffer: np.ndarray | None = None  # (a view of the output buffer holds it at its size)
        #: The buffer the sections of compressed batches are decompressed into; None when the sections are
        #: in the chunk (uncompressed batches).
        self.output: Output | None = None

    def use(self, output: Output) -> None:
        if self.output is None:
            output.clear(2 * GROUP_BYTES)  # (a group holds GROUP_BYTES and one batch more)
            self.output = output

    def add(self, hdr: np.ndarray, position: np.ndarray, size: np.ndarray, magic: np.ndarray, starts: np.ndarray,
            lengths: np.ndarray, damage: dict[int, list[DamagedDataError]], partial: dict[int, DamagedDataError],
            chunk: np.ndarray) -> None:
        """Batches with their headers and where their records are: chunk[starts:starts + lengths] when they are
        not compressed, else in the output buffer (what decompressed before the error in `partial`). `damage`
        and `partial` are keyed by the index in these batches."""
        self.blocks.append((hdr, position, size, magic, starts, lengths))
        self.damage.update((self.count + i, d) for i, d in damage.items())
        self.partial.update((self.count + i, e) for i, e in partial.items())
        self.count += len(hdr)
        self.bytes += int(lengths.sum())
        self.chunk = chunk

    def seal(self) -> None:
        """The blocks as whole columns, for the walk: `hdr`, `positions`, `sizes`, `magics`, `starts`,
        `lengths`, and the `buffer` the sections are in."""
        hdr, self.positions, self.sizes, self.magics, self.starts, self.lengths = (
            np.concatenate(column) if len(self.blocks) > 1 else column[0] for column in zip(*self.blocks))
        self.hdr = np.ascontiguousarray(hdr)
        self.buffer = self.chunk if self.output is None else np.frombuffer(self.output.buffer, dtype=np.uint8)


def _shifted(damage: dict[int, list], start: int, end: int) -> dict[int, list]:
    """The entries of `damage` for keys in [start, end), keyed from `start`."""
    return {i - start: d for i, d in damage.items() if start <= i < end}


class _RunBuilder:
    """The tables and items of the run being built; rows are given to items in file order."""

    def __init__(self):
        self.tables: list[pa.Table] = []
        self.rows = 0
        self.assigned = 0
        self._reset_items()

    def _reset_items(self) -> None:
        self.blocks: list[tuple[np.ndarray, ...]] = []
        self.special: dict[int, Item] = {}
        self.pending: list[Item] = []
        self.count = 0

    def add_table(self, table: pa.Table) -> None:
        self.tables.append(table)
        self.rows += table.num_rows

    def add_rows(self, n: int) -> None:
        """Rows that were parsed and checked but not made into columns."""
        self.rows += n

    def assign(self, n: int) -> tuple[int, int]:
        start = self.assigned
        self.assigned += n
        return start, self.assigned

    def add_item(self, item: Item) -> None:
        """An entry that is not a plain whole batch (damage, the reference path, a legacy entry, controls)."""
        self.special[self.count] = item
        self.pending.append(item)
        self.count += 1

    def add_batches(self, position: np.ndarray, size: np.ndarray, magic: np.ndarray, hdr: np.ndarray,
                    rows: np.ndarray, damage: dict[int, list[DamagedDataError]] | None = None) -> None:
        """Whole v2 batches whose `rows` records are the next rows; those in `damage` (by index) have damage."""
        if damage:
            i = 0
            for j in sorted(damage) + [len(hdr)]:
                if j > i:
                    self.add_batches(position[i:j], size[i:j], magic[i:j], hdr[i:j], rows[i:j])
                if j < len(hdr):
                    start, end = self.assign(int(rows[j]))
                    header = hdr[j].tolist()
                    self.add_item(Item(int(position[j]), int(size[j]), int(magic[j]),
                                       header[k.KAFKA_RECORD_BATCH__BASE_OFFSET], start, end, damage[j],
                                       header=header))
                i = j + 1
            return
        self._flush_pending()
        ends = self.assigned + np.cumsum(rows)
        self.blocks.append((position, size, magic, hdr[:, k.KAFKA_RECORD_BATCH__BASE_OFFSET], ends - rows, ends, hdr))
        self.assigned = int(ends[-1]) if len(ends) else self.assigned
        self.count += len(hdr)

    def _flush_pending(self) -> None:
        if self.pending:
            n = len(self.pending)
            self.blocks.append((*(np.array([getattr(item, name) for item in self.pending], dtype=np.int64)
                                  for name in ("position", "size", "magic", "base_offset", "row_start", "row_end")),
                                np.zeros((n, k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)))
            self.pending = []

    def finish(self) -> Run:
        self._flush_pending()
        table = pa.concat_tables(self.tables) if self.tables else None
        columns = [np.concatenate(c) if len(self.blocks) > 1 else c[0] for c in zip(*self.blocks)]
        run = Run(table, Items(*columns, self.special))
        self.tables, self.rows, self.assigned = [], 0, 0
        self._reset_items()
        return run


class Items:
    """The entries of a run, as columns: an `Item` is made only when asked for (most are plain whole batches).

    `special` holds the entries that are not: damaged, decoded by the reference
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


@dataclass
class BatchColumns:
    """The batches of a run as columns: what `kafkalog verify` checks across many batches."""

    position: np.ndarray
    end_position: np.ndarray
    base_offset: np.ndarray
    last_offset: np.ndarray
    max_timestamp: np.ndarray
    records: np.ndarray  # records parsed and handed out
    aborts: list[tuple[int, int]]  # (producer id, offset) of each ABORT marker
    damage: list[DamagedDataError]  # in file order, undecodable entries' included


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
    if item.magic < 2:
        return fast_legacy.batch_of(item.header, item.position, item.size, item.base_offset)
    h = item.header
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
        count=h[k.KAFKA_RECORD_BATCH__RECORDS_COUNT],
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
