"""spark.readStream.format("kafkalog") inside a broker's log directory streams the log that broker serves, as a
batch read does: from the log start offset (below it with includeBelowLogStart), to where Kafka's recovery ends
a killed broker's log, and with read_committed to the last stable offset. The log directory is a real 4.3.1
broker's (tests/brokers/fixtures/log-dirs), or one that Kafka's own encoder writes into as a broker does."""
from __future__ import annotations

import shutil

import pytest

import kafkalog
from tests.log.test_served_log import FIXTURE, SECOND_BATCH, SEGMENT, set_checkpoint
from tests.spark.test_stream import Tail

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None,
                                reason="a JDK (java and javac) is needed to run Kafka's own writer and Spark")


@pytest.fixture
def log_dir(tmp_path):
    """A killed broker's disk: t-0's log starts at 5 (deleteRecords), and ends in preallocated zeros (t-0) and a
    batch cut short (t-1)."""
    d = tmp_path / "data"
    shutil.copytree(FIXTURE, d)
    (d / ".kafka_cleanshutdown").unlink()
    set_checkpoint(d, "log-start-offset-checkpoint", {("t", 0): 5})
    t0, t1 = d / "t-0" / SEGMENT, d / "t-1" / SEGMENT
    t0.write_bytes(t0.read_bytes() + bytes(4096))
    t1.write_bytes(t1.read_bytes() + t1.read_bytes()[SECOND_BATCH:SECOND_BATCH + 100])
    return d


def _by_partition(seen: list[list], partition: int) -> list[int]:
    return sorted(o for batch in seen for p, o in batch if p == partition)


def _run(spark, path, checkpoint, seen: list, **options):
    """One availableNow run: each micro-batch's (partition, offset) pairs appended to `seen`."""
    options = {"startingOffsets": "earliest", "subscribe": "t", **options}
    q = (spark.readStream.format("kafkalog").options(**options).load(str(path)).writeStream
         .trigger(availableNow=True).option("checkpointLocation", str(checkpoint))
         .foreachBatch(lambda df, _: seen.append([(r.partition, r.offset) for r in
                                                  df.select("partition", "offset").collect()]))
         .start())
    q.awaitTermination(120)
    q.stop()


def test_a_stream_of_a_killed_brokers_disk_reads_the_served_log(spark, log_dir, tmp_path):
    """earliest is the log start offset; the zeros and the torn batch end each log as recovery ends it (no error
    under failOnDataLoss=true): what read_arrow reads, which a broker restarted on the disk serves
    (tests/brokers/test_served_log.py)."""
    seen: list[list] = []
    _run(spark, log_dir, tmp_path / "cp", seen)
    assert _by_partition(seen, 0) == list(range(5, 20))
    assert _by_partition(seen, 1) == list(range(32))
    batch = kafkalog.read_table(log_dir, subscribe="t")
    assert sorted(zip(batch.column("partition").to_pylist(), batch.column("offset").to_pylist(), strict=True)) \
        == sorted(sum(seen, []))
    below: list[list] = []
    _run(spark, log_dir, tmp_path / "cp-below", below, includeBelowLogStart="true")
    assert _by_partition(below, 0) == list(range(20))


def test_a_stream_asked_to_start_below_the_log_start_offset_loses_data(spark, log_dir, tmp_path):
    """Offsets below the log start offset are no longer served: a stream asked to start there fails, as Kafka's
    source does, and with failOnDataLoss=false reads on from the log start offset."""
    start = '{"t": {"0": 2, "1": 0}}'
    with pytest.raises(Exception, match=r"offsets \[2, 5\) are below the log start offset"):
        _run(spark, log_dir, tmp_path / "cp", [], startingOffsets=start)
    seen: list[list] = []
    _run(spark, log_dir, tmp_path / "cp-lossy", seen, startingOffsets=start, failOnDataLoss="false")
    assert _by_partition(seen, 0) == list(range(5, 20))


def test_a_stream_tails_a_live_broker_directory_to_its_last_stable_offset(spark, tmp_path):
    """A log directory a broker is writing (Kafka's encoder appends, no clean shutdown marker): each trigger ends
    at the recovered log end, read_committed at the last stable offset, as a consumer's read ends."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(FIXTURE / "meta.properties", logs / "meta.properties")  # a broker's log directory
    tail = Tail(logs)
    try:
        cp, seen = tmp_path / "cp", []
        options = {"kafka.isolation.level": "read_committed", "subscribe": "stream"}
        tail.append(3)
        tail.command("txn 4")  # 3-6, open
        tail.append(2)  # 7, 8
        _run(spark, logs, cp, seen, **options)
        assert _by_partition(seen, 0) == [0, 1, 2]
        bounds = kafkalog.partition_bounds(logs).to_pylist()[0]
        assert (bounds["last_stable_offset"], bounds["log_end_offset"]) == (3, 9)
        tail.command("commit")  # 9
        tail.append(40, 40)  # rolls
        _run(spark, logs, cp, seen, **options)
        assert _by_partition(seen, 0) == list(range(9)) + list(range(10, 90))
    finally:
        tail.close()
