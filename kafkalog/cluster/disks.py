"""A cluster's disks: the log directories given, which broker each belongs to, and each partition's replicas.

Paths, URIs (``s3://bucket/disks/broker-1``, read through `pyarrow.fs`) or globs of either naming log directories
are one cluster's disks when they hold `meta.properties`: the
cluster is the cluster id most of them hold (the first given on a tie), and each disk's broker is its node
id (`broker.id` in ZooKeeper mode). A broker may have several disks (JBOD: one node id, a directory id
each). Disks of another cluster id are named and left out. Two disks with one directory id (a copy given
twice), or one broker's partition on two of its disks, are named, and the first given is read.

A partition's replicas are grouped by topic id (`partition.metadata`) and partition number. A replica
without `partition.metadata` joins the replicas of its topic name; replicas of one name under two topic
ids are two topics (one deleted and created again), and a metadata log says which one is current.

Directories Kafka renamed (`topic-N.<uuid>-delete`, `-stray`, `-future`) are no replicas: they are listed
apart (`Disks.renamed`), as Kafka's start-up leaves them (deleted later, kept aside, or copied on into).
"""
from __future__ import annotations

import glob
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkalog.errors import KafkalogError, UsageError
from kafkalog.file_names import META_PROPERTIES, PARTITION_METADATA, parse_partition_dir_name
from kafkalog.uri_path import AnyPath, UriPath, as_path, glob_uri, is_uri

if TYPE_CHECKING:
    from kafkalog.log.log_dir import LogDirState

# The log-directory readers and the metadata log are imported where disks are read: every read asks
# `is_cluster`, and a read of one broker's files should not load them (issue 33: start-up).


@dataclass
class Disk:
    """One log directory of a broker."""

    path: AnyPath
    state: LogDirState

    @property
    def node_id(self) -> int | None:
        return self.state.meta.node_id if self.state.meta is not None else None

    @property
    def cluster_id(self) -> str | None:
        return self.state.meta.cluster_id if self.state.meta is not None else None

    @property
    def directory_id(self) -> str | None:
        return self.state.meta.directory_id if self.state.meta is not None else None


@dataclass
class Replica:
    """One broker's copy of a partition: its directory on one of the broker's disks."""

    broker: int
    disk: Disk
    path: AnyPath
    topic: str
    partition: int
    #: From `partition.metadata`; None where the file is absent or does not read.
    topic_id: str | None


@dataclass
class RenamedReplica:
    """A partition directory Kafka renamed: `delete` (a deleted topic's or moved replica's, which Kafka deletes
    `log.segment.delete.delay.ms` after its start-up), `stray` (kept aside) or `future` (a move between a broker's disks
    in progress). Not served; read by naming the directory."""

    broker: int
    path: AnyPath
    topic: str
    partition: int
    state: str


@dataclass
class Disks:
    """The disks of the cluster read, each partition's replicas, and what was left out and why."""

    disks: list[Disk]
    cluster_id: str | None
    #: Disks of another cluster id (or without one), not read.
    other_cluster: list[Disk] = field(default_factory=list)
    #: (topic, topic id or None, partition) -> its replicas, one per broker.
    replicas: dict[tuple[str, str | None, int], list[Replica]] = field(default_factory=dict)
    renamed: list[RenamedReplica] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def brokers(self) -> list[int]:
        return sorted({d.node_id for d in self.disks if d.node_id is not None})

    def metadata_dirs(self) -> list[tuple[int | None, AnyPath]]:
        """Each disk's copy of the KRaft metadata log, with its node id."""
        from kafkalog.cluster.metadata import METADATA_DIR  # noqa: PLC0415  (see the imports)

        return [(d.node_id, d.path / METADATA_DIR) for d in self.disks if (d.path / METADATA_DIR).is_dir()]


def log_dirs_of(paths: list[str]) -> list[AnyPath]:
    """The log directories (directories holding `meta.properties`) that the paths, URIs or globs of either name,
    in order, each once. A path that is not a directory with `meta.properties` is a usage error."""
    found: list[AnyPath] = []
    seen: set[str] = set()
    for p in paths:
        for m in _matches(p):
            if not m.is_dir():
                raise UsageError(f"{m}: not a directory (a broker's log directory is expected)")
            if not (m / META_PROPERTIES).exists():
                raise UsageError(f"{m}: no {META_PROPERTIES} here: not a broker's log directory")
            real = str(m) if isinstance(m, UriPath) else os.path.realpath(m)
            if real not in seen:
                seen.add(real)
                found.append(m)
    return found


def _matches(pattern: str) -> list[AnyPath]:
    """What a path, URI or glob of either names; a usage error when it names nothing."""
    if is_uri(pattern):
        matches: list[AnyPath] = list(glob_uri(pattern))
    else:
        matches = [as_path(m) for m in (sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern])]
    if not matches:
        raise UsageError(f"no such file or directory: {pattern}")
    return matches


def is_cluster(paths: list[str]) -> bool:
    """Whether `paths` name the disks of several brokers of one cluster: two or more log directories (each
    holding `meta.properties`), the cluster id most of them hold held by two or more node ids. Then kafkalog
    reads them as one cluster (directories of one node are a broker's JBOD disks)."""
    dirs: list[AnyPath] = []
    for p in paths:
        if is_uri(p):
            dirs += glob_uri(p)
        else:
            dirs += [as_path(m) for m in (sorted(glob.glob(p)) if glob.has_magic(p) else [p])]
    if len(dirs) < 2 or not all((d / META_PROPERTIES).is_file() for d in dirs):
        return False
    from kafkalog.log.log_dir import read_log_dir_state  # noqa: PLC0415  (see the imports)

    metas = [m for m in (read_log_dir_state(d).meta for d in dirs) if m is not None and m.node_id is not None]
    clusters = Counter(m.cluster_id for m in metas)
    if not clusters:
        return False
    top = clusters.most_common(1)[0][0]
    return len({m.node_id for m in metas if m.cluster_id == top}) >= 2


def find_disks(paths: list[str]) -> Disks:
    """The cluster's disks among `paths` (log directories, or globs of them), and every partition's replicas."""
    from kafkalog.log.log_dir import read_log_dir_state  # noqa: PLC0415  (see the imports)

    disks = [Disk(p, read_log_dir_state(p)) for p in log_dirs_of(paths)]
    problems = [problem for d in disks for problem in d.state.problems]
    clusters = Counter(d.cluster_id for d in disks if d.cluster_id is not None)
    cluster_id = max(clusters, key=lambda c: (clusters[c], -_first(disks, c))) if clusters else None
    ours = [d for d in disks if d.cluster_id == cluster_id and d.node_id is not None]
    other = [d for d in disks if d not in ours]
    for d in other:
        why = (f"of cluster {d.cluster_id}, not {cluster_id}" if d.cluster_id is not None and d.node_id is not None
               else "without a node id and cluster id that read")
        problems.append(f"{d.path / META_PROPERTIES}: a disk {why}: left out")
    seen_dirs: dict[str, Disk] = {}
    kept: list[Disk] = []
    for d in ours:
        if d.directory_id is not None and d.directory_id in seen_dirs:
            problems.append(f"{d.path / META_PROPERTIES}: node {d.node_id}'s directory {d.directory_id} is also "
                            f"{seen_dirs[d.directory_id].path}: two copies of one disk; the first is read")
            continue
        if d.directory_id is not None:
            seen_dirs[d.directory_id] = d
        kept.append(d)
    found = Disks(kept, cluster_id, other, problems=problems)
    _group_replicas(found)
    return found


def _first(disks: list[Disk], cluster_id: str) -> int:
    return next(n for n, d in enumerate(disks) if d.cluster_id == cluster_id)


def _group_replicas(found: Disks) -> None:
    from kafkalog.cluster.metadata import METADATA_DIR  # noqa: PLC0415  (see the imports)
    from kafkalog.formats.partition_metadata import read_partition_metadata  # noqa: PLC0415
    from kafkalog.log.partition import Partition, is_skipped_dir, listing, partition_dirs  # noqa: PLC0415

    by_broker: dict[tuple[int, str, int], Replica] = {}
    for disk in found.disks:
        assert disk.node_id is not None
        for renamed in sorted(p for p in listing(disk.path) if p.is_dir() and is_skipped_dir(p)):
            name = parse_partition_dir_name(renamed)
            assert name is not None and name.state is not None  # (is_skipped_dir)
            found.renamed.append(RenamedReplica(disk.node_id, renamed, name.topic, name.partition, name.state))
        for pdir in partition_dirs(disk.path):
            part = Partition(pdir)
            if part.topic is None or part.partition is None or pdir.name == METADATA_DIR:
                continue
            topic_id = None
            if (pdir / PARTITION_METADATA).exists():
                try:
                    topic_id = read_partition_metadata(pdir / PARTITION_METADATA).topic_id
                except (KafkalogError, OSError) as e:
                    found.problems.append(f"{pdir / PARTITION_METADATA}: {e}")
            replica = Replica(disk.node_id, disk, pdir, part.topic, part.partition, topic_id)
            key = (disk.node_id, part.topic, part.partition)
            if key in by_broker:
                # (LogManager.loadLog: "Duplicate log directories for ... are found in both ...")
                found.problems.append(f"{pdir}: broker {disk.node_id} holds {part.topic}-{part.partition} on two "
                                      f"disks (also {by_broker[key].path}); the first is read. Kafka's start-up "
                                      "refuses this (duplicate log directories): one of the two must be deleted")
                continue
            by_broker[key] = replica
    ids_by_topic: dict[str, set[str]] = {}
    for r in by_broker.values():
        if r.topic_id is not None:
            ids_by_topic.setdefault(r.topic, set()).add(r.topic_id)
    for r in by_broker.values():
        topic_id = r.topic_id
        if topic_id is None and len(ids_by_topic.get(r.topic, ())) == 1:
            topic_id = next(iter(ids_by_topic[r.topic]))  # no partition.metadata: the only id of its name
        found.replicas.setdefault((r.topic, topic_id, r.partition), []).append(r)
    for reps in found.replicas.values():
        reps.sort(key=lambda r: r.broker)
    for topic, ids in sorted(ids_by_topic.items()):
        if len(ids) > 1:
            found.problems.append(f"topic {topic}: replicas under {len(ids)} topic ids ({', '.join(sorted(ids))}): "
                                  "a topic deleted and created again; each id is its own topic")
