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

The file, its chunks, the entry structure and the cursor are the scanner's (`kafkalog.entries.EntryScanner`);
this module decodes its entries with the decoder chosen (`kafkalog.model.Decoder`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kafkalog.compression import decompression_limit, max_decompressed_bytes as compression_limit
from kafkalog.entries import EntryScanner
from kafkalog.errors import DamagedDataError
from kafkalog.formats import message_set, record_batch
from kafkalog.formats.framing import LOG_OVERHEAD, entry_header
from kafkalog.log.record_list import StreamedRecords, TableRecords
from kafkalog.model import Batch, BatchColumns, Decoder
from kafkalog.sources import Source

if TYPE_CHECKING:
    from kafkalog.fast.columns import Repeated
    from kafkalog.fast.runs import Run

# The fast path (`kafkalog.fast`: the compiled engine and its Arrow glue) is imported by the
# methods that run it, so that a reader with `Decoder.OBJECT` or `Decoder.AUTO` (the CLI's, for a small file)
# never loads it unless an entry holds many records.

DEFAULT_MAX_ENTRY_BYTES = 256 * 1024 * 1024
#: Batches in one `scan_columns` run on the object path.
_OBJECT_RUN = 1024
#: With `Decoder.AUTO`, an entry declaring or spanning this many records is read by the fast path (the object path
#: reads 25,000-40,000 records a second; a hostile batch of a million records in a few kilobytes would take it a
#: minute).
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
    repeated : kafkalog.fast.columns.Repeated, optional
        The constant columns made by the fast path's earlier walks of the same segment with the same options
        (the byte ranges of one segment a read on threads cuts it into share them); None: made by this reader.

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
        decoder: Decoder = Decoder.FAST,
        batch_parts: bool = False,
        repeated: Repeated | None = None,
    ):
        #: Every problem found so far, in file order (the scanner adds the damage to the entry structure).
        self.damage: list[DamagedDataError] = []
        self._scanner = EntryScanner(source, name=name, start=start, end=end, max_entry_bytes=max_entry_bytes,
                                     damage=self.damage, strict=strict)
        self.name = self._scanner.name
        self.size = self._scanner.size
        self.start = start
        self.end = self._scanner.end
        self.decode_records = decode_records
        self.strict = strict
        self.max_entry_bytes = max_entry_bytes
        #: The most bytes one batch is held in when decompressed (None: `compression.decompression_limit`'s, by
        #: default DEFAULT_MAX_DECOMPRESSED_BYTES); the fast path reads a batch past it a window at a time.
        self.max_decompressed_bytes = max_decompressed_bytes if max_decompressed_bytes is not None \
            else compression_limit()
        #: True: a batch whose records decompress past a window (4 MiB) comes with them in parts
        #: (`StreamedRecords`), in memory bounded by the window; False: held whole up to
        #: `max_decompressed_bytes` (a sequence), in parts only past it.
        self.batch_parts = batch_parts
        #: Which decoder reads the batches (`kafkalog.model.Decoder`).
        self.decoder = decoder
        #: The constant columns of the fast path's walks, shared with the readers of the segment's other ranges
        #: (`kafkalog.log.segment_ranges`: made once, not once a range); None: this reader's own.
        self.repeated = repeated
        #: Where the fast path took over in the read under way: its start with `Decoder.FAST`; with
        #: `Decoder.AUTO`, the first entry that may hold many records (the object path read those before it);
        #: None while only the object path has read.
        self.fast_path_from: int | None = None

    @property
    def position(self) -> int:
        """Where reading stopped: the end of the last entry read, or the start of the damage that ended it.
        (While a run of entries is being handed out, its start.)"""
        return self._scanner.position

    def __enter__(self) -> SegmentReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._scanner.close()

    def __iter__(self) -> Iterator[Batch]:
        for part in self._batch_runs():
            if isinstance(part, Batch):
                yield part
            else:
                yield from self._plain_batches(part)

    def _batch_runs(self) -> Iterator[Batch | Run]:
        """The batches, as iterating the reader gives them; but a run of the fast path whose entries are all plain
        whole v2 batches (no damage, their records rows of its table) comes whole, as a `kafkalog.fast.runs.Run`:
        for `batch_runs`, below."""
        if not self._fast_path_from_start():
            yield from self._object_path_batches()
            if self.fast_path_from is None:
                return
        from kafkalog.fast import (
            runs,  # (start-up: see the top of this module)
            segment as fast_segment,
        )

        decoded = iter(fast_segment.decode_runs(
            self._scanner, max_decompressed_bytes=self.max_decompressed_bytes, start=self.fast_path_from,
            records=self.decode_records, record_columns_only=True, whole_batches=not self.batch_parts,
            repeated=self.repeated))
        for run in decoded:
            items = run.items
            if run.table is not None and len(items) and not items.special and self.decode_records:
                yield run
                continue
            for item in items:
                if not item.is_batch:
                    # The entry's size was sound, so the next entry starts after it: keep reading.
                    self.damage.extend(item.damage)
                    if self.strict:
                        raise item.damage[0]
                    continue
                batch = runs.batch_of(item, self.name)
                streamed = None
                if item.batch is None and self.decode_records:
                    batch.records = first = TableRecords(run.table, item.row_start, item.row_end)
                    if item.more:
                        streamed = StreamedRecords(first, self._later_parts(decoded, batch))
                        # Batch.records' type says Sequence; a streamed batch's records have no len() (model.Batch
                        # documents the exception; typing it is a change to the public API, left to its owner).
                        batch.records = streamed  # type: ignore[assignment]
                self.damage.extend(batch.damage)
                if self.strict and batch.damage:
                    raise batch.damage[0]
                yield batch
                if streamed is not None:
                    streamed.drain()

    def _plain_batches(self, run: Run) -> Iterator[Batch]:
        """The batches of a run `_batch_runs` gave whole, one at a time."""
        from kafkalog.fast import runs  # (start-up: see the top of this module)

        for item in run.items:
            batch = runs.batch_of(item, self.name)
            batch.records = TableRecords(run.table, item.row_start, item.row_end)
            yield batch

    def _later_parts(self, decoded: Iterator[Run], batch: Batch) -> Iterator[TableRecords]:
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
        made into an object: what `kafkalog verify` needs, at the speed of the fast path (whatever the decoder).
        """
        from kafkalog.fast import (
            runs,  # (start-up: see the top of this module)
            segment as fast_segment,
        )

        self.fast_path_from = self.start
        for run in fast_segment.decode_runs(self._scanner, max_decompressed_bytes=self.max_decompressed_bytes,
                                            columns=False):
            for item in run.items:
                if not item.is_batch:
                    self.damage.extend(item.damage)
                    continue
                batch = runs.batch_of(item, self.name)
                if item.batch is not None:
                    controls = [(r.offset, r.control_type) for r in batch.records if r.control_type is not None]
                else:
                    controls = item.controls or []
                self.damage.extend(batch.damage)
                yield batch, item.row_end - item.row_start, controls

    def scan_columns(self) -> Iterator[BatchColumns]:
        """`scan`, a run of batches at a time as columns (`kafkalog.model.BatchColumns`): no object per
        plain batch, for checks across batches at the speed of the fast path."""
        if not self._fast_path_from_start():
            # The object path: every batch and record decoded by the Kaitai parsers, a chunk of batches at a time.
            batches: list[Batch] = []
            seen = len(self.damage)
            for batch in self._object_path_batches():
                batches.append(batch)
                if len(batches) == _OBJECT_RUN:
                    yield self._object_run(batches, seen)
                    batches, seen = [], len(self.damage)
            yield self._object_run(batches, seen)
            if self.fast_path_from is None:
                return
        from kafkalog.fast import (
            runs,  # (start-up: see the top of this module)
            segment as fast_segment,
        )

        for run in fast_segment.decode_runs(self._scanner, max_decompressed_bytes=self.max_decompressed_bytes,
                                            start=self.fast_path_from, columns=False):
            columns = runs.batch_columns(run, self.name)
            self.damage.extend(columns.damage)
            yield columns

    def _fast_path_from_start(self) -> bool:
        """At the start of a read: whether the fast path reads from the start (`Decoder.FAST`), or the object path
        first (`fast_path_from` is None until it hands over, if it does)."""
        self.fast_path_from = self.start if self.decoder is Decoder.FAST else None
        return self.fast_path_from is not None

    def _object_run(self, batches: list[Batch], seen: int) -> BatchColumns:
        # The damage of the run's entries, in file order, as the fast path's runs give it (and `damage` has it).
        return BatchColumns.of(batches, self.damage[seen:])

    def _object_path_batches(self) -> Iterator[Batch]:
        """Every entry decoded by the object path (the generated Kaitai parsers) alone; with `Decoder.AUTO`, until
        an entry that may hold more records than they read in a moment: `fast_path_from` is then that entry's
        position, for the fast path to read the rest."""
        for chunk, base, table in self._scanner.entries():
            for pos, length, _ in table.tolist():
                entry = bytes(chunk[pos:pos + LOG_OVERHEAD + length])  # (bytes already: read without a chunk scan)
                if self.decoder is Decoder.AUTO and _many_records(entry):
                    self.fast_path_from = base + pos
                    return
                batch = self._decode(entry, base + pos)
                if batch is None:
                    continue
                self.damage.extend(batch.damage)
                if self.strict and batch.damage:
                    raise batch.damage[0]
                yield batch

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


def batch_runs(reader: SegmentReader) -> Iterator[Batch | Run]:
    """The reader's batches as iterating it gives them, but a run of the fast path whose entries are all plain
    whole v2 batches comes whole, as a `kafkalog.fast.runs.Run`: for dump's compiled line writers, which print a
    run at a time. A function of this module, not a method, so that `kafkalog.SegmentReader` hands out `Batch`
    objects only (a run is the fast path's)."""
    return reader._batch_runs()


def plain_batches(reader: SegmentReader, run: Run) -> Iterator[Batch]:
    """The batches of a run `batch_runs` gave whole, one at a time."""
    return reader._plain_batches(run)


def read_batches(source: Source, **options: Any) -> Iterator[Batch]:
    """The batches of a segment; see `SegmentReader` for the options."""
    with SegmentReader(source, **options) as reader:
        yield from reader
