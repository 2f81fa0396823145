"""One large segment read as byte ranges on threads, and given out as one reader from its start gives it.

    cuts = range_starts(index_positions, 0, size, RANGE_BYTES)
    for item in read_in_ranges(path, cuts, work, threads=2):
        if isinstance(item, SegmentReader):   # a range's reader, done: its damage and where it stopped
            ...
        else:                                   # what `work(reader)` made of the range, in file order
            ...

Each range is read by its own `SegmentReader` from a cut (a position the offset index gives) on one of
`kafkalog.threads`' threads. An index can be wrong, so the ranges are checked to meet: a range whose
last batch ran past the next cut (the cut was inside a batch) is read on from where it stopped by one
reader, and the ranges after it are dropped; a range that stopped at damage before its end (where a
reader from the start stops too) ends the segment. What is given out is so exactly what one reader from
the start gives, whatever the index says. `kafkalog verify` and `kafkalog dump` read large segments so.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from kafkalog.log.segment import SegmentReader
from kafkalog.threads import in_order

if TYPE_CHECKING:
    from kafkalog.fast.columns import Repeated

T = TypeVar("T")

#: What a range's reader is made into: (item, its size in bytes) pairs, handed out in order.
Work = Callable[[SegmentReader], Iterator[tuple[T, int]]]

#: Bytes a range reads: small enough that a segment of a few ranges keeps the threads busy.
RANGE_BYTES = 16 * 1024 * 1024
#: Bytes of items a range makes ahead of the consumer.
AHEAD_BYTES = 32 * 1024 * 1024


def range_starts(index_positions: np.ndarray, start: int, end: int, range_bytes: int = RANGE_BYTES) -> list[int]:
    """Where the ranges of bytes `start` to `end` start: `start`, then each time the first index position at least
    `range_bytes` past the last cut (positions increasing, as `kafkalog.dataset.layout.offset_index_columns` gives
    them)."""
    inside = index_positions[(index_positions > start) & (index_positions < end)]
    cuts = [start]
    while True:
        k = int(np.searchsorted(inside, cuts[-1] + range_bytes, side="left"))
        if k >= len(inside):
            return cuts
        cuts.append(int(inside[k]))


def read_in_ranges(path: str | os.PathLike, cuts: list[int], work: Work[T], threads: int,
                   ahead_bytes: int = AHEAD_BYTES, **reader_options: object) -> Iterator[T | SegmentReader]:
    """The items `work` makes of each range's reader, each range followed by its reader once done (closed: its
    `damage` and `position` stay), as one reader from the start of the segment would give them."""
    ends: list[int | None] = [*cuts[1:], None]
    # The ranges' walks share the segment's constant columns (topic, the batches' fields): made once, not once a
    # range (dump's ranges are 4 MiB: each made them anew, GIL held, a quarter of a two-thread dump's CPU).
    reader_options = {"repeated": _repeated(), **reader_options}
    pieces = [functools.partial(_range, path, start, end, work, reader_options)
              for start, end in zip(cuts, ends, strict=True)]
    ranges = in_order(pieces, threads, ahead_bytes, name="kafkalog-range")
    stopped_at: int | None = None
    try:
        for k, item in _numbered(ranges):
            yield item
            if not isinstance(item, SegmentReader):
                continue
            end = ends[k]
            if end is None or item.position == end:
                continue  # the next range starts where this one's last batch ended
            if item.position > end:
                stopped_at = item.position  # the cut was inside a batch: read on from where the range stopped
            break  # (before its end: stopped at damage, where one reader stops too)
    finally:
        ranges.close()
    if stopped_at is not None:
        with SegmentReader(path, start=stopped_at, **reader_options) as reader:  # type: ignore[arg-type]
            for item, _ in work(reader):
                yield item
        yield reader


def _repeated() -> Repeated:
    # (imported here: the fast path, which `kafkalog.log.segment` imports only when it reads: start-up)
    from kafkalog.fast.columns import Repeated  # noqa: PLC0415

    return Repeated()


def _numbered(ranges: Iterator[T | SegmentReader]) -> Iterator[tuple[int, T | SegmentReader]]:
    """Each item with the number of its range."""
    k = 0
    for item in ranges:
        yield k, item
        if isinstance(item, SegmentReader):
            k += 1


def _range(path: str | os.PathLike, start: int, end: int | None, work: Work[T],
           reader_options: dict) -> Iterator[tuple[T | SegmentReader, int]]:
    with SegmentReader(path, start=start, end=end, **reader_options) as reader:
        yield from work(reader)
    yield reader, 0
