"""Planning a read: which segments, and which byte ranges of them, each Spark task reads.

Runs on the driver (`DataSourceReader.partitions`). Offsets and timestamps are
pushed down here: segments are skipped by their base offsets (the next
segment's base offset bounds the current one), and the byte position to start
from comes from the offset index (the largest entry with offset <= the
target, as Kafka's `OffsetIndex.lookup`), the time index turning a start
timestamp into a start offset. Large segments are split at offset-index
positions, which are batch boundaries, so that every batch is read by exactly
one task.
"""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field

from kafkalog.errors import UsageError
from kafkalog.spark import fs, layout
from kafkalog.spark.options import ReadOptions

_MIN_ENTRY_SIZE = 14


@dataclass(frozen=True)
class Segment:
    location: str
    size: int
    topic: str | None
    partition: int | None
    #: From a ``<20 digits>.log`` name; None for any other file name.
    base_offset: int | None
    #: The base offset of the next segment in the same directory: every offset here is below it.
    next_base_offset: int | None = None


@dataclass(frozen=True)
class SegmentRange:
    """Bytes [start, end) of a segment: every entry that starts there is read whole."""

    segment: Segment
    start: int
    end: int
    #: read_committed only: (location, start, end) of what follows in the partition, in order,
    #: scanned for the transaction markers of transactions still open at `end`.
    lookahead: tuple[tuple[str, int, int], ...] = field(default=())


def list_segments(path: str) -> list[Segment]:
    """The segments a path names: a segment file, a partition directory, a log directory, or a glob of them."""
    matches = fs.expand(path)
    if not matches:
        raise UsageError(f"no such file or directory: {path}")
    # A file named on its own is read whatever its name; files matched by a glob must end in .log.
    explicit = not any(c in path for c in "*?[")
    files: dict[str, fs.FileInfo] = {}
    for m in matches:
        if m.is_dir:
            _walk(m.location, files)
        elif explicit or layout.is_segment_file(m.name):
            files[m.location] = m
    return _segments(files.values())


def _walk(directory: str, out: dict[str, fs.FileInfo]) -> None:
    for entry in fs.listdir(directory):
        if entry.is_dir:
            if not layout.skip_directory(entry.name):
                _walk(entry.location, out)
        elif layout.is_segment_file(entry.name):
            out[entry.location] = entry


def _segments(files) -> list[Segment]:
    by_dir: dict[str, list[fs.FileInfo]] = {}
    for f in files:
        by_dir.setdefault(fs.parent(f.location), []).append(f)
    out: list[Segment] = []
    for directory in sorted(by_dir):
        topic, partition = layout.topic_partition(fs.basename(directory))
        entries = by_dir[directory]
        kafka = sorted((layout.segment_base_offset(f.name), f) for f in entries
                       if layout.segment_base_offset(f.name) is not None)
        other = sorted((f for f in entries if layout.segment_base_offset(f.name) is None), key=lambda f: f.location)
        for i, (base, f) in enumerate(kafka):
            nxt = kafka[i + 1][0] if i + 1 < len(kafka) else None
            out.append(Segment(f.location, f.size, topic, partition, base, nxt))
        out.extend(Segment(f.location, f.size, topic, partition, None) for f in other)
    return out


def plan(path: str, options: ReadOptions) -> list[SegmentRange]:
    """The byte ranges to read, one Spark task each, in segment order."""
    segments = list_segments(path)
    ranges: list[SegmentRange] = []
    for seg in segments:
        ranges.extend(_ranges(seg, options))
    if options.read_committed:
        ranges = _with_lookahead(ranges, segments)
    return ranges


def _overlaps(seg: Segment, options: ReadOptions) -> bool:
    if seg.size == 0:
        return False
    if options.starting_offset is not None and seg.next_base_offset is not None \
            and seg.next_base_offset <= options.starting_offset:
        return False
    if options.ending_offset is not None and seg.base_offset is not None \
            and seg.base_offset >= options.ending_offset:
        return False
    return True


def _ranges(seg: Segment, options: ReadOptions) -> list[SegmentRange]:
    if not _overlaps(seg, options):
        return []
    whole = [SegmentRange(seg, 0, seg.size)]
    wants_start = (options.starting_offset is not None and seg.base_offset is not None
                   and options.starting_offset > seg.base_offset) or options.starting_timestamp is not None
    wants_end = options.ending_offset is not None
    if seg.base_offset is None or not (seg.size > options.max_partition_bytes or wants_start or wants_end):
        return whole
    index = layout.read_offset_index(seg.location, seg.base_offset, seg.size)
    if not index:
        return whole
    offsets = [e.offset for e in index]

    start_pos, end_pos = 0, seg.size
    target = options.starting_offset if options.starting_offset is not None else seg.base_offset
    if options.starting_timestamp is not None:
        # Time index entries are (max timestamp so far, its offset): every record up to that
        # offset has a timestamp <= the entry's, so none of them can be >= a larger start.
        times = layout.read_time_index(seg.location, seg.base_offset)
        below = [t for t in times if t.timestamp < options.starting_timestamp]
        if below:
            target = max(target, below[-1].offset + 1)
    if target > seg.base_offset:
        i = bisect.bisect_right(offsets, target) - 1  # largest entry with offset <= target
        if i >= 0:
            start_pos = index[i].position
    if options.ending_offset is not None:
        # Records from entry j+1's position on have offsets > entry j's offset >= end - 1.
        j = bisect.bisect_left(offsets, options.ending_offset - 1)
        if j + 1 < len(index):
            end_pos = index[j + 1].position
    if end_pos <= start_pos:
        # The index places nothing in range; read from start_pos anyway and let the filters decide.
        end_pos = start_pos + 1

    cuts = [start_pos]
    for e in index:
        if start_pos < e.position < end_pos and e.position - cuts[-1] >= options.max_partition_bytes:
            cuts.append(e.position)
    used = {e.position: e for e in index if e.position in cuts or e.position == end_pos}
    if not _positions_sound(seg, used, end_pos):
        return whole
    bounds = cuts + [end_pos]
    return [SegmentRange(seg, a, b) for a, b in zip(bounds, bounds[1:])]


def _positions_sound(seg: Segment, used: dict[int, layout.IndexEntry], end_pos: int) -> bool:
    """Check that each index position used is where an entry starts (an index can be damaged)."""
    positions = [p for p in used if p != 0]
    if not positions:
        return True
    with fs.open_binary(seg.location) as f:
        for p in positions:
            f.seek(p)
            head = f.read(17)
            if len(head) < 17:
                return False
            offset, size = struct.unpack_from(">qi", head)
            magic = head[16]
            if magic not in (0, 1, 2) or size < _MIN_ENTRY_SIZE or p + 12 + size > seg.size:
                return False
            if offset < seg.base_offset or offset > used[p].offset:
                return False
            if seg.next_base_offset is not None and offset >= seg.next_base_offset:
                return False
    return True


def _with_lookahead(ranges: list[SegmentRange], segments: list[Segment]) -> list[SegmentRange]:
    """Give each range what follows it in its partition directory, to find where open transactions end."""
    later: dict[str, list[Segment]] = {}
    for seg in segments:
        if seg.base_offset is not None:
            later.setdefault(fs.parent(seg.location), []).append(seg)
    # Segments of the directory that the path did not name still hold markers: list them too.
    for directory in later:
        named = {s.location for s in later[directory]}
        extra = [s for s in _segments([f for f in fs.listdir(directory)
                                       if not f.is_dir and layout.segment_base_offset(f.name) is not None])
                 if s.location not in named]
        later[directory] = sorted(later[directory] + extra, key=lambda s: s.base_offset)
    out = []
    for r in ranges:
        seg = r.segment
        ahead: list[tuple[str, int, int]] = []
        if r.end < seg.size:
            ahead.append((seg.location, r.end, seg.size))
        if seg.base_offset is not None:
            ahead.extend((s.location, 0, s.size) for s in later.get(fs.parent(seg.location), [])
                         if s.base_offset > seg.base_offset)
        out.append(SegmentRange(seg, r.start, r.end, tuple(ahead)))
    return out
