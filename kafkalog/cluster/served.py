"""Each partition of a cluster, as the cluster restarted on exactly the disks given would serve it.

    view = cluster_view(["/disks/broker-1", "/disks/broker-2", "/disks/broker-3"])
    for p in view.partitions:
        p.topic, p.partition, p.leader, p.log_start_offset, p.high_watermark
        for r in p.replicas:
            r.broker, r.discarded_from      # the first offset the restart drops from this disk

Each replica is first loaded as its broker's start-up loads it (`kafkalog.log.served_log`). Then:

- A stray replica is not loaded by its broker's start-up (`BrokerMetadataPublisher.initializeManagers` with
  `LogManager.isStrayReplica`, 3.x's `isStrayKraftReplica`; Kafka 3.7+ renames it `-stray`, earlier ones delete
  it): it is not served, not elected, and all its records are discarded. With the metadata of a KRaft cluster,
  a replica is stray when
  - its directory has no `partition.metadata` (no topic id: Kafka writes the file before the first append, so
    it takes such a directory for one left empty);
  - its topic id is not in the metadata (a deleted topic's replica, or one of a topic deleted and created
    again), or its partition is not;
  - its broker is not among the partition's replicas (left behind by a reassignment, or a copy put there by
    hand).
  Where the metadata log does not read whole, only the last rule applies: a topic the readable part does not
  name may be one created after the damage.
- A reassignment in flight (`addingReplicas`, `removingReplicas`) goes on after the restart: the replicas it
  adds are followers that fetch from the leader, and once all of them are in sync the controller completes it
  (`PartitionReassignmentReplicas.maybeCompleteReassignment`): the replicas removed stop and delete their copy,
  and a leader among them hands over to the first in-sync replica of the target. The log served stays the one
  the leader elected at the restart serves, from which the others copy.
- The leader is the one Kafka's controller would elect from the last metadata the disks hold
  (`kafkalog.cluster.metadata`): the recorded leader while it is in the ISR, else the first replica (in
  replica order) of the ISR, then of the ELR (KIP-966); with eligible leader replicas enabled, a replica
  whose disk was not shut down cleanly leaves both when its broker registers again
  (`ReplicationControlManager.handleBrokerUncleanShutdown`). When none of them is on the disks, the topic's
  `unclean.leader.election.enable` elects the first replica there is; otherwise the restarted cluster
  keeps the partition offline, and kafkalog still reads it from the replica KIP-966's rule would choose.
  Without metadata (a ZooKeeper cluster's brokers, or no metadata log on the disks), KIP-966's rule
  decides: the highest last leader epoch, then the longest log (then, on a tie, a disk shut down cleanly,
  the highest log start offset, the lowest broker id).
- The leader serves its whole loaded log: once its in-sync followers have fetched, its high watermark is
  its log end.
- Every other replica truncates where its leader-epoch lineage leaves the leader's
  (`kafkalog.cluster.lineage`), as its first fetch does, and copies the rest from the leader: the records
  it holds from there are discarded.
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from kafkalog.cluster import lineage as epochs
from kafkalog.cluster.disks import Disks, Replica, find_disks
from kafkalog.cluster.metadata import (
    METADATA_DIR,
    OBSERVER,
    REMOVED,
    REPLACED,
    VOTER,
    ClusterMetadata,
    MetadataCopy,
    PartitionState,
    Voter,
    metadata_reach,
    read_metadata,
)
from kafkalog.errors import KafkalogError
from kafkalog.file_names import LEADER_EPOCH_CHECKPOINT, QUORUM_STATE
from kafkalog.formats.leader_epoch_checkpoint import read_leader_epoch_checkpoint
from kafkalog.formats.quorum_state import read_quorum_state
from kafkalog.log.partition import Partition
from kafkalog.log.segment import SegmentReader
from kafkalog.log.served_log import ServedBounds, served_bounds
from kafkalog.uri_path import AnyPath

#: How the leader was chosen (`PartitionView.election`), and what each means (`ELECTIONS`).
METADATA_LEADER, ISR, ELR, UNCLEAN, OFFLINE, LONGEST_LOG = "leader", "isr", "elr", "unclean", "offline", "longest_log"
ELECTIONS = {
    METADATA_LEADER: "the metadata's leader",
    ISR: "the first in-sync replica on these disks",
    ELR: "an eligible leader replica (KIP-966)",
    UNCLEAN: "an unclean election",
    OFFLINE: "offline: no eligible replica on these disks",
    LONGEST_LOG: "no metadata: the highest leader epoch, then the longest log",
}
#: FeatureLevelRecord's name of eligible leader replicas (KIP-966).
ELR_FEATURE = "eligible.leader.replicas.version"


#: Why a replica is stray (`ReplicaView.stray_reason`).
STRAY_NOT_A_REPLICA, STRAY_NO_TOPIC_ID, STRAY_DELETED_TOPIC, STRAY_NO_PARTITION = (
    "not_a_replica", "no_topic_id", "deleted_topic", "no_such_partition")


@dataclass
class ReplicaView:
    """One broker's copy of a partition, and what the restart does to it."""

    replica: Replica
    #: As its broker's start-up loads it; None when it does not read (see `problem`).
    bounds: ServedBounds | None
    lineage: list[epochs.EpochStart] = field(default_factory=list)
    #: The first offset of this disk's log the restarted cluster does not serve (None: it serves all of it).
    discarded_from: int | None = None
    problem: str | None = None
    #: Why its broker's start-up does not load it (`STRAY_*`), None when it does (see the module's doc).
    stray_reason: str | None = None

    @property
    def stray(self) -> bool:
        """Not loaded by its broker's start-up: not served, and all its records discarded."""
        return self.stray_reason is not None

    @property
    def broker(self) -> int:
        return self.replica.broker

    @property
    def last_epoch(self) -> int:
        return self.lineage[-1].epoch if self.lineage else -1

    @property
    def log_end_offset(self) -> int:
        return self.bounds.recovered_end_offset if self.bounds is not None else 0


@dataclass
class PartitionView:
    """A partition as the restarted cluster serves it."""

    topic: str
    topic_id: str | None
    partition: int
    replicas: list[ReplicaView]
    #: The broker served from, and how it was chosen (METADATA_LEADER, ISR, ...); None: no replica reads.
    leader: int | None = None
    election: str = OFFLINE
    #: The metadata's registration of the partition, if the disks hold a metadata log naming it.
    state: PartitionState | None = None
    #: Brokers the metadata names as replicas whose disks were not given (or hold no copy): of a reassignment in
    #: flight, those of its target, but for those it adds on brokers whose disks were given (they copy the log).
    missing_replicas: list[int] = field(default_factory=list)
    #: A reassignment in flight that removes the leader: the broker the leadership goes to once it completes (the
    #: first replica of its target, each in sync by then), None otherwise or when no broker of it is on the disks.
    leader_after_reassignment: int | None = None

    @property
    def leader_view(self) -> ReplicaView | None:
        return next((r for r in self.replicas if r.broker == self.leader), None)

    @property
    def served(self) -> ServedBounds | None:
        v = self.leader_view
        return v.bounds if v is not None else None

    @property
    def replication_factor(self) -> int | None:
        """The number of replicas once a reassignment in flight completes (the metadata's, else)."""
        return len(self.state.target_replicas) if self.state is not None else None



@dataclass
class ClusterView:
    disks: Disks
    metadata: ClusterMetadata | None
    partitions: list[PartitionView]
    #: Partitions the metadata names that no disk holds a replica of: (topic, partition).
    without_replica: list[tuple[str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def served_dirs(self) -> list[AnyPath]:
        """The partition directory each partition is served from."""
        return [v.replica.path for p in self.partitions if (v := p.leader_view) is not None]

    def replica_bounds(self) -> dict[str, ServedBounds]:
        """Each replica's bounds as its broker's start-up loads them, by its directory: a later view's `previous`."""
        return {str(v.replica.path): v.bounds for p in self.partitions for v in p.replicas if v.bounds is not None}


def cluster_view(paths: list[str], *, previous: Mapping[str, ServedBounds] | None = None) -> ClusterView:
    """Read the disks (log directories, or globs of them) as one cluster restarted on them.

    Parameters
    ----------
    paths : list of str
        The disks: log directories, URIs or globs of either.
    previous : mapping of str to ServedBounds, optional
        An earlier view's `ClusterView.replica_bounds` of the same disks (a stream's, at its previous trigger):
        each replica's recovery walks and search for open transactions go on from where they stopped, where its
        segments only grew (`kafkalog.log.served_log.served_bounds`'s `previous`, same rules).

    Raises
    ------
    UsageError
        A path is not a log directory (a directory holding `meta.properties`).
    """
    disks = find_disks(paths)
    problems = list(disks.problems)
    metadata = _latest_metadata(disks)
    if metadata is not None:
        problems += metadata.problems
    elr = metadata is not None and metadata.features.get(ELR_FEATURE, 0) >= 1
    partitions = []
    # A metadata log that reads whole says which topics exist (see the module's doc).
    complete = metadata is not None and metadata.read_whole and bool(metadata.topics)
    for (topic, topic_id, number), replicas in sorted(disks.replicas.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        state = metadata.partitions.get((topic_id, number)) if metadata is not None and topic_id else None
        if metadata is not None and not complete and topic_id is not None and metadata.topics \
                and topic_id not in metadata.topics:
            problems.append(f"{topic}-{number}: topic id {topic_id} is not in the metadata read, which does not read "
                            "whole: read as a topic of its own (if the topic was deleted, Kafka deletes it at "
                            "start-up)")
        views = [_replica_view(r, (previous or {}).get(str(r.path))) for r in replicas]
        problems += [v.problem for v in views if v.problem]
        p = PartitionView(topic, topic_id, number, views, state=state)
        for v in views:
            v.stray_reason = _stray_reason(v, state, metadata, complete)
            if v.stray and v.bounds is not None and v.bounds.recovered_end_offset > v.bounds.log_start_offset:
                v.discarded_from = v.bounds.log_start_offset
        if state is not None:
            held_here = {v.broker for v in views if not v.stray}
            up = set(disks.brokers)
            p.missing_replicas = [b for b in state.target_replicas
                                  if b not in held_here and not (b in state.adding and b in up)]
        unclean_ok = metadata is not None and \
            (metadata.topic_config(topic, "unclean.leader.election.enable") or "false").lower() == "true"
        p.leader, p.election = _elect(p, elr, unclean_ok)
        if state is not None and state.reassigning and p.leader in state.removing:
            # (completion needs every replica of the target in sync: each is a broker up that has copied the log)
            p.leader_after_reassignment = next((b for b in state.target_replicas if b in set(disks.brokers)), None)
        _truncate_followers(p)
        partitions.append(p)
    without = []
    if metadata is not None:
        held = {(p.topic_id, p.partition) for p in partitions if any(not v.stray for v in p.replicas)}
        without = sorted((metadata.topics.get(tid, tid), n) for (tid, n) in metadata.partitions
                         if (tid, n) not in held and metadata.topics.get(tid) is not None)
    return ClusterView(disks, metadata, partitions, without, problems)


def _stray_reason(v: ReplicaView, state: PartitionState | None, metadata: ClusterMetadata | None,
                  complete: bool) -> str | None:
    """`LogManager.isStrayKraftReplica`, where the metadata can say (see the module's doc)."""
    if metadata is None:
        return None  # a ZooKeeper cluster's disks, or no metadata log: nothing says what is stray
    replica = v.replica
    if complete:
        if replica.topic_id is None:
            return STRAY_NO_TOPIC_ID
        if replica.topic_id not in metadata.topics:
            return STRAY_DELETED_TOPIC
        if state is None:
            return STRAY_NO_PARTITION
    if state is not None and v.broker not in state.replicas:
        return STRAY_NOT_A_REPLICA
    return None


def _latest_metadata(disks: Disks) -> ClusterMetadata | None:
    """The metadata a restarted quorum commits, replayed; None when no disk holds a copy of the metadata log.

    A restarted quorum elects the voter whose copy reaches furthest among a majority of voters (a vote is granted
    to a log at least as up to date: highest last epoch, then end offset). Its whole log is committed once the
    leader change record it writes in its new epoch reaches a majority (`LeaderState.maybeUpdateHighWatermark`:
    the high watermark moves only past the epoch's start offset, and then over every record before it, Raft's
    rule): records past the old high watermark (which KRaft does not checkpoint) are kept, not dropped. So the
    voters' copy that reaches furthest is replayed whole. An observer's copy (a broker's) is never elected: its
    tail past the leader's is truncated when it fetches again.

    The voters are a dynamic quorum's (KIP-853: the last `VotersRecord` of the copy that reaches furthest among
    those holding one; a voter is a node id and the directory id of the disk holding its copy, so a controller
    whose disk was replaced is no voter until added again), else the static quorum's (`quorum-state` version 0,
    `currentVoters`); without either, every copy is a candidate."""
    copies = [(d.node_id, d.path / METADATA_DIR, d.directory_id) for d in disks.disks
              if (d.path / METADATA_DIR).is_dir()]
    if not copies:
        return None
    reach = {directory: metadata_reach(directory) for _, directory, _ in copies}
    voters, voters_from = _voters(copies, reach)
    on_voters = [c for c in copies if any(v.is_on(c[0], c[2]) for v in voters)]
    _, newest, _ = max(on_voters or copies, key=lambda c: reach[c[1]])
    md = read_metadata(newest)
    named = ", ".join(str(v.node_id) for v in voters)
    replaced = [c for c in copies if c not in on_voters and any(v.node_id == c[0] for v in voters)]
    for node, directory, directory_id in replaced:
        wanted = next(v.directory_id for v in voters if v.node_id == node)
        md.problems.append(f"{directory}: node {node}'s disk (directory {directory_id}) is not the voter's ({wanted}, "
                           f"{voters_from}): a replaced disk, not a voter until it is added to the quorum again")
    if voters:
        md.copies = [_copy(*c, voters, md, c in on_voters) for c in copies]
    voter_nodes = {node for node, _, _ in on_voters}
    if voters and not on_voters:
        md.problems.append(f"{newest}: no disk of a controller (the voters {named}) is among these disks: a restarted "
                           "cluster has no quorum; the metadata is read from a broker's copy, which may hold records "
                           "the quorum never committed")
    elif voters and 2 * len(voter_nodes) <= len(voters):
        md.problems.append(f"{newest}: the disks of {len(voter_nodes)} of the {len(voters)} voters only: a "
                           "restarted quorum cannot elect a leader without a majority")
    return md


def _copy(node: int | None, directory: AnyPath, directory_id: str | None, voters: list[Voter], md: ClusterMetadata,
          on_voter: bool) -> MetadataCopy:
    """A copy's part in the quorum (`MetadataCopy`): a voter's, a replaced disk's, a removed voter's (by the
    VotersRecords replayed), else an observer's."""
    if on_voter:
        return MetadataCopy(node, directory_id, directory, VOTER)
    removed = next((at for v, at in md.removed_voters.items() if v.is_on(node, directory_id)), None)
    if any(v.node_id == node for v in voters):
        return MetadataCopy(node, directory_id, directory, REPLACED, removed)
    if removed is not None:
        return MetadataCopy(node, directory_id, directory, REMOVED, removed)
    return MetadataCopy(node, directory_id, directory, OBSERVER)


def _voters(copies: list[tuple[int | None, AnyPath, str | None]], reach: dict[AnyPath, tuple[int, int]]
            ) -> tuple[list[Voter], str]:
    """The quorum's voters, and where they were read (see `_latest_metadata`); none where nothing says.

    A node writes `quorum-state` in the version its kraft.version gives (`KRaftVersion.quorumStateVersion`): 0
    for a static quorum, with its voters; 1 for a dynamic one, without. So the copies' VotersRecords are read
    (a copy at a time, the furthest first) only where no `quorum-state` is version 0, or one is version 1."""
    static: dict[int, Voter] = {}
    versions: set[int] = set()
    for _, directory, _ in copies:
        with contextlib.suppress(KafkalogError, OSError):
            state = read_quorum_state(directory / QUORUM_STATE)
            versions.add(state.data_version)
            for node in state.current_voters or []:
                static[node] = Voter(node)
    if 1 in versions or 0 not in versions:
        for _, directory, _ in sorted(copies, key=lambda c: reach[c[1]], reverse=True):
            try:
                control = read_metadata(directory, control_only=True)
            except (KafkalogError, OSError):
                continue
            if control.voters is not None:
                return control.voters, f"VotersRecord at {control.voters_from}"
    return sorted(static.values(), key=lambda v: v.node_id), "quorum-state"


def _replica_view(r: Replica, previous: ServedBounds | None = None) -> ReplicaView:
    try:
        bounds = served_bounds(r.path, r.disk.state, previous=previous)
        view = ReplicaView(r, bounds)
        view.lineage, view.problem = _lineage(r.path, bounds)
    except (KafkalogError, OSError) as e:
        return ReplicaView(r, None, problem=f"{r.path}: does not read: {e}")
    return view


def _lineage(path: AnyPath, bounds: ServedBounds) -> tuple[list[epochs.EpochStart], str | None]:
    """The replica's leader-epoch lineage as its start-up leaves it (see `kafkalog.cluster.lineage`)."""
    problem = None
    entries: list[tuple[int, int]] = []
    scan_from: int | None = None if bounds.clean_shutdown else bounds.recovery_point
    checkpoint = path / LEADER_EPOCH_CHECKPOINT
    try:
        entries = [(e.epoch, e.start_offset) for e in read_leader_epoch_checkpoint(checkpoint).entries]
    except FileNotFoundError:
        scan_from = bounds.log_start_offset  # rebuilt from the batches themselves
    except (KafkalogError, OSError) as e:
        problem = f"{checkpoint}: does not read ({e}); the epochs are taken from the batches"
        scan_from = bounds.log_start_offset
    lineage = epochs.loaded(entries, bounds.log_start_offset, bounds.recovered_end_offset)
    if scan_from is not None:
        for batch_epoch, base in _batch_epochs(path, bounds, scan_from):
            epochs.assign(lineage, batch_epoch, base)
    return lineage, problem


def _batch_epochs(path: AnyPath, bounds: ServedBounds, start: int):
    """(partition leader epoch, base offset) of each v2 batch of the loaded log holding offsets from `start`."""
    segments = [s for s in Partition(path).log_segments if s.log is not None and str(s.log) in bounds.segment_ends]
    floor = max([n for n, s in enumerate(segments) if s.base_offset <= start], default=0)
    for seg in segments[floor:]:
        assert seg.log is not None
        with SegmentReader(seg.log, end=bounds.segment_ends[str(seg.log)], decode_records=False) as reader:
            for batch in reader:
                if batch.damage:
                    break
                if batch.last_offset >= start and batch.base_offset < bounds.recovered_end_offset and batch.magic >= 2:
                    yield batch.partition_leader_epoch, batch.base_offset


def _elect(p: PartitionView, elr_enabled: bool, unclean_ok: bool) -> tuple[int | None, str]:
    readable = {v.broker: v for v in p.replicas if v.bounds is not None and not v.stray}
    if not readable:
        return None, OFFLINE
    state = p.state
    if state is not None:
        def eligible(b: int) -> bool:
            v = readable.get(b)
            return v is not None and (not elr_enabled or v.replica.disk.state.clean_shutdown)
        isr = [b for b in state.replicas if b in state.isr] + [b for b in state.isr if b not in state.replicas]
        elr = [b for b in state.replicas if b in state.elr]
        if state.leader in state.isr and eligible(state.leader):
            return state.leader, METADATA_LEADER
        for members, how in ((isr, ISR), (elr, ELR)):
            chosen = next((b for b in members if eligible(b)), None)
            if chosen is not None:
                return chosen, how
        if unclean_ok:
            chosen = next((b for b in state.replicas if b in readable), None)
            if chosen is not None:
                return chosen, UNCLEAN
    # KIP-966's rule; on a tie, a disk shut down cleanly (its checkpoints are current), then the highest log start
    # offset (records deleted by deleteRecords or retention stay deleted), then the lowest broker id
    best = max(readable.values(), key=lambda v: (v.last_epoch, v.log_end_offset, v.replica.disk.state.clean_shutdown,
                                                 v.bounds.log_start_offset if v.bounds else 0, -v.broker))
    return best.broker, (OFFLINE if state is not None else LONGEST_LOG)


def _truncate_followers(p: PartitionView) -> None:
    leader = p.leader_view
    if leader is None or leader.bounds is None:
        return
    for v in p.replicas:
        if v is leader or v.bounds is None or v.stray:
            continue
        b = v.bounds
        if b.recovered_end_offset <= b.log_start_offset:
            continue  # nothing to discard
        if b.recovered_end_offset < leader.bounds.log_start_offset:
            cut = b.log_start_offset  # out of range: the follower starts again at the leader's log start
        else:
            cut = epochs.truncation_offset(v.lineage, b.recovered_end_offset, b.high_watermark,
                                           leader.lineage, leader.bounds.recovered_end_offset)
        cut = max(cut, b.log_start_offset)
        v.discarded_from = cut if cut < b.recovered_end_offset else None


def discarded_records(view: ReplicaView) -> list[tuple[int, bool]]:
    """(offset, is a control record) of each record of the replica's loaded log from `discarded_from`."""
    b = view.bounds
    if b is None or view.discarded_from is None:
        return []
    start = view.discarded_from
    out: list[tuple[int, bool]] = []
    segments = [s for s in Partition(view.replica.path).log_segments
                if s.log is not None and str(s.log) in b.segment_ends]
    floor = max([n for n, s in enumerate(segments) if s.base_offset <= start], default=0)
    try:
        for seg in segments[floor:]:
            assert seg.log is not None
            with SegmentReader(seg.log, end=b.segment_ends[str(seg.log)]) as reader:
                for batch in reader:
                    if batch.damage:
                        break
                    if batch.last_offset < start:
                        continue
                    out += [(r.offset, batch.is_control) for r in batch.records
                            if start <= r.offset < b.recovered_end_offset]
    except (KafkalogError, OSError):
        pass  # what recovery loaded read before; the rest does not read for anyone (verify names it)
    return out


def discard_counts(view: ReplicaView) -> tuple[int, int]:
    """(data records the restart discards from this replica, those of them below its own high watermark: records
    the cluster had committed, lost). A stray replica's records lose nothing: the partition's replicas hold them."""
    data = [offset for offset, control in discarded_records(view) if not control]
    hw = view.bounds.high_watermark if view.bounds is not None and not view.stray else 0
    return len(data), sum(1 for offset in data if offset < hw)


def stray_detail(p: PartitionView, r: ReplicaView, records: int) -> str:
    """Why a stray replica is not served, and what it holds."""
    assert r.bounds is not None
    name = f"{p.topic}-{p.partition}"
    if r.stray_reason == STRAY_NO_TOPIC_ID:
        why = (f"broker {r.broker}'s {name} has no partition.metadata (no topic id; Kafka writes it before the "
               "first append)")
    elif r.stray_reason == STRAY_DELETED_TOPIC:
        why = (f"broker {r.broker}'s {name} is of topic id {r.replica.topic_id}, which the metadata does not hold: "
               "a deleted topic's replica (of a topic deleted, or deleted and created again)")
    elif r.stray_reason == STRAY_NO_PARTITION:
        why = f"broker {r.broker}'s {name}: topic {p.topic} has no partition {p.partition} in the metadata"
    else:
        assert p.state is not None
        why = (f"broker {r.broker} is not among the replicas of {name} in the metadata "
               f"({', '.join(map(str, p.state.replicas))})")
    held = (f"offsets {r.bounds.log_start_offset} to {r.bounds.recovered_end_offset - 1} ({records} records) are "
            "not served" if r.bounds.recovered_end_offset > r.bounds.log_start_offset else "it holds no record")
    return f"{why}: a stray replica, which its broker's start-up does not load (Kafka renames it -stray); {held}"


def replica_findings(view: ClusterView) -> list[tuple[AnyPath, str, str]]:
    """(replica directory, kind, detail) for each replica whose records a restarted cluster would not serve:
    what `verify` reports of several brokers' disks."""
    found = []
    for p in view.partitions:
        for r in p.replicas:
            if r.discarded_from is None or r.bounds is None:
                continue
            n, committed = discard_counts(r)
            if r.stray:
                found.append((r.replica.path, "stray", stray_detail(p, r, n)))
                continue
            where = (f"offsets {r.discarded_from} to {r.bounds.recovered_end_offset - 1} ({n} records) are not in the "
                     f"log served from broker {p.leader}: a restart discards them")
            if committed:
                found.append((r.replica.path, "committed records lost",
                              f"{where}; {committed} of them below this replica's high watermark "
                              f"{r.bounds.high_watermark} (an unclean leader election)"))
            else:
                found.append((r.replica.path, "not served", where))
    return found
