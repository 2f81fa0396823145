"""parse_segment / parse_batch UDFs on bytes already in a DataFrame."""
from __future__ import annotations

import json

from pyspark.sql import functions as F

from kafkalog.spark.udfs import parse_batch_udf, parse_segment_udf
from tests.spark.expect import SEGMENTS, kafka_reading, project, rows

KEYS = ["offset", "timestamp", "sequence", "key", "value", "headers", "control_type", "batch_position", "magic",
        "compression", "timestamp_type", "producer_id", "producer_epoch", "is_transactional", "is_control",
        "partition_leader_epoch"]
NAMES = ["v2-headers", "v2-transactions", "v1-gzip", "v0-snappy", "v2-zstd", "damaged-v2-value-flip"]


def test_parse_segment_on_binary_file_contents(spark):
    parse_segment = parse_segment_udf(include_control_records=True)
    files = (spark.read.format("binaryFile").load(str(SEGMENTS / "*.log"))
             .where(F.element_at(F.split("path", "/"), -1).isin([f"{n}.log" for n in NAMES])))
    exploded = files.select("path", F.explode(parse_segment("content")).alias("r")).select("path", "r.*")
    got = {}
    for r in rows(exploded):
        got.setdefault(r["path"].rsplit("/", 1)[1][:-len(".log")], []).append(r)
    assert set(got) == set(NAMES)
    for name in NAMES:
        records = [r for r in got[name] if r["damage"] is None]
        assert [project(r, KEYS) for r in records] == kafka_reading(name, kafka_shape=False)["records"], name
    damage = [r for r in got["damaged-v2-value-flip"] if r["damage"] is not None]
    assert len(damage) == 1 and damage[0]["batch_position"] == 118 and "ChecksumError" in damage[0]["damage"]


def test_parse_segment_leaves_control_records_out_by_default(spark):
    data = (SEGMENTS / "v2-transactions.log").read_bytes()
    df = spark.createDataFrame([(data,), (None,)], "content binary")
    out = df.select(parse_segment_udf()("content").alias("records")).collect()
    assert [r.offset for r in out[0].records] == [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 13, 14]
    assert out[1].records is None


def test_parse_batch_on_single_batches(spark):
    data = (SEGMENTS / "v2-transactions.log").read_bytes()
    batches = [json.loads(line) for line in (SEGMENTS / "v2-transactions.kafka.jsonl").read_text().splitlines()
               if json.loads(line)["type"] == "batch"]
    df = spark.createDataFrame([(b["position"], data[b["position"]:b["position"] + b["size"]]) for b in batches]
                               + [(-1, data[:130])], "position long, content binary")
    parse_batch = parse_batch_udf(include_control_records=True)
    out = {}
    for r in rows(df.select("position", F.explode(parse_batch("content")).alias("r")).select("position", "r.*")):
        out.setdefault(r.pop("position"), []).append(r)
    kafka = kafka_reading("v2-transactions", kafka_shape=False)["records"]
    for b in batches:
        # The bytes of one batch alone: positions are relative to the bytes given.
        assert [project(r, KEYS) | {"batch_position": b["position"]} for r in out[b["position"]]] == \
            [k for k in kafka if k["batch_position"] == b["position"]]
    # A batch followed by more bytes: its records, then a damage element for the rest.
    assert [r["offset"] for r in out[-1] if r["damage"] is None] == [0, 1, 2]
    assert "bytes follow the batch" in out[-1][-1]["damage"]
