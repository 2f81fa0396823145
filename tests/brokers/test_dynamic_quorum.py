"""A real dynamic quorum (KIP-853) of three 4.3.1 controllers changed with `kafka-metadata-quorum` (scenarios.quorum_4x:
1 formatted `--standalone`, 2 and 3 added, 3 removed, 2 replaced by a new disk), read from its stopped disks. The
oracle is Kafka: `kafka-metadata-quorum describe --status` (CurrentVoters, each a node id and a directory id) and
`--replication` before the nodes stopped, and the same of the quorum restarted on copies of the disks."""
from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from kafkalog import cli, reconcile
from kafkalog.cluster.metadata import OBSERVER, REMOVED, REPLACED, VOTER, Voter, read_metadata
from kafkalog.formats.meta_properties import read_meta_properties

pytestmark = pytest.mark.broker


def _status(path: Path) -> dict[str, str]:
    """`describe --status`: "Name:   value" lines."""
    return {k: v.strip() for k, v in (line.split(":", 1) for line in path.read_text().splitlines() if ":" in line)}


def _voters(path: Path) -> list[Voter]:
    """CurrentVoters of `describe --status` (a JSON list of {"id", "directoryId", "endpoints"})."""
    return sorted((Voter(v["id"], v["directoryId"]) for v in json.loads(_status(path)["CurrentVoters"])),
                  key=lambda v: v.node_id)


def _replication(path: Path) -> list[tuple[int, str, str]]:
    """`describe --replication`: (node id, directory id, status) a row."""
    rows = [re.split(r"\s+", line.strip()) for line in path.read_text().splitlines()[1:] if line.strip()]
    return [(int(r[0]), r[1], r[-1]) for r in rows]


def _cli(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["reconcile", *map(str, args)])
    return code, out.getvalue()


def _directory(disk: Path) -> str:
    directory = read_meta_properties(disk / "meta.properties").directory_id
    assert directory is not None
    return directory


def test_the_voters_are_kafkas(quorum_4x):
    """kafkalog's voters of the stopped disks are those `describe --status` named (ids and directory ids), read from
    the metadata log's last VotersRecord; the removed controller's disk is named as no voter."""
    kafka = _voters(quorum_4x.live_status)
    disks = quorum_4x.disks
    assert [v.node_id for v in kafka] == [1, 2]  # 3 removed; 2 on its new disk
    assert kafka == sorted((Voter(i, _directory(disks[i])) for i in (1, 2)), key=lambda v: v.node_id)
    assert read_metadata(disks[1] / "__cluster_metadata-0").voters == kafka
    found = reconcile.reconcile([str(d) for d in disks.values()])
    md = found.view.metadata
    assert md is not None and (md.kraft_version, md.voters) == (1, kafka)
    assert found.problems == []
    assert {c.node_id: c.role for c in md.copies} == {1: VOTER, 2: VOTER, quorum_4x.removed: REMOVED}
    # what Kafka itself reported of the removed controller: an observer, no voter
    assert (quorum_4x.removed, _directory(disks[quorum_4x.removed]), "Observer") in _replication(quorum_4x.live_replication)

    code, text = _cli(*disks.values())
    assert code == 0
    lines = text.splitlines()
    voters = ", ".join(f"{v.node_id} (directory {v.directory_id})" for v in kafka)
    assert [line for line in lines if line.startswith("quorum: voters ")] == [
        f"quorum: voters {voters}; kraft.version 1, VotersRecord at {md.voters_from}"]
    removed = next(c for c in md.copies if c.role == REMOVED)
    # (the VotersRecord is on both voters' copies: either may be the one read)
    assert removed.removed_at is not None and removed.removed_at.startswith(
        tuple(str(disks[i] / "__cluster_metadata-0") for i in (1, 2)))
    assert (f"quorum: node 3's disk (directory {_directory(disks[3])}) is not a voter: removed from the quorum by the "
            f"VotersRecord at {removed.removed_at}") in lines

    code, out = _cli("--format", "json", *disks.values())
    objects = [json.loads(line) for line in out.splitlines()]
    [quorum] = [o for o in objects if o["type"] == "quorum"]
    kafka_json = json.loads(_status(quorum_4x.live_status)["CurrentVoters"])
    assert quorum["voters"] == [{"id": v["id"], "directory_id": v["directoryId"]} for v in kafka_json]
    assert {(c["node_id"], c["directory_id"], c["role"]) for c in quorum["copies"]} == {
        (i, _directory(d), VOTER if i in (1, 2) else REMOVED) for i, d in disks.items()}
    assert code == 0 and not [o for o in objects if o["type"] == "problem"]


def test_a_replaced_controllers_old_disk_is_no_voter(quorum_4x):
    """Node 2's disk before it was replaced (removed, formatted again, added): its node id is a voter's, its directory
    id is not. With it instead of the new disk, the restart has one of the two voters: no quorum."""
    disks = quorum_4x.disks
    old = quorum_4x.replaced[2]
    kafka_rows = _replication(quorum_4x.live_replication)
    assert (2, _directory(old), "Observer") in kafka_rows
    assert {(2, _directory(disks[2]), "Follower"), (2, _directory(disks[2]), "Leader")} & set(kafka_rows)
    found = reconcile.reconcile([str(disks[1]), str(old), str(disks[3])])
    md = found.view.metadata
    assert md is not None
    assert {c.node_id: c.role for c in md.copies} == {1: VOTER, 2: REPLACED, 3: REMOVED}
    assert any(f"node 2's disk (directory {_directory(old)}) is not the voter's ({_directory(disks[2])}, " in p
               for p in found.problems), found.problems
    assert any("the disks of 1 of the 2 voters only" in p for p in found.problems), found.problems
    # both of node 2's disks: the new one votes, the old one is named
    found = reconcile.reconcile([*map(str, disks.values()), str(old)])
    assert found.view.metadata is not None
    assert sorted((c.node_id, c.role) for c in found.view.metadata.copies) == sorted([
        (1, VOTER), (2, VOTER), (2, REPLACED), (3, REMOVED)])
    # each disk as `describe --replication` saw its node: a voter (Leader, Follower) or an observer
    assert {(c.node_id, c.directory_id): c.role == VOTER for c in found.view.metadata.copies} == {
        (n, d): status in ("Leader", "Follower") for n, d, status in kafka_rows}


def test_the_restarted_quorum_elects_among_the_voters_kafkalog_named(quorum_4x):
    """The quorum restarted on copies of the three disks elects a leader among exactly the voters kafkalog named, keeps
    them as its voters, and the removed controller stays an observer."""
    md = reconcile.reconcile([str(d) for d in quorum_4x.disks.values()]).view.metadata
    assert md is not None and md.voters is not None
    served = _status(quorum_4x.served_status)
    assert _voters(quorum_4x.served_status) == md.voters
    assert int(served["LeaderId"]) in {v.node_id for v in md.voters}
    rows = _replication(quorum_4x.served_replication)
    assert {(n, d) for n, d, s in rows if s in ("Leader", "Follower")} == {(v.node_id, v.directory_id) for v in md.voters}
    assert [(n, s) for n, _, s in rows if n == quorum_4x.removed] == [(quorum_4x.removed, "Observer")]
    assert OBSERVER not in {c.role for c in md.copies}
