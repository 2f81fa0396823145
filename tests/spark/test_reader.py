"""The kafkalog data source on a real local SparkSession, against Kafka's own reading of the fixtures."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import kafkalog
from kafkalog.dataset import plan
from kafkalog.dataset.options import parse_options
from kafkalog.dataset.schema import output_columns
from tests.paths import ROOT
from tests.spark.expect import (
    PARTITIONS,
    SEGMENTS,
    expected_row,
    fixture_index,
    kafka_reading,
    partitions_expected,
    project,
    rows,
)

ALL_COLUMNS = [c[0] for c in output_columns(True, True)]

RECORD_KEYS = ["offset", "timestamp", "sequence", "key", "value", "headers", "control_type", "batch_position",
               "magic", "compression", "timestampType", "producer_id", "producer_epoch", "is_transactional",
               "is_control", "partition_leader_epoch"]
PARTITION_KEYS = ["offset", "timestamp", "sequence", "key", "value", "headers", "control_type", "batch_position"]


def read(spark, path, **options):
    """kafkalog's audit view: every column, damage as rows (PERMISSIVE) unless the test says otherwise."""
    options = {"includeHeaders": "true", "includeKafkalogColumns": "true", "mode": "PERMISSIVE", **options}
    return spark.read.format("kafkalog").options(**{k: str(v) for k, v in options.items()}).load(str(path))


def by_segment(all_rows):
    out = {}
    for r in all_rows:
        out.setdefault(os.path.basename(r["segment"]), []).append(r)
    return out


@pytest.fixture(scope="module")
def every_segment(spark):
    """Every segment fixture in one read, control records included."""
    return by_segment(rows(read(spark, SEGMENTS / "*.log", includeControlRecords="true")))


def fixtures(damaged: bool) -> list[str]:
    names = [f["name"] for f in fixture_index() if f["damaged"] == damaged]
    assert names
    return names


def test_schema_is_the_documented_one(spark):
    df = read(spark, SEGMENTS / "v2-none.log")
    assert df.columns == ALL_COLUMNS
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types["timestamp"] == "timestamp"
    assert types["headers"] == "array<struct<key:string,value:binary>>"
    assert types["key"] == types["value"] == "binary"


@pytest.mark.parametrize("name", fixtures(damaged=False))
def test_undamaged_segment_matches_kafka_row_for_row(every_segment, name):
    expected = kafka_reading(name)["records"]
    got = every_segment.get(f"{name}.log", [])
    assert all(r["damage"] is None for r in got)
    assert [project(r, RECORD_KEYS) for r in got] == expected
    assert all(r["topic"] is None and r["partition"] is None for r in got)
    assert all(r["segment"] == str(SEGMENTS / f"{name}.log") for r in got)


@pytest.mark.parametrize("name", fixtures(damaged=True))
def test_damaged_segment_permissive_keeps_every_record_and_reports_damage(every_segment, name):
    kafka = kafka_reading(name)
    got = every_segment[f"{name}.log"]
    records = [r for r in got if r["damage"] is None]
    damage = [r for r in got if r["damage"] is not None]
    # Every record Kafka hands out comes out, with its batch's fields.
    assert [project(r, RECORD_KEYS) for r in records] == kafka["records"]
    assert damage, "a damaged fixture must yield at least one damage row"
    for d in damage:
        assert d["segment"] == str(SEGMENTS / f"{name}.log") and d["batch_position"] is not None
        assert all(d[c] is None for c in ALL_COLUMNS if c not in ("segment", "batch_position", "damage"))
    # Where Kafka stops with an error, a damage row is at that position.
    for err in kafka["errors"]:
        if "position" in err:
            assert err["position"] in {d["batch_position"] for d in damage}


def test_control_records_are_left_out_by_default(spark):
    got = rows(read(spark, SEGMENTS / "v2-kraft-control.log"))
    expected = [r for r in kafka_reading("v2-kraft-control")["records"] if r["control_type"] is None]
    assert len(expected) < len(kafka_reading("v2-kraft-control")["records"])
    assert [project(r, RECORD_KEYS) for r in got] == expected
    assert not any(r["is_control"] for r in got)


def test_partition_and_log_directories_match_kafka(spark):
    got = rows(read(spark, PARTITIONS, includeControlRecords="true"))
    expected = partitions_expected()["partitions"]
    seen = {}
    for r in got:
        seen.setdefault(f"{r['topic']}-{r['partition']}", []).append(r)
    assert set(seen) == set(expected)
    for name, part in expected.items():
        mine = sorted(seen[name], key=lambda r: r["offset"])
        assert [project(r, PARTITION_KEYS) for r in mine] == [
            project(expected_row(e, None) | {"batch_position": e["batch_position"]}, PARTITION_KEYS)
            for e in part["records"]], name
        assert [os.path.basename(r["segment"]) for r in mine] == [e["segment"] for e in part["records"]]
        assert all(r["damage"] is None for r in mine)
    # Leftovers (.log.deleted, .log.cleaned) are not segments.
    assert not any(r["segment"].endswith((".deleted", ".cleaned", ".swap")) for r in got)


def test_read_committed_drops_aborted_transaction_and_markers(spark):
    path = SEGMENTS / "v2-transactions.log"
    kafka = kafka_reading("v2-transactions")["records"]
    assert [r["offset"] for r in kafka if r["control_type"] == "ABORT"] == [12]
    uncommitted = [r["offset"] for r in rows(read(spark, path))]
    assert uncommitted == [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 13, 14]
    committed = rows(read(spark, path, **{"isolation.level": "read_committed", "includeControlRecords": "true"}))
    assert [r["offset"] for r in committed] == [0, 1, 2, 3, 4, 5, 6, 13, 14]
    assert [project(r, RECORD_KEYS) for r in committed] == [
        r for r in kafka if r["offset"] in {0, 1, 2, 3, 4, 5, 6, 13, 14}]


def test_read_committed_across_byte_ranges_and_segments(spark):
    part = partitions_expected()["partitions"]["payments-0"]
    aborted = part["aborted_transactions"]
    assert aborted

    df = read(spark, PARTITIONS / "payments-0", maxPartitionBytes=1500, **{"isolation.level": "read_committed"})
    assert df.rdd.getNumPartitions() > len(part["segments"])
    got = rows(df)
    # expected.json's records carry no producer ids; the aborted ranges (from Kafka's .txnindex) are per
    # producer, so take each offset's producer from a plain read.
    producers = {r["offset"]: r["producer_id"]
                 for r in rows(read(spark, PARTITIONS / "payments-0", includeControlRecords="true"))}
    expected = [e["offset"] for e in part["records"] if e["control_type"] is None and not any(
        a["producer_id"] == producers[e["offset"]] and a["first_offset"] <= e["offset"] <= a["last_offset"]
        for a in aborted)]
    assert sorted(r["offset"] for r in got) == expected
    assert len(expected) < len([e for e in part["records"] if e["control_type"] is None])


def test_splitting_reads_every_record_exactly_once(spark):
    part = partitions_expected()["partitions"]["orders-0"]
    df = read(spark, PARTITIONS / "orders-0", maxPartitionBytes=2000, includeControlRecords="true")
    assert df.rdd.getNumPartitions() >= 3 * len(part["segments"])
    got = rows(df)
    assert sorted(r["offset"] for r in got) == [e["offset"] for e in part["records"]]
    per_task = df.withColumn("task", F.spark_partition_id()).groupBy("task").count().collect()
    assert len(per_task) >= 3 * len(part["segments"])


def test_a_segment_without_index_is_one_task(spark, tmp_path):
    d = tmp_path / "orders-0"
    d.mkdir()
    shutil.copy(PARTITIONS / "orders-0" / "00000000000000000000.log", d)
    df = read(spark, d, maxPartitionBytes=2000, includeControlRecords="true")
    assert df.rdd.getNumPartitions() == 1
    expected = [e["offset"] for e in partitions_expected()["partitions"]["orders-0"]["records"]
                if e["segment"] == "00000000000000000000.log"]
    assert [r["offset"] for r in rows(df)] == expected


def test_offset_range_is_pushed_down_and_exact(spark):
    path = PARTITIONS / "orders-0"
    ranges = plan.plan(str(path), parse_options({"startingOffsets": "150", "endingOffsets": "300"}))
    # Segments 0 and 312+ are skipped; reading starts inside segment 106 and stops inside segment 207.
    assert [os.path.basename(r.segment.location) for r in ranges] == ["00000000000000000106.log",
                                                                    "00000000000000000207.log"]
    assert ranges[0].start > 0 and ranges[1].end < ranges[1].segment.size
    got = rows(read(spark, path, startingOffsets=150, endingOffsets=300))
    expected = [e["offset"] for e in partitions_expected()["partitions"]["orders-0"]["records"]
                if 150 <= e["offset"] < 300 and e["control_type"] is None]
    assert [r["offset"] for r in sorted(got, key=lambda r: r["offset"])] == expected


def test_starting_and_ending_timestamp_are_kafkas_offsets_for_times(spark):
    """Kafka's source turns a timestamp into the first offset whose timestamp is >= it; later offsets with
    older timestamps (late records) are read, as a consumer would."""
    path = PARTITIONS / "orders-0"
    records = [e for e in partitions_expected()["partitions"]["orders-0"]["records"]]
    start, end = 1700000100000, 1700000120000
    first = min(e["offset"] for e in records if e["timestamp"] >= start)
    last = min(e["offset"] for e in records if e["timestamp"] >= end)
    expected = [e["offset"] for e in records if first <= e["offset"] < last and e["control_type"] is None]
    assert any(e["timestamp"] < start for e in records if first <= e["offset"] < last), "the fixture has late records"
    got = rows(read(spark, path, startingTimestamp=start, endingTimestamp=end))
    assert sorted(r["offset"] for r in got) == expected
    ranges = plan.plan(str(path), parse_options({"startingTimestamp": str(start)}))
    whole = plan.plan(str(path), parse_options({}))
    assert sum(r.end - r.start for r in ranges) < sum(r.end - r.start for r in whole) / 2, "segments before it are skipped"
    with pytest.raises(Exception, match="no record has a timestamp"):
        read(spark, path, startingTimestamp=4102444800000).collect()
    assert read(spark, path, startingTimestamp=4102444800000, startingOffsetsByTimestampStrategy="latest").count() == 0


def test_checksum_validation_can_be_turned_off(spark):
    path = SEGMENTS / "damaged-v2-value-flip.log"
    on = rows(read(spark, path))
    assert [r["damage"] for r in on if r["damage"]] and "ChecksumError" in next(r["damage"] for r in on if r["damage"])
    off = rows(read(spark, path, validateChecksums="false"))
    assert all(r["damage"] is None for r in off)
    assert [r["offset"] for r in off] == [r["offset"] for r in on if r["damage"] is None] == list(range(9))


def test_dropmalformed_drops_damaged_batches_and_damage_rows(spark):
    got = rows(read(spark, SEGMENTS / "damaged-v2-value-flip.log", mode="DROPMALFORMED"))
    assert [r["offset"] for r in got] == [0, 1, 2, 5, 6, 7, 8]  # the batch at byte 118 (offsets 3, 4) is dropped
    assert all(r["damage"] is None for r in got)
    truncated = rows(read(spark, SEGMENTS / "damaged-truncated-records.log", mode="dropmalformed"))
    assert [r["offset"] for r in truncated] == [0, 1, 2, 3, 4]


def test_failfast_names_file_and_position(spark):
    with pytest.raises(Exception) as info:
        read(spark, SEGMENTS / "damaged-v2-value-flip.log", mode="FAILFAST").collect()
    assert "damaged-v2-value-flip.log: byte 118" in str(info.value)
    with pytest.raises(Exception) as info:
        read(spark, SEGMENTS / "damaged-truncated-records.log", mode="FAILFAST").collect()
    assert "damaged-truncated-records.log: byte 217" in str(info.value)
    # Without checksum validation the value flip is not damage.
    assert read(spark, SEGMENTS / "damaged-v2-value-flip.log", mode="FAILFAST", validateChecksums="false").count() == 9


def test_globs_and_directories(spark):
    got = rows(read(spark, PARTITIONS / "orders-*").select("topic", "partition").distinct())
    assert sorted((r["topic"], r["partition"]) for r in got) == [("orders", 0), ("orders", 1)]
    files = rows(read(spark, PARTITIONS / "orders-0" / "0000000000000000010*.log", includeControlRecords="true"))
    assert {os.path.basename(r["segment"]) for r in files} == {"00000000000000000106.log"}
    assert len(files) == 207 - 106


def test_a_list_of_paths_reads_as_read_arrow_reads_it(spark):
    """load([A, B]) (Spark passes the option paths, a JSON array), option("path", [A, B]) and option("paths", JSON):
    a list of paths, globs and URIs, each segment once, the rows read_arrow gives for the same list."""
    listed = [str(PARTITIONS / "orders-0"), str(PARTITIONS / "payments-*"), "file://" + str(PARTITIONS / "orders-1"),
              str(PARTITIONS / "orders-0" / "00000000000000000000.log")]  # (a segment named twice: read once)
    options = {"includeControlRecords": "true"}

    def keyed(got):
        return sorted((r["topic"], r["partition"], r["offset"]) for r in got)
    expected = keyed(kafkalog.read_table(listed, **options).to_pylist())
    assert {(t, p) for t, p, _ in expected} == {("orders", 0), ("orders", 1), ("payments", 0)}
    assert len(expected) == len(set(expected))

    def reader():  # (a DataFrameReader keeps the options it is given: a new one each time)
        return spark.read.format("kafkalog").options(**options)
    assert keyed(rows(reader().load(listed))) == expected
    assert keyed(rows(reader().option("path", listed).load())) == expected  # (PySpark passes str(list))
    assert keyed(rows(reader().option("paths", json.dumps(listed)).load())) == expected
    assert keyed(rows(reader().load(listed[:1]))) == [k for k in expected if k[:2] == ("orders", 0)]
    # A glob's character class is a glob, not a list.
    assert {r["partition"] for r in rows(read(spark, str(PARTITIONS / "orders-[1]")))} == {1}
    with pytest.raises(Exception, match="option paths must be a JSON array"):
        spark.read.format("kafkalog").option("paths", str(PARTITIONS)).load().collect()
    with pytest.raises(Exception, match="needs a path"):
        spark.read.format("kafkalog").load([]).collect()
    with pytest.raises(Exception, match="no such file"):
        reader().load([str(PARTITIONS / "orders-0"), str(SEGMENTS / "does-not-exist.log")]).collect()


def test_read_replicas_reads_renamed_directories_marked_as_read_arrow_does(spark, tmp_path):
    """readReplicas: a real 4.3.1 broker's log directory with a -delete directory beside its partitions; Spark's
    `broker` and `renamed` columns are read_arrow's."""
    root = tmp_path / "data"
    shutil.copytree(ROOT / "tests" / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1", root)
    shutil.copytree(root / "t-0", root / ("t-0." + "0123456789abcdef" * 2 + "-delete"))
    columns = ["topic", "partition", "offset", "broker", "renamed"]
    expected = sorted(map(tuple, (r.values() for r in kafkalog.read_table(root, readReplicas=True, subscribe="t")
                                  .select(columns).to_pylist())), key=str)
    assert ("t", 0, 0, 1, "delete") in expected and ("t", 0, 0, 1, None) in expected
    df = spark.read.format("kafkalog").option("readReplicas", "true").option("subscribe", "t").load(str(root))
    assert df.columns[-2:] == ["broker", "renamed"]
    assert sorted((tuple(r[c] for c in columns) for r in rows(df.select(*columns))), key=str) == expected


def test_log_dir_skips_partitions_kafka_is_deleting_or_moving(spark, tmp_path):
    # Kafka renames such directories `topic-N.<uuid without dashes>-delete` (or -future, -stray).
    shutil.copytree(PARTITIONS / "orders-1", tmp_path / "orders-1")
    shutil.copytree(PARTITIONS / "orders-0", tmp_path / ("orders-0." + "0123456789abcdef" * 2 + "-delete"))
    got = rows(read(spark, tmp_path).select("topic", "partition").distinct())
    assert [(r["topic"], r["partition"]) for r in got] == [("orders", 1)]


def test_file_uri_is_read_through_pyarrow(spark):
    uri = "file://" + str(PARTITIONS / "orders-0")
    df = read(spark, uri, maxPartitionBytes=4000, includeControlRecords="true", startingOffsets=10)
    assert df.rdd.getNumPartitions() > 5
    got = rows(df)
    assert all(r["segment"].startswith("file:///") for r in got)
    expected = [e for e in partitions_expected()["partitions"]["orders-0"]["records"] if e["offset"] >= 10]
    assert sorted(r["offset"] for r in got) == [e["offset"] for e in expected]
    assert sorted(r["segment"].rsplit("/", 1)[1] for r in got) == sorted(e["segment"] for e in expected)


def test_bad_options_and_paths_are_errors(spark):
    with pytest.raises(Exception, match="unknown option"):
        read(spark, SEGMENTS / "v2-none.log", startOffset=3).collect()
    with pytest.raises(Exception, match="mode"):
        read(spark, SEGMENTS / "v2-none.log", mode="LENIENT").collect()
    with pytest.raises(Exception, match="no such file"):
        read(spark, SEGMENTS / "does-not-exist.log").collect()


@pytest.mark.parametrize("partition", ["orders-0", "orders-1", "payments-0", "broken-index-0"])
def test_pushed_down_byte_ranges_never_skip_a_wanted_batch(partition):
    """For every offset, the planned ranges cover the batches of every record in [start, end)."""
    records = partitions_expected()["partitions"][partition]["records"]
    where = {e["offset"]: (e["segment"], e["batch_position"]) for e in records}
    offsets = sorted(where)
    moved = 0
    for target in offsets[::3]:
        ranges = plan.plan(str(PARTITIONS / partition), parse_options({"startingOffsets": str(target)}))
        covered = [(os.path.basename(r.segment.location), r.start, r.end) for r in ranges]
        moved += any(start > 0 for _, start, _ in covered)
        for off in offsets:
            if off >= target:
                seg, pos = where[off]
                assert any(s == seg and a <= pos < b for s, a, b in covered), (target, off)
        ends = plan.plan(str(PARTITIONS / partition), parse_options({"endingOffsets": str(target + 1)}))
        covered = [(os.path.basename(r.segment.location), r.start, r.end) for r in ends]
        for off in offsets:
            if off <= target:
                seg, pos = where[off]
                assert any(s == seg and a <= pos < b for s, a, b in covered), (target, off)
    assert moved, "the offset index should move some start positions"


def test_kafka_07_partitions_read_as_read_arrow_reads_them(spark):
    """Kafka 0.7's `.kafka` segments (tests/log/test_kafka_07.py holds their offsets to 0.7's iterator)."""
    logs = ROOT / "tests" / "fixtures" / "kafka07" / "logs"
    got = read(spark, logs).collect()  # (in the plan's order: one task per segment, each in file order)
    want = kafkalog.read_table(str(logs), includeHeaders=True, includeKafkalogColumns=True).to_pylist()
    assert [(r["partition"], r["offset"], bytes(r["value"]), r["compression"]) for r in got] == \
        [(r["partition"], r["offset"], r["value"], r["compression"]) for r in want]
    assert len(got) == 27 and {r["damage"] for r in got} == {None}


def test_a_brokers_log_directory_reads_as_the_broker_serves_it(spark, tmp_path):
    """From the log start offset (the checkpoint's, as after deleteRecords), to where a killed broker's recovery
    ends the log (a preallocated segment's zeros); includeBelowLogStart marks what lies below (served_log)."""
    log_dir = tmp_path / "data"
    shutil.copytree(Path(__file__).resolve().parents[1] / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1", log_dir)
    (log_dir / "log-start-offset-checkpoint").write_text("0\n1\nt 0 5\n")
    (log_dir / ".kafka_cleanshutdown").unlink()
    segment = log_dir / "t-0" / "00000000000000000000.log"
    segment.write_bytes(segment.read_bytes() + bytes(4096))
    df = spark.read.format("kafkalog").option("subscribe", "t").load(str(log_dir))
    assert sorted(r.offset for r in df.where("partition = 0").collect()) == list(range(5, 20))
    below = spark.read.format("kafkalog").option("subscribe", "t").option("includeBelowLogStart", "true") \
        .load(str(log_dir)).where("partition = 0")
    assert sorted((r.offset, r.below_log_start) for r in below.collect()) == \
        [(o, o < 5) for o in range(20)]
