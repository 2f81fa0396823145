"""Where a planned segment may start and be cut: an offset index's positions checked against the entries that
one reader from the segment's start finds.

    with EntryWalk(segment.location) as walk:
        start = walk.start_for(index_position, target_offset)   # an entry at or before it
        cut = walk.at_or_after(index_position)                  # the first entry from there on, or None

An index can lie: a position inside a batch can look like an entry (a record's bytes can be a whole batch), and
a range read from there gives rows that one reader from the start never gives. Each range of a plan is read on
its own (a Spark task on any executor, a thread of `read_arrow`), so the planner makes every range meet the next
before anything is read: it walks the entries from the segment's start and starts and cuts ranges only at
positions that walk reaches. Ranges so planned read exactly what one reader from the start reads, however many
there are. The walk stops where that reader stops (damage to the entry structure), and nothing past it is cut.

The walk is the fast path's: `EntryScanner.entry_windows` reads the segment a window at a time and finds its
whole entries with the compiled engine's entry scan (`fast.compiled.scan_entries`), whose offsets its parsers
read (`parse_batch_headers`, `parse_legacy_entries`); an entry larger than its window is read by its header
alone (17 bytes: never a large batch's body), and so are the entries of a file on a disk while they are large
(`fast.compiled.hop_entries`: one `pread` an entry without the GIL, where reading every byte of a 200 MB segment
took 60-90 ms, all of it before `read_arrow`'s threads start). Each question is answered on a window's arrays,
not entry by entry in Python (`benchmarks/planner.py` times both).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.dataset import fs
from kafkalog.entries import ENTRY_MAGIC, ENTRY_POS, ChunkScan, EntryScanner, EntryWindow
from kafkalog.fast import compiled
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES


@dataclass(frozen=True)
class Entry:
    """An entry the walk reached: its position, its offset field (a v2 batch's base offset, a legacy message's
    offset) and its magic."""

    position: int
    base_offset: int
    magic: int


class EntryWalk:
    """A segment's entries walked forward from `start` (0, or a position the walk reached before). Asked for
    positions in increasing order; the file is opened at the first question."""

    def __init__(self, location: str, private_keys: str | None = None, start: int = 0, window: int = 0):
        self.location = location
        self.private_keys = private_keys
        self.start = start
        #: The first window's size (0: `entries.WINDOW_BYTES`).
        self.window = window
        self._file: BinaryIO | None = None
        self._windows: Iterator[EntryWindow] | None = None
        self._scanner: EntryScanner | None = None
        # The entries of the window being walked (file positions, offsets, magics) and the first not walked past.
        self._positions = self._offsets = self._magics = np.empty(0, dtype=np.int64)
        self._at = 0

    def __enter__(self) -> EntryWalk:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()

    def _more(self, position: int) -> bool:
        """Whether entries are left to walk: the next window's are loaded when this one's are walked past, up to
        the first entry at or after `position`, the one asked about, where the walk can stop there (its hops)."""
        if self._at < len(self._positions):
            return True
        if self._windows is None:
            self._file = fs.open_binary(self.location, self.private_keys)
            self._scanner = EntryScanner(self._file, name=self.location, start=self.start, end=None,
                                         max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[])
            self._windows = self._scanner.entry_windows(_chunk_scan(), compiled.hop_entries, self.window)
        assert self._scanner is not None
        self._scanner.walk_until = position
        window = next(self._windows, None)
        if window is None:
            return False
        self._positions, self._offsets, self._magics = window_entries(window)
        self._at = 0
        return True

    def start_for(self, position: int, target: int) -> int:
        """Where to start reading for offsets from `target`, given an index's `position` for it: the last entry
        at or before `position` whose offset field is at most `target` (every entry before it holds only lower
        offsets), the walk's start when there is none."""
        best = self.start
        while self._more(position):
            at = self._at
            ok = (self._positions[at:] <= position) & (self._offsets[at:] <= target)
            taken = len(ok) if ok.all() else int(np.argmin(ok))  # (the first entry past either)
            if taken:
                best = int(self._positions[at + taken - 1])
                self._at += taken
            if taken < len(ok):
                break
        return best

    def at_or_after(self, position: int) -> Entry | None:
        """The first entry at or after `position`; None when the entries end before."""
        while self._more(position):
            self._at += int(np.searchsorted(self._positions[self._at:], position, side="left"))
            if self._at < len(self._positions):
                i = self._at
                return Entry(int(self._positions[i]), int(self._offsets[i]), int(self._magics[i]))
        return None


def window_entries(window: EntryWindow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A window's entries as arrays: file positions, offset fields, magics."""
    chunk, base, table, header, hopped = window
    if header is not None:  # an entry larger than the window: its header alone
        return (np.array([base], dtype=np.int64), np.array([header.base_offset], dtype=np.int64),
                np.array([header.magic], dtype=np.int64))
    if hopped is not None:  # large entries found by their first bytes alone, with their offset fields
        return base + table[:, ENTRY_POS], hopped, table[:, ENTRY_MAGIC].copy()
    buf = np.frombuffer(chunk, dtype=np.uint8)
    magics = table[:, ENTRY_MAGIC]
    offsets = np.empty(len(table), dtype=np.int64)
    # Every entry is whole in the window: the engine reads its first field, the offset, whatever follows.
    v2 = np.flatnonzero(magics >= 2)
    legacy = np.flatnonzero(magics < 2)
    offsets[v2] = compiled.parse_batch_headers(buf, table[v2], np.empty(len(v2), dtype=np.int64))[
        :, k.KAFKA_RECORD_BATCH__BASE_OFFSET]
    if len(legacy):
        messages, _ = compiled.parse_legacy_entries(buf, table, legacy)
        offsets[legacy] = messages[k.KAFKA_MESSAGE_SET__ENTRY__OFFSET]
    return base + table[:, ENTRY_POS], offsets, magics.copy()


def _chunk_scan() -> ChunkScan:
    """The entry scan: the compiled engine's (built at install; a planner's walk has no other)."""
    if not compiled.BUILT:
        raise ImportError("kafkalog.fast.engine was not compiled: install the package (pip install) to build it")
    return compiled.scan_entries
