"""The entry scanner (`kafkalog.entries`): the same entries, damage and cursor whether a chunk's entries are found
by the compiled engine's scan or one entry at a time, in chunks of any size."""
from __future__ import annotations

import io

import numpy as np
import pytest

from kafkalog.entries import ENTRY_LENGTH, ENTRY_MAGIC, ENTRY_POS, EntryScanner, chunk_buffer_bytes
from kafkalog.fast import compiled
from kafkalog.formats.framing import LOG_OVERHEAD
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES, SegmentReader
from kafkalog.model import Decoder
from tests.paths import FIXTURES, ROOT

FILES = sorted((FIXTURES / "segments").glob("*.log")) + sorted((ROOT / "samples").glob("*.log"))


def _scanned(path, chunk_scan, start: int | None = None) -> tuple[list[tuple[int, int, int]], list[str], int]:
    """Every entry (file position, size, magic), the damage and where the cursor stopped."""
    with EntryScanner(path, start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        found = []
        for chunk, base, table in scanner.entries(start, chunk_scan):
            assert scanner.position == base  # the cursor at the run being handed out
            for row in table.tolist():
                entry = chunk[row[ENTRY_POS]:row[ENTRY_POS] + LOG_OVERHEAD + row[ENTRY_LENGTH]]
                assert len(entry) == LOG_OVERHEAD + row[ENTRY_LENGTH]
                found.append((base + row[ENTRY_POS], row[ENTRY_LENGTH], row[ENTRY_MAGIC]))
        return found, [str(d) for d in scanner.damage], scanner.position


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_engine_and_one_at_a_time_find_the_same_entries(path, monkeypatch):
    one_by_one = _scanned(path, None)
    assert _scanned(path, compiled.scan_entries) == one_by_one
    monkeypatch.setattr("kafkalog.entries.CHUNK_BYTES", 100)  # most entries larger than a chunk, read alone
    assert _scanned(path, compiled.scan_entries) == one_by_one
    entries, damage, position = one_by_one
    if entries and not damage:
        assert position == entries[-1][0] + LOG_OVERHEAD + entries[-1][1] == path.stat().st_size
    # from an entry's position on: the entries from there
    if len(entries) > 1:
        later = _scanned(path, compiled.scan_entries, start=entries[1][0])
        assert later == (entries[1:], damage, position)


def test_a_reader_that_handed_over_to_the_fast_path_reads_again_from_its_start():
    # Decoder.AUTO: the object path, then the fast path from the first entry of many records; a second read
    # starts over with the object path, the first read's hand-over being state of that read, not of the options.
    small = (ROOT / "samples" / "v2-gzip.log").read_bytes()
    data = small + (FIXTURES / "hostile" / "v2-zstd-1m-records.log").read_bytes()
    with SegmentReader(data, decoder=Decoder.AUTO) as reader:
        first = [(b.position, len(b.records)) for b in reader]
        assert reader.fast_path_from == len(small) and reader.decoder is Decoder.AUTO
        assert [(b.position, len(b.records)) for b in reader] == first
        assert reader.fast_path_from == len(small) and reader.position == len(data)
    assert first == [(0, 3), (188, 3), (len(small), 1_000_000)]


def _chunks(path, keep: bool) -> tuple[list[tuple[object, bytes]], set[int]]:
    """Each chunk a scanner hands out (kept, or let go of before the next) with a copy of its bytes when handed out,
    and the buffers they were read into (by id). The entry tables handed out are kept and never change either (the
    scanner scans every chunk into one table of its own)."""
    handed, buffers, tables = [], set(), []
    with EntryScanner(path, start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        for chunk, _, table in scanner.entries(None, compiled.scan_entries):
            if isinstance(chunk, memoryview):
                buffers.add(id(chunk.obj))
            handed.append((np.frombuffer(chunk, dtype=np.uint8) if keep else None, bytes(chunk)))
            tables.append((table, table.tolist()))
    assert all(table.tolist() == rows for table, rows in tables)
    return handed, buffers


def test_a_chunk_handed_out_never_changes_and_a_buffer_let_go_of_is_read_into_again(tmp_path, monkeypatch):
    # Chunks of a file on a disk are read into buffers the scanner keeps (not new memory each time): one is read
    # into again only when nothing refers to what was handed out from it, here a numpy view of the chunk.
    path = tmp_path / "00000000000000000000.log"  # every sample's entries, one after the other: no two chunks alike
    path.write_bytes(b"".join(sample.read_bytes() for sample in sorted((ROOT / "samples").glob("*.log"))))
    monkeypatch.setattr("kafkalog.entries.CHUNK_BYTES", 1024)
    kept, many = _chunks(path, keep=True)
    assert len(kept) > 4 and len({copy for _, copy in kept}) == len(kept)
    assert all(view.tobytes() == copy for view, copy in kept)
    # (the last chunk, under half a chunk, is read as bytes of its own: every buffer is held, none is to spare)
    assert len(many) == len(kept) - 1
    dropped, few = _chunks(path, keep=False)
    assert [copy for _, copy in dropped] == [copy for _, copy in kept]
    assert len(few) == 2  # the one its consumer holds while asking for the next, and the one read into
    # ... and the last chunk too goes into one of them, where one is to spare (no new memory at the end of a read)
    with EntryScanner(path, start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        last = [chunk.obj if isinstance(chunk, memoryview) else chunk
                for chunk, _, _ in scanner.entries(None, compiled.scan_entries)][-1]
        assert isinstance(last, bytearray) and len(last) == chunk_buffer_bytes() == 1024 + 128  # (a chunk and a tail)
    # the entry tables handed out never change either, whether copied (a chunk's few entries) or not (many)
    monkeypatch.setattr("kafkalog.entries._COPIED_ROWS", 0)
    assert [copy for _, copy in _chunks(path, keep=True)[0]] == [copy for _, copy in kept]


def test_a_range_s_last_chunk_takes_a_tail_of_an_eighth_of_a_chunk(tmp_path, monkeypatch):
    # A range cut at the first entry at least a chunk on (as a read on threads cuts a large segment) ends with an entry
    # or a few past the chunk: they are read with it, in one chunk, not read, scanned and handed out apart.
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(b"".join(sample.read_bytes() for sample in sorted((ROOT / "samples").glob("*.log"))))
    monkeypatch.setattr("kafkalog.entries.CHUNK_BYTES", 1024)
    positions = [pos for pos, _, _ in _scanned(path, None)[0]]
    end = next(pos for pos in positions if pos >= 1024 + 16)  # (a planner's cut: the first entry this far on)
    assert 1024 < end <= chunk_buffer_bytes()
    with EntryScanner(path, start=0, end=end, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        runs = [(base, len(chunk), table[:, ENTRY_POS].tolist())
                for chunk, base, table in scanner.entries(None, compiled.scan_entries)]
        assert scanner.position == end and not scanner.damage
    assert runs == [(0, end, [pos for pos in positions if pos < end])]
    # A range longer than that is read a chunk at a time, as before.
    beyond = next(pos for pos in positions if pos > chunk_buffer_bytes())
    with EntryScanner(path, start=0, end=beyond, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        lengths = [len(chunk) for chunk, _, _ in scanner.entries(None, compiled.scan_entries)]
    assert len(lengths) > 1 and max(lengths) <= 1024


class _CountingFile(io.BufferedReader):
    """A file on a disk whose reads of bytes (not into a chunk's buffer) are counted."""

    reads: list[int]

    def read(self, size=-1, /):
        self.reads.append(size)
        return super().read(size)


def test_a_chunk_that_ends_inside_an_entry_gives_that_entry_s_header_without_a_read(tmp_path, monkeypatch):
    # A chunk scan stops at the entry the chunk cuts short; its header, already in the chunk, is not read from the
    # file again before the next chunk is (the entries and the cursor are those of reading it).
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(b"".join(sample.read_bytes() for sample in sorted((ROOT / "samples").glob("*.log"))))
    monkeypatch.setattr("kafkalog.entries.CHUNK_BYTES", 1024)
    want = _scanned(path, None)
    f = _CountingFile(io.FileIO(path))
    f.reads = []
    with EntryScanner(f, start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[]) as scanner:
        found = [(base + int(row[ENTRY_POS]), int(row[ENTRY_LENGTH]), int(row[ENTRY_MAGIC]))
                 for _, base, table in scanner.entries(None, compiled.scan_entries) for row in table]
        assert (found, [str(d) for d in scanner.damage], scanner.position) == want
    assert len(want[0]) > 20 and not want[1]
    # (the file's last chunk, shorter than one, is read as bytes of its own; no 17-byte header read is left)
    assert all(size > 17 for size in f.reads), f.reads
