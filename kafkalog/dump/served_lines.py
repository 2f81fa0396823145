"""`kafkalog dump` of a partition directory inside a broker's log directory: its log as the broker serves it.

Before the partition's files, one line says what its broker's start-up would load (`kafkalog.log.served_log`):

    {"type":"served_log","topic":"deleted","partition":0,"log_start_offset":317,"log_end_offset":600,
     "high_watermark":600,"last_stable_offset":600,"recovery_point":317,"clean_shutdown":false,
     "truncated_from":{"segment":"...","position":44402,"offset":600,"reason":"...","deleted_segments":[]}}

Then its segments print from the batch holding the log start offset (a segment wholly below it is named in a
`not_served` line, its records not printed; the records below it in that batch are not printed either, as a
consumer drops them) up to where recovery cuts the log: the bytes past the cut, and the segments recovery
deletes, are named in `not_served` lines instead of printed as damage. `--include-below-log-start` prints the
records below the log start offset too. `--format kafka` prints kafka-dump-log.sh's lines of the files as they
are, whatever the checkpoints say, as kafka-dump-log.sh does. A log directory behind a URI
(`kafkalog.uri_path.UriPath`) prints as the same directory on the local disk does.
"""
from __future__ import annotations

import bisect
import dataclasses
from typing import TextIO

from kafkalog.dump.files import DumpLog
from kafkalog.dump.json_line import dumps
from kafkalog.dump.segment_lines import DumpOptions, dump_segment
from kafkalog.file_names import base_offset_of
from kafkalog.location import Location
from kafkalog.log import file_kinds
from kafkalog.log.log_dir import LogDirState, log_dir_of, partition_log_dir_state
from kafkalog.log.lookup import find_offset
from kafkalog.log.segment_files import SegmentFiles
from kafkalog.log.served_log import ServedBounds, served_bounds
from kafkalog.uri_path import AnyPath


def partition_dump_log(partition: AnyPath, opts: DumpOptions, out: TextIO, include_below_log_start: bool,
                       plain: DumpLog, log_dirs: dict[str, LogDirState | None] | None = None) -> DumpLog:
    """How `dump` prints a partition directory's segments: as its broker serves them when it lies inside a log
    directory (its `served_log` line written first), else as the files are (`plain`, which dumps any kind).

    `log_dirs` keeps each log directory's state (its checkpoints) as first read, by the log directory, for the
    partitions after it: each checkpoint holds a line per partition, so one read per partition would cost the
    square of the partitions (a request each behind a URI)."""
    state = None
    if opts.format != "kafka":
        key = str(log_dir_of(partition))
        if log_dirs is None or key not in log_dirs:
            state = partition_log_dir_state(partition)
            if log_dirs is not None:
                log_dirs[key] = state
        else:
            state = log_dirs[key]
    bounds = served_bounds(partition, state) if state is not None else None

    if bounds is None:
        return plain
    _emit(out, opts.format, _served_line(bounds), _served_text(bounds))
    ends = {Location(p).name: end for p, end in bounds.segment_ends.items()}
    bases = sorted(b for b in (base_offset_of(Location(p).name) for p in bounds.segment_ends) if b is not None)
    start_offset = None if include_below_log_start else bounds.log_start_offset

    def served(path: AnyPath, kind: str) -> bool:
        base = base_offset_of(path.name)
        if kind != file_kinds.LOG or base is None:
            return plain(path, kind)
        if not ends:  # a log start offset past the log end: Kafka's start-up deletes every segment
            if include_below_log_start:
                return plain(path, kind)
            _not_served(out, opts.format, path, 0, f"deleted at start-up: the log start offset "
                                                   f"{bounds.log_start_offset} is past the log end")
            return True
        if path.name not in ends:
            _not_served(out, opts.format, path, 0, "deleted by Kafka's recovery (a segment after the one it cuts)")
            return True
        later = bisect.bisect_right(bases, base)  # (bases sorted: the next segment's base offset is bases[later])
        if start_offset is not None and later < len(bases) and bases[later] <= start_offset:
            _not_served(out, opts.format, path, 0, f"below the log start offset {start_offset}")
            return True
        cut = ends[path.name]
        size = path.stat().st_size
        seg_opts = dataclasses.replace(opts, max_bytes=min(cut, opts.max_bytes) if opts.max_bytes is not None else
                                       (cut if cut < size else None))
        if start_offset is not None and start_offset > base:
            seg_opts = dataclasses.replace(seg_opts, start=_position_of(path, base, start_offset, cut),
                                           min_offset=start_offset)
        ok = dump_segment(path, kind, seg_opts, out)
        if cut < size:
            t = bounds.truncated_from
            reason = f"Kafka's recovery cuts the log here ({t.reason})" if t is not None and t.segment.name == \
                path.name else "cut by Kafka's recovery"
            _not_served(out, opts.format, path, cut, reason)
        return ok

    return served


def _position_of(path: AnyPath, base: int, offset: int, end: int) -> int:
    """The byte position of the batch holding `offset` (or the first after it): where a fetch from it starts,
    found as the broker finds it (the offset index, then batch headers: `kafkalog.log.lookup`)."""
    index = path.with_suffix(".index")
    found = find_offset([SegmentFiles(base, log=path, index=index if index.is_file() else None)], offset)
    return found.batch.position if found.batch is not None and found.batch.position < end else end


def _served_line(b: ServedBounds) -> dict:
    t = b.truncated_from
    return {"type": "served_log", "topic": b.topic, "partition": b.partition, "log_start_offset": b.log_start_offset,
            "log_end_offset": b.recovered_end_offset, "high_watermark": b.high_watermark,
            "last_stable_offset": b.last_stable_offset, "recovery_point": b.recovery_point,
            "clean_shutdown": b.clean_shutdown,
            "truncated_from": None if t is None else {"segment": str(t.segment), "position": t.position,
                                                      "offset": t.offset, "reason": t.reason,
                                                      "deleted_segments": [str(s) for s in t.deleted_segments]}}


def _served_text(b: ServedBounds) -> str:
    cut = "" if b.truncated_from is None else (f"; recovery cuts {b.truncated_from.segment.name} at byte "
                                               f"{b.truncated_from.position}")
    return (f"Served log: offsets {b.log_start_offset} to {b.recovered_end_offset} (log start and end offsets), "
            f"high watermark {b.high_watermark}, last stable offset {b.last_stable_offset}{cut}")


def _not_served(out: TextIO, fmt: str, path: AnyPath, position: int, reason: str) -> None:
    _emit(out, fmt, {"type": "not_served", "path": str(path), "position": position, "reason": reason},
          f"Not served: {path}: byte {position} on: {reason}")


def _emit(out: TextIO, fmt: str, obj: dict, text: str) -> None:
    out.write((dumps(obj) if fmt == "json" else text) + "\n")
