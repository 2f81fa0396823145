"""Where a planned segment may start and be cut: an offset index's positions checked against the entries that
one reader from the segment's start finds.

    with EntryWalk(segment.location) as walk:
        start = walk.start_for(index_position, target_offset)   # an entry at or before it
        cut = walk.at_or_after(index_position)                  # the first entry from there on, or None

An index can lie: a position inside a batch can look like an entry (a record's bytes can be a whole batch), and
a range read from there gives rows that one reader from the start never gives. Each range of a plan is read on
its own (a Spark task on any executor, a thread of `read_arrow`), so the planner makes every range meet the next
before anything is read: it walks the entries' headers from the segment's start (17 bytes each, never a
batch's body) and starts and cuts ranges only at positions that walk reaches. Ranges so planned read exactly
what one reader from the start reads, however many there are. The walk stops where that reader stops (damage to
the entry structure), and nothing past it is cut.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from kafkalog.dataset import fs
from kafkalog.entries import EntryScanner
from kafkalog.formats.framing import EntryHeader
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES


class EntryWalk:
    """A segment's entries walked forward, header by header, from `start` (0, or a position the walk reached
    before). Asked for positions in increasing order; the file is opened at the first question."""

    def __init__(self, location: str, private_keys: str | None = None, start: int = 0):
        self.location = location
        self.private_keys = private_keys
        self.start = start
        self._file: BinaryIO | None = None
        self._headers: Iterator[tuple[int, EntryHeader]] | None = None
        #: The entry not yet walked past: (position, header), None once the entries end.
        self._next: tuple[int, EntryHeader] | None = None

    def __enter__(self) -> EntryWalk:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()

    def _peek(self) -> tuple[int, EntryHeader] | None:
        if self._headers is None:
            self._file = fs.open_binary(self.location, self.private_keys)
            scanner = EntryScanner(self._file, name=self.location, start=self.start, end=None,
                                   max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[])
            self._headers = scanner.entry_headers()
            self._next = next(self._headers, None)
        return self._next

    def _advance(self) -> None:
        assert self._headers is not None
        self._next = next(self._headers, None)

    def start_for(self, position: int, target: int) -> int:
        """Where to start reading for offsets from `target`, given an index's `position` for it: the last entry
        at or before `position` whose offset field is at most `target` (every entry before it holds only lower
        offsets), the walk's start when there is none."""
        best = self.start
        while (entry := self._peek()) is not None and entry[0] <= position and entry[1].base_offset <= target:
            best = entry[0]
            self._advance()
        return best

    def at_or_after(self, position: int) -> tuple[int, EntryHeader] | None:
        """The first entry at or after `position` (its position and header); None when the entries end before."""
        while (entry := self._peek()) is not None and entry[0] < position:
            self._advance()
        return entry
