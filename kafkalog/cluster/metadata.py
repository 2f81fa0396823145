"""The cluster's last metadata, from a copy of the KRaft metadata log (`__cluster_metadata-0`).

Each KRaft node (controllers and brokers alike) keeps the whole metadata log: its latest snapshot
(`<end offset>-<epoch>.checkpoint`, the state up to that offset) and the log's records after it. They are
replayed as Kafka's `MetadataImage` replays them (`TopicRecord`, `PartitionRecord`, `PartitionChangeRecord`
merged as `PartitionRegistration.merge` does, `RemoveTopicRecord`, `ConfigRecord`, the broker records),
into each partition's replicas, ISR, ELR, leader and leader epoch, and the replicas a reassignment in flight
adds and removes (`addingReplicas`, `removingReplicas`: `replicas` is then the target's, followed by those
being removed, as `PartitionReassignmentReplicas` lays them out).

KRaft's own control records are replayed too (`KRaftControlRecordStateMachine`): `KRaftVersionRecord` (the
`kraft.version` feature) and `VotersRecord` (KIP-853: a dynamic quorum's voters, each a node id and the
directory id of its metadata log's disk). The latest snapshot's, then the log's after it: the last one is the
voter set. A static quorum (kraft.version 0) writes none: its voters are `controller.quorum.voters`, which
only `quorum-state` (version 0, `currentVoters`) keeps on disk.

Of several copies, the voters' copy that reaches furthest (the highest last epoch, then the highest end offset:
how KRaft compares logs in an election) is read, whole (`kafkalog.cluster.served`). Records past the metadata
log's old high watermark (which KRaft does not checkpoint) are replayed too: the restarted quorum's leader
commits its whole log with the first record of its new epoch.

The records are decoded by `formats.internal_topics` (the `kafka_metadata_record` spec).
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from kafkalog.errors import KafkalogError
from kafkalog.file_names import kraft_snapshot_id
from kafkalog.formats.internal_topics import METADATA, decode_record
from kafkalog.formats.text_files import ZERO_UUID
from kafkalog.log.file_kinds import kraft_snapshots
from kafkalog.log.partition import listing
from kafkalog.log.segment import SegmentReader
from kafkalog.uri_path import AnyPath, as_path

METADATA_TOPIC = "__cluster_metadata"
METADATA_DIR = f"{METADATA_TOPIC}-0"

#: `PartitionChangeRecord.leader`'s "unchanged" (`LeaderConstants.NO_LEADER_CHANGE`); -1 is no leader.
NO_LEADER_CHANGE = -2
NO_LEADER = -1
#: `ConfigRecord.resourceType` of a topic (`ConfigResource.Type.TOPIC`) and of a broker.
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4


@dataclass
class PartitionState:
    """A partition's registration in the metadata (`PartitionRegistration`)."""

    topic_id: str
    partition: int
    replicas: list[int]
    isr: list[int]
    leader: int
    leader_epoch: int
    partition_epoch: int
    #: Eligible leader replicas (KIP-966): replicas out of an ISR shrunk below min.insync.replicas that
    #: held every committed record when they left it.
    elr: list[int] = field(default_factory=list)
    last_known_elr: list[int] = field(default_factory=list)
    #: A reassignment in flight: the replicas it adds (not yet in sync) and those it removes once they are.
    adding: list[int] = field(default_factory=list)
    removing: list[int] = field(default_factory=list)

    @property
    def reassigning(self) -> bool:
        """`PartitionReassignmentReplicas.isReassignmentInProgress`."""
        return bool(self.adding or self.removing)

    @property
    def target_replicas(self) -> list[int]:
        """The replicas once the reassignment completes: `replicas` without those being removed."""
        return [b for b in self.replicas if b not in self.removing]


@dataclass(frozen=True)
class Voter:
    """A voter of the KRaft quorum (`ReplicaKey`): its node id, and the directory id of the disk holding its
    metadata log (None: any, as in a static quorum, or written as Kafka's zero Uuid)."""

    node_id: int
    directory_id: str | None = None

    def is_on(self, node_id: int | None, directory_id: str | None) -> bool:
        """Whether a disk of this node id and directory id holds this voter's copy of the metadata log."""
        return node_id == self.node_id and (self.directory_id is None or directory_id == self.directory_id)


#: A copy's part in the quorum (`MetadataCopy.role`): a voter's; a voter's node on another disk (replaced: formatted
#: again, a new directory id); a node a VotersRecord removed; an observer's (no voter set names it: a broker's, or a
#: controller's never added).
VOTER, REPLACED, REMOVED, OBSERVER = "voter", "replaced", "removed", "observer"


@dataclass
class MetadataCopy:
    """A disk's copy of the metadata log (`__cluster_metadata-0`) and its part in the quorum."""

    node_id: int | None
    directory_id: str | None
    path: AnyPath
    role: str
    #: Where the VotersRecord that removed this disk's voter was read (REMOVED; REPLACED where the log holds it).
    removed_at: str | None = None


@dataclass
class BrokerState:
    node_id: int
    fenced: bool = True
    registered: bool = True


@dataclass
class ClusterMetadata:
    """What the metadata log says, as of `end_offset` (the next offset after the last record replayed)."""

    #: The `__cluster_metadata-0` directory read: a local path, or a URI (a `UriPath`, or as given with `files`).
    source: AnyPath | str
    end_offset: int = 0
    last_epoch: int = -1
    #: topic id (Kafka's base64 Uuid string) -> topic name
    topics: dict[str, str] = field(default_factory=dict)
    partitions: dict[tuple[str, int], PartitionState] = field(default_factory=dict)
    #: topic name -> its dynamic configs (ConfigRecord), cluster-wide defaults under "" (a broker resource "")
    topic_configs: dict[str, dict[str, str]] = field(default_factory=dict)
    broker_configs: dict[str, dict[str, str]] = field(default_factory=dict)
    brokers: dict[int, BrokerState] = field(default_factory=dict)
    #: Finalized feature levels (FeatureLevelRecord): metadata.version, eligible.leader.replicas.version...
    features: dict[str, int] = field(default_factory=dict)
    #: The `kraft.version` feature (KRaftVersionRecord; 0 without one) and the last VotersRecord's voters (None
    #: without one: a static quorum), with where that record was read.
    kraft_version: int = 0
    voters: list[Voter] | None = None
    voters_from: str | None = None
    #: The voters an earlier VotersRecord named and a later one no longer does (`remove-controller`), each with where
    #: the first record without it was read (a snapshot keeps only the last voter set: removals before it are gone).
    removed_voters: dict[Voter, str] = field(default_factory=dict)
    #: Each copy of the metadata log on the disks read, and its part in the quorum (`kafkalog.cluster.served`).
    copies: list[MetadataCopy] = field(default_factory=list)
    #: What could not be read, each naming its file (the rest was replayed).
    problems: list[str] = field(default_factory=list)
    #: Whether the copy replayed read whole (every record of its snapshot and log after it): then a topic it does
    #: not hold is one the cluster does not have.
    read_whole: bool = True

    def topic_config(self, topic: str, name: str) -> str | None:
        """A topic's config: its own, else the cluster-wide default (a broker resource named "")."""
        value = self.topic_configs.get(topic, {}).get(name)
        return value if value is not None else self.broker_configs.get("", {}).get(name)


def metadata_reach(metadata_dir: AnyPath) -> tuple[int, int]:
    """(last epoch, end offset) of a copy of the metadata log, from its last segment's batch headers and
    its snapshots' names; (-1, 0) when it holds nothing readable."""
    epoch, end = -1, 0
    for path in _snapshots(metadata_dir):
        snap_end, snap_epoch = _snapshot_id(path)
        if (snap_epoch, snap_end) > (epoch, end):
            epoch, end = snap_epoch, snap_end
    logs = sorted(metadata_dir.glob("*.log"), key=str)
    if logs:
        try:
            with SegmentReader(logs[-1], decode_records=False) as reader:
                for batch in reader:
                    if (batch.partition_leader_epoch, batch.last_offset + 1) >= (epoch, end):
                        epoch, end = batch.partition_leader_epoch, batch.last_offset + 1
        except (KafkalogError, OSError):
            pass
    return epoch, end


@dataclass(frozen=True)
class MetadataFile:
    """A file of a metadata log's directory: its name, where it is (as named in problems), and how it opens."""

    name: str
    where: str
    open: Callable[[], BinaryIO]


def read_metadata(metadata_dir: str | os.PathLike, files: Sequence[MetadataFile] | None = None, *,
                  control_only: bool = False) -> ClusterMetadata:
    """Replay a copy of the metadata log: the latest snapshot that reads, then the log's records after it.

    Parameters
    ----------
    metadata_dir : str or path-like
        The `__cluster_metadata-0` directory.
    files : sequence of MetadataFile, optional
        Its files, listed and opened by the caller, for a directory that is not on the local disk (behind a URI);
        by default those of the local directory.
    control_only : bool
        KRaft's control records alone (the kraft.version and the voters), not the metadata records.

    Returns
    -------
    ClusterMetadata
        What does not read is named in `problems` (file and byte position); what was read before it stays.
    """
    if files is None:
        directory = as_path(metadata_dir)
        source: AnyPath | str = directory
        files = [MetadataFile(p.name, str(p), functools.partial(_open_file, p)) for p in listing(directory)
                 if p.is_file()]
    else:
        source = os.fspath(metadata_dir)
    snapshots = sorted((f for f in files if kraft_snapshot_id(f.name) is not None),
                       key=lambda f: kraft_snapshot_id(f.name) or (0, 0))
    md = ClusterMetadata(source=source)
    for snapshot in reversed(snapshots):
        attempt = ClusterMetadata(source=source)
        if _replay_file(attempt, snapshot, start_offset=0, strict=True, control_only=control_only):
            md = attempt
            md.end_offset = (kraft_snapshot_id(snapshot.name) or (0, 0))[0]
            break
        md.problems.extend(attempt.problems)
    for log in sorted((f for f in files if f.name.endswith(".log")), key=lambda f: f.name):
        _replay_file(md, log, start_offset=md.end_offset, strict=False, control_only=control_only)
    md.read_whole = not md.problems
    return md


def _open_file(path: AnyPath) -> BinaryIO:
    return path.open("rb")


def _snapshots(directory: AnyPath) -> list[AnyPath]:
    """The KRaft snapshots, by end offset (`<20-digit end offset>-<10-digit epoch>.checkpoint`)."""
    return sorted(kraft_snapshots(directory), key=_snapshot_id)


def _snapshot_id(path: AnyPath) -> tuple[int, int]:
    """(end offset, epoch) of a snapshot (`kraft_snapshots` lists only names that have them)."""
    found = kraft_snapshot_id(path)
    assert found is not None
    return found


def _replay_file(md: ClusterMetadata, file: MetadataFile, *, start_offset: int, strict: bool,
                 control_only: bool = False) -> bool:
    """Replay the data records of one file from `start_offset`, up to its first invalid batch (as Kafka's
    recovery ends a log there); False (with a problem named) where it stops at damage. A snapshot must read
    whole (`strict`): half a snapshot is not a state."""
    damage: list[str] = []
    path = file.where
    try:
        with file.open() as stream, SegmentReader(stream, name=path) as reader:
            for batch in reader:
                if batch.damage or reader.damage:
                    damage = [str(d) for d in (reader.damage or batch.damage)]
                    break
                if batch.last_offset < start_offset:
                    continue
                for record in batch.records:
                    if record.offset < start_offset:
                        continue
                    where = f"{path} at offset {record.offset}"
                    if batch.is_control:
                        _apply_control(md, record.control_type, record.key, record.value, where)
                    elif not control_only:
                        _apply(md, record.value, where)
                    md.end_offset = record.offset + 1
                md.last_epoch = max(md.last_epoch, batch.partition_leader_epoch)
            damage = damage or [str(d) for d in reader.damage]
    except KafkalogError as e:
        md.problems.append(f"{path}: the metadata log does not parse: {e}")
        return False
    except OSError as e:
        md.problems.append(f"{path}: cannot be read: {e.strerror or e}")
        return False
    if damage:
        md.problems.append(f"{path}: the metadata log does not parse past offset {md.end_offset}: {damage[0]}")
        return not strict
    return True


def _apply_control(md: ClusterMetadata, control_type: str | None, key: bytes | None, value: bytes | None,
                   where: str) -> None:
    """KRaftVersionRecord and VotersRecord (`KRaftControlRecordStateMachine`); the other control records say
    nothing of the state."""
    if control_type not in ("KRAFT_VERSION", "KRAFT_VOTERS"):
        return
    decoded = decode_record(METADATA, key, value, control_type)
    if decoded.error is not None or decoded.value is None:
        md.problems.append(f"{where}: a {control_type} control record does not decode: {decoded.error}")
        return
    data = decoded.value.get("data") or {}
    try:
        if control_type == "KRAFT_VERSION":
            md.kraft_version = int(data["kRaftVersion"])
        else:
            voters = [Voter(int(v["voterId"]), _directory(v.get("voterDirectoryId"))) for v in data.get("voters") or []]
            for gone in set(md.voters or []) - set(voters):
                md.removed_voters[gone] = where
            for back in voters:
                md.removed_voters.pop(back, None)
            md.voters, md.voters_from = voters, where
    except (KeyError, TypeError, ValueError) as e:
        md.problems.append(f"{where}: a {decoded.value.get('type')} without what KRaft reads ({e}); skipped")


def _directory(uuid: str | None) -> str | None:
    """A voter's directory id; None for Kafka's zero Uuid (`ReplicaKey.NO_DIRECTORY_ID`: any directory)."""
    return None if uuid in (None, ZERO_UUID) else uuid


def _apply(md: ClusterMetadata, value: bytes | None, where: str) -> None:
    decoded = decode_record(METADATA, None, value)
    if decoded.error is not None or decoded.value is None:
        if decoded.error is not None:
            md.problems.append(f"{where}: a metadata record does not decode: {decoded.error}")
        return
    kind, data = decoded.value.get("type"), decoded.value.get("data") or {}
    handler = _HANDLERS.get(kind or "")
    if handler is not None:
        try:
            handler(md, data)
        except (KeyError, TypeError, ValueError) as e:  # a record of a version without the fields replayed
            md.problems.append(f"{where}: a {kind} without what Kafka replays ({type(e).__name__}: {e}); skipped")


def _topic(md: ClusterMetadata, d: dict[str, Any]) -> None:
    md.topics[d["topicId"]] = d["name"]


def _remove_topic(md: ClusterMetadata, d: dict[str, Any]) -> None:
    """The topic, its partitions and its configs (`MetadataDelta.replay(RemoveTopicRecord)` removes the topic's
    config resource too: a topic made again under the name starts from the defaults)."""
    topic_id = d["topicId"]
    name = md.topics.pop(topic_id, None)
    if name is not None:
        md.topic_configs.pop(name, None)
    for key in [k for k in md.partitions if k[0] == topic_id]:
        del md.partitions[key]


def _partition(md: ClusterMetadata, d: dict[str, Any]) -> None:
    md.partitions[(d["topicId"], d["partitionId"])] = PartitionState(
        d["topicId"], d["partitionId"], list(d["replicas"] or []), list(d["isr"] or []), d["leader"],
        d["leaderEpoch"], d["partitionEpoch"], list(d.get("eligibleLeaderReplicas") or []),
        list(d.get("lastKnownElr") or []), list(d.get("addingReplicas") or []), list(d.get("removingReplicas") or []))


def _partition_change(md: ClusterMetadata, d: dict[str, Any]) -> None:
    """`PartitionRegistration.merge`: a null field is unchanged; a new leader bumps the leader epoch."""
    p = md.partitions.get((d["topicId"], d["partitionId"]))
    if p is None:
        return
    for name, attr in (("replicas", "replicas"), ("isr", "isr"), ("eligibleLeaderReplicas", "elr"),
                       ("lastKnownElr", "last_known_elr"), ("addingReplicas", "adding"),
                       ("removingReplicas", "removing")):
        if d.get(name) is not None:
            setattr(p, attr, list(d[name]))
    if d.get("leader", NO_LEADER_CHANGE) != NO_LEADER_CHANGE:
        p.leader = d["leader"]
        p.leader_epoch += 1
    p.partition_epoch += 1


def _clear_elr(md: ClusterMetadata, d: dict[str, Any]) -> None:
    for (topic_id, _), p in md.partitions.items():
        if not d.get("topicName") or md.topics.get(topic_id) == d["topicName"]:
            p.elr, p.last_known_elr = [], []


def _config(md: ClusterMetadata, d: dict[str, Any]) -> None:
    table = {TOPIC_RESOURCE: md.topic_configs, BROKER_RESOURCE: md.broker_configs}.get(d["resourceType"])
    if table is None:
        return
    configs = table.setdefault(d["resourceName"], {})
    if d.get("value") is None:
        configs.pop(d["name"], None)
    else:
        configs[d["name"]] = d["value"]


def _register_broker(md: ClusterMetadata, d: dict[str, Any]) -> None:
    md.brokers[d["brokerId"]] = BrokerState(d["brokerId"], bool(d.get("fenced", True)))


def _broker_change(md: ClusterMetadata, d: dict[str, Any]) -> None:
    b = md.brokers.setdefault(d["brokerId"], BrokerState(d["brokerId"]))
    # BrokerRegistrationFencingChange: 1 fence, -1 unfence, 0 none
    if d.get("fenced") == 1:
        b.fenced = True
    elif d.get("fenced") == -1:
        b.fenced = False


def _fence(fenced: bool):
    def handler(md: ClusterMetadata, d: dict[str, Any]) -> None:
        md.brokers.setdefault(d["id"], BrokerState(d["id"])).fenced = fenced
    return handler


def _unregister(md: ClusterMetadata, d: dict[str, Any]) -> None:
    b = md.brokers.setdefault(d["brokerId"], BrokerState(d["brokerId"]))
    b.registered, b.fenced = False, True


def _feature(md: ClusterMetadata, d: dict[str, Any]) -> None:
    md.features[d["name"]] = d["featureLevel"]


_HANDLERS = {
    "FeatureLevelRecord": _feature,
    "TopicRecord": _topic,
    "RemoveTopicRecord": _remove_topic,
    "PartitionRecord": _partition,
    "PartitionChangeRecord": _partition_change,
    "ClearElrRecord": _clear_elr,
    "ConfigRecord": _config,
    "RegisterBrokerRecord": _register_broker,
    "BrokerRegistrationChangeRecord": _broker_change,
    "FenceBrokerRecord": _fence(True),
    "UnfenceBrokerRecord": _fence(False),
    "UnregisterBrokerRecord": _unregister,
}
