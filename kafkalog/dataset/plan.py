"""Planning a read: which segments, and which byte ranges of them, each task reads (a Spark task, or a
thread of `kafkalog.read_arrow`).

Runs once per read (on Spark's driver: `DataSourceReader.partitions`). Offsets and timestamps are
pushed down here: segments are skipped by their base offsets (the next
segment's base offset bounds the current one), and the byte position to start
from comes from the offset index (the largest entry with offset <= the
target, as Kafka's `OffsetIndex.lookup`), the time index turning a start
timestamp into a start offset. Large segments are split at offset-index
positions, which are batch boundaries, so that every batch is read by exactly
one task.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from kafkalog import file_names
from kafkalog.dataset import cluster, fs, layout, offsets, remote_roots, served
from kafkalog.dataset.filters import NO_FILTERS, Pushed
from kafkalog.dataset.offsets import Bounds
from kafkalog.dataset.options import DamageMode, ReadOptions
from kafkalog.errors import UsageError
from kafkalog.location import Location
from kafkalog.log.segment_ranges import range_starts

if TYPE_CHECKING:  # (the served log's rules: loaded where a partition directory is read, by dataset.served)
    from kafkalog.log.served_log import ServedBounds


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
    #: The private keys (option remotePrivateKey) that open an encrypted Aiven segment and its indexes.
    private_keys: str | None = None


@dataclass(frozen=True)
class SegmentRange:
    """Bytes [start, end) of a segment: every entry that starts there is read whole."""

    segment: Segment
    start: int
    end: int
    #: read_committed only: (location, start, end) of what follows in the partition, in order,
    #: scanned for the transaction markers of transactions still open at `end`.
    lookahead: tuple[tuple[str, int, int], ...] = field(default=())
    #: The offsets of the partition to return; the reader filters its rows by them.
    bounds: Bounds = field(default=Bounds())
    #: PERMISSIVE: offsets missing before `segment` in a tiered partition's history, read as one damage row.
    gap: str | None = None


def list_segments(path: str, renamed: bool = False) -> list[Segment]:
    """The segments a path names: a segment file, a partition directory, a log directory, or a glob of them.
    `renamed` (readReplicas): a log directory's partition directories Kafka renamed (`-delete`, `-future`,
    `-stray`) too, their segments with the topic and partition their names hold (`kafkalog.dataset.layout`)."""
    matches = fs.expand(path)
    if not matches:
        raise UsageError(f"no such file or directory: {path}")
    # A file named on its own is read whatever its name; files matched by a glob must end in .log.
    explicit = not fs.is_glob(path)
    files: dict[str, fs.FileInfo] = {}
    for m in matches:
        if m.is_dir:
            _walk(m.location, files, renamed)
        elif explicit or file_names.is_segment_name(m.name):
            files[m.location] = m
    return _segments(files.values(), renamed)


def _walk(directory: str, out: dict[str, fs.FileInfo], renamed: bool = False) -> None:
    """The segments of a directory, by the one rule of what a directory is (`kafkalog.log.partition`): a partition
    directory's own, or a log directory's partitions' (its `topic-N` sub-directories; those Kafka is deleting or
    moving skipped). Nothing deeper is read."""
    # (imported here: a directory's rules, which a read of segment files named one by one never loads)
    from kafkalog.log.partition import is_log_dir_partition, is_partition_listing, is_skipped_dir  # noqa: PLC0415

    entries = fs.listdir(directory)
    if is_partition_listing(directory, [e.name for e in entries if not e.is_dir]):
        partitions = [entries]
    else:
        partitions = [fs.listdir(e.location) for e in entries if e.is_dir and (
            is_log_dir_partition(e.location) or (renamed and is_skipped_dir(e.location)))]
    for listing in partitions:
        for entry in listing:
            if not entry.is_dir and file_names.is_segment_name(entry.name):
                out[entry.location] = entry


def _segments(files, renamed: bool = False) -> list[Segment]:
    by_dir: dict[Location, list[fs.FileInfo]] = {}
    for f in files:
        by_dir.setdefault(f.where.parent, []).append(f)
    out: list[Segment] = []
    for directory in sorted(by_dir):
        topic, partition = layout.topic_partition(str(directory), renamed)
        entries = by_dir[directory]
        # An Aiven segment is its manifest: the `.log` object beside it is not a segment file.
        manifests = {f.name[: -len(file_names.MANIFEST_SUFFIX)] for f in entries if file_names.is_manifest_name(f.name)}
        entries = [f for f in entries if not (f.name.endswith(file_names.LOG_SUFFIX)
                                              and f.name[: -len(file_names.LOG_SUFFIX)] in manifests)]
        # (two uploads of one start offset, each its own manifest, sort by their locations)
        kafka = sorted(((layout.segment_base_offset(f.location), f) for f in entries
                        if layout.segment_base_offset(f.location) is not None), key=lambda p: (p[0], p[1].location))
        other = sorted((f for f in entries if layout.segment_base_offset(f.location) is None), key=lambda f: f.location)
        for i, (base, f) in enumerate(kafka):
            nxt = kafka[i + 1][0] if i + 1 < len(kafka) else None
            if file_names.is_manifest_name(f.name):
                r = remote_roots.aiven_segment(f)
                out.append(Segment(f.location, r.size, r.topic, r.partition, base, nxt))
                continue
            out.append(Segment(f.location, f.size, topic, partition, base, nxt))
        out.extend(Segment(f.location, f.size, topic, partition, None) for f in other)
    return out


def plan(path: str | Sequence[str], options: ReadOptions, pushed: Pushed = NO_FILTERS,
         exact_end: bool = False, served_log: bool = True,
         logs: served.ServedLogs | None = None) -> list[SegmentRange]:
    """The byte ranges to read, one task each, in segment order; `path` one path or several, read as one.

    `exact_end` (streaming) ends each range right after the batch holding the partition's last
    wanted offset, so that a batch still being appended is never read. `served_log` False reads the files as
    they are, even inside a broker's log directory. `logs`: the served bounds already found (a stream's, kept
    from trigger to trigger).
    """
    gaps: dict[str, str] = {}  # PERMISSIVE: the location of the segment after a gap -> the gap
    across = options.remote_root is not None  # a partition's segments lie in two places
    logs = logs if logs is not None else served.ServedLogs(remote_storage=across)
    segments = wanted_segments(path, options, pushed, gaps, logs)
    ranges: list[SegmentRange] = []
    groups = by_partition(segments, across)
    offsets.check_named_partitions(options, {(g[0].topic, g[0].partition) for g in groups})
    named = named_files([path] if isinstance(path, str) else list(path)) if served_log else set()
    for n, group in enumerate(groups):
        found = None
        if served_log:
            # Read inside a broker's log directory: its log as the broker's start-up loads it (log.served_log).
            group, found = served_group(group, options, logs, named)
            groups[n] = group
            if not group:
                continue
        kafka = [s for s in group if s.base_offset is not None]
        bounds = offsets.resolve(options, pushed, group[0].topic, group[0].partition, kafka, found)
        if bounds.empty:
            continue
        for seg in group:
            seg_ranges = _ranges(seg, bounds, options.max_partition_bytes, exact_end)
            if seg.location in gaps and seg_ranges:
                ranges.append(SegmentRange(seg, 0, 0, bounds=bounds, gap=gaps[seg.location]))
            ranges.extend(seg_ranges)
    if options.min_partitions and len(ranges) < options.min_partitions:
        ranges = _split(ranges, options.min_partitions)
    if options.read_committed:
        ranges = _with_lookahead(ranges, [s for g in groups for s in g], across)
    return ranges


def served_group(group: list[Segment], options: ReadOptions, logs: served.ServedLogs,
                 named: set[str]) -> tuple[list[Segment], ServedBounds | None]:
    """A partition's group of segments as its broker's start-up loads them, with its served bounds: inside a broker's
    log directory, the segments recovery keeps, cut where it cuts (`log.served_log`); the group as it is, and None,
    elsewhere."""
    found = _served(group, logs, named)
    if found is not None and (found.segment_ends or not options.include_below_log_start):
        # (a log start offset past the log end: Kafka deletes every segment, includeBelowLogStart reads them)
        group = served.served_segments(group, found)
    return group, found


def named_files(paths: list[str]) -> set[str]:
    """The segment files a read names one by one (not found in a directory): read as their bytes are."""
    return {m.location for p in paths if not fs.is_glob(p) for m in fs.expand(p) if not m.is_dir}


def _served(group: list[Segment], logs: served.ServedLogs, named: set[str]) -> ServedBounds | None:
    """The served bounds of a partition's group of segments: those of its one partition directory inside a log
    directory (local or behind a URI, not a tiered-storage root's); None for segments named one by one, or a
    directory without its log directory's files."""
    local = {str(Location(s.location).parent) for s in group
             if s.base_offset is not None and s.location not in named
             and file_names.is_segment_name(Location(s.location).name)}
    if len(local) != 1 or any(s.location in named for s in group) or layout.renamed_state(next(iter(local))) in (
            "delete", "stray"):
        # (a directory renamed -delete or -stray is no log its broker loads, and the log directory's checkpoints
        # are the live replica's: its files are read as they are)
        return None
    return logs.of_directory(local.pop())


def wanted_segments(path: str | Sequence[str], options: ReadOptions, pushed: Pushed = NO_FILTERS,
                    gaps: dict[str, str] | None = None, logs: served.ServedLogs | None = None) -> list[Segment]:
    """The segments under `path` (one path, or several read as one: each segment once, each partition's
    history stitched once) that the options select, a tiered partition's remote ones stitched before
    its local ones (option remoteRoot). Offsets no segment holds are data loss, reported per the options,
    or with `gaps` given and mode=PERMISSIVE, recorded there by the location of the segment they precede.
    `logs`: the read's served bounds (a stream's, kept from trigger to trigger; see `cluster.served_segments`)."""
    paths = [path] if isinstance(path, str) else list(path)
    segments = list({s.location: s for p in paths for s in list_segments(p, options.read_replicas)}.values())
    if not options.read_replicas:  # several brokers' disks: each partition once, from the replica served
        segments = cluster.served_segments(paths, segments, logs)

    def report(message: str, after: Segment) -> None:
        if options.mode is DamageMode.PERMISSIVE and gaps is not None:
            gaps[after.location] = message
        else:
            offsets.report_data_loss(options, message)
    if options.remote_root is not None:
        states = remote_roots.segment_states(_log_dirs(paths, segments))
        remotes = _remote_segments(options.remote_root)
        if states is not None:  # Aiven segments whose custom metadata puts them where listing does not look
            remotes += remote_roots.segments_by_custom_metadata(
                options.remote_root, states, {r.segment_id for r in remotes},
                lambda message: offsets.report_data_loss(options, message))
        segments = stitched(segments, remotes, states, report)
    return [dataclasses.replace(s, private_keys=options.remote_private_key) for s in segments
            if options.wants(s.topic, s.partition) and pushed.wants(s.topic, s.partition)]


def by_partition(segments: list[Segment], across: bool = False) -> list[list[Segment]]:
    """Segments grouped by directory, in listing order (Kafka segments in offset order first); `across`
    directories by topic and partition (a tiered partition's remote and local segments)."""
    groups: dict[object, list[Segment]] = {}
    for seg in segments:
        groups.setdefault(partition_key(seg, across), []).append(seg)
    return list(groups.values())


def partition_key(seg: Segment, across: bool = True) -> object:
    """What a segment's partition is known by: its directory, or `across` directories its topic and
    partition where it has them. (Copies of a partition in two directories stay two partitions.)"""
    return (seg.topic, seg.partition) if across and seg.topic is not None else str(Location(seg.location).parent)


def _remote_segments(root: str) -> list[remote_roots.RemoteSegment]:
    try:
        return remote_roots.list_remote_segments(root)
    except FileNotFoundError:
        raise UsageError(f"option remoteRoot: no such directory: {root}") from None


def _log_dirs(paths: list[str], local: list[Segment]) -> list[str]:
    """The log directories a read names: where `__remote_log_metadata` would be."""
    dirs = {str(Location(s.location).parent.parent) for s in local}
    for path in paths:
        found = fs.info(path)
        if found is not None and found.is_dir:
            dirs |= {found.location, str(found.where.parent)}
    return sorted(d for d in dirs if d)


def stitched(local: list[Segment], remotes: list[remote_roots.RemoteSegment],
             states: dict[str, remote_roots.SegmentState] | None = None,
             report: Callable[[str, Segment], None] | None = None) -> list[Segment]:
    """A partition's whole history: its remote segments, then its local ones, in offset order; a segment
    both remote and local (the same start offset) is read once, from the local disk.

    With `states` (`__remote_log_metadata`), only the segments whose copy finished and that lie on the local
    partition's leader epoch lineage (its `leader-epoch-checkpoint`) are read, and offsets
    that no remote or local segment holds are `report`ed as data loss, with the segment that follows them."""
    groups: dict[object, list[Segment]] = {}
    for seg in local:
        groups.setdefault(partition_key(seg), []).append(seg)
    if states is not None:
        lineages = {key: remote_roots.leader_epoch_lineage(str(Location(segs[0].location).parent))
                    for key, segs in groups.items()}
        remotes = [r for r in remotes if r.segment_id in states and states[r.segment_id].readable
                   and _on_lineage(states[r.segment_id], lineages.get((r.topic, r.partition)))]
    ends: dict[str, int] = {}
    for r in remotes:
        group = groups.setdefault((r.topic, r.partition), [])
        if not any(s.base_offset == r.base_offset for s in group):
            group.append(Segment(r.location, r.size, r.topic, r.partition, r.base_offset))
            if states is not None:
                ends[r.location] = states[r.segment_id].end_offset
            elif r.end_offset is not None:  # without the metadata, an Aiven manifest still says where it ends
                ends[r.location] = r.end_offset
    out: list[Segment] = []
    for group in groups.values():
        kafka = sorted((s for s in group if s.base_offset is not None), key=_base_offset)
        if (states is not None or ends) and report is not None:
            _report_gaps(kafka, ends, report)
        for i, s in enumerate(kafka):
            nxt = kafka[i + 1].base_offset if i + 1 < len(kafka) else None
            out.append(Segment(s.location, s.size, s.topic, s.partition, s.base_offset, nxt))
        out.extend(s for s in group if s.base_offset is None)
    return out


def _on_lineage(state: remote_roots.SegmentState, lineage: list[tuple[int, int]] | None) -> bool:
    """A remote segment on its partition's leader epoch lineage, or any one where no lineage is known."""
    return lineage is None or remote_roots.within_lineage(state, lineage)


def _base_offset(seg: Segment) -> int:
    """A Kafka-named segment's base offset (for sorting and comparing those segments only)."""
    assert seg.base_offset is not None
    return seg.base_offset


def _overlaps(seg: Segment, bounds: Bounds) -> bool:
    if seg.size == 0:
        return False
    if bounds.start is not None and seg.next_base_offset is not None and seg.next_base_offset <= bounds.start:
        return False
    return not (bounds.end is not None and seg.base_offset is not None and seg.base_offset >= bounds.end)


def _ranges(seg: Segment, bounds: Bounds, max_bytes: int, exact_end: bool = False) -> list[SegmentRange]:
    if not _overlaps(seg, bounds):
        return []
    whole = [SegmentRange(seg, 0, seg.size, bounds=bounds)]
    wants_start = (bounds.start is not None and seg.base_offset is not None
                   and bounds.start > seg.base_offset) or bounds.min_timestamp is not None
    wants_end = bounds.end is not None
    if seg.base_offset is None or not (seg.size > max_bytes or wants_start or wants_end):
        return whole
    base: int = seg.base_offset
    index = layout.offset_index_columns(seg.location, base, seg.size, seg.private_keys)
    if exact_end and bounds.end is not None and (seg.next_base_offset is None or seg.next_base_offset > bounds.end):
        stop = offsets.batch_end_position(seg, bounds.end - 1)
        if stop is not None:
            seg = dataclasses.replace(seg, size=stop)
            kept = index.positions < stop
            index = layout.IndexColumns(index.offsets[kept], index.positions[kept])
            whole = [SegmentRange(seg, 0, seg.size, bounds=bounds)]
    if not len(index):
        return whole

    start_pos, end_pos = 0, seg.size
    target = bounds.start if bounds.start is not None else base
    if bounds.min_timestamp is not None:
        # Time index entries are (max timestamp so far, its offset): every record up to that
        # offset has a timestamp <= the entry's, so none of them can be >= a larger start.
        times = layout.read_time_index(seg.location, base, seg.private_keys)
        below = [t for t in times if t.timestamp < bounds.min_timestamp]
        if below:
            target = max(target, below[-1].offset + 1)
    if target > base:
        i = index.floor(target)  # largest entry with offset <= target
        if i >= 0:
            start_pos = int(index.positions[i])
    if bounds.end is not None:
        # Records from entry j+1's position on have offsets > entry j's offset >= end - 1.
        j = int(np.searchsorted(index.offsets, bounds.end - 1, side="left"))
        if j + 1 < len(index):
            end_pos = int(index.positions[j + 1])
    if end_pos <= start_pos:
        # The index places nothing in range; read from start_pos anyway and let the filters decide.
        end_pos = min(start_pos + 1, seg.size)

    # Cut at the first entry at least max_bytes past the last cut, again and again (positions increase).
    index_cuts = range_starts(index.positions, start_pos, end_pos, max_bytes)
    # The index's positions are checked against the entries one reader from the start finds (it can lie):
    # each range starts where that reader finds an entry, so that the ranges meet, read apart or together.
    from kafkalog.dataset import cuts  # noqa: PLC0415  (the walk: only where an index places a cut or a start)

    with cuts.EntryWalk(seg.location, seg.private_keys) as walk:
        start_pos = walk.start_for(start_pos, target) if start_pos else 0
        starts = [start_pos]
        for cut in index_cuts[1:]:
            found = walk.at_or_after(cut)
            if found is None or found.position >= end_pos:
                break  # the entries end (damage, where one reader stops too) or the range does
            if found.position > starts[-1]:
                starts.append(found.position)
        if end_pos < seg.size:
            found = walk.at_or_after(end_pos)
            # Kept only where the entry there is a batch past the end (legacy offsets are their last ones).
            end_pos = found.position if found is not None and found.magic >= 2 and bounds.end is not None \
                and found.base_offset >= bounds.end else seg.size
    return [SegmentRange(seg, a, b, bounds=bounds) for a, b in itertools.pairwise([*starts, end_pos])]


def _report_gaps(kafka: list[Segment], ends: dict[str, int], report: Callable[[str, Segment], None]) -> None:
    """Offsets between a partition's remote segments, or between them and its local ones, that no segment
    holds (a tiered log has no holes: it is never compacted)."""
    expected: int | None = None
    for seg in kafka:
        if expected is not None and _base_offset(seg) > expected:
            report(f"{seg.topic}-{seg.partition}: offsets [{expected}, {seg.base_offset}) are in no remote or "
                   f"local segment", seg)
        if seg.location not in ends:
            return  # the local log: Kafka's own to keep whole
        expected = max(expected or 0, ends[seg.location] + 1)


def _split(ranges: list[SegmentRange], wanted: int) -> list[SegmentRange]:
    """minPartitions: cut the largest ranges at offset-index positions until there are `wanted` of them."""
    out = list(ranges)
    unsplittable: set[tuple[str, int, int]] = set()
    indexes: dict[str, layout.IndexColumns] = {}
    while len(out) < wanted:
        candidates = [r for r in out if (r.segment.location, r.start, r.end) not in unsplittable
                      and r.segment.base_offset is not None]
        if not candidates:
            break
        r = max(candidates, key=lambda r: r.end - r.start)
        seg = r.segment
        if seg.location not in indexes:
            indexes[seg.location] = layout.offset_index_columns(seg.location, _base_offset(seg), seg.size,
                                                                seg.private_keys)
        index = indexes[seg.location]
        inside = index.positions[(index.positions > r.start) & (index.positions < r.end)]
        middle = (r.start + r.end) / 2
        cut = min(inside.tolist(), key=lambda p: abs(p - middle), default=None)
        # A range starts where an entry does (see `_ranges`): the index's position is checked by walking from it.
        found = None
        if cut is not None:
            from kafkalog.dataset import cuts  # noqa: PLC0415  (as in `_ranges`)

            with cuts.EntryWalk(seg.location, seg.private_keys, start=r.start) as walk:
                found = walk.at_or_after(cut)
        if found is None or not r.start < found.position < r.end:
            unsplittable.add((seg.location, r.start, r.end))
            continue
        cut = found.position
        i = out.index(r)
        out[i:i + 1] = [SegmentRange(seg, r.start, cut, bounds=r.bounds),
                        SegmentRange(seg, cut, r.end, bounds=r.bounds)]
    return out


def _with_lookahead(ranges: list[SegmentRange], segments: list[Segment], across: bool) -> list[SegmentRange]:
    """Give each range what follows it in its partition directory, to find where open transactions end."""
    later: dict[object, list[Segment]] = {}
    for seg in segments:
        if seg.base_offset is not None:
            later.setdefault(partition_key(seg, across), []).append(seg)
    # Segments of the directory that the path did not name still hold markers: list them too.
    for key, group in later.items():
        named = {s.base_offset for s in group}
        extra = [s for directory in {Location(s.location).parent for s in group}
                 for s in _segments([f for f in fs.listdir(directory)
                                     if not f.is_dir and layout.segment_base_offset(f.location) is not None])
                 if s.base_offset not in named and partition_key(s, across) == key]
        later[key] = sorted(group + extra, key=_base_offset)
    out = []
    for r in ranges:
        seg = r.segment
        ahead: list[tuple[str, int, int]] = []
        if r.end < seg.size:
            ahead.append((seg.location, r.end, seg.size))
        if seg.base_offset is not None:
            ahead.extend((s.location, 0, s.size) for s in later.get(partition_key(seg, across), [])
                         if _base_offset(s) > seg.base_offset)
        out.append(SegmentRange(seg, r.start, r.end, tuple(ahead), r.bounds))
    return out
