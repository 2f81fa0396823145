"""A cluster's disks behind URIs: the stopped 3-broker cluster's disks (`cluster_4x`, the run
test_cluster_reading.py checks against Kafka itself) copied to a real S3-protocol server on 127.0.0.1 and read
through s3:// URIs (listed, and as a glob) must give what they give on the local disk: `kafkalog reconcile`'s
JSON and `kafkalog dump --format json`'s lines (the same, but for where each file lies), and `read_arrow`'s served
log at both isolation levels. And a
Spark stream of the disks reads each partition from its served replica, as read_arrow does."""
from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import subprocess
import sys

import pytest

import kafkalog
from kafkalog import cli
from tests.brokers.test_cluster_reading import consumed, dumped_records
from tests.dataset.s3_server import environment, s3_server, upload

pytestmark = pytest.mark.broker

BUCKET = "kafkalog-test/cluster"


@pytest.fixture(scope="module")
def bucket(cluster_4x, tmp_path_factory):
    """The four disks (three brokers', the controller's) at s3://kafkalog-test/cluster/node-<its node id>."""
    with s3_server(tmp_path_factory.mktemp("s3") / "s3.log") as env:
        for node, disk in cluster_4x.disks.items():
            upload(env, disk, f"{BUCKET}/node-{node}")
        yield env


def _uris(run) -> list[str]:
    return [f"s3://{BUCKET}/node-{n}" for n in run.disks]


def _reconcile_json(dirs: list[str], env: dict[str, str]) -> list[dict]:
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "reconcile", "--format", "json", *dirs],
                         capture_output=True, text=True, env={**os.environ, **env}, timeout=600)
    assert res.returncode in (0, 1), res.stderr[-3000:]
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_reconcile_over_uris_is_reconcile_over_the_local_disks(cluster_4x, bucket):
    local = _reconcile_json([str(d) for d in cluster_4x.disks.values()], {})
    # where each replica lies is the one thing that differs: its URI for its path
    where = {str(d): f"s3://{BUCKET}/node-{n}" for n, d in cluster_4x.disks.items()}
    text = json.dumps(local)
    for path, uri in where.items():
        text = text.replace(path, uri)
    want = json.loads(text)
    assert any(r["discarded_records"] for o in want if "replicas" in o for r in o["replicas"])  # (a case to get right)
    assert _reconcile_json(_uris(cluster_4x), bucket) == want
    assert _reconcile_json([f"s3://{BUCKET}/*"], bucket) == want  # a glob over the bucket, as the shell lists


def test_verify_over_uris_is_verify_over_the_local_disks(cluster_4x, bucket):
    """Each replica checked against the served log: the same problems, each named by its URI."""
    def problems(dirs: list[str], env: dict[str, str]) -> list[dict]:
        res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "verify", "--format", "json", *dirs],
                             capture_output=True, text=True, env={**os.environ, **env}, timeout=600)
        assert res.returncode in (0, 1), res.stderr[-3000:]
        return [o for o in map(json.loads, res.stdout.splitlines()) if o.get("type") == "problem"]

    local = problems([str(d) for d in cluster_4x.disks.values()], {})
    text = json.dumps(local)
    for n, d in cluster_4x.disks.items():
        text = text.replace(str(d), f"s3://{BUCKET}/node-{n}")
    assert any(p["kind"] == "not_served" for p in local)
    assert problems(_uris(cluster_4x), bucket) == json.loads(text)


def _dump_json(paths: list[str], env: dict[str, str]) -> str:
    """`kafkalog dump --format json PATH...`'s lines, in this process (with `env` set meanwhile)."""
    out, err = io.StringIO(), io.StringIO()
    with environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["dump", "--format", "json", *paths])
    assert code == 0, err.getvalue()[-3000:]
    return out.getvalue()


def test_dump_over_uris_is_dump_of_the_local_disks(cluster_4x, bucket):
    """`kafkalog dump --format json` of the disks behind URIs (a glob among them) prints what the local disks
    print, but for where each file lies: each partition once, from its served replica, as a cluster restarted on
    them served it to a consumer."""
    nodes = sorted(cluster_4x.disks)
    want = _dump_json([str(cluster_4x.disks[n]) for n in nodes], {})
    for n in nodes:
        want = want.replace(str(cluster_4x.disks[n]), f"s3://{BUCKET}/node-{n}")
    got = _dump_json([f"s3://{BUCKET}/node-[{nodes[0]}{nodes[1]}]", *(f"s3://{BUCKET}/node-{n}" for n in nodes[2:])],
                     bucket)
    assert got == want
    by_topic = dumped_records(got, cluster_4x.topics)
    for t in cluster_4x.topics:
        assert by_topic[t] == consumed(cluster_4x.served, "read_uncommitted", t)[1], t


@pytest.mark.parametrize("isolation", ["read_uncommitted", "read_committed"])
def test_read_arrow_over_uris_reads_the_served_log_the_local_disks_give(cluster_4x, bucket, isolation):
    options = {"subscribe": ",".join(cluster_4x.topics), "isolation.level": isolation, "includeHeaders": "true"}
    local = kafkalog.read_table([str(d) for d in cluster_4x.disks.values()], **options)
    with environment(bucket):
        got = kafkalog.read_table(_uris(cluster_4x), **options)
    key = ["topic", "partition", "offset"]
    local, got = local.sort_by([(k, "ascending") for k in key]), got.sort_by([(k, "ascending") for k in key])
    assert got.num_rows == local.num_rows > 0
    for name in ("topic", "partition", "offset", "key", "value", "timestamp", "headers"):
        assert got.column(name).equals(local.column(name)), name


def test_a_stream_of_the_disks_reads_each_partition_from_its_served_replica(spark, cluster_4x, tmp_path):
    """spark.readStream over the four disks, read_committed: each partition once, from the replica the restarted
    cluster serves, from its log start offset to its last stable offset (acksall-0's open transaction), as
    read_arrow reads them (which test_cluster_reading.py checks against the restarted cluster's consumer)."""
    isolation = "read_committed"
    disks = list(cluster_4x.disks.values())
    # (a stream takes one path: the disks as a glob, <run>/<node>/data)
    pattern = str(disks[0].parent.parent / "*" / disks[0].name)
    assert sorted(glob.glob(pattern)) == sorted(map(str, disks))
    options = {"subscribe": ",".join(cluster_4x.topics), "isolation.level": isolation}
    want = kafkalog.read_table([str(d) for d in disks], **options)
    seen: list[tuple] = []
    q = (spark.readStream.format("kafkalog").option("startingOffsets", "earliest")
         .option("kafka.isolation.level", isolation).option("subscribe", options["subscribe"]).load(pattern)
         .writeStream.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "cp"))
         .foreachBatch(lambda df, _: seen.extend((r.topic, r.partition, r.offset, r.value)
                                                 for r in df.select("topic", "partition", "offset", "value").collect()))
         .start())
    q.awaitTermination(300)
    q.stop()
    assert sorted(seen) == sorted(zip(*(want.column(c).to_pylist() for c in ("topic", "partition", "offset", "value")), strict=True))
