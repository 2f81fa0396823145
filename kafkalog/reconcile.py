"""`kafkalog reconcile DIR...`: what a cluster restarted on exactly these disks would do, per partition.

For each partition (`kafkalog.cluster.served`): the replica it would be served from and how that leader is
chosen, the log served (log start offset, high watermark, last stable offset), and for each replica its
loaded log and the records the restart discards from it. Then what needs a look:

- stray replicas, which Kafka does not load (`kafkalog.cluster.served`): all of their records discarded. A
  partition's directory on a broker the metadata does not name among its replicas (after a reassignment), one
  without `partition.metadata` (no topic id), one of a topic the metadata does not hold (deleted);
- directories Kafka renamed to delete them, or to keep a stray aside (`-delete`, `-stray`, `-future`): not served;
- reassignments in flight: the replicas added and removed, and where the leadership goes once it completes;
- partitions no disk holds a replica of (stray ones aside), and those with fewer replicas on the disks than their
  replication factor (the metadata's);
- partitions the restarted cluster would keep offline (no ISR or ELR replica on the disks), or elect
  uncleanly;
- transactions left open at the end of the served log (a read_committed consumer stops at them until the
  transaction coordinator aborts them);
- consumer groups whose committed offsets (the served `__consumer_offsets`, read as the group coordinator
  loads it: transactional commits once committed, never aborted or open ones) fall outside the served log;
- disks of another cluster, and every file that does not read, named.

The JSON (`--format json`) is one object a line: `{"type": "quorum", ...}` for a dynamic quorum (KIP-853: its
voters, each a node id and a directory id, and each disk's copy of the metadata log with its part in the quorum:
`voter`, `replaced`, `removed` or `observer`), `{"type": "partition", ...}` for each partition, then
`{"type": "renamed", ...}` for each renamed directory, then `{"type": "problem", "message": ...}` for each
problem.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from kafkalog.cluster.metadata import OBSERVER, REMOVED, ClusterMetadata, MetadataCopy
from kafkalog.cluster.served import (
    ELECTIONS,
    OFFLINE,
    STRAY_DELETED_TOPIC,
    STRAY_NO_PARTITION,
    STRAY_NO_TOPIC_ID,
    STRAY_NOT_A_REPLICA,
    UNCLEAN,
    ClusterView,
    PartitionView,
    ReplicaView,
    cluster_view,
    discard_counts,
    stray_detail,
)
from kafkalog.errors import KafkalogError
from kafkalog.formats.internal_topics import OFFSETS, decode_record
from kafkalog.log.partition import Partition
from kafkalog.log.segment import SegmentReader
from kafkalog.log.served_log import ServedBounds
from kafkalog.log.transactions import ABORT, COMMIT
from kafkalog.uri_path import AnyPath

CONSUMER_OFFSETS = "__consumer_offsets"

#: A stray replica's reason, in the text's words.
STRAY_WORDS = {STRAY_NOT_A_REPLICA: "not among its replicas", STRAY_NO_TOPIC_ID: "no topic id",
               STRAY_DELETED_TOPIC: "a deleted topic's", STRAY_NO_PARTITION: "no such partition in the metadata",
               "": "stray"}
#: What each renaming of a partition directory means (`LocalLog`'s suffixes).
RENAMED_WORDS = {"delete": "a deleted topic's or moved replica's, which Kafka deletes log.segment.delete.delay.ms "
                           "after",
                 "stray": "a stray replica, kept aside",
                 "future": "the copy of a move between the broker's disks, which goes on"}


def _ids(brokers: list[int]) -> str:
    return ", ".join(map(str, brokers))


@dataclass
class GroupOffset:
    group: str
    topic: str
    partition: int
    offset: int


@dataclass
class Reconciled:
    """The restart's outcome for every partition, and what needs a look."""

    view: ClusterView
    #: (topic, topic id, partition, broker) -> the data records the restart discards from that replica
    discarded: dict[tuple[str, str | None, int, int], int] = field(default_factory=dict)
    #: The same, of those below that replica's own high watermark: records the cluster had committed, lost
    #: (an unclean leader election; or a high watermark checkpointed past what its leader kept).
    discarded_committed: dict[tuple[str, str | None, int, int], int] = field(default_factory=dict)
    #: Committed offsets outside the log served for their partition.
    groups_outside: list[GroupOffset] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def reconcile(paths: list[str]) -> Reconciled:
    """What a cluster restarted on the disks `paths` (log directories, or globs of them) would serve.

    Raises
    ------
    UsageError
        A path is not a broker's log directory.
    """
    view = cluster_view(paths)
    out = Reconciled(view, problems=list(view.problems))
    for p in view.partitions:
        for r in p.replicas:
            key = (p.topic, p.topic_id, p.partition, r.broker)
            out.discarded[key], out.discarded_committed[key] = discard_counts(r)
    out.groups_outside = _groups_outside(view, out.problems)
    return out


def _groups_outside(view: ClusterView, problems: list[str]) -> list[GroupOffset]:
    """The latest committed offset of each group and partition, from the served `__consumer_offsets`, where it
    lies outside the served log (below its log start offset, or past its high watermark)."""
    committed: dict[tuple[str, str, int], tuple[int, int | None]] = {}
    for p in view.partitions:
        leader = p.leader_view
        if p.topic != CONSUMER_OFFSETS or leader is None or leader.bounds is None:
            continue
        try:
            _read_commits(leader.replica.path, leader.bounds, committed)
        except (KafkalogError, OSError) as e:
            problems.append(f"{leader.replica.path}: the committed offsets do not read: {e}")
    served = {(p.topic, p.partition): p.served for p in view.partitions}
    outside = []
    for (group, topic, number), (_, offset) in sorted(committed.items()):
        b = served.get((topic, number))
        if offset is not None and b is not None and not (b.log_start_offset <= offset <= b.recovered_end_offset):
            outside.append(GroupOffset(group, topic, number, offset))
    return outside


#: A commit read from `__consumer_offsets`: (group, topic, partition), its record's offset, the offset committed
#: (None: deleted, a tombstone).
_Commit = tuple[tuple[str, str, int], int, "int | None"]


def _read_commits(path: AnyPath, bounds: ServedBounds, committed: dict[tuple[str, str, int], tuple[int, int | None]]
                  ) -> None:
    """The group coordinator's view of one `__consumer_offsets` partition (read_committed): a plain commit counts
    at once; a transactional one (TxnOffsetCommit) once its transaction's COMMIT marker is read, never when
    aborted or left open (the coordinator aborts it). Of two commits of one partition, the later in the log wins
    (`GroupMetadata.completePendingTxnOffsetCommit` compares their offsets in the log)."""
    pending: dict[int, list[_Commit]] = {}  # producer id -> its open transaction's commits

    def apply(c: _Commit) -> None:
        where, at, offset = c
        if where not in committed or committed[where][0] < at:
            committed[where] = (at, offset)

    for seg in Partition(path).log_segments:
        if seg.log is None or str(seg.log) not in bounds.segment_ends:
            continue
        with SegmentReader(seg.log, end=bounds.segment_ends[str(seg.log)]) as reader:
            for batch in reader:
                if batch.damage:
                    continue
                transactional = batch.magic >= 2 and batch.is_transactional
                for rec in batch.records:
                    if not bounds.log_start_offset <= rec.offset < bounds.recovered_end_offset:
                        continue
                    if batch.is_control:
                        if transactional and rec.control_type == COMMIT:
                            for done in pending.pop(batch.producer_id, []):
                                apply(done)
                        elif transactional and rec.control_type == ABORT:
                            pending.pop(batch.producer_id, None)
                        continue
                    c = _commit(rec.offset, rec.key, rec.value)
                    if c is None:
                        continue
                    if transactional:
                        pending.setdefault(batch.producer_id, []).append(c)
                    else:
                        apply(c)


def _commit(at: int, key: bytes | None, value: bytes | None) -> _Commit | None:
    decoded = decode_record(OFFSETS, key, value)
    k = decoded.key or {}
    if k.get("type") != "OffsetCommitKey":
        return None
    data = k.get("data") or {}
    where = (str(data.get("group")), str(data.get("topic")), int(data.get("partition") or 0))
    if value is None:
        return where, at, None  # a tombstone: the offset deleted
    if decoded.value is not None and "offset" in (decoded.value.get("data") or {}):
        return where, at, int(decoded.value["data"]["offset"])
    return None


# ----------------------------------------------------------------------------- output

def partition_json(p: PartitionView, r: Reconciled) -> dict[str, Any]:
    """A partition's JSON object: the issue's fields, then kafkalog's own."""
    served = p.served
    return {
        "type": "partition",
        "topic": p.topic,
        "partition": p.partition,
        "leader": p.leader,
        "high_watermark": served.recovered_end_offset if served else None,
        "log_start_offset": served.log_start_offset if served else None,
        "replicas": [_replica_json(p, v, r) for v in p.replicas],
        "topic_id": p.topic_id,
        "election": p.election,
        "last_stable_offset": served.last_stable_offset if served else None,
        "open_transaction_from": served.first_unstable_offset if served else None,
        "replication_factor": p.replication_factor,
        "missing_replicas": p.missing_replicas,
        "groups_outside": [{"group": g.group, "offset": g.offset} for g in r.groups_outside
                           if (g.topic, g.partition) == (p.topic, p.partition)],
        "reassignment": _reassignment_json(p),
    }


def _reassignment_json(p: PartitionView) -> dict[str, Any] | None:
    state = p.state
    if state is None or not state.reassigning:
        return None
    return {"adding_replicas": state.adding, "removing_replicas": state.removing,
            "target_replicas": state.target_replicas, "leader_after": p.leader_after_reassignment}


def _replica_json(p: PartitionView, v: ReplicaView, r: Reconciled) -> dict[str, Any]:
    b = v.bounds
    return {
        "broker": v.broker,
        "log_start_offset": b.log_start_offset if b else None,
        "log_end_offset": b.recovered_end_offset if b else None,
        "high_watermark": b.high_watermark if b else None,
        "discarded_from": v.discarded_from,
        "discarded_records": r.discarded.get((p.topic, p.topic_id, p.partition, v.broker), 0),
        "discarded_below_high_watermark": r.discarded_committed.get((p.topic, p.topic_id, p.partition, v.broker), 0),
        "path": str(v.replica.path),
        "stray": v.stray,
        "stray_reason": v.stray_reason,
        "reassignment": _role(p, v),
    }


def _role(p: PartitionView, v: ReplicaView) -> str | None:
    """"adding" or "removing": the replica's part in a reassignment in flight."""
    if p.state is None:
        return None
    return "adding" if v.broker in p.state.adding else "removing" if v.broker in p.state.removing else None


def quorum_json(md: ClusterMetadata) -> dict[str, Any]:
    """A dynamic quorum's JSON object: its voters (as `kafka-metadata-quorum describe --status` names them: a node
    id and a directory id) and each disk's copy of the metadata log with its part in the quorum."""
    return {
        "type": "quorum",
        "kraft_version": md.kraft_version,
        "voters": [{"id": v.node_id, "directory_id": v.directory_id} for v in md.voters or []],
        "voters_from": md.voters_from,
        "copies": [{"node_id": c.node_id, "directory_id": c.directory_id, "path": str(c.path), "role": c.role,
                    "removed_at": c.removed_at} for c in md.copies],
    }


def _voters_text(md: ClusterMetadata) -> str:
    return ", ".join(f"{v.node_id} (directory {v.directory_id})" if v.directory_id else str(v.node_id)
                     for v in md.voters or [])


def _copy_text(c: MetadataCopy) -> str | None:
    """A line for a copy of the metadata log that is no voter's (a replaced disk is a problem, named there)."""
    disk = f"node {c.node_id}'s disk (directory {c.directory_id})"
    if c.role == REMOVED:
        return f"quorum: {disk} is not a voter: removed from the quorum by the VotersRecord at {c.removed_at}"
    if c.role == OBSERVER:
        return (f"quorum: {disk} is not a voter: an observer (no voter set on these disks names it: a broker's, or a "
                "controller's not added to the quorum)")
    return None


def print_json(r: Reconciled, out: TextIO = sys.stdout) -> None:
    md = r.view.metadata
    if md is not None and md.voters is not None:
        print(json.dumps(quorum_json(md)), file=out)
    for p in r.view.partitions:
        print(json.dumps(partition_json(p, r)), file=out)
    listed = {(p.topic, p.partition) for p in r.view.partitions}
    for topic, number in r.view.without_replica:
        if (topic, number) in listed:
            continue  # (its replicas on the disks are all stray: listed above, each with its reason)
        print(json.dumps({"type": "partition", "topic": topic, "partition": number, "leader": None,
                          "high_watermark": None, "log_start_offset": None, "replicas": [],
                          "election": OFFLINE}), file=out)
    for d in r.view.disks.renamed:
        print(json.dumps({"type": "renamed", "broker": d.broker, "topic": d.topic, "partition": d.partition,
                          "state": d.state, "path": str(d.path)}), file=out)
    for message in r.problems:
        print(json.dumps({"type": "problem", "message": message}), file=out)


def print_text(r: Reconciled, out: TextIO = sys.stdout) -> None:
    view = r.view
    md = view.metadata
    print(f"cluster {view.disks.cluster_id}: {len(view.disks.disks)} disks of nodes "
          f"{', '.join(map(str, view.disks.brokers))}", file=out)
    if md is not None:
        print(f"metadata: {md.source} up to offset {md.end_offset} (epoch {md.last_epoch})", file=out)
        if md.voters is not None:
            print(f"quorum: voters {_voters_text(md)}; kraft.version {md.kraft_version}, VotersRecord at "
                  f"{md.voters_from}", file=out)
            for line in filter(None, map(_copy_text, md.copies)):
                print(line, file=out)
    else:
        print("metadata: none on these disks; leaders by the highest leader epoch, then the longest log", file=out)
    for p in view.partitions:
        served = p.served
        head = f"{p.topic}-{p.partition}"
        if served is None:
            why = " (each one on these disks is stray)" if p.replicas and all(v.stray for v in p.replicas) else ""
            print(f"{head}: no replica served{why}", file=out)
        else:
            print(f"{head}: served from broker {p.leader} ({ELECTIONS[p.election]}): offsets "
                  f"{served.log_start_offset} to {served.recovered_end_offset} (high watermark "
                  f"{served.recovered_end_offset}, last stable offset {served.last_stable_offset})", file=out)
        for v in p.replicas:
            b = v.bounds
            if b is None:
                print(f"  broker {v.broker}: does not read", file=out)
                continue
            line = (f"  broker {v.broker}: log {b.log_start_offset} to {b.recovered_end_offset}, high watermark "
                    f"{b.high_watermark}")
            n = r.discarded.get((p.topic, p.topic_id, p.partition, v.broker), 0)
            if v.stray:
                line += f": stray ({STRAY_WORDS[v.stray_reason or '']})"
            elif _role(p, v):
                line += f": {_role(p, v)} (a reassignment in flight)"
            if v.discarded_from is not None:
                line += f": discards {n} records from offset {v.discarded_from}"
            elif v.broker == p.leader:
                line += ": leader"
            print(line, file=out)
    for line in findings(r):
        print(line, file=out)


def findings(r: Reconciled) -> list[str]:
    """What needs a look, a line each."""
    lines = []
    listed = {(p.topic, p.partition) for p in r.view.partitions}
    for topic, number in r.view.without_replica:
        held = " but stray ones" if (topic, number) in listed else ""
        lines.append(f"no replica left: {topic}-{number} (no disk holds it{held})")
    for p in r.view.partitions:
        name = f"{p.topic}-{p.partition}"
        rf = p.replication_factor
        if rf is not None and p.missing_replicas:
            lines.append(f"under-replicated: {name} has {rf - len(p.missing_replicas)} of its {rf} replicas on these "
                         f"disks (missing: brokers {', '.join(map(str, p.missing_replicas))})")
        if p.election == OFFLINE and p.state is not None and p.leader is not None:
            lines.append(f"offline: {name}: no replica of its ISR or ELR is on these disks (or each was shut down "
                         f"uncleanly); a restarted cluster keeps it offline; read here from broker {p.leader}")
        elif p.election == UNCLEAN:
            lines.append(f"unclean election: {name}: no replica of its ISR or ELR is on these disks; "
                         f"unclean.leader.election.enable elects broker {p.leader}")
        if p.state is not None and p.state.reassigning:
            after = (f"; then broker {p.leader_after_reassignment} leads (the leader is removed)"
                     if p.leader_after_reassignment is not None else "")
            lines.append(f"reassignment in flight: {name} to replicas {_ids(p.state.target_replicas)}: adding "
                         f"{_ids(p.state.adding) or 'none'}, removing {_ids(p.state.removing) or 'none'}. A restarted "
                         "cluster goes on with it: once every added replica has copied the served log, the removed "
                         f"ones delete their copies{after}")
        for v in p.replicas:
            if v.stray and v.bounds is not None:
                n = r.discarded.get((p.topic, p.topic_id, p.partition, v.broker), 0)
                lines.append(f"stray replica: {stray_detail(p, v, n)}")
            lost = r.discarded_committed.get((p.topic, p.topic_id, p.partition, v.broker), 0)
            if lost and v.bounds is not None:
                lines.append(f"committed records lost: {name}: broker {v.broker} holds {lost} records from offset "
                             f"{v.discarded_from} below its high watermark {v.bounds.high_watermark} that the served "
                             "log does not have (an unclean leader election)")
        if p.served is not None and p.served.first_unstable_offset is not None:
            lines.append(f"open transaction: {name} from offset {p.served.first_unstable_offset}: a read_committed "
                         "consumer stops there until the transaction coordinator aborts it")
    for d in r.view.disks.renamed:
        lines.append(f"renamed replica: {d.path}: broker {d.broker}'s {d.topic}-{d.partition}, renamed -{d.state} by "
                     f"Kafka ({RENAMED_WORDS.get(d.state, d.state)}): not served; read it by naming the directory")
    for g in r.groups_outside:
        b = next(p.served for p in r.view.partitions if (p.topic, p.partition) == (g.topic, g.partition))
        assert b is not None
        lines.append(f"consumer group {g.group}: {g.topic}-{g.partition} committed offset {g.offset}, outside the "
                     f"served log ({b.log_start_offset} to {b.recovered_end_offset})")
    lines += [f"problem: {m}" for m in r.problems]
    return lines
