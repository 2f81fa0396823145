"""What a log directory's own files say, checked against its partitions' logs, and JBOD directories against
each other: the checks `kafkalog verify` makes of them.

Problems are what a broker refuses, or what says that data it had is not on this disk; notes are what a
broker takes in its stride:

- a high watermark, recovery point or log start offset past the partition's log end offset is a problem:
  the broker had those records (it acknowledged, flushed or kept them), and they are not here. (Kafka clamps
  the high watermark to the log end and, where the log start offset is past it, deletes the log: "segment
  files were deleted from the file system", `LogLoader`.)
- checkpoints that lag the log are normal (written every few seconds): nothing is said;
- a log start offset below the first segment's base offset is a note: Kafka takes the larger for the local
  log (a tiered partition's log starts in remote storage, below its local segments);
- a cleaner offset past the log end is a note: Kafka's cleaner resets it (`LogCleanerManager`);
- a partition a checkpoint names with no directory is a problem (its data is not in this copy), a note
  where the directory is there renamed for deletion or a move (`-delete`, `-future`, `-stray`): the broker
  wrote the checkpoint before it renamed it;
- partition directories of one topic whose `partition.metadata` topic ids differ are a problem: one of them
  is of another topic of that name (deleted and created again), which a broker treats as a stray;
- JBOD directories whose `meta.properties` differ in cluster id or node id, or share a directory id, are a
  problem: the broker refuses to start (`MetaPropertiesEnsemble.verify`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kafkalog.file_names import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    META_PROPERTIES,
    RECOVERY_POINT_OFFSET_CHECKPOINT,
    REPLICATION_OFFSET_CHECKPOINT,
    parse_partition_dir_name,
)
from kafkalog.log.log_dir import LogDirState
from kafkalog.log.partition import listing
from kafkalog.uri_path import AnyPath


@dataclass(frozen=True)
class PartitionExtent:
    """What a partition directory's files hold, as `verify` found it.

    Attributes
    ----------
    path : pathlib.Path
        The partition directory.
    first_base_offset : int
        The first segment's base offset.
    log_end_offset : int
        The offset after the last valid batch (the last segment's base offset when it holds none).
    topic_id : str or None
        Its `partition.metadata`'s topic id, when it has one that reads.
    """

    path: AnyPath
    first_base_offset: int
    log_end_offset: int
    topic_id: str | None = None


@dataclass(frozen=True)
class Finding:
    """A problem found in one file: the file, a kind word, what is wrong."""

    file: AnyPath
    kind: str
    detail: str


@dataclass
class Findings:
    problems: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: The checkpoints whose offsets must not pass the log end, and what each offset is called.
_BOUNDED = ((REPLICATION_OFFSET_CHECKPOINT, "high_watermarks", "high watermark"),
            (RECOVERY_POINT_OFFSET_CHECKPOINT, "recovery_points", "recovery point"),
            (LOG_START_OFFSET_CHECKPOINT, "log_start_offsets", "log start offset"))


def check_log_dir(state: LogDirState, extents: dict[tuple[str, int], PartitionExtent]) -> Findings:
    """Check a log directory's checkpoints against its partitions' logs (`extents`, by topic and partition)."""
    found = Findings()
    for path, detail in state.unreadable.items():
        found.problems.append(Finding(path, "corrupt_structure", detail))
    renamed = _renamed_partitions(state.path)
    for name, attribute, what in (*_BOUNDED, (CLEANER_OFFSET_CHECKPOINT, "cleaner_offsets", "cleaner offset")):
        file = state.path / name
        for (topic, partition), offset in getattr(state, attribute).items():
            extent = extents.get((topic, partition))
            if extent is None:
                where = f"{topic}-{partition}"
                if (topic, partition) in renamed:
                    found.notes.append(f"{file}: {where}'s directory is renamed for deletion or a move "
                                       f"({renamed[(topic, partition)]}): the checkpoint was written before")
                else:
                    found.problems.append(Finding(file, "partition_missing",
                                                  f"names {where} ({what} {offset}), which has no directory here"))
                continue
            if offset > extent.log_end_offset:
                message = f"{topic}-{partition}'s {what} {offset} is past its log end offset {extent.log_end_offset}"
                if name == CLEANER_OFFSET_CHECKPOINT:
                    found.notes.append(f"{file}: {message} (Kafka's cleaner resets it)")
                else:
                    found.problems.append(Finding(file, "offset_past_log_end",
                                                  f"{message}: records the broker had are not on this disk"))
            elif name == LOG_START_OFFSET_CHECKPOINT and offset < extent.first_base_offset:
                found.notes.append(f"{file}: {topic}-{partition}'s log start offset {offset} is below its first "
                                   f"segment's base offset {extent.first_base_offset}: the records between are in "
                                   "remote storage (tiered) or gone; Kafka starts the local log at the larger")
    found.problems += _topic_id_problems(extents)
    return found


def check_log_dirs(states: list[LogDirState]) -> Findings:
    """Check JBOD log directories given together: one cluster, one node, a directory id each."""
    found = Findings()
    metas = [(s.path / META_PROPERTIES, s.meta) for s in states if s.meta is not None]
    if len(metas) < 2:
        return found
    first_file, first = metas[0]
    seen_dirs: dict[str, AnyPath] = {}
    for file, meta in metas:
        if meta.cluster_id != first.cluster_id:
            found.problems.append(Finding(file, "cluster_id_mismatch",
                                          f"cluster.id {meta.cluster_id} differs from {first_file}'s "
                                          f"{first.cluster_id}: a broker refuses to start on these directories"))
        if meta.node_id != first.node_id:
            found.problems.append(Finding(file, "node_id_mismatch",
                                          f"node id {meta.node_id} differs from {first_file}'s {first.node_id}: "
                                          "a broker refuses to start on these directories"))
        if meta.directory_id is not None:
            if meta.directory_id in seen_dirs:
                found.problems.append(Finding(file, "duplicate_directory_id",
                                              f"directory.id {meta.directory_id} is also "
                                              f"{seen_dirs[meta.directory_id]}'s: a copy of one directory"))
            seen_dirs.setdefault(meta.directory_id, file)
    return found


def _topic_id_problems(extents: dict[tuple[str, int], PartitionExtent]) -> list[Finding]:
    by_topic: dict[str, list[PartitionExtent]] = {}
    for (topic, _), extent in sorted(extents.items()):
        if extent.topic_id is not None:
            by_topic.setdefault(topic, []).append(extent)
    problems = []
    for topic, found in by_topic.items():
        first = found[0]
        for other in found[1:]:
            if other.topic_id != first.topic_id:
                problems.append(Finding(other.path / "partition.metadata", "topic_id_mismatch",
                                        f"topic id {other.topic_id} differs from {first.path.name}'s "
                                        f"{first.topic_id}: two topics named {topic}"))
    return problems


def _renamed_partitions(log_dir: AnyPath) -> dict[tuple[str, int], str]:
    """Partition directories renamed for deletion or a move, by topic and partition: their names."""
    found = {}
    for entry in listing(log_dir):
        parsed = parse_partition_dir_name(entry)
        if entry.is_dir() and parsed is not None and parsed.state is not None:
            found[(parsed.topic, parsed.partition)] = entry.name
    return found
