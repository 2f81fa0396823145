"""A read of several brokers' disks: each partition once, from the replica the cluster restarted on exactly
those disks would serve (`kafkalog.cluster.served`).

The paths (local paths, URIs, or globs of either) are one cluster's disks when they name two or more log
directories (each holding `meta.properties`) of two or more node ids (`kafkalog.cluster.disks.is_cluster`).
Then each partition is read from its served replica's directory, which the planner reads as that broker's
start-up loads it
(`kafkalog.dataset.served`): the served log. The metadata log is read once, from the copy that reaches
furthest. Option readReplicas reads every replica instead.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from typing import TYPE_CHECKING, Protocol, TypeVar

import pyarrow as pa

from kafkalog.cluster.disks import is_cluster
from kafkalog.dataset.layout import renamed_state
from kafkalog.errors import UsageError
from kafkalog.location import Location
from kafkalog.uri_path import AnyPath, as_path, is_uri

if TYPE_CHECKING:
    from kafkalog.dataset.served import ServedLogs

#: With readReplicas=true: the broker (node id) whose disk a row was read from, and for a partition directory Kafka
#: renamed, how ('delete', 'future' or 'stray'; null for a replica's own directory).
BROKER_FIELD = pa.field("broker", pa.int32())
RENAMED_FIELD = pa.field("renamed", pa.string())
BROKER_DDL = ", `broker` int, `renamed` string"


class _Segment(Protocol):
    """A planned segment (`kafkalog.dataset.plan.Segment`), known by its location."""

    @property
    def location(self) -> str: ...


class _Target(Protocol):
    """One of dump's targets (`kafkalog.dataset.targets.Target`): a log directory's partitions, or a file."""

    @property
    def partitions(self) -> list[AnyPath] | None: ...


S = TypeVar("S", bound=_Segment)
T = TypeVar("T", bound=_Target)


def served_segments(paths: list[str], segments: list[S], logs: ServedLogs | None = None) -> list[S]:
    """`segments` (listed under `paths`) without those of the replicas a restarted cluster does not serve from;
    all of them when the paths are not several brokers' disks. `logs`: the read's (a stream's, kept from one
    trigger to the next), whose `replica_bounds` the replicas' recovery walks resume from, and are kept in.

    Raises
    ------
    UsageError
        A disk is of another cluster (or its meta.properties does not read): which one to read is the user's call.
    """
    if not is_cluster(paths):
        return segments
    replicas, served = _served_dirs(paths, logs)
    return [seg for seg in segments
            if (d := _real(Location(seg.location).parent.text)) in served or d not in replicas]


def _served_dirs(paths: list[str], logs: ServedLogs | None = None) -> tuple[set[str], set[str]]:
    """(every replica's directory and every copy of the metadata log, those read from)."""
    # (imported here: the metadata log's replay and the election, which a read of one broker's files never loads)
    from kafkalog.cluster.served import cluster_view  # noqa: PLC0415

    view = cluster_view(paths, previous=logs.replica_bounds if logs is not None else None)
    if logs is not None:
        logs.replica_bounds = view.replica_bounds()
    if view.disks.other_cluster:
        names = ", ".join(str(d.path) for d in view.disks.other_cluster)
        raise UsageError(f"{names}: not a disk of cluster {view.disks.cluster_id} (see `kafkalog reconcile`); "
                         "leave it out, or read it on its own")
    replicas = {_real(r.replica.path) for p in view.partitions for r in p.replicas}
    replicas |= {_real(d) for _, d in view.disks.metadata_dirs()}
    served = {_real(d) for d in view.served_dirs()}
    if view.metadata is not None:
        served.add(_real(view.metadata.source))
    return replicas, served


def _real(path: AnyPath | str) -> str:
    """A directory as one string: a local one's real path, a URI as it is."""
    return str(path) if is_uri(path) else os.path.realpath(path)


def served_targets(paths: list[str], targets: list[T]) -> list[T]:
    """dump's targets (`kafkalog.dataset.targets`) with each log directory's partitions cut to those served from
    (one replica of each partition, and one copy of the metadata log); unchanged when the paths are not several
    brokers' disks."""
    if not is_cluster(paths):
        return targets
    replicas, served = _served_dirs(paths)
    out = []
    for t in targets:
        if t.partitions is not None:
            kept = [d for d in t.partitions if _real(d) in served or _real(d) not in replicas]
            t = dataclasses.replace(t, partitions=kept)  # type: ignore[type-var]  # (a dataclass: Target)
        out.append(t)
    return out


@functools.lru_cache(maxsize=256)
def _node_of(log_dir: str) -> int | None:
    from kafkalog.log.log_dir import partition_log_dir_state  # noqa: PLC0415  (readReplicas alone reads meta.properties)

    state = partition_log_dir_state(as_path(log_dir) / "_")
    return state.meta.node_id if state is not None and state.meta is not None else None


def with_broker(out: pa.RecordBatch, segment: str) -> pa.RecordBatch:
    """The rows of one segment with the `broker` column (the node id in `meta.properties` of the log directory
    holding the segment's partition directory, null where there is none) and the `renamed` one (how Kafka renamed
    that partition directory: 'delete', 'future', 'stray', or null)."""
    from kafkalog.log.log_dir import log_dir_of  # noqa: PLC0415  (readReplicas alone reads meta.properties)

    directory = Location(segment).parent
    node = _node_of(str(log_dir_of(as_path(directory.text))))
    out = out.append_column(BROKER_FIELD, pa.array([node] * out.num_rows, pa.int32()))
    return out.append_column(RENAMED_FIELD, pa.array([renamed_state(directory.name)] * out.num_rows, pa.string()))
