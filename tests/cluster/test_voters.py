"""A dynamic quorum's voters (KIP-853) read from the metadata log's `VotersRecord`, and used to pick the copy of the
metadata log a restarted quorum commits (`kafkalog.cluster.served`). The metadata log is the committed fixture
written with Kafka's own classes (scripts/kafka_fixtures.py): its log holds a KRaftVersionRecord (kraft.version 1)
and a VotersRecord naming voter 1 with its directory id. Each disk is a log directory with a `meta.properties`
(a node id, the cluster id, the directory id, as Kafka's `MetaProperties` writes them) and a copy of that log."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

from kafkalog import reconcile
from kafkalog.cluster.metadata import Voter, read_metadata
from kafkalog.cluster.served import cluster_view
from tests.paths import FIXTURES

METADATA = FIXTURES / "internal" / "__cluster_metadata-0"
SNAPSHOT = "00000000000000000100-0000000001.checkpoint"
#: The VotersRecord's voter: node 1, and the directory id of its metadata log's disk.
VOTER_DIRECTORY = "EjRWeJCrze8P7cuph2VDIQ"
CLUSTER = "tWEN_RlbTYuLojmoYAi_OQ"


def disk(tmp_path: Path, node: int, directory_id: str, snapshot: bool = False) -> Path:
    """A log directory of `node` holding a copy of the fixture's metadata log (without its snapshot, which
    holds no VotersRecord, unless asked)."""
    d = tmp_path / f"node-{node}"
    d.mkdir()
    (d / "meta.properties").write_text(f"node.id={node}\ndirectory.id={directory_id}\nversion=1\n"
                                       f"cluster.id={CLUSTER}\n")
    shutil.copytree(METADATA, d / "__cluster_metadata-0")
    if not snapshot:
        (d / "__cluster_metadata-0" / SNAPSHOT).unlink()
    return d


def test_the_voters_record_is_replayed(tmp_path):
    copy = disk(tmp_path, 1, VOTER_DIRECTORY) / "__cluster_metadata-0"
    md = read_metadata(copy)
    assert md.kraft_version == 1
    assert md.voters == [Voter(1, VOTER_DIRECTORY)]
    assert md.voters_from == f"{copy / '00000000000000000000.log'} at offset 2"
    assert md.problems == []
    # the control records alone: the same voters, no topic
    control = read_metadata(copy, control_only=True)
    assert (control.voters, control.kraft_version, control.topics) == (md.voters, 1, {})


def test_a_snapshot_without_voters_is_a_static_quorum(tmp_path):
    """The snapshot replaces the log below its end offset: the log's VotersRecord (offset 2) is below it."""
    md = read_metadata(disk(tmp_path, 1, VOTER_DIRECTORY, snapshot=True) / "__cluster_metadata-0")
    assert (md.voters, md.kraft_version, md.end_offset) == (None, 0, 100)


def test_the_metadata_is_the_voters_copy(tmp_path):
    """Node 2's copy reaches as far as node 1's and is given first, but node 2 is no voter: node 1's is read."""
    observer = disk(tmp_path, 2, "BBBBBBBBBBBBBBBBBBBBBA")
    voter = disk(tmp_path, 1, VOTER_DIRECTORY)
    view = cluster_view([str(observer), str(voter)])
    assert view.metadata is not None and view.metadata.source == voter / "__cluster_metadata-0"
    assert not [p for p in view.problems if "voter" in p], view.problems
    text = reconcile.findings(reconcile.reconcile([str(observer), str(voter)]))
    assert not [line for line in text if "quorum" in line]


def test_a_voters_disk_replaced_is_no_voter(tmp_path):
    """Node 1 with another directory id (its disk replaced and formatted again): KIP-853 makes it no voter until it
    is added again, so the restarted quorum has none of its voters."""
    observer = disk(tmp_path, 2, "BBBBBBBBBBBBBBBBBBBBBA")
    replaced = disk(tmp_path, 1, "CCCCCCCCCCCCCCCCCCCCCA")
    view = cluster_view([str(observer), str(replaced)])
    meta = replaced / "__cluster_metadata-0"
    assert any(p.startswith(f"{meta}: node 1's disk (directory CCCCCCCCCCCCCCCCCCCCCA) is not the voter's "
                            f"({VOTER_DIRECTORY}, VotersRecord at ") for p in view.problems), view.problems
    assert any("no disk of a controller (the voters 1)" in p for p in view.problems), view.problems


def test_reconcile_names_the_voters(tmp_path):
    voter = disk(tmp_path, 1, VOTER_DIRECTORY)
    text = io.StringIO()
    reconcile.print_text(reconcile.reconcile([str(disk(tmp_path, 2, "BBBBBBBBBBBBBBBBBBBBBA")), str(voter)]), text)
    out = text.getvalue()
    assert (f"quorum: voters 1 (directory {VOTER_DIRECTORY}); kraft.version 1, VotersRecord at "
            f"{voter / '__cluster_metadata-0'}/00000000000000000000.log at offset 2\n") in out
    # node 2's copy: no VotersRecord names it (an observer's; the fixture's log never had another voter)
    assert ("quorum: node 2's disk (directory BBBBBBBBBBBBBBBBBBBBBA) is not a voter: an observer (no voter set on "
            "these disks names it: a broker's, or a controller's not added to the quorum)\n") in out


#: A static quorum's quorum-state (version 0: voter 1), as a real 4.3.1 node wrote it.
STATIC_QUORUM_STATE = Path(__file__).resolve().parents[1] / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1" \
    / "__cluster_metadata-0" / "quorum-state"


def test_a_static_quorums_voters_are_its_quorum_states(tmp_path):
    """quorum-state version 0 is a static quorum's (kraft.version 0): its currentVoters are the voters, whatever a
    VotersRecord says, so node 1's copy is a voter's on any disk (no directory id to match)."""
    observer = disk(tmp_path, 2, "BBBBBBBBBBBBBBBBBBBBBA")
    voter = disk(tmp_path, 1, "CCCCCCCCCCCCCCCCCCCCCA")
    for d in (observer, voter):
        shutil.copy(STATIC_QUORUM_STATE, d / "__cluster_metadata-0" / "quorum-state")
    view = cluster_view([str(observer), str(voter)])
    assert view.metadata is not None and view.metadata.source == voter / "__cluster_metadata-0"
    assert not [p for p in view.problems if "voter" in p], view.problems
