"""`kafkalog restore` into a second real broker, checked by Kafka's own consumer (tests/brokers/java `consume`).

Sources: the data directory kraft_4x's broker wrote (codecs, transactions with aborts, compaction, headers,
LogAppendTime, a classic and a consumer-protocol group) and tiered_4x's tiered topic (remote segments first). The
oracle: what Kafka's read_committed consumer reads on the target is what it read on the source (key, value,
headers, and timestamps for CreateTime topics), partition by partition in order; each restored group resumes on the
target at the record the source group would have resumed at; a restore killed with kill -9 and run again delivers
every record once.
"""
from __future__ import annotations

import base64
import json
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.brokers.harness import Broker, run_scenario
from tests.brokers.scenarios import NEWEST_4X

pytestmark = pytest.mark.broker

KAFKALOG = [sys.executable, "-m", "kafkalog.cli"]
#: kraft_4x's topics restored under their own names.
TOPICS = ["codec-none", "codec-gzip", "codec-snappy", "codec-lz4", "codec-zstd", "txn", "log-append-time",
          "rolling", "big-segments", "retention", "compacted"]
KILLED_TOPIC = "big-segments"


def _restore(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*KAFKALOG, "restore", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _consumed(directory: Path, topic: str, partition: int) -> list[dict]:
    lines = (directory / "read_committed" / f"{topic}-{partition}.json").read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


def _same(record: dict, log_append_time: bool) -> dict:
    """What a restore keeps of a record: not its offset or leader epoch, nor a LogAppendTime topic's time."""
    kept = {k: record[k] for k in ("key", "value", "headers", "timestamp_type")}
    if not log_append_time:
        kept["timestamp"] = record["timestamp"]
    return kept


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    broker = Broker(NEWEST_4X, "kraft", tmp_path_factory.mktemp("restore-target"), broker_config={
        "group.coordinator.rebalance.protocols": "classic,consumer"}).start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def restored(kraft_4x, tiered_4x, target, tmp_path_factory):
    """Every restore of the module run against the target, then one consume of everything on it."""
    from confluent_kafka.admin import AdminClient, NewTopic

    work = tmp_path_factory.mktemp("restore")
    admin = AdminClient({"bootstrap.servers": target.bootstrap})
    # targets that refuse: too small for codec-none's records, fewer partitions than txn
    for f in admin.create_topics([NewTopic("refusing", 1, config={"max.message.bytes": "200"}),
                                  NewTopic("txn-one", 1)]).values():
        f.result()
    runs = {}
    # killed mid-way: a throttled producer (10 records in flight at most), killed once the first map part is out
    killed_map = work / "killed-map"
    args = [str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap, "--offset-map", str(killed_map),
            "--option", f"subscribe={KILLED_TOPIC}", "--topic-map", f"{KILLED_TOPIC}=killed", "--no-groups"]
    proc = subprocess.Popen([*KAFKALOG, "restore", *args, "-X", "queue.buffering.max.messages=10",
                             "-X", "linger.ms=50"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(killed_map.glob("map-*.parquet")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    killed_alive = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    runs["killed"] = killed_alive
    runs["resumed"] = _restore(*args)
    runs["all"] = _restore(str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap,
                           "--offset-map", str(work / "map"))
    runs["tiered"] = _restore(str(tiered_4x.data_dir), "--bootstrap-server", target.bootstrap,
                              "--offset-map", str(work / "tiered-map"), "--topic-map", "tiered=tiered-copy",
                              "--option", f"remoteRoot={tiered_4x.work / 'remote'}", "--original-headers")
    runs["too-large"] = _restore(str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap,
                                 "--offset-map", str(work / "too-large-map"), "--option", "subscribe=codec-none",
                                 "--topic-map", "codec-none=refusing", "--no-groups")
    runs["fewer"] = _restore(str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap,
                             "--offset-map", str(work / "fewer-map"), "--option", "subscribe=txn",
                             "--topic-map", "txn=txn-one", "--no-groups")
    consumed = work / "consumed"
    run_scenario(target, [["consume", str(consumed), *TOPICS, "killed", "tiered-copy", "refusing"],
                          ["committed", str(work / "committed.json"), "g-classic", "g-consumer"]])
    return runs, consumed, work


def test_every_committed_record_as_kafkas_consumer_read_it(kraft_4x, restored):
    runs, consumed, _ = restored
    assert runs["all"].returncode == 0, runs["all"].stderr
    for topic in TOPICS:
        for p in ([0, 1] if topic == "txn" else [0]):
            source = _consumed(kraft_4x.consumed, topic, p)
            target = _consumed(consumed, topic, p)
            lat = topic == "log-append-time"
            assert [_same(r, lat) for r in target] == [_same(r, lat) for r in source], f"{topic}-{p}"
            assert {r["timestamp_type"] for r in target} == {"LOG_APPEND_TIME" if lat else "CREATE_TIME"}
    # the transactions' aborted records are not restored: fewer records than the source's offsets
    assert len(_consumed(consumed, "txn", 0)) < json.loads(
        (kraft_4x.consumed / "read_committed" / "txn-0.json").read_text().splitlines()[0])["end_offset"]


def test_offset_map_names_each_records_target_offset(kraft_4x, restored):
    import pyarrow.dataset as ds

    _, consumed, work = restored
    parts = sorted(str(p) for p in (work / "map").glob("map-*.parquet"))
    table = ds.dataset(parts, format="parquet").to_table().sort_by("source_offset")
    rows = [r for r in table.to_pylist() if r["source_topic"] == "compacted"]
    source = _consumed(kraft_4x.consumed, "compacted", 0)
    target = _consumed(consumed, "compacted", 0)
    assert [(r["source_offset"], r["target_offset"]) for r in rows] == [
        (s["offset"], t["offset"]) for s, t in zip(source, target)]
    assert source[-1]["offset"] > len(source) - 1  # compaction left gaps: the map is not the identity


def test_groups_resume_where_the_source_group_would(kraft_4x, target, restored):
    from confluent_kafka import Consumer

    _, consumed, work = restored
    source_committed = [json.loads(line) for line in (kraft_4x.work / "committed.json").read_text().splitlines()]
    target_committed = {(c["group"], c["topic"], c["partition"]): c["offset"]
                        for c in map(json.loads, (work / "committed.json").read_text().splitlines())}
    assert {c["group"] for c in source_committed} == {"g-classic", "g-consumer"}
    for c in source_committed:
        source = _consumed(kraft_4x.consumed, c["topic"], c["partition"])
        expected = next((r for r in source if r["offset"] >= c["offset"]), None)
        at = target_committed[(c["group"], c["topic"], c["partition"])]
        restored_records = _consumed(consumed, c["topic"], c["partition"])
        resumed = next((r for r in restored_records if r["offset"] >= at), None)
        assert (resumed and _same(resumed, False)) == (expected and _same(expected, False)), c
        # a real consumer of the group, with the group's own protocol, resumes there
        protocol = "consumer" if c["group"] == "g-consumer" else "classic"
        consumer = Consumer({"bootstrap.servers": target.bootstrap, "group.id": c["group"],
                             "group.protocol": protocol, "enable.auto.commit": False,
                             "auto.offset.reset": "latest"})
        try:
            consumer.subscribe([c["topic"]])
            msg = None
            deadline = time.monotonic() + 120
            while msg is None and time.monotonic() < deadline:
                msg = consumer.poll(1.0)
                if msg is not None and msg.error():
                    msg = None
            assert msg is not None and msg.offset() == at
            assert msg.value() == (None if expected["value"] is None else
                                   base64.b64decode(expected["value"]))
        finally:
            consumer.close()


def test_tiered_topic_with_original_headers(tiered_4x, restored):
    runs, consumed, _ = restored
    assert runs["tiered"].returncode == 0, runs["tiered"].stderr
    for p in (0, 1):
        source = _consumed(tiered_4x.consumed, "tiered", p)
        target = _consumed(consumed, "tiered-copy", p)
        assert len(target) == len(source) > 0
        for s, t in zip(source, target):
            extra = t["headers"][-3:]
            t = {**t, "headers": t["headers"][:-3]}
            assert _same(t, False) == _same(s, False)
            names = [base64.b64decode(h[0]).decode() for h in extra]
            assert names == ["x-original-offset", "x-original-timestamp", "x-source-partition"]
            assert struct.unpack("<q", base64.b64decode(extra[0][1]))[0] == s["offset"]
            assert struct.unpack("<q", base64.b64decode(extra[1][1]))[0] == s["timestamp"]
            assert struct.unpack("<i", base64.b64decode(extra[2][1]))[0] == p


def test_killed_and_run_again_delivers_every_record_once(kraft_4x, restored):
    runs, consumed, _ = restored
    assert runs["killed"], "the first restore finished before it could be killed"
    assert runs["resumed"].returncode == 0, runs["resumed"].stderr
    assert "delivered by an earlier run" in runs["resumed"].stdout
    source = _consumed(kraft_4x.consumed, KILLED_TOPIC, 0)
    target = _consumed(consumed, "killed", 0)
    assert [_same(r, False) for r in target] == [_same(r, False) for r in source]


def test_target_that_refuses(restored):
    runs, consumed, _ = restored
    too_large = runs["too-large"]
    assert too_large.returncode == 1
    assert "source codec-none-0 offset 0: the target refused it" in too_large.stderr, too_large.stderr
    assert "MSG_SIZE_TOO_LARGE" in too_large.stderr and "Restored before it: 0 record(s)" in too_large.stderr
    assert "Traceback" not in too_large.stderr
    fewer = runs["fewer"]
    assert fewer.returncode == 1
    assert "target topic txn-one has 1 partition(s); the source topic txn has 2" in fewer.stderr, fewer.stderr
    assert not _consumed(consumed, "refusing", 0)
