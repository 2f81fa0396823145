"""kafkalog.read_arrow over directories, with the Kafka source's options: exactly what Spark gives.

Spark's side is the real data source on a real local SparkSession (whose own tests hold it to
Kafka's reading of the fixtures); read_arrow must give the same rows in the same columns, on one
thread and on several.
"""
from __future__ import annotations

import gc
import os
import shutil
import threading
import time

import pyarrow as pa
import pytest

import kafkalog
from kafkalog.errors import DamagedDataError, DataLossError, KafkalogError, UsageError
from tests.paths import FIXTURES, SAMPLES

PARTITIONS = FIXTURES / "partitions"
SEGMENTS = FIXTURES / "segments"
INTERNAL = FIXTURES / "internal"

PATHS = {
    "log dir": PARTITIONS,
    "partition": PARTITIONS / "orders-1",
    "damaged index": PARTITIONS / "broken-index-0",
    "glob": PARTITIONS / "orders-*",
    "internal log dir": INTERNAL,
    # the loose sample segments and the partitions beside them (a directory is read as Kafka lays it out)
    "samples": SAMPLES / "*",
}

OPTIONS = {
    "defaults": {},
    "headers": {"includeHeaders": "true"},
    "subscribe": {"subscribe": "orders", "includeHeaders": "true"},
    "pattern": {"subscribePattern": "pay.*"},
    "assign": {"assign": '{"orders":[1]}'},
    "offsets JSON": {"subscribe": "orders", "startingOffsets": '{"orders":{"0":150,"1":-2}}',
                     "endingOffsets": '{"orders":{"0":420,"1":-1}}'},
    "plain offsets": {"startingOffsets": "60", "endingOffsets": "130"},
    "timestamps": {"startingTimestamp": "1700000030000"},
    "read_committed": {"kafka.isolation.level": "read_committed", "includeKafkalogColumns": "true"},
    "control records": {"includeControlRecords": "true", "includeKafkalogColumns": "true"},
    "permissive": {"mode": "PERMISSIVE", "includeHeaders": "true"},
    "lenient": {"failOnDataLoss": "false"},
    "no checksums": {"validateChecksums": "false", "mode": "PERMISSIVE"},
    "decode": {"decode": "true", "includeControlRecords": "true"},
    "small ranges": {"maxPartitionBytes": "4096", "includeKafkalogColumns": "true"},
}

def _rows(table: pa.Table) -> list[dict]:
    """Rows in a stable order, timestamps as integers (Spark's Arrow may name the zone differently)."""
    columns = {}
    for name, col in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_timestamp(col.type):
            col = col.cast(pa.int64())
        columns[name] = col
    rows = pa.table(columns).to_pylist()
    order = [c for c in ("topic", "partition", "segment", "batch_position", "offset") if c in table.column_names]
    return sorted(rows, key=lambda r: (*tuple((r[c] is None, r[c] if r[c] is not None else 0) for c in order), repr(r)))


def _spark(spark, path, options) -> pa.Table:
    return spark.read.format("kafkalog").options(**options).load(str(path)).toArrow()


# Every option set on the log directory; on the other paths, the sets whose planning depends on the path.
CASES = [("log dir", o) for o in OPTIONS] + [
    (p, o) for p in PATHS if p != "log dir"
    for o in ("defaults", "offsets JSON", "timestamps", "read_committed")]


@pytest.mark.parametrize("path_name, option_set", CASES)
def test_read_arrow_gives_what_spark_gives(spark, path_name, option_set):
    path, options = PATHS[path_name], OPTIONS[option_set]
    try:
        expected = _spark(spark, path, options)
    except Exception as e:  # noqa: BLE001  (Spark wraps kafkalog's error: read_arrow must raise the same)
        with pytest.raises(KafkalogError) as refused:
            kafkalog.read_table(path, **options)
        assert str(refused.value) in str(e)
        return
    got = kafkalog.read_table(path, threads=1, **options)
    assert got.schema.names == expected.schema.names
    assert _rows(got) == _rows(expected)


@pytest.mark.parametrize("path_name", ["log dir", "internal log dir", "samples"])
def test_threads_give_the_rows_of_one_thread_in_its_order(path_name):
    options = {"includeKafkalogColumns": True, "mode": "PERMISSIVE", "maxPartitionBytes": 2048,
               "includeControlRecords": True}
    one = kafkalog.read_table(PATHS[path_name], threads=1, **options)
    assert one.num_rows > 100
    for n in (2, 3, 8):
        assert kafkalog.read_table(PATHS[path_name], threads=n, **options).equals(one), n


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core here: the default is one thread")
def test_the_default_decodes_on_the_cores():
    before = {t.ident for t in threading.enumerate()}
    reader = kafkalog.read_arrow(PATHS["log dir"], maxPartitionBytes=2048, rowsPerBatch=1)
    assert reader.read_next_batch().num_rows == 1
    started = {t.name for t in threading.enumerate() if t.ident not in before}
    expected = min(8, len(os.sched_getaffinity(0)))
    # (the consumer's thread decodes too: one fewer started)
    assert sum(name.startswith("kafkalog-read") for name in started) == expected - 1
    reader.close()


def test_threads_stop_when_the_reader_is_left_early():
    before = {t.ident for t in threading.enumerate()}
    reader = kafkalog.read_arrow(PATHS["log dir"], threads=3, maxPartitionBytes=2048, rowsPerBatch=1)
    assert reader.read_next_batch().num_rows == 1
    reader.close()
    del reader  # (pyarrow lets go of the batches' generator, whose end stops the threads, only with the reader)
    gc.collect()
    deadline = time.monotonic() + 10
    while {t.ident for t in threading.enumerate() if t.name.startswith("kafkalog-read")} - before:
        assert time.monotonic() < deadline, "decoding threads still running after the reader is gone"
        time.sleep(0.05)


@pytest.mark.parametrize("rows", [1, 7, 10000])
def test_rows_per_batch_bounds_every_batch_and_changes_no_row(rows):
    # Rows are decoded and shaped in larger tables (dataset.rows.SHAPED_ROWS), then cut to the option's size.
    options = {"includeKafkalogColumns": True, "mode": "PERMISSIVE", "includeControlRecords": True}
    whole = kafkalog.read_table(PARTITIONS, **options)
    batches = list(kafkalog.read_arrow(PARTITIONS, rowsPerBatch=rows, **options))
    assert max(b.num_rows for b in batches) == min(rows, max(b.num_rows for b in whole.to_batches()))
    assert all(b.num_rows for b in batches)
    assert pa.Table.from_batches(batches).equals(whole)


def test_snake_case_and_python_values_are_the_kafka_source_options():
    spark_names = kafkalog.read_table(PARTITIONS, subscribe="orders", includeHeaders="true",
                                      startingOffsets='{"orders":{"0":150,"1":-2}}',
                                      **{"kafka.isolation.level": "read_committed"})
    snake = kafkalog.read_table(PARTITIONS, subscribe=["orders"], include_headers=True,
                                starting_offsets={"orders": {"0": 150, "1": -2}},
                                kafka_isolation_level="read_committed")
    assert snake.equals(spark_names)
    assert set(snake.column("topic").to_pylist()) == {"orders"}
    assert min(r["offset"] for r in snake.select(["partition", "offset"]).to_pylist() if r["partition"] == 0) >= 150


def test_the_reader_carries_the_arrow_stream_interface():
    reader = kafkalog.read_arrow(PARTITIONS / "orders-0")
    assert isinstance(reader, pa.RecordBatchReader)
    assert hasattr(reader, "__arrow_c_stream__")
    table = pa.RecordBatchReader.from_stream(reader).read_all()
    assert table.num_rows == kafkalog.read_table(PARTITIONS / "orders-0").num_rows > 0


@pytest.mark.parametrize("path, options, error, message", [
    ("missing", {}, UsageError, "no such file or directory"),
    ("log dir", {"subscribe": "orders", "assign": '{"orders":[0]}'}, UsageError, "only one of"),
    ("log dir", {"startingOfsets": "10"}, UsageError, "unknown option 'startingOfsets'"),
    ("log dir", {"startingOffsets": "latest"}, UsageError, "not a valid start"),
    ("log dir", {"includeHeaders": "maybe"}, UsageError, "expected true or false"),
    ("log dir", {"threads": 0}, UsageError, "threads must be at least 1"),
])
def test_bad_paths_and_options_are_usage_errors(tmp_path, path, options, error, message):
    target = tmp_path / "nothing-here" if path == "missing" else PATHS[path]
    with pytest.raises(error, match=message):
        kafkalog.read_table(target, **options)


def test_damage_fails_the_read_naming_file_and_byte_and_keeps_nothing_silently():
    damaged = SEGMENTS / "damaged-v2-value-flip.log"
    for threads in (1, 2):
        with pytest.raises(DamagedDataError, match=r"damaged-v2-value-flip\.log: byte 118"):
            kafkalog.read_table(damaged, threads=threads)
    lenient = kafkalog.read_table(damaged, failOnDataLoss=False)
    assert lenient.column("offset").to_pylist() == [0, 1, 2, 5, 6, 7, 8]


def test_offsets_no_longer_in_the_files_are_data_loss(tmp_path):
    d = tmp_path / "orders-0"
    shutil.copytree(PARTITIONS / "orders-0", d)
    for f in d.glob("00000000000000000000.*"):
        f.unlink()
    with pytest.raises(DataLossError, match=r"offsets \[50, 106\) are no longer in the files"):
        kafkalog.read_table(d, startingOffsets=50)
    assert kafkalog.read_table(d, startingOffsets=50, failOnDataLoss=False).column("offset")[0].as_py() == 106

