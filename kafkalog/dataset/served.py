"""The log each partition's broker would serve, in a read: its bounds (`kafkalog.log.served_log`) found once
per partition directory, the segments cut where Kafka's recovery cuts them, and `partition_bounds`.

A partition directory read inside a broker's log directory (one with `meta.properties`, a checkpoint or
`.kafka_cleanshutdown` beside it), on the local disk or behind a URI, is read as that broker's start-up loads it:
from its log start offset, up to where recovery ends it. A segment file named on its own, or a partition directory
without its log directory's files, reads as its files are.

    kafkalog.partition_bounds("/var/lib/kafka/data").to_pylist()
    [{'topic': 'orders', 'partition': 0, 'log_start_offset': 317, 'log_end_offset': 600, ...}, ...]
"""
from __future__ import annotations

import bisect
import dataclasses
import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from kafkalog.dataset import fs
from kafkalog.errors import UsageError
from kafkalog.file_names import PARTITION_METADATA, parse_offset_file_name, parse_partition_dir_name
from kafkalog.location import Location
from kafkalog.uri_path import AnyPath, as_path, requests_once

if TYPE_CHECKING:
    from kafkalog.log.log_dir import LogDirState
    from kafkalog.log.served_log import ServedBounds

# A log directory's files and the served log's rules are imported where a partition directory is read: every
# read's planner imports this module, and a segment file named on its own loads none of them (issue 33: start-up).

log = logging.getLogger("kafkalog.dataset")


class ServedLogs:
    """The served bounds of the partition directories of one read, each found once (None: read as the files are).

    `remote_storage`: the read stitches remote segments before the local ones (option remoteRoot), so each log
    starts at its checkpointed log start offset, below its first local segment."""

    def __init__(self, remote_storage: bool = False):
        self.remote_storage = remote_storage
        self._states: dict[AnyPath, LogDirState | None] = {}
        self._bounds: dict[str, ServedBounds | None] = {}
        self._said: set[str] = set()
        #: Earlier findings to resume recovery's walks from (a stream's, `TailedLogs`).
        self._previous: dict[str, ServedBounds | None] = {}
        #: Of several brokers' disks read as one cluster (`kafkalog.dataset.cluster`): every replica's bounds, by its
        #: directory, from the last view of them; the next view's walks resume from them (a stream's next trigger).
        self.replica_bounds: dict[str, ServedBounds] = {}

    def of_directory(self, directory: str) -> ServedBounds | None:
        """A partition directory's served bounds (on the local disk or behind a URI); None outside a log directory."""
        if directory in self._bounds:
            return self._bounds[directory]
        found = None
        where = fs.info(directory)
        if where is not None and where.is_dir:
            state = self._state(directory)
            if state is not None:
                from kafkalog.log.served_log import served_bounds  # noqa: PLC0415  (see the imports)

                found = served_bounds(directory, state, remote_storage=self.remote_storage,
                                      previous=self._previous.get(directory))
                _say_what_recovery_drops(directory, found)
        self._bounds[directory] = found
        return found

    def _state(self, directory: str) -> LogDirState | None:
        """The state of the log directory `directory` is in, read once; each problem with its files said once."""
        from kafkalog.log.log_dir import log_dir_of, partition_log_dir_state  # noqa: PLC0415  (see the imports)

        log_dir = log_dir_of(directory)
        if log_dir not in self._states:
            state = self._states[log_dir] = partition_log_dir_state(directory)
            for problem in state.problems if state is not None else []:
                if problem not in self._said:
                    self._said.add(problem)
                    # (a broker takes such a log directory offline; its partitions read as the other files say)
                    log.warning("%s; read as if it were absent", problem)
        return self._states[log_dir]


class TailedLogs(ServedLogs):
    """The served bounds of the partitions a stream tails (`kafkalog.spark.stream`), kept from one trigger to the
    next: a partition's are found again only where its files' names, sizes or times, or its log directory's checkpoints
    and clean shutdown marker, changed since; and then recovery's walk of a segment that only grew (the active
    segment a broker appends to) goes on from where the last one stopped, once its last valid batch is checked
    unchanged (`served_bounds`'s `previous`), as does the search for open transactions. Call `next_trigger`
    before each trigger's reads, so that the checkpoints are read again, once."""

    def __init__(self, remote_storage: bool = False):
        super().__init__(remote_storage)
        self._seen: dict[str, tuple] = {}

    def next_trigger(self) -> None:
        self._states.clear()

    def of_directory(self, directory: str) -> ServedBounds | None:
        key = self._fingerprint(directory)
        if self._seen.get(directory) != key:
            self._previous[directory] = self._bounds.pop(directory, None)
            self._seen[directory] = key
        return super().of_directory(directory)

    def _fingerprint(self, directory: str) -> tuple:
        """What a partition's served bounds depend on: its files (names, sizes and modification times: a preallocated
        segment keeps its size as it fills) and its log directory's state."""
        where = fs.info(directory)
        if where is None or not where.is_dir:
            return ()
        state = self._state(directory)
        part = parse_partition_dir_name(directory)
        tp = (part.topic, part.partition) if part is not None else ("", -1)
        offsets = () if state is None else (state.log_start_offsets.get(tp), state.high_watermarks.get(tp),
                                            state.recovery_points.get(tp), state.clean_shutdown)
        return offsets, tuple((f.name, f.size, f.mtime_ns) for f in fs.listdir(directory))


def _say_what_recovery_drops(directory: str, bounds: ServedBounds) -> None:
    """Kafka's start-up logs what its recovery cuts; so does the read (a warning where whole segments go)."""
    from kafkalog.log.partition import Partition  # noqa: PLC0415  (see the imports)

    cut = bounds.truncated_from
    if cut is not None:
        (log.warning if cut.deleted_segments else log.info)(
            "%s: byte %d: Kafka's recovery ends the log here, at offset %d (%s)%s; not read, as a restarted broker "
            "truncates it", cut.segment, cut.position, cut.offset, cut.reason,
            f", and deletes {len(cut.deleted_segments)} later segment(s)" if cut.deleted_segments else "")
    if not bounds.segment_ends and bounds.checkpointed_log_start_offset is not None \
            and Partition(directory).log_segments:
        log.warning("%s: the log-start-offset-checkpoint's %d is past the log end: Kafka's start-up deletes every "
                    "segment, so nothing is read (includeBelowLogStart reads them)", directory,
                    bounds.checkpointed_log_start_offset)


def served_segments(group: list, bounds: ServedBounds) -> list:
    """A partition's planned segments (`dataset.plan.Segment`) as Kafka keeps them after recovery: those of its
    local directory that recovery deletes left out, the one it cuts ending where it cuts; each segment's
    `next_base_offset` that of the next one kept."""
    kept = {Location(path).name: end for path, end in bounds.segment_ends.items()}
    # The partition directory's own segments (not remote ones stitched before them); all, when recovery kept none.
    own = {_parent(path) for path in bounds.segment_ends}
    out = []
    for seg in group:
        name = Location(seg.location).name
        local = seg.base_offset is not None and name.endswith(".log") and (not own or _parent(seg.location) in own)
        if local and name not in kept:
            continue
        if local and kept[name] < seg.size:
            seg = dataclasses.replace(seg, size=kept[name])
        out.append(seg)
    bases = sorted({s.base_offset for s in out if s.base_offset is not None})
    return [dataclasses.replace(s, next_base_offset=_next(bases, s.base_offset)) if s.base_offset is not None else s
            for s in out]


def _parent(location: str) -> str:
    """The directory a file is in, as one string for a local path (made absolute) or a URI."""
    where = Location(location)
    return where.parent.text if where.is_uri else os.path.dirname(os.path.abspath(location))


def _next(bases: list[int], base: int) -> int | None:
    """The least of the sorted `bases` above `base`."""
    i = bisect.bisect_right(bases, base)
    return bases[i] if i < len(bases) else None


#: The columns of `partition_bounds`.
BOUNDS_SCHEMA = pa.schema([
    ("topic", pa.string()), ("partition", pa.int32()), ("log_dir", pa.string()),
    ("log_start_offset", pa.int64()), ("log_end_offset", pa.int64()), ("high_watermark", pa.int64()),
    ("last_stable_offset", pa.int64()), ("recovery_point", pa.int64()), ("clean_shutdown", pa.bool_()),
    ("checkpointed_log_start_offset", pa.int64()), ("checkpointed_high_watermark", pa.int64()),
    ("truncated_segment", pa.string()), ("truncated_position", pa.int64()), ("truncated_reason", pa.string()),
    ("deleted_segments", pa.list_(pa.string())),
])


def partition_bounds(path: str | os.PathLike | Sequence[str | os.PathLike]) -> pa.Table:
    """Each partition's log as its broker's start-up would load it from this disk: one row per partition.

    Parameters
    ----------
    path : str, os.PathLike or sequence of them
        A broker's log directory, a partition directory in one, a glob of them, or a list. What a directory
        holds says which it is, not its name: `meta.properties` or the offset checkpoints make a log directory
        (`/var/lib/kafka-1` too), segments or `partition.metadata` a partition directory.

    Returns
    -------
    pyarrow.Table
        ``topic``, ``partition``, ``log_dir``; ``log_start_offset`` (what ``startingOffsets="earliest"`` reads
        from), ``log_end_offset`` (after recovery: what ``endingOffsets="latest"`` reads to with
        read_uncommitted), ``high_watermark`` (the checkpointed one clamped to the log, as Kafka loads it),
        ``last_stable_offset`` (where read_committed ends), ``recovery_point``, ``clean_shutdown``; the
        checkpoints' own values (null where a checkpoint has no line for the partition); where recovery cuts
        the log (``truncated_segment``, ``truncated_position``, ``truncated_reason``, null when it cuts nothing)
        and the later segments it deletes.

    Raises
    ------
    kafkalog.UsageError
        A path that does not exist, or one with no partition directory inside a log directory.

    Examples
    --------
    >>> import kafkalog
    >>> table = kafkalog.partition_bounds("/var/lib/kafka/data")  # doctest: +SKIP
    """
    with requests_once():  # (asks an object store of each directory and file once)
        return _partition_bounds([os.fspath(path)] if isinstance(path, (str, os.PathLike))
                                 else [os.fspath(p) for p in path])


def _partition_bounds(paths: list[str]) -> pa.Table:
    from kafkalog.log.log_dir import log_dir_of  # noqa: PLC0415  (see the imports)

    directories: list[str] = []
    for p in paths:
        matches = fs.expand(p)
        if not matches:
            raise UsageError(f"no such file or directory: {p}")
        for m in matches:
            if m.is_dir:
                directories += _partition_dirs(m.location)
    logs = ServedLogs()
    rows = []
    for directory in dict.fromkeys(directories):
        b = logs.of_directory(directory)
        if b is None:
            continue
        t = b.truncated_from
        rows.append({
            "topic": b.topic, "partition": b.partition, "log_dir": str(log_dir_of(directory)),
            "log_start_offset": b.log_start_offset, "log_end_offset": b.recovered_end_offset,
            "high_watermark": b.high_watermark, "last_stable_offset": b.last_stable_offset,
            "recovery_point": b.recovery_point, "clean_shutdown": b.clean_shutdown,
            "checkpointed_log_start_offset": b.checkpointed_log_start_offset,
            "checkpointed_high_watermark": b.checkpointed_high_watermark,
            "truncated_segment": str(t.segment) if t else None, "truncated_position": t.position if t else None,
            "truncated_reason": t.reason if t else None,
            "deleted_segments": [str(s) for s in t.deleted_segments] if t else [],
        })
    if not rows:
        raise UsageError(f"{', '.join(paths)}: no partition directory inside a broker's log directory (one with "
                         "meta.properties or the offset checkpoints)")
    return pa.Table.from_pylist(rows, schema=BOUNDS_SCHEMA)


def _partition_dirs(directory: str) -> list[str]:
    """The partition directories a directory names: itself, or those inside it (a log directory).

    The name alone can mislead (`/var/lib/kafka-1` is named as partition 1 of topic `kafka`), so what the
    directory holds decides: a log directory's own files (`meta.properties`, the offset checkpoints) make it a log
    directory; a partition's files (segments, `partition.metadata` with its topic id) a partition directory; a
    `topic-N` name holding neither but partition directories is a log directory copied without its files."""
    from kafkalog.log.log_dir import holds_log_dir_files  # noqa: PLC0415  (see the imports)
    from kafkalog.log.partition import is_partition_dir, is_skipped_dir, listing, partition_dirs  # noqa: PLC0415

    here = as_path(directory)
    if holds_log_dir_files(here):
        return [str(p) for p in partition_dirs(here)]
    if is_partition_dir(here) and not is_skipped_dir(here):
        inside = [p.name for p in listing(here) if not p.is_dir()]
        if (PARTITION_METADATA in inside or any(parse_offset_file_name(n) is not None for n in inside)
                or not partition_dirs(here)):
            return [directory]
    return [str(p) for p in partition_dirs(here)]
