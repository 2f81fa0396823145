"""`kafkalog restore` into a second real broker, checked by Kafka's own consumer (tests/brokers/java `consume`).

Sources: the data directory kraft_4x's broker wrote (codecs, transactions with aborts, compaction, headers,
LogAppendTime, a classic and a consumer-protocol group), tiered_4x's tiered topic (remote segments first), the data
directory a real registry (Karapace) left (`_schemas` and values framed with its schema ids; committed under
tests/registry/fixtures), kraft_4x's metadata log and a topic behind s3:// (moto's S3 server), `kafkalog ingest`'s
Parquet of a topic behind file:// and s3://, and a topic with one record past the target's max.message.bytes in its
middle. The oracle: what Kafka's read_committed consumer reads on the target is what it read on the source (key,
value, headers, and timestamps for CreateTime topics), partition by partition in order; each restored group resumes
on the target at the record the source group would have resumed at; a restore killed with kill -9, run again with
its target broker killed mid-way and started again on its data, and run once more delivers every record once;
nothing lands after a refused record; a partition an earlier run left with a gap is held back and the others restored.

The restores run in this process through the command's own `main` (its exit status, stdout and stderr), except
the two killed mid-way: a process per run cost the suite more than the runs themselves.
"""
from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kafkalog
from kafkalog import cli
from kafkalog.restore.offset_map import State
from kafkalog.restore.produce import Gap
from kafkalog.spark.ingest import run_ingest
from tests.brokers.harness import Broker, run_scenario, wait_port
from tests.brokers.scenarios import NEWEST_4X
from tests.dataset.s3_server import environment, s3_server, upload

pytestmark = pytest.mark.broker

KAFKALOG = [sys.executable, "-m", "kafkalog.cli"]
#: kraft_4x's topics restored under their own names.
TOPICS = ["codec-none", "codec-gzip", "codec-snappy", "codec-lz4", "codec-zstd", "txn", "log-append-time",
          "rolling", "big-segments", "retention", "compacted"]
KILLED_TOPIC = "big-segments"
#: A real registry's broker directory: `_schemas` and the topics whose values carry its schema ids.
REGISTRY = Path(__file__).resolve().parents[1] / "registry" / "fixtures" / "karapace-4.3.1"
REGISTRY_TOPICS = sorted(d.name.rsplit("-", 1)[0] for d in (REGISTRY / "data").iterdir() if d.is_dir())
ROOT = Path(__file__).resolve().parents[2]
#: A topic with one record past the refusing target's max.message.bytes, at MID_AT, between small ones.
MID_LARGE, MID_AT, MID_AFTER = "mid-large", 300, 300


def _produce_mid_large(broker: Broker) -> None:
    """MID_AT small records, one of 10 kB, MID_AFTER small ones: one partition, by Kafka's protocol (librdkafka)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20})
    for i in range(MID_AT + 1 + MID_AFTER):
        value = b"L" * 10_000 if i == MID_AT else b"v%06d" % i + b"x" * 90
        producer.produce(MID_LARGE, value, b"k%d" % i, 0, headers=[("h", b"%d" % i)])
    assert producer.flush(120) == 0


def _restore(*args: str) -> subprocess.CompletedProcess:
    """`kafkalog restore ARGS` run in this process by the command's `main`: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["restore", *args])
    return subprocess.CompletedProcess(["kafkalog", "restore", *args], code, out.getvalue(), err.getvalue())


def _consumed(directory: Path, topic: str, partition: int) -> list[dict]:
    lines = (directory / "read_committed" / f"{topic}-{partition}.json").read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


def _same(record: dict, log_append_time: bool) -> dict:
    """What a restore keeps of a record: not its offset or leader epoch, nor a LogAppendTime topic's time."""
    kept = {k: record[k] for k in ("key", "value", "headers", "timestamp_type")}
    if not log_append_time:
        kept["timestamp"] = record["timestamp"]
    return kept


def _restart(broker: Broker) -> None:
    """Start a stopped (or killed) broker again on its data directory, its configuration and ports."""
    broker.proc = broker._java("kafka.Kafka", [str(broker.work / "server.properties")], broker.work / "broker.out")
    wait_port(broker.port, broker.proc, broker.work / "server.log")


def _throttled(args: list[str], *extra: str) -> subprocess.Popen:
    """A restore that delivers slowly (10 records in flight at most), so that it can be stopped mid-way."""
    return subprocess.Popen([*KAFKALOG, "restore", *args, "-X", "queue.buffering.max.messages=10",
                             "-X", "linger.ms=50", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL)


def _first_part(proc: subprocess.Popen, map_dir: Path, before: int = 0) -> bool:
    """Wait for the restore's first map part (past the `before` parts earlier runs wrote); whether it is still
    running then."""
    deadline = time.monotonic() + 300
    while len(list(map_dir.glob("map-*.parquet"))) <= before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return proc.poll() is None


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    broker = Broker(NEWEST_4X, "kraft", tmp_path_factory.mktemp("restore-target"), broker_config={
        "group.coordinator.rebalance.protocols": "classic,consumer"}).start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def restored(kraft_4x, tiered_4x, target, spark, tmp_path_factory):
    """Every restore of the module run against the target, then one consume of everything on it."""
    from confluent_kafka.admin import AdminClient, NewTopic

    work = tmp_path_factory.mktemp("restore")
    admin = AdminClient({"bootstrap.servers": target.bootstrap})
    # targets that refuse: too small for codec-none's records, fewer partitions than txn, too small for the one large
    # record in the middle of mid-large (written here by a real producer; the target's own data directory is its
    # source)
    for f in admin.create_topics([NewTopic("refusing", 1, config={"max.message.bytes": "200"}),
                                  NewTopic("txn-one", 1), NewTopic(MID_LARGE, 1),
                                  NewTopic("refusing-mid", 1, config={"max.message.bytes": "5000"})]).values():
        f.result()
    _produce_mid_large(target)
    runs = {}
    # killed mid-way (a throttled restore, kill -9 once its first map part is out); the same command again,
    # throttled and giving up after message.timeout.ms, with the target broker killed under it (kill -9) once its
    # first part is out; the broker started again on its data directory; the same command once more
    killed_map = work / "killed-map"
    args = [str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap, "--offset-map", str(killed_map),
            "--option", f"subscribe={KILLED_TOPIC}", "--topic-map", f"{KILLED_TOPIC}=killed", "--no-groups"]
    proc = _throttled(args)
    runs["killed"] = _first_part(proc, killed_map)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    proc = _throttled(args, "-X", "message.timeout.ms=5000")
    runs["down-alive"] = _first_part(proc, killed_map, before=len(list(killed_map.glob("map-*.parquet"))))
    target.kill()
    out, err = proc.communicate(timeout=300)
    runs["down-first"] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    _restart(target)
    runs["resumed"] = _restore(*args)
    # refused in the middle, batches in flight behind the refused one; then the same command again
    mid = [str(target.data_dir), "--bootstrap-server", target.bootstrap, "--offset-map", str(work / "mid-map"),
           "--option", f"subscribe={MID_LARGE}", "--topic-map", f"{MID_LARGE}=refusing-mid", "--no-groups",
           "-X", "batch.size=2000"]
    runs["mid-first"] = _restore(*mid)
    runs["mid-again"] = _restore(*mid)
    # an offset map whose earlier run left records past a refused record of txn-0 (as a message.timeout.ms can):
    # that partition is held back, txn-1 restored
    held = [str(kraft_4x.data_dir), "--bootstrap-server", target.bootstrap, "--offset-map", str(work / "held-map"),
            "--option", "subscribe=txn", "--topic-map", "txn=txn-held", "--no-groups"]
    state = State.open(work / "held-map", {"sources": [str(kraft_4x.data_dir)], "read_options": {"subscribe": "txn"},
                                           "topic_map": {"txn": "txn-held"}})
    state.gaps[State.key("txn-held", 0)] = Gap("txn", 0, "txn-held", 0, 5, [(6, 5)]).to_json()
    state.save()
    runs["held"] = _restore(*held)
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
    runs["registry"] = _restore(str(REGISTRY / "data"), "--bootstrap-server", target.bootstrap,
                                "--offset-map", str(work / "registry-map"))
    # Parquet written by `kafkalog ingest` (the command's function, in the suite's one Spark session), behind
    # file:// and s3://
    ingested = work / "ingested"
    runs["ingest"] = run_ingest(argparse.Namespace(path=str(kraft_4x.data_dir), output=str(ingested),
                                                   master="local[2]", option=["subscribe=compacted"]))
    runs["parquet-file"] = _restore(ingested.as_uri(), "--bootstrap-server", target.bootstrap, "--offset-map",
                                    str(work / "pq-file-map"), "--topic-map", "compacted=compacted-pq-file")
    # kraft_4x's metadata log and one topic behind s3://
    with s3_server(work / "s3.log") as env:
        for name in ("__cluster_metadata-0", "compacted-0"):
            upload(env, kraft_4x.data_dir / name, f"lost-cluster/data/{name}")
        upload(env, ingested, "lost-cluster/ingested")
        with environment(env):
            runs["parquet-s3"] = _restore("s3://lost-cluster/ingested", "--bootstrap-server", target.bootstrap,
                                          "--offset-map", str(work / "pq-s3-map"), "--topic-map",
                                          "compacted=compacted-pq-s3", "--no-groups")
            runs["s3"] = _restore("s3://lost-cluster/data", "--bootstrap-server", target.bootstrap, "--offset-map",
                                  str(work / "s3-map"), "--topic-map", "compacted=compacted-s3", "--no-groups")
    consumed = work / "consumed"
    run_scenario(target, [["consume", str(consumed), *TOPICS, "killed", "txn-held", "tiered-copy", "refusing",
                           "compacted-s3", MID_LARGE, "refusing-mid", "compacted-pq-file", "compacted-pq-s3",
                           *REGISTRY_TOPICS],
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
        (s["offset"], t["offset"]) for s, t in zip(source, target, strict=True)]
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
        for s, t in zip(source, target, strict=True):
            extra = t["headers"][-3:]
            t = {**t, "headers": t["headers"][:-3]}
            assert _same(t, False) == _same(s, False)
            names = [base64.b64decode(h[0]).decode() for h in extra]
            assert names == ["x-original-offset", "x-original-timestamp", "x-source-partition"]
            assert struct.unpack("<q", base64.b64decode(extra[0][1]))[0] == s["offset"]
            assert struct.unpack("<q", base64.b64decode(extra[1][1]))[0] == s["timestamp"]
            assert struct.unpack("<i", base64.b64decode(extra[2][1]))[0] == p


def test_killed_then_its_target_killed_and_run_again_delivers_every_record_once(kraft_4x, restored):
    runs, consumed, _ = restored
    assert runs["killed"], "the first restore finished before it could be killed"
    assert runs["down-alive"], "the second restore finished before the target went down"
    second = runs["down-first"]
    assert second.returncode == 1, second.stderr
    assert "was not delivered (to killed-0): _MSG_TIMED_OUT" in second.stderr, second.stderr
    assert "the same command run again goes on from there" in second.stderr and "Traceback" not in second.stderr
    last = runs["resumed"]
    assert last.returncode == 0, last.stderr
    assert "delivered by an earlier run" in last.stdout
    source = _consumed(kraft_4x.consumed, KILLED_TOPIC, 0)
    target = _consumed(consumed, "killed", 0)
    assert [_same(r, False) for r in target] == [_same(r, False) for r in source]


def test_a_partition_left_with_a_gap_is_held_back_and_the_others_restored(kraft_4x, restored):
    runs, consumed, _ = restored
    held = runs["held"]
    assert held.returncode == 1, held.stderr
    assert "txn-held-0: not resumed (an earlier run left records past a refused one there)" in held.stdout
    assert held.stderr.startswith("kafkalog: 1 target partition(s) not resumed, the others were restored:\n"
                                  "  target txn-held-0: an earlier run with the offset map "), held.stderr
    assert "restore txn into a new topic (--topic-map txn=NEW)" in held.stderr
    assert _consumed(consumed, "txn-held", 0) == []
    source = _consumed(kraft_4x.consumed, "txn", 1)
    assert len(source) > 0
    assert [_same(r, False) for r in _consumed(consumed, "txn-held", 1)] == [_same(r, False) for r in source]


def test_target_that_refuses(kraft_4x, restored):
    runs, consumed, _ = restored
    too_large = runs["too-large"]
    assert too_large.returncode == 1
    # the first record goes alone (and fits); the batch after it is past the target's max.message.bytes
    assert "source codec-none-0 offset 1: the target refused it" in too_large.stderr, too_large.stderr
    assert "MSG_SIZE_TOO_LARGE" in too_large.stderr and "Restored before it: 1 record(s)" in too_large.stderr
    assert "Traceback" not in too_large.stderr
    fewer = runs["fewer"]
    assert fewer.returncode == 1
    assert "target topic txn-one has 1 partition(s); the source topic txn has 2" in fewer.stderr, fewer.stderr
    source = _consumed(kraft_4x.consumed, "codec-none", 0)
    assert [_same(r, False) for r in _consumed(consumed, "refusing", 0)] == [_same(source[0], False)]


def _kafkas_reading(log: Path) -> list[dict]:
    """Kafka's own reading of a segment (kafka-clients' FileRecords, scripts/kafka_fixtures.py read)."""
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "read", str(log)],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    return [r for r in map(json.loads, out.splitlines()) if r["type"] == "record"]


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def test_schemas_restored_first_and_as_they_are(target, restored):
    import pyarrow.parquet as pq
    from confluent_kafka.admin import AdminClient, ConfigResource

    runs, consumed, work = restored
    assert runs["registry"].returncode == 0, runs["registry"].stderr
    # `_schemas` as Kafka reads the registry's own segment; the other topics as kafkalog reads them (Kafka's reading of
    # them is checked elsewhere: one JVM each would cost more than the rest of the test)
    for topic in REGISTRY_TOPICS:
        if topic == "_schemas":
            source = [(r["key"], r["value"], r["timestamp"], [tuple(h) for h in r["headers"]])
                      for r in _kafkas_reading(REGISTRY / "data" / "_schemas-0" / "00000000000000000000.log")]
        else:
            table = kafkalog.read_table(str(REGISTRY / "data" / f"{topic}-0"), includeHeaders=True,
                                        **{"isolation.level": "read_committed"})
            stamps = [t // 1000 for t in table.column("timestamp").cast("int64").to_pylist()]  # us -> ms
            source = [(_b64(r["key"]), _b64(r["value"]), stamp, [(h["key"], _b64(h["value"])) for h in r["headers"] or []])
                      for r, stamp in zip(table.to_pylist(), stamps, strict=True)]
        restored_records = _consumed(consumed, topic, 0)
        assert len(source) > 0, topic
        assert [(t["key"], t["value"], t["timestamp"], [(base64.b64decode(k).decode(), v) for k, v in t["headers"]])
                for t in restored_records] == source, topic
        assert {t["timestamp_type"] for t in restored_records} == {"CREATE_TIME"}
    # delivered first: the map's parts, in the order they were written, hold all of `_schemas` before any other row
    parts = sorted((work / "registry-map").glob("map-*.parquet"))
    order = [t for p in parts for t in pq.read_table(p).column("source_topic").to_pylist()]
    schemas = len(_consumed(consumed, "_schemas", 0))
    assert order[:schemas] == ["_schemas"] * schemas and "_schemas" not in order[schemas:]
    # the schema ids the values were written with (as the registry's deserializers read them) are the target's
    ids = {json.loads(base64.b64decode(r["value"]))["id"] for r in _consumed(consumed, "_schemas", 0)
           if r["value"] and json.loads(base64.b64decode(r["key"]))["keytype"] == "SCHEMA"}
    used = {row[k] for row in map(json.loads, (REGISTRY / "expected.jsonl").read_text().splitlines())
            for k in ("key_schema_id", "value_schema_id") if row.get(k) is not None}
    assert used and used <= ids
    # created compacted, as a registry needs it (the source has no metadata log to say so)
    admin = AdminClient({"bootstrap.servers": target.bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, "_schemas")
    configs = admin.describe_configs([resource])[resource].result()
    assert configs["cleanup.policy"].value == "compact"


def test_metadata_log_behind_a_uri(kraft_4x, target, restored):
    from confluent_kafka.admin import AdminClient, ConfigResource

    runs, consumed, _ = restored
    assert runs["s3"].returncode == 0, runs["s3"].stderr
    assert "created topics: compacted-s3" in runs["s3"].stdout
    source = _consumed(kraft_4x.consumed, "compacted", 0)
    assert [_same(r, False) for r in _consumed(consumed, "compacted-s3", 0)] == [_same(r, False) for r in source]
    # the configs came from the metadata log read through s3://
    admin = AdminClient({"bootstrap.servers": target.bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, "compacted-s3")
    configs = admin.describe_configs([resource])[resource].result()
    assert (configs["cleanup.policy"].value, configs["min.cleanable.dirty.ratio"].value) == ("compact", "0.01")


def test_refused_in_the_middle_nothing_lands_after_it(restored):
    """A record past the target's max.message.bytes in the middle of a partition, with batches in flight behind
    it: the restore stops at it, naming it, and none of the records after it is on the target; run again, it stops
    at the same record (the target still refuses it) and still nothing lands after it."""
    runs, consumed, _ = restored
    source = _consumed(consumed, MID_LARGE, 0)
    assert len(source) == MID_AT + 1 + MID_AFTER
    for name in ("mid-first", "mid-again"):
        res = runs[name]
        assert res.returncode == 1, (name, res.stderr)
        assert f"source {MID_LARGE}-0 offset {MID_AT}: the target refused it (to refusing-mid-0)" in res.stderr, \
            (name, res.stderr)
        assert "Message size too large" in res.stderr and "Traceback" not in res.stderr, (name, res.stderr)
    assert f"Restored before it: {MID_AT} record(s)" in runs["mid-first"].stderr
    assert "Restored before it: 0 record(s)" in runs["mid-again"].stderr
    target = _consumed(consumed, "refusing-mid", 0)
    assert [_same(r, False) for r in target] == [_same(r, False) for r in source[:MID_AT]]


def test_parquet_written_by_ingest_behind_uris(kraft_4x, restored):
    """`kafkalog ingest`'s Parquet (Spark's part files) restored from file:// and s3:// as the topic was."""
    runs, consumed, _ = restored
    assert runs["ingest"] == 0
    source = [_same(r, False) for r in _consumed(kraft_4x.consumed, "compacted", 0)]
    for name, topic in (("parquet-file", "compacted-pq-file"), ("parquet-s3", "compacted-pq-s3")):
        assert runs[name].returncode == 0, (name, runs[name].stderr)
        assert f"created topics: {topic}" in runs[name].stdout, runs[name].stdout
        assert [_same(r, False) for r in _consumed(consumed, topic, 0)] == source, name


def _listed(admin, topic: str, tries: int = 100) -> bool:
    """Whether a full listing of the target shows `topic` (a topic just created can be missing from the first)."""
    for _ in range(tries):
        if topic in admin.list_topics(timeout=30).topics:
            return True
        time.sleep(0.2)
    return False


def test_end_offset_of_a_topic_librdkafka_first_saw_unknown(target):
    """librdkafka's `list_offsets` never asks again for a topic its metadata cache holds as unknown, and that entry
    outlives its 100 ms behind a full listing's entries: a target topic the broker had not yet seen when first asked
    (as a topic just created can be, under load) would answer "No leaders found" for 15 minutes. `_target_ends`
    asks for the topic's metadata by name before each retry. Here the topic is asked for before it exists, then
    created: librdkafka alone still answers "No leaders found" after it is there."""
    import confluent_kafka
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

    from kafkalog.restore.run import _target_ends

    admin = AdminClient({"bootstrap.servers": target.bootstrap})
    for future in admin.create_topics([NewTopic("listed-first", 1)]).values():
        future.result()
    # what `prepare_targets` does first: entries that live metadata.max.age.ms (a topic at least)
    assert _listed(admin, "listed-first")
    late = TopicPartition("created-late", 0)

    def librdkafka_alone():
        return admin.list_offsets({late: OffsetSpec.latest()}, request_timeout=10)[late].result().offset

    with pytest.raises(KafkaException, match="No leaders found"):
        librdkafka_alone()
    for future in admin.create_topics([NewTopic("created-late", 1)]).values():
        future.result()
    time.sleep(1)
    # what the restore's earlier retries did not cure; seen up to librdkafka 2.16 (a later one may evict the entry)
    if confluent_kafka.libversion()[1] < 0x02110000:
        with pytest.raises(KafkaException, match="No leaders found"):
            librdkafka_alone()
    assert _target_ends(admin, [("created-late", 0)], timeout=30) == {("created-late", 0): 0}
