"""One segment's files in a partition directory, and which segment holds an offset.

A segment is named by its base offset (`00000000000000000106.log`) and has up to four files:
the log itself, its offset index, its time index and its transaction index.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkalog.file_names import (
    INDEX_SUFFIX,
    LOG_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
)
from kafkalog.uri_path import AnyPath

#: A segment's file suffixes, each with the `SegmentFiles` field that holds the file.
SEGMENT_SUFFIXES = {LOG_SUFFIX: "log", INDEX_SUFFIX: "index", TIME_INDEX_SUFFIX: "timeindex",
                    TXN_INDEX_SUFFIX: "txnindex"}


@dataclass
class SegmentFiles:
    """One segment: its base offset (from the file names) and its files (None when absent)."""

    base_offset: int
    log: AnyPath | None = None
    index: AnyPath | None = None
    timeindex: AnyPath | None = None
    txnindex: AnyPath | None = None

    @property
    def log_size(self) -> int:
        return self.log.stat().st_size if self.log is not None else 0

    def files(self) -> list[AnyPath]:
        return [p for p in (self.log, self.index, self.timeindex, self.txnindex) if p is not None]


def segment_for(segments: Sequence[SegmentFiles], offset: int) -> int | None:
    """Position in `segments` (by base offset) of the segment that would hold `offset`: the floor by base offset."""
    found = None
    for n, segment in enumerate(segments):
        if segment.base_offset <= offset:
            found = n
        else:
            break
    return found
