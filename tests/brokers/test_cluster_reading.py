"""A cluster read from all of its disks, against Kafka itself: the stopped 3-broker cluster's disks
(`cluster_4x`: an acks=1 leader killed mid-produce, a follower killed and brought back, an unclean
election) read by kafkalog must give, record for record, what a cluster restarted on copies of exactly
those disks served to a consumer; `reconcile` must name as discarded exactly the records of each disk
that the restarted cluster did not serve."""
from __future__ import annotations

import base64
import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pytest

import kafkalog
from kafkalog import cli, reconcile
from kafkalog.cluster.metadata import Voter
from kafkalog.cluster.served import STRAY_DELETED_TOPIC, STRAY_NO_TOPIC_ID, discarded_records
from kafkalog.formats.meta_properties import read_meta_properties
from kafkalog.formats.quorum_state import read_quorum_state
from tests.brokers.scenarios import DELETED, MOVING

pytestmark = pytest.mark.broker

ISOLATIONS = ("read_uncommitted", "read_committed")


def _b64(b: bytes | None) -> str | None:
    return None if b is None else base64.b64encode(b).decode()


def consumed(directory: Path, isolation: str, topic: str) -> tuple[dict, dict[int, tuple]]:
    """A consumer's reading of partition 0: its header (log start, end offset) and records by offset."""
    lines = (directory / isolation / f"{topic}-0.json").read_text().splitlines()
    rows = {}
    for line in lines[1:]:
        r = json.loads(line)
        rows[r["offset"]] = (r["timestamp"], r["key"], r["value"],
                             tuple((base64.b64decode(k).decode(), v) for k, v in r["headers"]))
    return json.loads(lines[0]), rows


def table_rows(table, topic: str) -> dict[int, tuple]:
    rows = {}
    for r in table.to_pylist():
        if r["topic"] == topic:
            ts = r["timestamp"]
            millis = int(ts.timestamp() * 1000) if ts is not None else -1
            rows[r["offset"]] = (millis, _b64(r["key"]), _b64(r["value"]),
                                 tuple((h["key"], _b64(h["value"])) for h in r["headers"] or ()))
    return rows


def disks(run) -> list[str]:
    return [str(d) for d in run.disks.values()]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_read_arrow_of_the_disks_is_what_the_restarted_cluster_serves(cluster_4x, isolation):
    table = kafkalog.read_table(disks(cluster_4x), subscribe=",".join(cluster_4x.topics), includeHeaders="true",
                                **{"isolation.level": isolation})
    for topic in cluster_4x.topics:
        head, served = consumed(cluster_4x.served, isolation, topic)
        got = table_rows(table, topic)
        assert got == served, topic
        assert (min(got), max(got) + 1) == (head["log_start_offset"], head["end_offset"]), topic


def test_the_live_consumer_read_the_same_where_a_leader_was_left(cluster_4x):
    """Before the brokers stopped, `unclean` alone had a leader: its reading then is the restart's."""
    for isolation in ISOLATIONS:
        assert consumed(cluster_4x.consumed, isolation, "unclean") == consumed(cluster_4x.served, isolation, "unclean")


def test_reconcile_names_the_leader_the_restart_elected(cluster_4x):
    found = reconcile.reconcile(disks(cluster_4x))
    leaders = {o["topic"]: o["leader"] for o in map(json.loads, cluster_4x.served_describe.read_text().splitlines())
               if o["topic"] in cluster_4x.topics}
    assert {p.topic: p.leader for p in found.view.partitions if p.topic in leaders} == leaders
    assert found.problems == []


def test_reconcile_discards_exactly_the_records_the_restart_did_not_serve(cluster_4x):
    """Each replica's records (its log as its broker loads it) from the served log start on, against the
    restarted cluster's: those it did not serve at their offset are the ones reconcile discards."""
    found = reconcile.reconcile(disks(cluster_4x))
    discarding = set()
    for p in (p for p in found.view.partitions if p.topic in cluster_4x.topics):
        _, served = consumed(cluster_4x.served, "read_uncommitted", p.topic)
        assert p.served is not None
        for r in p.replicas:
            on_disk = table_rows(kafkalog.read_table(str(r.replica.path), includeHeaders="true"), p.topic)
            not_served = {o for o, rec in on_disk.items() if o >= p.served.log_start_offset and served.get(o) != rec}
            assert {o for o, control in discarded_records(r) if not control} == not_served, (p.topic, r.broker)
            assert found.discarded[(p.topic, p.topic_id, p.partition, r.broker)] == len(not_served)
            if not_served:
                assert r.discarded_from == min(not_served)
                discarding.add((p.topic, r.broker))
    # the killed acks=1 leader's tail, and the records committed on the replica the unclean election passed over
    assert discarding == {("acks1", 1), ("unclean", 3)}


def test_reconcile_json_has_the_issues_fields(cluster_4x, tmp_path):
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "reconcile", "--format", "json", *disks(cluster_4x)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    objects = [o for o in map(json.loads, res.stdout.splitlines()) if o["topic"] in cluster_4x.topics]
    assert {o["topic"] for o in objects} == set(cluster_4x.topics)
    for o in objects:
        assert {"topic", "partition", "leader", "high_watermark", "log_start_offset", "replicas"} <= set(o)
        head, _ = consumed(cluster_4x.served, "read_uncommitted", o["topic"])
        assert (o["log_start_offset"], o["high_watermark"]) == (head["log_start_offset"], head["end_offset"])
        assert [r["broker"] for r in o["replicas"]] == [1, 2, 3]
        for r in o["replicas"]:
            assert {"broker", "log_start_offset", "log_end_offset", "high_watermark", "discarded_from",
                    "discarded_records"} <= set(r)
    unclean = next(o for o in objects if o["topic"] == "unclean")
    lost = next(r for r in unclean["replicas"] if r["broker"] == 3)
    assert lost["discarded_records"] == lost["discarded_below_high_watermark"] == 150  # committed on 3 alone
    acks1 = next(o for o in objects if o["topic"] == "acks1")
    assert all(r["discarded_below_high_watermark"] == 0 for r in acks1["replicas"])  # acks=1: never committed
    acksall = next(o for o in objects if o["topic"] == "acksall")
    head, _ = consumed(cluster_4x.served, "read_committed", "acksall")
    assert acksall["last_stable_offset"] == acksall["open_transaction_from"] == head["end_offset"]
    # g-acksall's aborted commit of 500 (inside the log) and g-aborted's of 50 (outside) do not count
    assert acksall["groups_outside"] == [{"group": "g-acksall", "offset": 100}]
    text = subprocess.run([sys.executable, "-m", "kafkalog.cli", "reconcile", *disks(cluster_4x)],
                          capture_output=True, text=True, timeout=300).stdout
    assert "unclean-0: served from broker 2" in text and "discards 150 records from offset 200" in text
    assert f"open transaction: acksall-0 from offset {head['end_offset']}" in text
    assert "committed records lost: unclean-0: broker 3 holds 150 records from offset 200 below its high watermark" \
        in text
    assert "consumer group g-acksall: acksall-0 committed offset 100, outside the served log (150 to" in text


def test_dump_json_of_the_disks_prints_the_served_replicas(cluster_4x):
    """dump names each disk; it prints each partition's served replica only (its log as its broker loads
    it): the restarted cluster's records."""
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", *disks(cluster_4x)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    by_topic = dumped_records(res.stdout, cluster_4x.topics)
    for t in cluster_4x.topics:
        assert by_topic[t] == consumed(cluster_4x.served, "read_uncommitted", t)[1], t


def dumped_records(dumped: str, topics: list[str]) -> dict[str, dict[int, tuple]]:
    """The records of `dump --format json`'s lines, by topic (of partition 0) and offset, as `consumed` gives
    them; a record printed twice fails."""
    by_topic: dict[str, dict[int, tuple]] = {}
    topic = None
    for line in dumped.splitlines():
        o = json.loads(line)
        if o["type"] == "file":
            topic = Path(o["path"]).parent.name.rsplit("-", 1)[0]  # (a local path or a URI)
        elif o["type"] == "record" and topic in topics:
            assert o["offset"] not in by_topic.setdefault(topic, {}), f"{topic} {o['offset']} printed twice"
            by_topic[topic][o["offset"]] = (o["timestamp"], o["key"], o["value"],
                                            tuple((k, v) for k, v in o["headers"]))
    return by_topic


def test_spark_reads_the_served_log(cluster_4x, spark):
    """Spark takes one path: a glob of the disks."""
    from pyspark.sql import functions as F

    glob = str(next(iter(cluster_4x.disks.values())).parent.parent / "node-*" / "data")
    df = spark.read.format("kafkalog").option("subscribe", ",".join(cluster_4x.topics)) \
        .option("includeHeaders", "true").load(glob)
    got: dict[str, dict[int, tuple]] = {}
    for r in df.select("topic", "offset", F.unix_millis("timestamp").alias("ms"), "key", "value", "headers").collect():
        got.setdefault(r["topic"], {})[r["offset"]] = (
            r["ms"], _b64(r["key"]), _b64(r["value"]), tuple((h["key"], _b64(h["value"])) for h in r["headers"] or ()))
    for t in cluster_4x.topics:
        assert got[t] == consumed(cluster_4x.served, "read_uncommitted", t)[1], t


# ----------------------------------------------------------------------------- bad input, on copies of the disks

def _copies(run, tmp_path: Path) -> dict[int, Path]:
    out = {}
    for node, d in run.disks.items():
        out[node] = tmp_path / f"node-{node}"
        shutil.copytree(d, out[node])
    return out


def _linked_copy(disk: Path, to: Path, copied: str) -> Path:
    """A disk whose entries are symbolic links to the original's, but for `copied`, a copy (to change)."""
    to.mkdir()
    for entry in disk.iterdir():
        if entry.name == copied:
            shutil.copytree(entry, to / entry.name)
        else:
            (to / entry.name).symlink_to(entry)
    return to


def _reconcile_cli(*paths) -> subprocess.CompletedProcess:
    """`kafkalog reconcile --format json PATH...`, in this process (the command itself is run as one above)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["reconcile", "--format", "json", *map(str, paths)])
    return subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


def _set_property(meta: Path, key: str, value: str) -> None:
    lines = [f"{key}={value}" if line.startswith(f"{key}=") else line for line in meta.read_text().splitlines()]
    meta.write_text("\n".join(lines) + "\n")


def _problems(res: subprocess.CompletedProcess) -> list[str]:
    return [o["message"] for o in map(json.loads, res.stdout.splitlines()) if o["type"] == "problem"]


def _partitions(res: subprocess.CompletedProcess) -> dict[str, dict]:
    return {o["topic"]: o for o in map(json.loads, res.stdout.splitlines()) if o["type"] == "partition"}


def test_a_disk_of_another_cluster_is_named_and_left_out(cluster_4x, tmp_path):
    copies = _copies(cluster_4x, tmp_path)
    stranger = tmp_path / "stranger"
    shutil.copytree(copies[1], stranger)
    _set_property(stranger / "meta.properties", "cluster.id", "AAAAAAAAAAAAAAAAAAAAAA")
    _set_property(stranger / "meta.properties", "node.id", "7")
    res = _reconcile_cli(*copies.values(), stranger)
    assert res.returncode == 1
    [problem] = _problems(res)
    assert str(stranger / "meta.properties") in problem and "of cluster AAAAAAAAAAAAAAAAAAAAAA" in problem
    # the cluster read as without it (but for the paths of the stranger's replicas)
    assert _partitions(res) == _partitions(_reconcile_cli(*copies.values()))
    with pytest.raises(kafkalog.UsageError, match="stranger"):
        kafkalog.read_table([str(p) for p in [*copies.values(), stranger]])


def test_two_disks_claiming_one_node_are_named(cluster_4x, tmp_path):
    copies = _copies(cluster_4x, tmp_path)
    twin = tmp_path / "twin"
    shutil.copytree(copies[2], twin)  # one disk given twice (its directory id too)
    res = _reconcile_cli(*copies.values(), twin)
    assert res.returncode == 1
    assert any(str(twin / "meta.properties") in p and "two copies of one disk" in p for p in _problems(res))
    _set_property(twin / "meta.properties", "directory.id", "BBBBBBBBBBBBBBBBBBBBBB")  # as a second disk (JBOD)
    res = _reconcile_cli(*copies.values(), twin)
    assert any(str(twin / "acks1-0") in p and "broker 2 holds acks1-0 on two disks" in p for p in _problems(res))
    leaders = {t: o["leader"] for t, o in _partitions(res).items() if t in cluster_4x.topics}
    assert leaders == {"acksall": 3, "acks1": 3, "unclean": 2}


def test_missing_and_truncated_checkpoints(cluster_4x, tmp_path):
    copies = _copies(cluster_4x, tmp_path)
    before = _partitions(_reconcile_cli(*copies.values()))
    (copies[1] / "acks1-0" / "leader-epoch-checkpoint").unlink()  # the epochs come from the batches
    hw = copies[3] / "replication-offset-checkpoint"
    hw.write_bytes(hw.read_bytes()[: len(hw.read_bytes()) // 2])
    res = _reconcile_cli(*copies.values())
    assert res.returncode == 1
    assert [p for p in _problems(res) if str(hw) in p], _problems(res)
    after = _partitions(res)
    assert after["acks1"]["replicas"][0]["discarded_from"] == before["acks1"]["replicas"][0]["discarded_from"]
    assert {t: o["leader"] for t, o in after.items()} == {t: o["leader"] for t, o in before.items()}


def test_a_metadata_log_that_does_not_parse(cluster_4x, tmp_path):
    copies = _copies(cluster_4x, tmp_path)
    damaged = []
    for d in copies.values():
        for log in (d / "__cluster_metadata-0").glob("*.log"):
            data = bytearray(log.read_bytes())
            data[len(data) // 2: len(data) // 2 + 64] = b"\xff" * 64
            log.write_bytes(bytes(data))
            damaged.append(log)
    res = _reconcile_cli(*copies.values())
    assert res.returncode == 1
    problems = _problems(res)
    assert any(str(log) in p and "does not parse" in p for log in damaged for p in problems), problems
    assert set(_partitions(res)) >= set(cluster_4x.topics)  # every partition still read
    # a topic the metadata read does not hold may be one created after the damage: not taken for deleted
    deleted = _partitions(res)[DELETED]
    assert deleted["leader"] == 1 and not deleted["replicas"][0]["stray"]


def test_verify_of_the_disks_names_each_replica_a_restart_cuts(cluster_4x):
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "verify", "--format", "json", *disks(cluster_4x)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 1, res.stderr
    problems = [o for o in map(json.loads, res.stdout.splitlines()) if o["type"] == "problem"]
    assert {(Path(o["file"]).parent.parent.name, Path(o["file"]).name, o["kind"]) for o in problems} == {
        ("node-1", "acks1-0", "not_served"), ("node-3", "unclean-0", "committed_records_lost"),
        ("node-1", f"{DELETED}-0", "stray")}
    unclean = next(o for o in problems if o["kind"] == "committed_records_lost")
    assert unclean["detail"].startswith("offsets 200 to 349 (150 records) are not in the log served from broker 2")


def test_read_replicas_reads_each_replica_marked_with_its_broker(cluster_4x):
    table = kafkalog.read_table(disks(cluster_4x), subscribe=",".join(cluster_4x.topics), includeHeaders="true",
                                readReplicas="true")
    for topic in cluster_4x.topics:
        for broker in (1, 2, 3):
            mine = table.filter(pc.and_(pc.equal(table["topic"], topic), pc.equal(table["broker"], broker)))
            alone = kafkalog.read_table(str(cluster_4x.disks[broker] / f"{topic}-0"), includeHeaders="true")
            assert table_rows(mine, topic) == table_rows(alone, topic), (topic, broker)


def test_a_missing_disk_leaves_partitions_under_replicated(cluster_4x):
    """Broker 1's disk left out: its replicas are missing, the served log the same (its tail was discarded)."""
    given = [str(d) for node, d in cluster_4x.disks.items() if node != 1]
    found = reconcile.reconcile(given)
    for p in (p for p in found.view.partitions if p.topic in cluster_4x.topics):
        assert p.missing_replicas == [1] and p.replication_factor == 3
    assert "under-replicated: acks1-0 has 2 of its 3 replicas on these disks (missing: brokers 1)" in \
        reconcile.findings(found)
    table = kafkalog.read_table(given, subscribe="acks1", includeHeaders="true")
    assert table_rows(table, "acks1") == consumed(cluster_4x.served, "read_uncommitted", "acks1")[1]


def test_without_the_metadata_log_kip_966s_rule_serves_the_same_log(cluster_4x, tmp_path):
    """The brokers' disks without any copy of the metadata log (as a ZooKeeper cluster's): the highest last
    leader epoch, then the longest log, picks replicas that serve what the restarted cluster served."""
    copies = [c for node, c in _copies(cluster_4x, tmp_path).items() if node != 9]
    for c in copies:
        shutil.rmtree(c / "__cluster_metadata-0")
    found = reconcile.reconcile([str(c) for c in copies])
    assert found.view.metadata is None
    assert {p.election for p in found.view.partitions} == {"longest_log"}
    table = kafkalog.read_table([str(c) for c in copies], subscribe=",".join(cluster_4x.topics), includeHeaders="true")
    for topic in cluster_4x.topics:
        assert table_rows(table, topic) == consumed(cluster_4x.served, "read_uncommitted", topic)[1], topic


def test_a_stray_replica_is_not_served(cluster_4x, tmp_path):
    """A fourth broker's disk holding a copy of acks1-0 (as a reassignment away from it leaves one): broker 4 is
    not among the partition's replicas, so its start-up does not load it (Kafka renames it -stray). It is not
    served, not elected, all its records are discarded (none lost: the replicas hold them), and the read is
    the restarted cluster's."""
    copies = _copies(cluster_4x, tmp_path)
    stray = tmp_path / "node-4"
    stray.mkdir()
    shutil.copy(copies[3] / "meta.properties", stray / "meta.properties")
    _set_property(stray / "meta.properties", "node.id", "4")
    _set_property(stray / "meta.properties", "directory.id", "CCCCCCCCCCCCCCCCCCCCCC")
    shutil.copytree(copies[3] / "acks1-0", stray / "acks1-0")  # the served leader's own copy: still stray
    for name in ("replication-offset-checkpoint", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint"):
        shutil.copy(copies[3] / name, stray / name)
    res = _reconcile_cli(*copies.values(), stray)
    acks1 = _partitions(res)["acks1"]
    _, served = consumed(cluster_4x.served, "read_uncommitted", "acks1")
    assert acks1["leader"] == 3 and acks1["missing_replicas"] == []
    four = next(r for r in acks1["replicas"] if r["broker"] == 4)
    assert four["stray"] and four["discarded_from"] == 0
    assert four["discarded_records"] == len(served) and four["discarded_below_high_watermark"] == 0
    found = reconcile.reconcile([str(p) for p in [*copies.values(), stray]])
    assert any(line.startswith("stray replica: broker 4 is not among the replicas of acks1-0 in the metadata (1, 2, 3)")
               for line in reconcile.findings(found)), reconcile.findings(found)
    table = kafkalog.read_table([str(p) for p in [*copies.values(), stray]], subscribe="acks1", includeHeaders="true")
    assert table_rows(table, "acks1") == served
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "verify", "--format", "json", *map(str, copies.values()),
                          str(stray)], capture_output=True, text=True, timeout=300)
    kinds = {(Path(o["file"]).parent.name, o["kind"]) for o in map(json.loads, res.stdout.splitlines())
             if o["type"] == "problem"}
    assert ("node-4", "stray") in kinds, kinds


def test_a_partition_no_disk_holds_is_named(cluster_4x, tmp_path):
    """Every replica of unclean-0 gone from the disks: the metadata names it, no disk holds it."""
    copies = _copies(cluster_4x, tmp_path)
    for node in (1, 2, 3):
        shutil.rmtree(copies[node] / "unclean-0")
    found = reconcile.reconcile([str(c) for c in copies.values()])
    assert found.view.without_replica == [("unclean", 0)]
    assert "no replica left: unclean-0 (no disk holds it)" in reconcile.findings(found)
    res = _reconcile_cli(*copies.values())
    unclean = _partitions(res)["unclean"]
    assert (unclean["leader"], unclean["replicas"], unclean["election"]) == (None, [], "offline")
    table = kafkalog.read_table([str(c) for c in copies.values()], subscribe=",".join(cluster_4x.topics))
    assert set(table["topic"].to_pylist()) == {"acks1", "acksall"}


def test_the_metadata_is_the_voters(cluster_4x):
    """The controller (node 9, the only voter of the static quorum) holds the metadata the restarted quorum
    commits; the brokers' copies are observers'. Without the controller's disk, the restarted cluster has no
    quorum: said, and the brokers' furthest copy read."""
    found = reconcile.reconcile(disks(cluster_4x))
    assert found.view.metadata is not None
    assert found.view.metadata.source == cluster_4x.disks[9] / "__cluster_metadata-0"
    assert not [p for p in found.problems if "quorum" in p]
    without = reconcile.reconcile([str(d) for node, d in cluster_4x.disks.items() if node != 9])
    assert without.view.metadata is not None and without.view.metadata.source.parent != cluster_4x.disks[9]
    assert any("no disk of a controller (the voters 9)" in p for p in without.problems), without.problems
    leaders = {p.topic: p.leader for p in without.view.partitions if p.topic in cluster_4x.topics}
    assert leaders == {"acksall": 3, "acks1": 3, "unclean": 2}


# ----------------------------------------------------------------------------- what a restart does with the metadata

def test_a_reassignment_in_flight_goes_on(cluster_4x):
    """moving-0 was being reassigned from broker 2 to broker 1 (down) when the cluster stopped: replicas 1,2, adding
    1, removing 2. The restart serves broker 2's log, broker 1 copies it, the reassignment completes and the
    leadership goes to broker 1: what the restarted cluster described and served."""
    described = next(o for o in map(json.loads, cluster_4x.served_describe.read_text().splitlines())
                     if o["topic"] == MOVING)
    found = reconcile.reconcile(disks(cluster_4x))
    p = next(p for p in found.view.partitions if p.topic == MOVING)
    assert p.state is not None and (p.state.replicas, p.state.adding, p.state.removing) == ([1, 2], [1], [2])
    assert p.state.target_replicas == described["replicas"] == [1]
    assert (p.leader, p.leader_after_reassignment) == (2, described["leader"])
    assert (p.replication_factor, p.missing_replicas) == (1, [])  # broker 1's disk is there: it copies the log
    assert [r.broker for r in p.replicas] == [2] and p.replicas[0].discarded_from is None
    lines = reconcile.findings(found)
    assert f"reassignment in flight: {MOVING}-0 to replicas 1: adding 1, removing 2. A restarted cluster goes on " \
        "with it: once every added replica has copied the served log, the removed ones delete their copies; then " \
        "broker 1 leads (the leader is removed)" in lines
    assert not [line for line in lines if line.startswith("under-replicated: moving")]
    obj = reconcile.partition_json(p, found)
    assert obj["reassignment"] == {"adding_replicas": [1], "removing_replicas": [2], "target_replicas": [1],
                                   "leader_after": 1}
    assert obj["replicas"][0]["reassignment"] == "removing"
    table = kafkalog.read_table(disks(cluster_4x), subscribe=MOVING, includeHeaders="true")
    head, served = consumed(cluster_4x.served, "read_uncommitted", MOVING)
    assert table_rows(table, MOVING) == served and len(served) == head["end_offset"] == 150


def test_a_deleted_topics_replicas_are_not_served(cluster_4x):
    """`deleted` was deleted while broker 1 was down. Broker 1's replica holds the id of a topic the metadata no
    longer has: its start-up takes it for a stray (`LogManager.isStrayKraftReplica`); brokers 2 and 3 left theirs
    renamed -delete. Nothing of it is served, reconcile names each, and readReplicas still reads broker 1's."""
    assert f'"topic":"{DELETED}"' not in cluster_4x.served_describe.read_text()
    found = reconcile.reconcile(disks(cluster_4x))
    [p] = [p for p in found.view.partitions if p.topic == DELETED]
    [r] = p.replicas
    assert (r.broker, r.stray_reason, p.leader, p.state) == (1, STRAY_DELETED_TOPIC, None, None)
    assert found.discarded[(DELETED, p.topic_id, 0, 1)] == 60 and r.discarded_from == 0
    assert (DELETED, 0) not in found.view.without_replica
    renamed = {(d.broker, d.topic, d.partition, d.state) for d in found.view.disks.renamed}
    assert renamed == {(2, DELETED, 0, "delete"), (3, DELETED, 0, "delete")}
    lines = reconcile.findings(found)
    assert any(line.startswith(f"stray replica: broker 1's {DELETED}-0 is of topic id {p.topic_id}, which the "
                               "metadata does not hold: a deleted topic's replica") and
               line.endswith("offsets 0 to 59 (60 records) are not served") for line in lines), lines
    assert sum(line.startswith("renamed replica: ") and f"{DELETED}-0, renamed -delete by Kafka" in line
               for line in lines) == 2
    assert found.problems == []
    assert DELETED not in kafkalog.read_table(disks(cluster_4x))["topic"].to_pylist()
    # readReplicas (salvage) reads broker 1's stray replica and brokers 2 and 3's -delete directories, each marked
    every = kafkalog.read_table(disks(cluster_4x), subscribe=DELETED, readReplicas="true", includeHeaders="true")
    assert set(every["partition"].to_pylist()) == {0}
    marked = {(b, r) for b, r in zip(every["broker"].to_pylist(), every["renamed"].to_pylist(), strict=True)}
    assert marked == {(1, None), (2, "delete"), (3, "delete")}
    assert pc.sum(pc.equal(every["broker"], 1)).as_py() == 60
    for d in found.view.disks.renamed:
        mine = every.filter(pc.equal(every["broker"], d.broker))
        alone = kafkalog.read_table(str(d.path), readReplicas="true", includeHeaders="true")  # (topic from its name)
        assert mine.num_rows == alone.num_rows > 0 and table_rows(mine, DELETED) == table_rows(alone, DELETED)


def test_a_replica_without_a_topic_id_is_stray(cluster_4x, tmp_path):
    """Broker 1's acks1-0 without its partition.metadata: Kafka writes that file before the first append, so its
    start-up takes such a directory for a stray (`LogManager.isStrayKraftReplica`): not loaded, all its records
    discarded, none lost (the others hold them); the log served is the same."""
    copies = dict(cluster_4x.disks)
    copies[1] = _linked_copy(cluster_4x.disks[1], tmp_path / "node-1", "acks1-0")
    (copies[1] / "acks1-0" / "partition.metadata").unlink()
    found = reconcile.reconcile([str(c) for c in copies.values()])
    p = next(p for p in found.view.partitions if p.topic == "acks1")
    one = next(r for r in p.replicas if r.broker == 1)
    assert (one.stray_reason, one.discarded_from) == (STRAY_NO_TOPIC_ID, 0)
    assert p.missing_replicas == [1] and p.leader == 3
    assert found.discarded_committed[("acks1", p.topic_id, 0, 1)] == 0
    assert any(line.startswith("stray replica: broker 1's acks1-0 has no partition.metadata (no topic id")
               for line in reconcile.findings(found))
    table = kafkalog.read_table([str(c) for c in copies.values()], subscribe="acks1", includeHeaders="true")
    assert table_rows(table, "acks1") == consumed(cluster_4x.served, "read_uncommitted", "acks1")[1]
    # none of the three with its topic id: nothing of acks1-0 is loaded (its brokers start it again, empty)
    for node in (2, 3):
        copies[node] = _linked_copy(cluster_4x.disks[node], tmp_path / f"node-{node}", "acks1-0")
        (copies[node] / "acks1-0" / "partition.metadata").unlink()
    found = reconcile.reconcile([str(c) for c in copies.values()])
    [p] = [p for p in found.view.partitions if p.topic == "acks1"]
    assert p.leader is None and {r.stray_reason for r in p.replicas} == {STRAY_NO_TOPIC_ID}
    assert "no replica left: acks1-0 (no disk holds it but stray ones)" in reconcile.findings(found)
    res = _reconcile_cli(*copies.values())
    assert [o["topic"] for o in map(json.loads, res.stdout.splitlines()) if o["type"] == "partition"].count("acks1") == 1
    assert "acks1" not in kafkalog.read_table([str(c) for c in copies.values()], subscribe="acks1")["topic"].to_pylist()


def test_a_dynamic_quorums_voters_come_from_its_voters_record(killed_4x, tmp_path):
    """killed_4x's node is formatted `--standalone` (KIP-853): kraft.version 1, a quorum-state of version 1 (no
    voters in it), and its voters in the metadata log's VotersRecord: each a node id and the directory id of the
    disk holding its metadata log, here its own. The same disk with another directory id (replaced and formatted
    again) is no voter: the restarted node would have no quorum."""
    state = read_quorum_state(killed_4x.data_dir / "__cluster_metadata-0" / "quorum-state")
    assert (state.data_version, state.current_voters) == (1, None)
    directory_id = read_meta_properties(killed_4x.data_dir / "meta.properties").directory_id
    found = reconcile.reconcile([str(killed_4x.data_dir)])
    md = found.view.metadata
    assert md is not None and (md.kraft_version, md.voters) == (1, [Voter(1, directory_id)])
    assert md.voters_from is not None and md.voters_from.startswith(str(killed_4x.data_dir / "__cluster_metadata-0"))
    assert not [p for p in found.problems if "voter" in p], found.problems
    replaced = tmp_path / "replaced"
    shutil.copytree(killed_4x.data_dir, replaced)
    _set_property(replaced / "meta.properties", "directory.id", "CCCCCCCCCCCCCCCCCCCCCA")
    problems = reconcile.reconcile([str(replaced)]).problems
    assert any(f"node 1's disk (directory CCCCCCCCCCCCCCCCCCCCCA) is not the voter's ({directory_id}" in p
               for p in problems), problems
    assert any("no disk of a controller (the voters 1)" in p for p in problems), problems
