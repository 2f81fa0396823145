"""A segment file's entries found and checked, a chunk at a time: `EntryScanner`, the cursor of a segment read.

    with EntryScanner("00000000000000000000.log", start=0, end=None, max_entry_bytes=..., damage=[]) as scanner:
        for chunk, base, table in scanner.entries():
            ...                # table[i] = (ENTRY_POS, ENTRY_LENGTH, ENTRY_MAGIC) of a whole entry in `chunk`
        scanner.position       # where reading stopped: past the last entry, or at the damage that ended it
        for window, base, table, header, offsets in scanner.entry_windows(scan_entries, hop_entries):
            ...                # a planner's walk: whole entries of a window, a large entry's header alone, or
                               # large entries found by their headers alone (`offsets`: their offset fields)

Spec: `kafka_log.ksy`'s entry framing (offset, size, magic at byte 16), as Kafka's `FileLogInputStream`
reads it. The scanner owns the file, reads it in chunks of `CHUNK_BYTES` (an entry larger than a chunk on
its own; a file on a disk into a buffer it reuses once nothing holds the chunk read into it) and records
the damage to the entry structure (a size that cannot be, a partial entry at the end, a tiered-storage
object that cannot be read), which ends the entries. It decodes no batch: both paths
decode the entries it hands out. Finding a chunk's entries is the chunk scan it is given (the fast path
gives the compiled engine's, `kafkalog.fast.compiled.scan_entries`); without one, each entry's header is
read by the generated parser on its own (`kafkalog.formats.framing`), so the object path never loads the
engine.

A layer of its own between `fast` and `formats`: both paths read through it, and it reads files, which
no module of `formats` (the object path's decoders of bytes) does.
"""
from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

import numpy as np

from kafkalog.errors import CorruptStructureError, DamagedDataError, RemoteObjectError, TruncatedError
from kafkalog.formats.framing import HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MIN_ENTRY_SIZE, EntryHeader, entry_header
from kafkalog.sources import Source, open_source

#: How much of the file is read at once; a larger entry is read on its own. A range's last chunk takes up to an
#: eighth more (`chunk_buffer_bytes`): a range cut at the first batch at least a chunk on (a read on threads cuts
#: 8 MiB ranges so) is one read, not a chunk and its last batch read, walked and made an Arrow piece apart.
CHUNK_BYTES = 8 * 1024 * 1024
MIN_ENTRY_BYTES = LOG_OVERHEAD + MIN_ENTRY_SIZE
#: The columns of an entry table: an entry's position in its chunk, its size after the first 12 bytes, its magic.
ENTRY_POS, ENTRY_LENGTH, ENTRY_MAGIC = 0, 1, 2
#: What stopped a chunk scan: the range's end, an entry not whole in the chunk (or damaged), a full table.
SCAN_END, SCAN_STOP, SCAN_FULL = 0, 1, 2

#: A chunk scan, as `kafkalog.fast.compiled.scan_entries`: (chunk, from, start limit, max entry size, table) to
#: (entries found, position reached, why it stopped: a SCAN_ code).
ChunkScan = Callable[[np.ndarray, int, int, int, np.ndarray], tuple[int, int, int]]
#: An entry run: the bytes of whole entries (read-only; a view of a buffer the scanner reuses only once nothing
#: refers to it any more), their file position, and their entry table (rows of the three columns).
EntryRun = tuple[bytes | memoryview, int, np.ndarray]
#: An entry hop, as `kafkalog.fast.compiled.hop_entries`: (file descriptor, from, start limit, file end, max entry
#: size, table) to (entries found by their first bytes alone, position reached, why it stopped: a SCAN_ code); the
#: table's rows are (file position, size, magic, offset field).
EntryHop = Callable[[int, int, int, int, int, np.ndarray], tuple[int, int, int]]
#: A window of `EntryScanner.entry_windows`: its bytes (a view good until the next window is read), file position
#: and entry table; or an entry's header alone; or entries hopped (no bytes, their table and their offset fields,
#: the last item).
EntryWindow = tuple[bytes | memoryview, int, np.ndarray, EntryHeader | None, np.ndarray | None]
#: The least window `entry_windows` reads.
WINDOW_BYTES = 64 * 1024
#: Entries at least this large on average are found by their headers alone (`entry_windows`' hop): a read of 17
#: bytes costs what copying about 2 KiB of a file from the page cache does.
HOP_BYTES = 4096
#: Entries found by one hop, at most.
HOP_ROWS = 4096

#: The most entries of a chunk handed out as a copy of the scanner's table (`EntryScanner._found`).
_COPIED_ROWS = 4096
_ZERO_SCAN_LIMIT = 64 * 1024 * 1024
#: The chunk buffers a scanner keeps: the one handed out last (its consumer holds it while it asks for the next
#: chunk) and one to read into.
_KEPT_BUFFERS = 2
#: Chunk buffers that closed scanners let go of, for the next scanners (a read on threads opens one a byte range):
#: each a fresh CHUNK_BYTES is zero-filled and page-faulted in again. At most `_POOLED_BUFFERS` are kept. The
#: buffers a walker of compressed groups decompresses into (`fast.record_batch`, also 8 MiB) are kept here too
#: (`pooled_buffer`, `give_back`).
_pooled: list[bytearray] = []
_pooled_lock = threading.Lock()
_POOLED_BUFFERS = 4


class EntryScanner:
    """The whole entries of bytes `start` to `end` of a segment file, and the damage that ends them.

    `source` is a path, bytes or a seekable binary file (closed with the scanner
    when it opened it); `name` (default: the file's) names it in the damage.
    Every entry that starts before `end` is handed out whole. Damage to the entry
    structure is appended to `damage` (the list given, which the caller shares with
    its own damage, in file order) and ends the entries; with `strict`, it is raised.
    """

    def __init__(self, source: Source, *, name: str | None = None, start: int, end: int | None,
                 max_entry_bytes: int, damage: list[DamagedDataError], strict: bool = False):
        self._file, self._owns_file, default_name = open_source(source)
        self.name = name if name is not None else default_name
        self.size = _size(self._file)
        self.start = start
        self.end = self.size if end is None else min(end, self.size)
        self.max_entry_bytes = max_entry_bytes
        self.damage = damage
        self.strict = strict
        self._position = start
        #: Where the readable bytes end, when the file under the segment cannot be read past a point.
        self._readable_end: int | None = None
        #: Buffers of `CHUNK_BYTES` the chunks of a file on a disk are read into (`_read_chunk`).
        self._buffers: list[bytearray] = []
        #: The buffer the windows of `entry_windows` are read into (`_read_window`).
        self._window: bytearray | None = None
        #: The entry table of `entries`' chunk scans (`_scan_table`).
        self._table: np.ndarray | None = None
        #: The position a planner's walk asks about (`entry_windows`): what it reads next goes no further than the
        #: first entry at or after it, where it can tell (None: as far as a window or a hop goes).
        self.walk_until: int | None = None

    def __enter__(self) -> EntryScanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for buffer in self._buffers:
            give_back(buffer)
        self._buffers = []  # (a chunk still held keeps its own buffer)
        self._window = None
        self._table = None
        if self._owns_file:
            self._file.close()

    @property
    def position(self) -> int:
        """Where reading stopped: the start of the entries being handed out, past them once the next are asked
        for (or the entries end), or the start of the damage that ended them."""
        return self._position

    def entries(self, start: int | None = None, chunk_scan: ChunkScan | None = None) -> Iterator[EntryRun]:
        """The whole entries from `start` (default: the range's start), a run at a time.

        The file is read in chunks of `CHUNK_BYTES` whose entries `chunk_scan`
        finds, or, without one, one entry at a time; an entry larger than a
        chunk is read on its own. Damage to the entry structure ends the runs.
        """
        pos = self.start if start is None else start
        self._position = pos
        while pos < self.end:
            try:
                yield from self._entries_from(pos, chunk_scan)
                return
            except RemoteObjectError as exc:
                # The bytes under the segment (a tiered-storage object) cannot be read past a chunk: read
                # what is before it, then report the chunk as the damage that ends the segment.
                pos = self._position
                if self._readable_end is None and exc.readable_until > pos:
                    self._readable_end = exc.readable_until
                    continue
                # Placed in the segment; the message names the object and its byte when it is another file.
                text = exc.message if exc.path in (None, self.name) else str(exc)
                located = exc.with_location(self.name, pos, message=text)
                located.path = self.name  # None too (a source without a name): the message names the object
                self._fail(located)
                return

    def _entries_from(self, pos: int, chunk_scan: ChunkScan | None) -> Iterator[EntryRun]:
        while pos < self.end:
            self._position = pos
            head: bytes | None = None
            if chunk_scan is not None:
                want = self._chunk_length(pos)
                if want >= HEADER_SIZE_UP_TO_MAGIC:
                    chunk = self._read_chunk(pos, want)
                    table = self._scan_table(len(chunk))
                    n, stop, why = chunk_scan(np.frombuffer(chunk, dtype=np.uint8), 0, self.end - pos,
                                              self.max_entry_bytes, table)
                    if n:
                        yield from self._handed_out(chunk, pos, self._found(table, n))
                    # The next entry's header, where the chunk holds it: not read from the file again.
                    head = bytes(chunk[stop:stop + HEADER_SIZE_UP_TO_MAGIC]) \
                        if why == SCAN_STOP and len(chunk) - stop >= HEADER_SIZE_UP_TO_MAGIC else None
                    del chunk  # (its buffer is read into again once its consumer has let go of it too)
                    pos += stop
                    if why != SCAN_STOP:
                        continue
                    self._position = pos
            # The entry at `pos` is not whole in what was read (none was, without a chunk scan): the read ends
            # inside it, it is larger than a chunk, or it is damaged.
            length = self._check_entry(pos, head)
            if length is None:
                return
            if chunk_scan is None or LOG_OVERHEAD + length > self._chunk_length(pos):
                entry = self._read(pos, LOG_OVERHEAD + length)
                yield from self._handed_out(entry, pos, np.array([[0, length, entry_header(entry).magic]],
                                                                 dtype=np.int64))
                pos += LOG_OVERHEAD + length

    def _scan_table(self, length: int) -> np.ndarray:
        """The table a chunk scan of `length` bytes fills (room for the most entries it can hold), kept for the next
        chunk: a fresh one a chunk (7 MiB for a chunk of `CHUNK_BYTES`) costs its page faults again, a huge page
        zeroed for the few rows written."""
        rows = length // MIN_ENTRY_BYTES + 1
        if self._table is None or len(self._table) < rows:
            self._table = np.empty((rows, 3), dtype=np.int64)
        return self._table[:rows]

    def _found(self, table: np.ndarray, n: int) -> np.ndarray:
        """The `n` entries a chunk scan found in `table`, to hand out: a copy when they are few (the table is scanned
        into again for the next chunk), else the table's own rows, and the next chunk is scanned into a new table
        (copying many tiny entries' rows costs more than a new table's page faults)."""
        if n <= _COPIED_ROWS:
            return table[:n].copy()
        self._table = None
        return table[:n]

    def _handed_out(self, chunk: bytes | memoryview, base: int, table: np.ndarray) -> Iterator[EntryRun]:
        """The run, the cursor at its start while it is handed out and past its last entry after."""
        self._position = base
        yield chunk, base, table
        last = table[-1]
        self._position = base + int(last[ENTRY_POS]) + LOG_OVERHEAD + int(last[ENTRY_LENGTH])

    def _chunk_length(self, pos: int) -> int:
        """How much to read at `pos`: a chunk, or less where the file or the range ends sooner; the rest of the range
        when it is at most an eighth more than a chunk (its last chunk and a tail read at once)."""
        readable = self.size if self._readable_end is None else self._readable_end
        rest = min(self.size - pos, max(self.end - pos, 0), max(readable - pos, 0))
        return rest if rest <= chunk_buffer_bytes() else CHUNK_BYTES

    def entry_headers(self) -> Iterator[tuple[int, EntryHeader]]:
        """Each entry's position and header (its offset, size and magic: no more is read) from the range's start,
        as `entries` finds them: the positions where a reader from that start finds entries, which a planner checks
        an index's positions against. Damage to the entry structure ends them as it ends the entries; so does a
        tiered-storage object that cannot be read (reading it reports that)."""
        pos = self.start
        while pos < self.end:
            self._position = pos
            try:
                header = self._check_header(pos)
            except RemoteObjectError:
                return
            if header is None:
                return
            yield pos, header
            pos += LOG_OVERHEAD + header.len_rest
        self._position = pos

    def entry_windows(self, chunk_scan: ChunkScan, hop: EntryHop | None = None, window: int = 0,
                      hop_bytes: int = HOP_BYTES) -> Iterator[EntryWindow]:
        """The entries `entry_headers` finds, a window of the file at a time, for a planner that walks many: (the
        window's bytes and file position, the entry table `chunk_scan` made of the whole entries in it, None, None)
        or, for an entry larger than the window, (b"", its position, an empty table, its header, None), only its
        header read; or, for a file on a disk whose entries are large (`hop_bytes` on average in the last window, or
        larger than it), up to `HOP_ROWS` entries found by `hop` reading their first bytes alone: (b"", the first
        one's position, their table, None, their offset fields).

        The window starts at `window` (default `WINDOW_BYTES`); it doubles (up to `CHUNK_BYTES`) while it holds
        entries and halves (down to where it started) while an entry is larger, so a segment of small entries is
        read in large windows and one of large entries costs a small window an entry (its header is in it). Where
        a hop stops (an entry that is not whole, or damaged), a window is read there, which says why; `hop_bytes`
        0 hops from the first entry on. Where `walk_until` is set (the position the planner asks about next), a hop
        stops at the first entry at or after it, and a window reads at most `window` past it."""
        least = window or WINDOW_BYTES
        pos, window = self.start, least
        table = np.empty((CHUNK_BYTES // MIN_ENTRY_BYTES + 1, 3), dtype=np.int64)
        fd = self._file.fileno() if hop is not None and isinstance(self._file, io.BufferedReader) else None
        hops = np.empty((HOP_ROWS, 4), dtype=np.int64)
        hopping = fd is not None and hop_bytes <= 0
        while pos < self.end:
            self._position = pos
            if hopping:
                assert hop is not None and fd is not None
                # (the entries up to the one asked about: a hop past it reads headers nobody asked for)
                limit = self.end if self.walk_until is None else min(self.end, max(self.walk_until, pos) + 1)
                n, stop, _ = hop(fd, pos, limit, self.size, self.max_entry_bytes, hops)
                if n:
                    found = hops[:n]
                    yield b"", pos, np.column_stack([found[:, 0] - pos, found[:, 1], found[:, 2]]), None, \
                        found[:, 3].copy()
                    hopping = stop - pos >= n * hop_bytes
                    pos = stop
                    continue
                hopping = False  # (what stopped the hop is read below, and said)
            want = min(window, self.size - pos)
            if self.walk_until is not None:  # (a window past the one asked about is read by the next question)
                want = min(want, max(self.walk_until - pos, 0) + least)
            chunk: bytes | memoryview = b""  # (the last window let go of: its buffer is read into again)
            try:
                chunk = self._read_window(pos, want) if want >= HEADER_SIZE_UP_TO_MAGIC else b""
                n, stop, _ = chunk_scan(np.frombuffer(chunk, dtype=np.uint8), 0, self.end - pos, self.max_entry_bytes,
                                          table[:want // MIN_ENTRY_BYTES + 1]) if chunk else (0, 0, SCAN_STOP)
                if n:
                    yield chunk, pos, table[:n].copy(), None, None
                    hopping = fd is not None and stop >= n * hop_bytes
                    pos += stop
                    window = min(window * 2, CHUNK_BYTES)
                    continue  # (an entry the window cut short is whole in the next, larger one)
                # The window's first entry is not whole in it: larger than the window, cut short, or damaged.
                header = self._check_header(pos, bytes(chunk[:HEADER_SIZE_UP_TO_MAGIC]) if chunk else None)
            except RemoteObjectError as exc:
                if HEADER_SIZE_UP_TO_MAGIC <= exc.readable_until - pos < want:
                    window = exc.readable_until - pos  # the bytes before what cannot be read (reading reports it)
                    continue
                return
            if header is None:
                return
            yield b"", pos, table[:0].copy(), header, None
            pos += LOG_OVERHEAD + header.len_rest
            window = max(window // 2, least)
            hopping = fd is not None
        self._position = pos

    def _check_entry(self, pos: int, head: bytes | None = None) -> int | None:
        """The size of the entry at `pos` when its header is sound and it is whole in the file (`head`: its first
        bytes, already read); else the damage is recorded."""
        header = self._check_header(pos, head)
        return None if header is None else header.len_rest

    def _check_header(self, pos: int, head: bytes | None = None) -> EntryHeader | None:
        """The header of the entry at `pos` (`head`: its first bytes, already read) when it is sound and the entry is
        whole in the file; else the damage is recorded."""
        remaining = self.size - pos
        if remaining < HEADER_SIZE_UP_TO_MAGIC:
            self._fail(TruncatedError(
                f"partial entry at the end: {remaining} bytes left, an entry header takes {HEADER_SIZE_UP_TO_MAGIC}"
                + self._zero_note(pos), path=self.name, position=pos))
            return None
        header = entry_header(head if head is not None else self._read(pos, HEADER_SIZE_UP_TO_MAGIC))
        length = header.len_rest
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
        return header

    def _fail(self, damage: DamagedDataError) -> None:
        self.damage.append(damage)
        if self.strict:
            raise damage

    def _read_chunk(self, pos: int, n: int) -> bytes | memoryview:
        """`n` bytes at `pos`, as `_read`; a chunk of a file on a disk read into a kept buffer instead of new memory (a
        fresh 8 MiB a chunk costs its page faults again), handed out as a read-only view.

        A buffer is read into again only when nothing but the scanner refers to it: whoever keeps a chunk, or any
        view of it, keeps its bytes as they were, and the scanner reads the next chunk into a new buffer."""
        size = chunk_buffer_bytes()
        if n > size or not isinstance(self._file, io.BufferedReader):
            return self._read(pos, n)
        for buffer in self._buffers:
            if _unheld(buffer):
                break
        else:
            if n < CHUNK_BYTES // 2 and not any(len(spare) == size for spare in _pooled):
                # A short chunk (a small file's, or a large file's last) goes into a kept buffer when there is one to
                # spare (a read of a large file ends so: fresh memory would be page-faulted in again at every read),
                # else, when small, into new memory of its size (a small file's read takes no chunk buffer).
                return self._read(pos, n)
            buffer = pooled_buffer(size)
            self._buffers = [*self._buffers[1 - _KEPT_BUFFERS:], buffer]
        self._file.seek(pos)
        view = memoryview(buffer)[:n]
        got = self._file.readinto(view)
        if got != n:
            raise TruncatedError(f"file ended while reading {n} bytes (got {got})", path=self.name, position=pos)
        return view.toreadonly()

    def _read_window(self, pos: int, n: int) -> bytes | memoryview:
        """`n` bytes at `pos`, as `_read`; for a file on a disk, read into the one buffer the windows of
        `entry_windows` share (a fresh window a read costs its page faults again: the planner walks most of a
        large segment), handed out as a read-only view that is good until the next window is read."""
        if not isinstance(self._file, io.BufferedReader):
            return self._read(pos, n)
        buffer = self._window
        if buffer is None or len(buffer) < n or not _unheld(buffer):
            buffer = bytearray(max(n, len(buffer) if buffer is not None else 0) + 1)
            del buffer[-1]  # (room for `_unheld`'s byte: it never reallocates)
            self._window = buffer
        self._file.seek(pos)
        view = memoryview(buffer)[:n]
        got = self._file.readinto(view)
        if got != n:
            raise TruncatedError(f"file ended while reading {n} bytes (got {got})", path=self.name, position=pos)
        return view.toreadonly()

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


def chunk_buffer_bytes() -> int:
    """The size of the buffers chunks are read into: a chunk and an eighth (a range's last chunk and its tail)."""
    return CHUNK_BYTES + CHUNK_BYTES // 8


def pooled_buffer(size: int) -> bytearray:
    """A buffer of `size` bytes that was given back (`give_back`), else a new one."""
    with _pooled_lock:
        for i in range(len(_pooled) - 1, -1, -1):
            if len(_pooled[i]) == size:
                return _pooled.pop(i)
    buffer = bytearray(size + 1)
    del buffer[-1]  # (room for `_unheld`'s byte: it never reallocates)
    return buffer


def give_back(buffer: bytearray) -> None:
    """`buffer` kept for the next `pooled_buffer` of its size, when nothing refers to it any more and fewer than
    `_POOLED_BUFFERS` are kept."""
    with _pooled_lock:
        if len(_pooled) < _POOLED_BUFFERS and _unheld(buffer):
            _pooled.append(buffer)


def _unheld(buffer: bytearray) -> bool:
    """Whether no view of `buffer` is left: every chunk handed out is one (a memoryview, and any numpy array or
    Arrow buffer made of it holds that), and a bytearray with a view cannot change its size."""
    try:
        buffer.append(0)
    except BufferError:
        return False
    del buffer[-1]
    return True


def _size(f: BinaryIO) -> int:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(0)
    return size
