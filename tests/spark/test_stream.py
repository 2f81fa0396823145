"""spark.readStream.format("kafkalog") on a partition that Kafka's own encoder grows and rolls between micro-batches."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import kafka_fixtures  # scripts/kafka_fixtures.py (pytest's pythonpath)
import pytest

from tests.dataset.test_remote_root import ORDERS, _tier
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None,
                                reason="a JDK (java and javac) is needed to run Kafka's own writer")


class Tail:
    """tests/kafka_writer/Tail.java: appends v2 batches (offsets continue, rolls at 1500 bytes) on command."""

    def __init__(self, out: Path):
        self.proc = kafka_fixtures.start_java(["tail", str(out), "--segment-bytes", "1500"])
        self.dir = out / "stream-0"

    def command(self, line: str) -> int:
        """Send one command (append K, txn K, commit, abort); the log end offset after it."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().split()
        assert reply[:1] == ["ok"], reply
        return int(reply[1])

    def append(self, *counts: int) -> int:
        return [self.command(f"append {k}") for k in counts][-1]

    def segments(self) -> list[Path]:
        return sorted(self.dir.glob("*.log"))

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("close\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)


@pytest.fixture
def tail(tmp_path):
    t = Tail(tmp_path / "logs")
    yield t
    t.close()
    if t.proc.poll() is None:
        t.proc.kill()


def run(spark, path, checkpoint, seen: list, **options):
    """One availableNow run: every batch's offsets appended to `seen`, one list per micro-batch."""
    options = {"startingOffsets": "earliest", **options}
    q = (spark.readStream.format("kafkalog").options(**options).load(str(path)).writeStream
         .trigger(availableNow=True).option("checkpointLocation", str(checkpoint))
         .foreachBatch(lambda df, _: seen.append(sorted(r.offset for r in df.select("offset").collect())))
         .start())
    q.awaitTermination(120)
    q.stop()
    return q


def test_micro_batches_follow_appends_and_rolls(spark, tail, tmp_path):
    tail.append(5, 7)
    seen: list[list[int]] = []
    q = (spark.readStream.format("kafkalog").option("startingOffsets", "earliest")
         .option("includeHeaders", "true").load(str(tail.dir)).writeStream
         .option("checkpointLocation", str(tmp_path / "cp"))
         .foreachBatch(lambda df, _: seen.append(sorted(r.offset for r in df.select("offset").collect())))
         .start())
    try:
        q.processAllAvailable()
        assert sum(seen, []) == list(range(12))
        end = tail.append(30, 30, 30)  # rolls to new segments
        assert len(tail.segments()) >= 2
        q.processAllAvailable()
        assert sum(seen, []) == list(range(end))
        assert json.loads(q.lastProgress["sources"][0]["endOffset"]) == {"stream": {"0": end}}
    finally:
        q.stop()


def test_available_now_restart_limits_retention_and_partial_batches(spark, tail, tmp_path):
    cp = tmp_path / "cp"
    tail.append(5, 7)
    first: list[list[int]] = []
    run(spark, tail.dir, cp, first, maxOffsetsPerTrigger="5")
    assert sum(first, []) == list(range(12)) and max(len(b) for b in first) <= 5 and len(first) >= 3

    end = tail.append(30, 30, 30)
    again: list[list[int]] = []
    run(spark, tail.dir, cp, again)  # restarted from the checkpoint: only what is new, once
    assert sum(again, []) == list(range(12, end))

    # A batch being written (its first bytes only) is left for a later trigger, and is no damage.
    active = tail.segments()[-1]
    whole = active.read_bytes()
    with open(active, "ab") as f:
        f.write(whole[:40])
    nothing: list[list[int]] = []
    run(spark, tail.dir, cp, nothing)
    assert sum(nothing, []) == []

    # Retention deletes the oldest segment: a query whose offsets were there loses data.
    oldest = tail.segments()[0]
    for f in oldest.parent.glob(oldest.stem + ".*"):
        f.unlink()
    earliest = int(tail.segments()[0].stem)
    with pytest.raises(Exception, match="no longer in the files"):
        run(spark, tail.dir, tmp_path / "cp2", [], startingOffsets='{"stream":{"0":3}}')
    lenient: list[list[int]] = []
    run(spark, tail.dir, tmp_path / "cp3", lenient, startingOffsets='{"stream":{"0":3}}', failOnDataLoss="false")
    assert sum(lenient, []) == list(range(earliest, end))


def test_streaming_rejects_batch_only_options(spark, tmp_path):
    with pytest.raises(Exception, match="endingOffsets is not valid in streaming"):
        run(spark, ROOT / "tests" / "fixtures" / "partitions" / "orders-0", tmp_path / "cp", [], endingOffsets="latest")


def test_read_committed_waits_for_open_transactions(spark, tail, tmp_path):
    """As a read_committed consumer stops at the last stable offset: an open transaction is read once decided."""
    cp = tmp_path / "cp"
    options = {"kafka.isolation.level": "read_committed"}
    tail.append(3)
    tail.command("txn 4")
    seen: list[list[int]] = []
    run(spark, tail.dir, cp, seen, **options)
    assert sum(seen, []) == [0, 1, 2]  # offsets 3-6 are an open transaction
    tail.command("append 2")  # 7, 8: after the open transaction, not stable yet either
    run(spark, tail.dir, cp, seen, **options)
    assert sum(seen, []) == [0, 1, 2]
    tail.command("commit")  # 9
    run(spark, tail.dir, cp, seen, **options)
    assert sum(seen, []) == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    tail.command("txn 2")  # 10, 11
    tail.command("abort")  # 12
    tail.append(1)  # 13
    run(spark, tail.dir, cp, seen, **options)
    assert sum(seen, []) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 13]


def test_a_stream_reads_a_tiered_partition_from_its_remote_history(spark, tmp_path):
    """With remoteRoot, a stream from the earliest offsets starts in the remote segments and goes on into the
    local ones, each offset once (orders-0's first three segments remote, the third also local)."""
    data, root = _tier(tmp_path, 3, 2)
    seen: list[list[int]] = []
    run(spark, data, tmp_path / "cp", seen, remoteRoot=str(root), maxOffsetsPerTrigger="200")
    whole = sorted(r.offset for r in spark.read.format("kafkalog").load(str(ORDERS)).select("offset").collect())
    assert sum(seen, []) == whole and len(seen) > 1
