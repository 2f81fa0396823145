"""`kafkalog dump`'s lines of one record-batch file (a segment, a KRaft snapshot, a remote segment): kafkalog's
text and JSON lines, and kafka-dump-log.sh's.

A large segment on a disk is printed by readers of its byte ranges on threads (`kafkalog.log.segment_ranges`,
cut at its offset index's entries): each range's lines are kept in memory a block at a time, and handed
out in file order, to be written by the caller's thread. The lines are the bytes one reader prints, whatever
the index says (the ranges are checked to meet), so the threads change only how long it takes.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from kafkalog import file_names
from kafkalog.dataset import fs, layout
from kafkalog.dump import kafka_dump_log as kafka_format, records as dump_format
from kafkalog.dump.json_line import dumps
from kafkalog.dump.kafka_versions import DEFAULT_KAFKA_VERSION
from kafkalog.dump.run_lines import RunLines
from kafkalog.errors import DamagedDataError, TruncatedError
from kafkalog.formats import internal_topics
from kafkalog.location import Location
from kafkalog.log import file_kinds
from kafkalog.log.record_list import StreamedRecords, parts_of
from kafkalog.log.segment import SegmentReader, batch_runs, plain_batches
from kafkalog.log.segment_ranges import read_in_ranges
from kafkalog.model import Batch, Decoder
from kafkalog.progress import ByteProgress
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_keys import keyring
from kafkalog.uri_path import AnyPath

if TYPE_CHECKING:
    from kafkalog.registry.values import ValueDecoder

#: Bytes of lines a range's thread writes before handing them out (more only by a block of a batch's records): a few
#: of the writers' blocks (`kafkalog.fast.batch_lines.BLOCK_BYTES`) at once, as each hand-out takes the GIL on both
#: threads (the thread writing them out did not write them: they are not in its core's cache anyway).
BLOCK_BYTES = 4 * 1024 * 1024
#: Records printed one by one between two chances to hand out a block: a large batch's lines are not all held.
RECORDS_BETWEEN_BLOCKS = 4096
#: Bytes of lines each range may hold ahead of the one being written out.
AHEAD_BYTES = 16 * 1024 * 1024
#: Bytes of a segment each range's thread prints: a range's lines must fit in AHEAD_BYTES, or the thread printing
#: the next range waits for the one before to be written out (two threads then reach 1 / (1 - AHEAD_BYTES / a range's
#: lines) times one: 1.3x for JSON of lz4 batches, whose lines are 4.5 times their bytes, in ranges of 16 MiB, as
#: verify's and read_arrow's are). Lines are 1 to 8 times the bytes they print (JSON of small or compressed records
#: the most), so a range is a quarter of AHEAD_BYTES; its run's Python (`kafkalog.dump.run_lines`) is small beside it.
RANGE_BYTES = AHEAD_BYTES // 4


@dataclass
class DumpOptions:
    format: str = "text"  # text, json or kafka
    full: bool = False  # whole keys and values in text output
    shallow: bool = False  # batches only
    max_bytes: int | None = None  # read only the first N bytes of each record-batch file (KIP-824)
    progress: ByteProgress | None = None
    decode: str | None = None  # --decode: internal-topic decoder (default: by the partition directory's name)
    kafka_version: str = DEFAULT_KAFKA_VERSION  # --kafka-version: whose kafka-dump-log.sh lines
    private_keys: tuple[str, ...] = ()  # --private-key: for encrypted Aiven remote segments
    values: ValueDecoder | None = None  # --decode-values: registry-framed keys and values, with their schema store
    decoder: Decoder = Decoder.FAST  # AUTO: the object path until a batch holds many records (small inputs)
    threads: int = 1  # readers of a large segment's byte ranges at once
    #: The served log (`kafkalog.dump.served_lines`): the byte position of the first batch to print, and the
    #: first offset whose record lines are printed (records below a log start offset inside its batch are not).
    start: int = 0
    min_offset: int | None = None


class _Prefix:
    """The first `limit` bytes of a binary file, as a file: what `--max-bytes` lets a reader see."""

    def __init__(self, f: BinaryIO, limit: int):
        self._f = f
        f.seek(0, os.SEEK_END)
        self._size = min(limit, f.tell())
        self._pos = 0
        self.name = getattr(f, "name", None)

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        self._pos = {os.SEEK_SET: pos, os.SEEK_CUR: self._pos + pos, os.SEEK_END: self._size + pos}[whence]
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            n = self._size - self._pos
        n = max(0, min(n, self._size - self._pos))
        self._f.seek(self._pos)
        data = self._f.read(n)
        self._pos += len(data)
        return data


def dump_segment(path: Location | AnyPath, kind: str, opts: DumpOptions, out: TextIO) -> bool:
    """Print one record-batch file (a segment, a KRaft snapshot, an Aiven remote segment by its manifest), on the
    local disk or behind a URI; True when it was whole and every checksum held."""
    location = Location.of(path)
    cuts = _range_starts(location, kind, opts, out)
    if len(cuts) > 1:
        return _dump_in_ranges(location.path, kind, cuts, opts, out)
    # An Aiven remote segment reads from its `.log` object, chunk by chunk, as the segment it was made from.
    opened = (aiven_object.open_segment(str(location), fs.open_object, keyring(opts.private_keys))
              if kind == file_kinds.RSM_MANIFEST else fs.open_object(location))
    with opened as f:
        # (an Aiven segment and a _Prefix read, seek and tell as a binary file does: all that a reader calls)
        source = cast(BinaryIO, f if opts.max_bytes is None else _Prefix(cast(BinaryIO, f), opts.max_bytes))
        printer = _printer(location, kind, opts, source)
        printer.header(out)
        lines = Lines.to(out)
        # Its batches' records in parts past a window: what is printed is not held.
        with SegmentReader(source, name=str(location), start=opts.start, decode_records=not opts.shallow,
                           decoder=opts.decoder, batch_parts=True) as reader:
            for end_position in printer.batches(reader, lines):
                if end_position is not None:
                    _progress(opts, end_position, location)
            damage = _without_max_bytes_cut(reader, opts)
            printer.trailing(damage, lines)
            printer.end(reader, damage, lines, opts.max_bytes is None)
        _file_done(opts, reader)
        return not damage and not printer.undecodable


@dataclass
class Lines:
    """Where dump's lines go: the text stream, or, where it writes UTF-8, its binary buffer, so that the
    compiled record lines (`kafkalog.dump.run_lines`) go out without a decode or a copy."""

    text: TextIO | None  # (None: a block of a range's lines, in memory)
    binary: BinaryIO | None

    @classmethod
    def to(cls, out: TextIO) -> Lines:
        binary = _utf8_buffer(out)
        if binary is not None:
            out.flush()  # what was written as text goes first
        return cls(out, binary)

    def line(self, text: str) -> None:
        if self.binary is None:
            self.text.write(text + "\n")  # type: ignore[union-attr]
        else:
            self.binary.write(text.encode("utf-8", "backslashreplace") + b"\n")

    def lines(self, data: memoryview) -> None:
        if self.binary is None:
            self.text.write(str(data, "utf-8"))  # type: ignore[union-attr]
        else:
            self.binary.write(data)


def _utf8_buffer(out: TextIO) -> BinaryIO | None:
    utf8 = (getattr(out, "encoding", None) or "").lower().replace("-", "") == "utf8"
    return getattr(out, "buffer", None) if utf8 else None


class _KafkalogLines:
    """kafkalog's own lines, text or JSON: each batch's line, its records' lines (a run of batches at a time by
    the compiled formatters, where they apply) and the damage where it was found."""

    def __init__(self, path: Location, opts: DumpOptions):
        self.path, self.opts = path, opts
        self.decoder = internal_topics.decoder_for_path(str(path), opts.decode)
        self.topic = internal_topics.topic_of_path(str(path))
        self.values = None
        if opts.values is not None:
            from kafkalog.registry.values import is_registry_topic  # (start-up: --decode-values only)

            self.values = opts.values if is_registry_topic(self.topic) else None
        #: Each writes a line: a JSON object or a text line, by format.
        self.batch_line: Callable[[Batch], Any]
        self.error_line: Callable[[DamagedDataError], Any]
        if opts.format == "json":
            self.batch_line, self.error_line = dump_format.batch_json_line, dump_format.error_json
            self.record_line: Callable = dump_format.record_json
        else:
            self.batch_line, self.error_line = dump_format.batch_text, dump_format.error_text
            self.record_line = functools.partial(dump_format.record_text, full=opts.full)
        #: Whether a record's key or value could not be decoded (an internal topic's, a registry's).
        self.undecodable = False
        #: Kafka-format only (bytes of the batches printed whole): none here.
        self.valid_bytes = 0
        self._printed = 0  # the reader's damage printed so far
        self._run_lines: RunLines | None = None  # the compiled record lines, once the reader runs the kernels

    def for_range(self, source: BinaryIO) -> _KafkalogLines:
        """This file's printer for one of its ranges, on the range's thread: what its path says found once, not again
        for each range (it looks at the disk), and nothing printed yet (the state `__init__` starts)."""
        printer = copy.copy(self)
        printer.undecodable, printer.valid_bytes, printer._printed, printer._run_lines = False, 0, 0, None
        return printer

    def header(self, out: TextIO) -> None:
        if self.opts.format != "json":
            out.write(f"Dumping {self.path}\n")

    def _new_run_lines(self) -> RunLines | None:
        if self.opts.format == "json":
            return dump_format.json_run_lines()
        return dump_format.text_run_lines(self.opts.full)

    def _emit(self, lines: Lines, line: dict | str) -> None:
        lines.line(dumps(line) if isinstance(line, dict) else line)

    def batches(self, reader: SegmentReader, lines: Lines) -> Iterator[int | None]:
        """Print the reader's batches; after each (or each run of them), where it ends (and None between blocks
        of a batch's lines)."""
        self._printed = 0
        # A run of plain data batches is written whole by a compiled loop, its batch lines with its records'.
        whole = dump_format.raw_decoder(self.decoder) and self.values is None and self.opts.min_offset is None
        for part in batch_runs(reader):
            if self._run_lines is None and reader.fast_path_from is not None:
                self._run_lines = self._new_run_lines()
            if isinstance(part, Batch):
                yield from self._batch(reader, part, lines)
                continue
            text = self._run_lines.whole(part) if whole and self._run_lines is not None else None
            if text is None:
                for batch in plain_batches(reader, part):
                    yield from self._batch(reader, batch, lines)
                continue
            for damage in reader.damage[self._printed:]:  # found before the run (an entry that could not be decoded)
                self._emit(lines, self.error_line(damage))
            yield from _written(text, lines)
            self._printed = len(reader.damage)
            yield int(part.items.position[-1] + part.items.size[-1])  # (where the run ends)

    def _batch(self, reader: SegmentReader, batch: Batch, lines: Lines) -> Iterator[int | None]:
        if self.values is not None:
            from kafkalog.dump import registry_lines  # (start-up: --decode-values only)
        path, emit = str(self.path), self._emit
        # Damage found before this batch (an entry that could not be decoded) comes first.
        for damage in reader.damage[self._printed:len(reader.damage) - len(batch.damage)]:
            emit(lines, self.error_line(damage))
        emit(lines, self.batch_line(batch))
        # A batch straddling the log start offset is served whole; a consumer drops the records below it.
        below = self.opts.min_offset if self.opts.min_offset is not None and batch.base_offset < self.opts.min_offset \
            else None
        for records in parts_of(batch.records):  # (one, but a batch read past the decompression limit has parts)
            compiled = (self._run_lines.of(records) if self._run_lines is not None
                        and dump_format.raw_records(batch, self.decoder)
                        and (self.values is None or batch.is_control) and below is None else None)
            for text in compiled or ():
                lines.lines(text)
                yield None
            for n, record in enumerate(records if compiled is None else ()):
                if n and not n % RECORDS_BETWEEN_BLOCKS:
                    yield None
                if below is not None and record.offset < below:
                    continue
                line, problem = internal_topics.dump_hook(self.record_line(record), record, self.decoder, path,
                                                          batch.position)
                problems: list[DamagedDataError] = [problem] if problem is not None else []
                if self.values is not None and record.control_type is None:
                    line, more = registry_lines.add_values(line, record, self.values, self.topic, path,
                                                           batch.position)
                    problems += more
                emit(lines, line)
                for p in problems:
                    emit(lines, self.error_line(p))
                    self.undecodable = True
        for damage in batch.damage:
            emit(lines, self.error_line(damage))
        self._printed = len(reader.damage)
        yield batch.end_position

    def trailing(self, damage: list[DamagedDataError], lines: Lines) -> None:
        """The damage found after the last batch printed (an undecodable entry, the damage that ended the read)."""
        for d in damage[self._printed:]:
            self._emit(lines, self.error_line(d))

    def end(self, reader: SegmentReader, damage: list[DamagedDataError], lines: Lines, whole: bool) -> None:
        pass  # (the damage is among the lines)


class _KafkaLines:
    """kafka-dump-log.sh --deep-iteration --print-data-log's lines (of `--kafka-version`'s tool): the damage
    goes to stderr, where it does not disturb the lines scripts parse."""

    def __init__(self, path: Location, kind: str, opts: DumpOptions, source: BinaryIO):
        self.path, self.kind, self.opts, self.source = path, kind, opts, source
        self.decoder = internal_topics.decoder_for_path(str(path), opts.decode)
        self.undecodable = False  # (an undecodable key or value is printed as Kafka prints it)
        #: Bytes of the entries read whole: Kafka says how many bytes past them it did not read.
        self.valid_bytes = 0
        self._run_lines: RunLines | None = None  # the compiled record lines, once the reader runs the kernels

    def for_range(self, source: BinaryIO) -> _KafkaLines:
        """As `_KafkalogLines.for_range`; `source`: the range's own file, where its legacy entries are read again."""
        printer = copy.copy(self)
        printer.source, printer.undecodable, printer.valid_bytes, printer._run_lines = source, False, 0, None
        return printer

    def header(self, out: TextIO) -> None:
        out.write(f"Dumping {self.path}\n")
        for line in kafka_format.file_lines(Path(self.path.name), self.kind):
            out.write(line + "\n")

    def batches(self, reader: SegmentReader, lines: Lines) -> Iterator[int | None]:
        """As `_KafkalogLines.batches`."""
        whole = not self.opts.shallow and kafka_format.raw_data(self.decoder)
        for part in batch_runs(reader):
            if self._run_lines is None and reader.fast_path_from is not None:
                self._run_lines = kafka_format.run_lines()
            if isinstance(part, Batch):
                yield from self._batch(part, lines)
                continue
            text = self._run_lines.whole(part) if whole and self._run_lines is not None else None
            if text is None:
                for batch in plain_batches(reader, part):
                    yield from self._batch(batch, lines)
                continue
            yield from _written(text, lines)
            self.valid_bytes += int(part.items.size.sum())
            yield int(part.items.position[-1] + part.items.size[-1])  # (where the run ends)

    def _batch(self, batch: Batch, lines: Lines) -> Iterator[int | None]:
        opts = self.opts
        run_lines = self._run_lines
        lines.line(kafka_format.batch_line(batch))
        if run_lines is not None and (opts.shallow or not kafka_format.raw_data_records(batch, self.decoder)):
            run_lines = None  # (the records are written one by one, or not at all)
        streamed = isinstance(batch.records, StreamedRecords)  # a batch read past the decompression limit, in parts
        compiled = run_lines.of(batch.records, batch.timestamp_type) if run_lines is not None and not streamed else None
        if run_lines is not None and isinstance(batch.records, StreamedRecords):
            for records in batch.records.parts():
                for text in run_lines.of(records, batch.timestamp_type) or ():
                    lines.lines(text)
                    yield None
        elif compiled is not None:
            for text in compiled:
                lines.lines(text)
                yield None
        elif not opts.shallow:
            checks = []
            if batch.magic < 2:  # each record's own CRC: Kafka's deep iteration prints it
                self.source.seek(batch.position)
                entry = self.source.read(batch.size)
                written = kafka_format.legacy_lines(batch, entry, opts.kafka_version, self.decoder)
                if written is not None:
                    for text in written:
                        lines.lines(text)
                        yield None
                    self.valid_bytes += batch.size
                    yield batch.end_position
                    return
                checks = kafka_format.legacy_checksums(entry, batch)
            for n, record in enumerate(batch.records):
                if n and not n % RECORDS_BETWEEN_BLOCKS:
                    yield None
                check = checks[n] if checks and len(checks) == len(batch.records) else (batch.crc, batch.crc_valid)
                lines.line(kafka_format.record_line(batch, record, check, opts.kafka_version, self.decoder))
        self.valid_bytes += batch.size
        yield batch.end_position

    def trailing(self, damage: list[DamagedDataError], lines: Lines) -> None:
        pass  # (the damage goes to stderr once the file is printed)

    def end(self, reader: SegmentReader, damage: list[DamagedDataError], lines: Lines, whole: bool) -> None:
        # Kafka stops at a partial entry and says how many bytes it left; other damage goes to stderr.
        if whole and reader.position < reader.size:
            lines.line(f"Found {reader.size - self.valid_bytes} invalid bytes at the end of {self.path.name}")
        for d in damage:
            print(f"kafkalog dump: {d}", file=sys.stderr)


_Printer = _KafkalogLines | _KafkaLines


def _written(views: Iterator[memoryview], lines: Lines) -> Iterator[None]:
    """A run's lines written; None after each `BLOCK_BYTES` of them (a range on a thread hands them out there)."""
    held = 0
    for view in views:
        lines.lines(view)
        held += len(view)
        if held >= BLOCK_BYTES:
            held = 0
            yield None


def _printer(path: Location | Path, kind: str, opts: DumpOptions, source: BinaryIO) -> _Printer:
    location = Location.of(path)
    return _KafkaLines(location, kind, opts, source) if opts.format == "kafka" else _KafkalogLines(location, opts)


# --- a large segment's ranges on threads ---

def _range_starts(location: Location, kind: str, opts: DumpOptions, out: TextIO) -> list[int]:
    """Where a segment's ranges start: [0] (printed by one reader) unless it is a large `.log` on a disk with its
    offset index beside it, all of it printed, to a UTF-8 stream, and there are threads to share it."""
    if opts.threads < 2 or kind != file_kinds.LOG or location.is_uri or opts.max_bytes is not None \
            or opts.values is not None or _utf8_buffer(out) is None or opts.start or opts.min_offset is not None:
        return [0]
    base = file_names.base_offset_of(str(location))
    if base is None:
        return [0]  # (not named as Kafka names a segment: no offset index to cut at)
    return layout.index_cuts(str(location), base, location.path.stat().st_size, RANGE_BYTES)


class _Block:
    """A range's lines as they are written, kept as the views and strings they come in (the compiled lines are
    views of the arrays their loops wrote): handed out and written by the caller's thread, never copied together."""

    def __init__(self) -> None:
        self.parts: list[bytes | memoryview] = []
        self.bytes = 0

    def write(self, data: bytes | memoryview) -> None:
        self.parts.append(data)
        self.bytes += len(data)


@dataclass
class _Printed:
    """A block of a range's lines, with what the file's end needs to know of the batches they print."""

    parts: list[bytes | memoryview]
    end_position: int  # of the last batch printed
    valid_bytes: int = 0  # the kafka format's: bytes of the batches printed whole
    undecodable: bool = False


def _dump_in_ranges(path: Path, kind: str, cuts: list[int], opts: DumpOptions, out: TextIO) -> bool:
    printer = _printer(path, kind, opts, io.BytesIO())
    printer.header(out)
    lines = Lines.to(out)
    write = lines.binary.write  # type: ignore[union-attr]
    work = functools.partial(_range_lines, printer, path)
    damage: list[DamagedDataError] = []
    undecodable = False
    last: SegmentReader | None = None
    for item in read_in_ranges(path, cuts, work, opts.threads, AHEAD_BYTES, decode_records=not opts.shallow,
                               decoder=opts.decoder, batch_parts=True):
        if isinstance(item, SegmentReader):
            damage += item.damage
            last = item
            continue
        for part in item.parts:
            write(part)
        printer.valid_bytes += item.valid_bytes
        undecodable |= item.undecodable
        _progress(opts, item.end_position, path)
    assert last is not None
    printer.end(last, damage, lines, True)
    _file_done(opts, last)
    return not damage and not undecodable


class _OpenedWhenRead:
    """A file opened when first read: a range's legacy entries, which the kafka format reads again, are rare (most
    ranges never open it)."""

    def __init__(self, path: Path):
        self.path = path
        self._file: BinaryIO | None = None

    def _opened(self) -> BinaryIO:
        if self._file is None:
            self._file = open(self.path, "rb")  # noqa: SIM115  (closed by close())
        return self._file

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        return self._opened().seek(pos, whence)

    def read(self, n: int = -1) -> bytes:
        return self._opened().read(n)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _range_lines(file_printer: _Printer, path: Path, reader: SegmentReader) -> Iterator[tuple[_Printed, int]]:
    """A range's lines, a block at a time, on the range's thread (`file_printer`: the file's)."""
    # (the legacy entries of the kafka format are read again, on this thread)
    with contextlib.closing(_OpenedWhenRead(path)) as source:
        printer = file_printer.for_range(cast(BinaryIO, source))
        block = _Block()
        lines = Lines(None, block)  # type: ignore[arg-type]
        valid = 0
        end_position = reader.start
        for end in printer.batches(reader, lines):
            end_position = end if end is not None else end_position
            if block.bytes >= BLOCK_BYTES:
                yield _Printed(block.parts, end_position, printer.valid_bytes - valid, printer.undecodable), block.bytes
                block = lines.binary = _Block()  # type: ignore[assignment]
                valid = printer.valid_bytes
        printer.trailing(reader.damage, lines)
        yield _Printed(block.parts, end_position, printer.valid_bytes - valid, printer.undecodable), block.bytes


def _without_max_bytes_cut(reader: SegmentReader, opts: DumpOptions) -> list:
    """The damage, less the entry cut by --max-bytes: reading stops there, as KIP-824's does."""
    damage = list(reader.damage)
    if opts.max_bytes is not None and reader.size >= opts.max_bytes and damage \
            and isinstance(damage[-1], TruncatedError) and damage[-1].position == reader.position:
        damage.pop()
    return damage


def _progress(opts: DumpOptions, done: int, path: Location | Path) -> None:
    if opts.progress is not None:
        opts.progress.update(done, str(path))


def _file_done(opts: DumpOptions, reader: SegmentReader) -> None:
    if opts.progress is not None:
        opts.progress.file_done(reader.size)
