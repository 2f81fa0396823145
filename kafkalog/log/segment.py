"""Reading a segment file (or bytes) batch by batch, as Kafka's `FileLogInputStream` does.

    with SegmentReader("00000000000000000000.log") as reader:
        for batch in reader:
            for record in batch.records:
                ...
        reader.damage   # every problem found, in file order

Entries are read one at a time, so a segment of any size streams. Each
entry's format is picked by its magic byte. Damage inside an entry (a CRC
mismatch, data that does not decompress) is attached to its batch and reading
goes on; damage to the entry structure itself (a size that cannot be, a
partial entry at the end) ends the read. Either way everything read before
the damage has been handed out, and with `strict=True` the first damage is
raised as a `DamagedDataError` instead.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, BinaryIO, Iterator

import numpy as np

from kafkalog.compression import decompression_limit
from kafkalog.compression import max_decompressed_bytes as compression_limit
from kafkalog.errors import CorruptStructureError, DamagedDataError, RemoteObjectError, TruncatedError
from kafkalog.formats import message_set, record_batch
from kafkalog.formats.framing import HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MIN_ENTRY_SIZE, entry_header
from kafkalog.log.record_list import StreamedRecords, TableRecords
from kafkalog.model import Batch, BatchColumns
from kafkalog.sources import Source, open_source

if TYPE_CHECKING:
    from kafkalog.fast.runs import Run

# The fast path (`kafkalog.fast`: numba and the compiled kernels, about a second to load) is imported by the
# methods that run it, so that a reader with `fast=False` (the CLI's, for a small file) never loads it.

DEFAULT_MAX_ENTRY_BYTES = 256 * 1024 * 1024
#: How much of the file is read at once; a larger entry is read on its own.
CHUNK_BYTES = 8 * 1024 * 1024
MIN_ENTRY_BYTES = LOG_OVERHEAD + MIN_ENTRY_SIZE

_ZERO_SCAN_LIMIT = 64 * 1024 * 1024
#: Batches in one `scan_columns` run on the object path.
_OBJECT_RUN = 1024
#: With `fast=None`, an entry declaring or spanning this many records is read by the kernels (the Kaitai parsers read
#: 25,000-40,000 records a second; a hostile batch of a million records in a few kilobytes would take them a minute).
MANY_RECORDS = 4096
#: ... and an entry whose records decompress to this many bytes.
MANY_BYTES = 1024 * 1024


class SegmentReader:
    """Iterates the batches of one segment, from byte `start` up to (not including) `end`.

    `start` must be the position of an entry (0, or a position from an offset
    index); every entry that starts before `end` is read whole, so byte ranges
    that meet at entry boundaries read every batch exactly once. A batch whose
    records decompress past `max_decompressed_bytes` (or past a window, with
    `batch_parts=True`) has its records in parts, `StreamedRecords`, read once.

    Damage does not stop the reading where the next entry can still be found: each problem is
    kept in `damage` (and on the batch it concerns), in file order.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like or binary file
        The segment: a ``.log`` file's path, its bytes, or an open seekable binary file (left open).
    name : str, optional
        The name errors give the segment; by default the path, or the file object's name.
    start : int, default 0
        The byte position of the first entry to read.
    end : int, optional
        Entries that start at or past this byte are not read; by default the end of the file.
    decode_records : bool, default True
        Decode each batch's records; False reads the batch headers alone.
    strict : bool, default False
        Raise the first damage found instead of keeping it in `damage` and reading on.
    max_entry_bytes : int, default 256 MiB
        The largest entry a size field may declare; a larger one is damage (a size read from bad bytes).
    max_decompressed_bytes : int, optional
        The most bytes one batch's records are held in when decompressed; past it they come in parts.
        By default `kafkalog.compression.decompression_limit`'s (256 MiB).
    decoder : kafkalog.Decoder, default Decoder.FAST
        How batches are decoded: ``Decoder.FAST``, the fast path (the compiled kernels); ``Decoder.OBJECT``,
        the object path (the Kaitai compiler's parsers, the reference); ``Decoder.AUTO``, the object path
        until an entry may hold many records, then the fast path (what costs least on a small file).
        The batches are the same whichever decodes them.
    batch_parts : bool, default False
        True: a batch whose records decompress past a window (4 MiB) has them in parts, in memory
        bounded by the window; False: held whole up to `max_decompressed_bytes`.

    Attributes
    ----------
    name : str or None
        The segment's name in errors.
    size : int
        The file's size in bytes.
    damage : list of kafkalog.DamagedDataError
        Every problem found so far, in file order.
    position : int
        Where reading stopped: the end of the last entry read, or the start of the damage that ended it.

    Raises
    ------
    kafkalog.DamagedDataError
        With ``strict=True``, the first damage: `TruncatedError`, `CorruptStructureError`,
        `ChecksumError`, `DecompressionError` or `DecompressionLimitError`, naming the segment and the
        byte position.
    OSError
        The file cannot be opened or read.

    See Also
    --------
    read_batches : The batches of a segment, the reader closed after them.
    Partition : The segments of a partition directory in offset order.

    Examples
    --------
    >>> import kafkalog
    >>> with kafkalog.SegmentReader("samples/v2-transaction.log") as reader:
    ...     for batch in reader:
    ...         print(batch.base_offset, batch.is_control, [r.value for r in batch.records][:1])
    0 False [b'hello apple (in a transaction)']
    3 True [b'\\x00\\x00\\x00\\x00\\x00\\x01']

    Damage is kept and reported, not raised (unless ``strict=True``): here a segment cut short.

    >>> from pathlib import Path
    >>> data = Path("samples/v2-none.log").read_bytes()
    >>> reader = kafkalog.SegmentReader(data[:-10], name="v2-none.log")
    >>> len(list(reader))
    1
    >>> [str(d) for d in reader.damage]
    ['v2-none.log: byte 238: partial entry at the end: its size is 230 bytes, 220 remain']
    """

    def __init__(
        self,
        source: Source,
        *,
        name: str | None = None,
        start: int = 0,
        end: int | None = None,
        decode_records: bool = True,
        strict: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        max_decompressed_bytes: int | None = None,
        fast: bool | None = True,
        batch_parts: bool = False,
    ):
        self._file, self._owns_file, default_name = open_source(source)
        self.name = name if name is not None else default_name
        self.size = _size(self._file)
        self.start = start
        self.end = self.size if end is None else min(end, self.size)
        self.decode_records = decode_records
        self.strict = strict
        self.max_entry_bytes = max_entry_bytes
        #: The most bytes one batch is held in when decompressed (None: `compression.decompression_limit`'s, by
        #: default DEFAULT_MAX_DECOMPRESSED_BYTES); the kernels read a batch past it a window at a time.
        self.max_decompressed_bytes = max_decompressed_bytes if max_decompressed_bytes is not None \
            else compression_limit()
        #: True: a batch whose records decompress past a window (4 MiB) comes with them in parts
        #: (`StreamedRecords`), in memory bounded by the window; False: held whole up to
        #: `max_decompressed_bytes` (a sequence), in parts only past it.
        self.batch_parts = batch_parts
        #: Decode v2 batches with the compiled kernels (False: the Kaitai parsers alone, the reference; None: the
        #: Kaitai parsers until an entry may hold many records, then the kernels: what costs least on a small file).
        self.fast = fast
        #: Every problem found so far, in file order.
        self.damage: list[DamagedDataError] = []
        #: Where reading stopped: the end of the last entry read, or the start of the damage that ended it.
        self.position = start
        #: Where the readable bytes end, when the file under the segment cannot be read past a point.
        self._readable_end: int | None = None

    def __enter__(self) -> "SegmentReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_file:
            self._file.close()

    def __iter__(self) -> Iterator[Batch]:
        for part in self.batch_runs():
            if isinstance(part, Batch):
                yield part
            else:
                yield from self.plain_batches(part)

    def batch_runs(self) -> Iterator[Batch | Run]:
        """The batches, as iterating the reader gives them; but a run of the kernels whose entries are all plain
        whole v2 batches (no damage, their records rows of its table) comes whole, as a `kafkalog.fast.runs.Run`
        (`position` then past its last batch): for a printer that takes a run at a time, or hands it to
        `plain_batches`."""
        if not self.fast:
            yield from self._reference_batches()
            if not self.fast:  # (None: the object path may hand the rest to the kernels)
                return
        from kafkalog.fast import runs  # (start-up: see the top of this module)
        from kafkalog.fast import segment as fast_segment

        decoded = iter(fast_segment.decode_runs(self, records=self.decode_records, record_columns_only=True,
                                               whole_batches=not self.batch_parts))
        for run in decoded:
            items = run.items
            if run.table is not None and len(items) and not items.special and self.decode_records:
                self.position = int(items.position[-1] + items.size[-1])
                yield run
                continue
            for item in items:
                self.position = item.position
                if not item.is_batch:
                    # The entry's size was sound, so the next entry starts after it: keep reading.
                    self.damage.extend(item.damage)
                    if self.strict:
                        raise item.damage[0]
                    continue
                batch = runs.batch_of(item, self.name)
                if item.batch is None and self.decode_records:
                    batch.records = TableRecords(run.table, item.row_start, item.row_end)
                    if item.more:
                        batch.records = StreamedRecords(batch.records, self._later_parts(decoded, batch))
                self.position = item.position + item.size
                self.damage.extend(batch.damage)
                if self.strict and batch.damage:
                    raise batch.damage[0]
                yield batch
                if item.more:
                    batch.records.drain()

    def plain_batches(self, run: Run) -> Iterator[Batch]:
        """The batches of a run `batch_runs` gave whole, one at a time."""
        from kafkalog.fast import runs  # (start-up: see the top of this module)

        for item in run.items:
            batch = runs.batch_of(item, self.name)
            batch.records = TableRecords(run.table, item.row_start, item.row_end)
            self.position = item.position + item.size
            yield batch

    def _later_parts(self, decoded: Iterator, batch: Batch) -> Iterator[TableRecords]:
        """The parts after the first of a batch read past the decompression limit, each alone in its run; the
        damage found at its end goes to the batch and to the reader's damage."""
        for run in decoded:
            item = run.items[0]
            batch.damage.extend(item.damage)
            self.damage.extend(item.damage)
            if self.strict and item.damage:
                raise item.damage[0]
            yield TableRecords(run.table, item.row_start, item.row_end)
            if not item.more:
                return

    def scan(self) -> Iterator[tuple[Batch, int, list[tuple[int, str]]]]:
        """Each batch (without its records) with its number of records and its control records' (offset, type).

        Every record is parsed and checked as when reading them, but none is
        made into an object: what `kafkalog verify` needs, at the speed of the kernels.
        """
        from kafkalog.fast import runs  # (start-up: see the top of this module)
        from kafkalog.fast import segment as fast_segment

        for run in fast_segment.decode_runs(self, columns=False):
            for item in run.items:
                self.position = item.position
                if not item.is_batch:
                    self.damage.extend(item.damage)
                    continue
                batch = runs.batch_of(item, self.name)
                if item.batch is not None:
                    controls = [(r.offset, r.control_type) for r in batch.records if r.control_type is not None]
                else:
                    controls = item.controls or []
                self.position = item.position + item.size
                self.damage.extend(batch.damage)
                yield batch, item.row_end - item.row_start, controls

    def scan_columns(self) -> Iterator[BatchColumns]:
        """`scan`, a run of batches at a time as columns (`kafkalog.model.BatchColumns`): no object per
        plain batch, for checks across batches at the speed of the kernels."""
        if not self.fast:
            # The object path: every batch and record decoded by the Kaitai parsers, a chunk of batches at a time.
            batches: list[Batch] = []
            seen = len(self.damage)
            for batch in self._reference_batches():
                batches.append(batch)
                if len(batches) == _OBJECT_RUN:
                    yield self._object_run(batches, seen)
                    batches, seen = [], len(self.damage)
            yield self._object_run(batches, seen)
            if not self.fast:  # (None: the object path may hand the rest to the kernels)
                return
        from kafkalog.fast import runs  # (start-up: see the top of this module)
        from kafkalog.fast import segment as fast_segment

        for run in fast_segment.decode_runs(self, columns=False):
            columns = runs.batch_columns(run, self.name)
            self.damage.extend(columns.damage)
            if len(run.items):
                self.position = int(run.items.position[-1] + run.items.size[-1])
            yield columns

    def _object_run(self, batches: list[Batch], seen: int) -> BatchColumns:
        # The damage of the run's entries, in file order, as the fast path's runs give it (and `damage` has it).
        return BatchColumns.of(batches, self.damage[seen:])

    def _reference_batches(self) -> Iterator[Batch]:
        """Every entry decoded by the generated Kaitai parsers alone (`fast=False`); with `fast=None`, until an
        entry that may hold more records than they read in a moment: from there on, `fast` is True and `start`
        is that entry's position, for the kernels to read the rest."""
        for chunk, base, table in self.entries():
            for pos, length, _ in table.tolist():
                self.position = base + pos
                entry = chunk[pos:pos + LOG_OVERHEAD + length]
                if self.fast is None and _many_records(entry):
                    self.fast, self.start = True, base + pos
                    return
                batch = self._decode(entry, base + pos)
                self.position = base + pos + LOG_OVERHEAD + length
                if batch is None:
                    continue
                self.damage.extend(batch.damage)
                if self.strict and batch.damage:
                    raise batch.damage[0]
                yield batch

    def entries(self) -> Iterator[tuple[bytes, int, np.ndarray]]:
        """The whole entries of the range, a run at a time: (bytes, their file position, entry table).

        Each row of the table is an entry's (position in those bytes, size after
        the first 12 bytes, magic byte). The file is read in chunks of
        `CHUNK_BYTES`, or one entry at a time where an entry is larger. Damage
        to the entry structure ends the runs, recorded in `damage`.
        """
        pos = self.start
        while pos < self.end:
            try:
                yield from self._entries_from(pos)
                return
            except RemoteObjectError as exc:
                # The bytes under the segment (a tiered-storage object) cannot be read past a chunk: read
                # what is before it, then report the chunk as the damage that ends the segment.
                pos = self.position
                if self._readable_end is None and exc.readable_until > pos:
                    self._readable_end = exc.readable_until
                    continue
                # Placed in the segment; the message names the object and its byte when it is another file.
                text = exc.message if exc.path in (None, self.name) else str(exc)
                located = exc.with_location(self.name, pos, message=text)
                located.path = self.name  # None too (a source without a name): the message names the object
                self._fail(located)
                return

    def _entries_from(self, pos: int) -> Iterator[tuple[bytes, int, np.ndarray]]:
        if not self.fast:
            yield from self._entries_one_by_one(pos)
            return
        from kafkalog.fast import kernels  # (start-up: see the top of this module)

        self.position = pos
        while pos < self.end:
            self.position = pos
            want = self._chunk_length(pos)
            if want >= HEADER_SIZE_UP_TO_MAGIC:
                chunk = self._read(pos, want)
                table = np.empty((len(chunk) // MIN_ENTRY_BYTES + 1, 3), dtype=np.int64)
                n, stop, why = kernels.scan_entries(np.frombuffer(chunk, dtype=np.uint8), 0, self.end - pos,
                                                     self.max_entry_bytes, table)
                if n:
                    yield chunk, pos, table[:n]
                pos += stop
                if why != kernels.SCAN_STOP:
                    continue
                self.position = pos
            # The entry at `pos` is not whole in what was read: the read ends inside it, or it is damaged.
            length = self._check_entry(pos)
            if length is None:
                return
            if LOG_OVERHEAD + length > self._chunk_length(pos):
                entry = self._read(pos, LOG_OVERHEAD + length)
                magic = entry_header(entry).magic
                yield entry, pos, np.array([[0, length, magic]], dtype=np.int64)
                pos += LOG_OVERHEAD + length

    def _entries_one_by_one(self, pos: int) -> Iterator[tuple[bytes, int, np.ndarray]]:
        """`_entries_from` without the kernels: each entry's header read and checked on its own (the object
        path, whose cost is in the Kaitai parsers anyway)."""
        while pos < self.end:
            self.position = pos
            length = self._check_entry(pos)
            if length is None:
                return
            entry = self._read(pos, LOG_OVERHEAD + length)
            yield entry, pos, np.array([[0, length, entry_header(entry).magic]], dtype=np.int64)
            pos += LOG_OVERHEAD + length

    def _chunk_length(self, pos: int) -> int:
        """How much to read at `pos`: a chunk, or less where the file or the range ends sooner."""
        readable = self.size if self._readable_end is None else self._readable_end
        return min(CHUNK_BYTES, self.size - pos, max(self.end - pos, 0), max(readable - pos, 0))

    def _check_entry(self, pos: int) -> int | None:
        """The size of the entry at `pos` when its header is sound and it is whole in the file; else record the damage."""
        remaining = self.size - pos
        if remaining < HEADER_SIZE_UP_TO_MAGIC:
            self._fail(TruncatedError(
                f"partial entry at the end: {remaining} bytes left, an entry header takes {HEADER_SIZE_UP_TO_MAGIC}"
                + self._zero_note(pos), path=self.name, position=pos))
            return None
        length = entry_header(self._read(pos, HEADER_SIZE_UP_TO_MAGIC)).len_rest
        if length < MIN_ENTRY_SIZE:
            self._fail(CorruptStructureError(
                f"entry size {length} is below the minimum of {MIN_ENTRY_SIZE} bytes" + self._zero_note(pos),
                path=self.name, position=pos))
            return None
        if length > remaining - LOG_OVERHEAD:
            self._fail(TruncatedError(
                f"partial entry at the end: its size is {length} bytes, {remaining - LOG_OVERHEAD} remain",
                path=self.name, position=pos))
            return None
        if length > self.max_entry_bytes:
            self._fail(CorruptStructureError(
                f"entry size {length} is above the limit of {self.max_entry_bytes} bytes "
                "(raise max_entry_bytes if the segment really holds such batches)",
                path=self.name, position=pos))
            return None
        return length

    def _decode(self, entry: bytes, pos: int) -> Batch | None:
        magic = entry_header(entry).magic
        try:
            with decompression_limit(self.max_decompressed_bytes):
                # As FileLogInputStream: magic 2 and above is a record batch, below it a legacy message.
                if magic >= 2:
                    return record_batch.decode_batch(entry, pos, self.name, self.decode_records)
                return message_set.decode_entry(entry, pos, self.name, self.decode_records)
        except DamagedDataError as exc:
            # The entry's size was sound, so the next entry starts after it: keep reading.
            self.damage.append(exc)
            if self.strict:
                raise
            return None

    def _fail(self, damage: DamagedDataError) -> None:
        self.damage.append(damage)
        if self.strict:
            raise damage

    def _read(self, pos: int, n: int) -> bytes:
        self._file.seek(pos)
        data = self._file.read(n)
        if len(data) != n:
            raise TruncatedError(f"file ended while reading {n} bytes (got {len(data)})", path=self.name, position=pos)
        return data

    def _zero_note(self, pos: int) -> str:
        """Say so when the rest of the file is zero bytes, as in a preallocated segment.

        Only when the zeros reach past an entry's offset and size fields: fewer
        zero bytes may as well be the start of an entry cut short (offset 0).
        """
        n = self.size - pos
        if n > _ZERO_SCAN_LIMIT or n < LOG_OVERHEAD:
            return ""
        self._file.seek(pos)
        if self._file.read(n).count(0) == n:
            return f"; the remaining {n} bytes are all zero (unused space of a preallocated segment)"
        return ""


def _many_records(entry: bytes) -> bool:
    """Whether an entry may hold more than the object path should read: a v2 batch that declares `MANY_RECORDS`
    or more, whose offsets span as many, or whose records decompress to `MANY_BYTES` or more (a record of a
    million empty headers is a few hundred bytes compressed); a damaged one (the kernels say the same, sooner);
    and a legacy entry (a compressed wrapper's message count is in no header)."""
    header = entry_header(entry)
    if not header.has_v2:
        return True
    with decompression_limit(MANY_BYTES):  # what is past it needs no more decompressing to be "many"
        extent = record_batch.records_extent(entry)
    return (extent is None or max(extent[0], header.v2.last_offset_delta) >= MANY_RECORDS
            or extent[1] >= MANY_BYTES)


def read_batches(source: Source, **options) -> Iterator[Batch]:
    """The batches of a segment; see `SegmentReader` for the options."""
    with SegmentReader(source, **options) as reader:
        yield from reader


def _size(f: BinaryIO) -> int:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(0)
    return size
