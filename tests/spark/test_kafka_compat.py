"""format("kafkalog") as a Spark Kafka source user knows it: columns, options, failOnDataLoss, pushed filters."""
from __future__ import annotations

import datetime as dt
import shutil

import pytest
from pyspark.sql import functions as F

from kafkalog.dataset import plan
from kafkalog.dataset.options import parse_options
from kafkalog.spark.datasource import KafkaLogPushdownReader
from tests.spark.expect import PARTITIONS, SEGMENTS, expected_row, partitions_expected, project, rows

# Spark's Kafka source schema (KafkaRecordToRowConverter.scala), in order.
KAFKA_SCHEMA = [("key", "binary"), ("value", "binary"), ("topic", "string"), ("partition", "int"),
                ("offset", "bigint"), ("timestamp", "timestamp"), ("timestampType", "int")]
HEADERS = ("headers", "array<struct<key:string,value:binary>>")


def kafka_records(name: str) -> list[dict]:
    return [e for e in partitions_expected()["partitions"][name]["records"] if e["control_type"] is None]


def offsets(df) -> list[int]:
    return sorted(r["offset"] for r in rows(df.select("offset")))


def test_default_columns_are_exactly_kafkas(spark):
    df = spark.read.format("kafkalog").load(str(PARTITIONS / "orders-0"))
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == KAFKA_SCHEMA
    with_headers = spark.read.format("kafkalog").option("includeHeaders", "true").load(str(PARTITIONS / "orders-0"))
    assert [(f.name, f.dataType.simpleString()) for f in with_headers.schema.fields] == [*KAFKA_SCHEMA, HEADERS]


def test_kafka_columns_hold_kafkas_values(spark):
    """Every row of a partition against Kafka's reading, in the Kafka source's terms."""
    got = rows(spark.read.format("kafkalog").option("includeHeaders", "true").load(str(PARTITIONS / "payments-0")))
    for name, part in [("payments-0", partitions_expected()["partitions"]["payments-0"])]:
        topic, partition = name.rsplit("-", 1)
        mine = sorted((r for r in got if r["topic"] == topic and r["partition"] == int(partition)),
                      key=lambda r: r["offset"])
        expected = [expected_row(e, None) for e in part["records"] if e["control_type"] is None]
        keys = ["offset", "timestamp", "key", "value", "headers"]
        assert [project(r, keys) for r in mine] == [project(e, keys) for e in expected], name
        assert {r["timestampType"] for r in mine} <= {0, 1}
    # magic 0 has no timestamp: Kafka's source says timestampType -1 and timestamp -1 ms.
    v0 = rows(spark.read.format("kafkalog").load(str(SEGMENTS / "v0-none.log")))
    assert v0 and {(r["timestampType"], r["timestamp"]) for r in v0} == {(-1, -1000)}


def test_a_kafka_source_job_runs_with_format_and_load_changed(spark):
    """The options a format("kafka") job carries are accepted; subscribe, offsets and isolation level apply."""
    df = (spark.read.format("kafkalog")
          .option("kafka.bootstrap.servers", "broker:9092")
          .option("subscribe", "payments")
          .option("startingOffsets", "earliest")
          .option("endingOffsets", "latest")
          .option("kafka.isolation.level", "read_committed")
          .option("kafkaConsumer.pollTimeoutMs", "512")
          .load(str(PARTITIONS))
          .selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)", "topic", "partition", "offset"))
    got = rows(df)
    assert {r["topic"] for r in got} == {"payments"}
    plain = spark.read.format("kafkalog").option("isolation.level", "read_committed").load(str(PARTITIONS / "payments-0"))
    assert sorted(r["offset"] for r in got) == offsets(plain)
    assert len(got) < len(kafka_records("payments-0"))  # aborted transactions are gone


def test_starting_and_ending_offsets_json_per_partition(spark):
    df = (spark.read.format("kafkalog")
          .option("startingOffsets", '{"orders":{"0":150,"1":-2}}')
          .option("endingOffsets", '{"orders":{"0":160,"1":-1}}')
          .option("assign", '{"orders":[0,1]}')
          .load(str(PARTITIONS)))
    got = rows(df.select("topic", "partition", "offset"))
    zero = sorted(r["offset"] for r in got if r["partition"] == 0)
    one = sorted(r["offset"] for r in got if r["partition"] == 1)
    assert zero == [e["offset"] for e in kafka_records("orders-0") if 150 <= e["offset"] < 160]
    assert one == [e["offset"] for e in kafka_records("orders-1")]
    assert {r["topic"] for r in got} == {"orders"}


@pytest.mark.parametrize("options, message", [
    ({"startingOffsets": "latest"}, "not a valid start for a batch"),
    ({"startingOffsets": '{"orders":{"0":-1}}'}, "not a valid start for a batch"),
    ({"endingOffsets": "earliest"}, "not a valid end for a batch"),
    ({"startingOffsets": '{"orderz":{"0":5}}'}, "orderz-0, not found under the path"),
    ({"startingOffsets": "{nope"}, "expected JSON"),
    ({"subscribe": "orders", "assign": '{"orders":[0]}'}, "only one of"),
    ({"minPartitions": "0"}, "must be at least 1"),
])
def test_bad_kafka_options_are_errors(spark, options, message):
    with pytest.raises(Exception, match=message):
        spark.read.format("kafkalog").options(**options).load(str(PARTITIONS)).collect()


def test_fail_on_data_loss(spark, tmp_path):
    damaged = str(SEGMENTS / "damaged-v2-value-flip.log")
    with pytest.raises(Exception, match=r"damaged-v2-value-flip\.log: byte 118"):
        spark.read.format("kafkalog").load(damaged).collect()
    # false: the damaged batch is skipped (as DROPMALFORMED), the rest is read.
    skipped = spark.read.format("kafkalog").option("failOnDataLoss", "false").load(damaged)
    assert offsets(skipped) == [0, 1, 2, 5, 6, 7, 8]
    # Offsets asked for that retention removed: the first segment is gone.
    d = tmp_path / "orders-0"
    shutil.copytree(PARTITIONS / "orders-0", d)
    for f in d.glob("00000000000000000000.*"):
        f.unlink()
    with pytest.raises(Exception, match=r"offsets \[50, 106\) are no longer in the files"):
        spark.read.format("kafkalog").option("startingOffsets", "50").load(str(d)).collect()
    lenient = spark.read.format("kafkalog").option("startingOffsets", "50").option("failOnDataLoss", "false").load(str(d))
    assert offsets(lenient) == [e["offset"] for e in kafka_records("orders-0") if e["offset"] >= 106]


def test_damage_rows_for_audits(spark):
    df = spark.read.format("kafkalog").option("mode", "PERMISSIVE").load(str(SEGMENTS / "damaged-v2-value-flip.log"))
    assert "damage" in df.columns and "batch_position" in df.columns
    damage = rows(df.where("damage IS NOT NULL").select("batch_position", "damage"))
    assert [r["batch_position"] for r in damage] == [118] and "ChecksumError" in damage[0]["damage"]


def test_min_partitions_splits_at_index_positions(spark):
    path = str(PARTITIONS / "orders-0")
    base = spark.read.format("kafkalog").load(path)
    split = spark.read.format("kafkalog").option("minPartitions", "20").load(path)
    assert base.rdd.getNumPartitions() == len(partitions_expected()["partitions"]["orders-0"]["segments"])
    assert split.rdd.getNumPartitions() >= 20
    assert offsets(split) == offsets(base) == [e["offset"] for e in kafka_records("orders-0")]


WHERE = [
    "offset >= 150 AND offset < 160", "offset IN (3, 150, 420)", "topic = 'orders' AND partition = 1 AND offset <= 90",
    "timestamp < TIMESTAMP '2023-11-14 22:14:00+00:00' AND offset > 100",
    "offset % 7 = 0",  # not pushed: Spark applies it
]


def test_pushed_filters_give_exact_results(spark):
    everything = spark.createDataFrame(spark.read.format("kafkalog").load(str(PARTITIONS))
                                       .select("topic", "partition", "offset", "timestamp").toPandas())
    for where in WHERE:
        expected = sorted((r["topic"], r["partition"], r["offset"]) for r in rows(everything.where(where)))
        df = spark.read.format("kafkalog").load(str(PARTITIONS)).where(where)
        got = sorted((r["topic"], r["partition"], r["offset"]) for r in rows(df.select("topic", "partition", "offset")))
        assert got == expected, where


def test_pushed_offset_filter_skips_segments_and_bytes(spark):
    path = str(PARTITIONS / "orders-0")
    # Fresh DataFrames: Spark 4.1-4.3 keeps a DataFrame's first pushed-down plan for later unfiltered reads
    # of that same DataFrame (see docs/spark.md).
    pushed = spark.read.format("kafkalog").load(path).where("offset > 430").rdd.getNumPartitions()
    assert pushed == 1 < spark.read.format("kafkalog").load(path).rdd.getNumPartitions()
    from pyspark.sql.datasource import EqualTo, GreaterThan, In, LessThan

    reader = KafkaLogPushdownReader({"path": path})
    ts = dt.datetime(2023, 11, 14, 22, 15, tzinfo=dt.UTC)
    rest = list(reader.pushFilters([GreaterThan(("offset",), 430), LessThan(("timestamp",), ts),
                                    In(("partition",), (0, 1)), EqualTo(("key",), b"x")]))
    assert rest == [EqualTo(("key",), b"x")]
    ranges = reader.partitions()
    whole = plan.plan(path, parse_options({}))
    assert sum(r.value.end - r.value.start for r in ranges) < sum(r.end - r.start for r in whole) / 4


def test_time_filter_uses_the_time_index(spark):
    from pyspark.sql.datasource import GreaterThanOrEqual

    path = str(PARTITIONS / "orders-0")
    reader = KafkaLogPushdownReader({"path": path})
    start = dt.datetime.fromtimestamp(1700000100, tz=dt.UTC)
    assert list(reader.pushFilters([GreaterThanOrEqual(("timestamp",), start)])) == []
    ranges = [p.value for p in reader.partitions()]
    assert any(r.start > 0 for r in ranges), "the time index should move a start position"
    got = rows(spark.read.format("kafkalog").load(path).where(F.col("timestamp") >= F.lit(start)).select("offset"))
    # A plain filter: late records (older timestamps at later offsets) are not returned.
    assert sorted(r["offset"] for r in got) == [e["offset"] for e in kafka_records("orders-0")
                                                if e["timestamp"] >= 1700000100000]


def test_without_pushdown_the_same_results(spark):
    """A session without Python filter pushdown (or a PySpark before 4.1) gets a reader without pushFilters."""
    import kafkalog.spark
    from kafkalog.spark.datasource import KafkaLogReader

    assert "pushFilters" not in KafkaLogReader.__dict__
    path = str(PARTITIONS / "orders-0")
    with_pushdown = offsets(spark.read.format("kafkalog").load(path).where("offset >= 400"))
    try:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
        kafkalog.spark.register(spark)  # follows the setting: no pushdown
        df = spark.read.format("kafkalog").load(path)
        assert offsets(df.where("offset >= 400")) == with_pushdown
        assert df.where("offset >= 400").rdd.getNumPartitions() == df.rdd.getNumPartitions()
    finally:
        kafkalog.spark.register(spark, filter_pushdown=True)
    assert with_pushdown == [e["offset"] for e in kafka_records("orders-0") if e["offset"] >= 400]
