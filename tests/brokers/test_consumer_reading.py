"""Oracle 1, the consumer's reading: before each broker stopped, a real consumer (its own version's
kafka-clients) fetched every partition of the data topics, read_uncommitted and read_committed.
kafkalog's readers over the stopped broker's data directory must give exactly those records, and
mark exactly the ones a read_committed consumer skips."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kafkalog
from kafkalog.dataset.decode import read_segment_table
from kafkalog.log.partition import Partition
from kafkalog.log.transactions import ReadCommitted, partition_transactions

pytestmark = pytest.mark.broker

# the consumer's TimestampType names -> kafkalog's (Kafka's RecordBatch names)
TIMESTAMP_TYPES = {"CREATE_TIME": "CreateTime", "LOG_APPEND_TIME": "LogAppendTime", "NO_TIMESTAMP_TYPE": "NoTimestampType"}


def _b64(b: bytes | None) -> str | None:
    return None if b is None else base64.b64encode(b).decode()


def consumed(run, isolation: str, partition_dir: Path) -> tuple[dict, list[tuple]]:
    """The consumer's header line (log start and end offsets) and its records as comparable tuples."""
    lines = (run.consumed / isolation / f"{partition_dir.name}.json").read_text().splitlines()
    head = json.loads(lines[0])
    rows = []
    for line in lines[1:]:
        r = json.loads(line)
        headers = tuple((base64.b64decode(k).decode(), v) for k, v in r["headers"])
        rows.append((r["offset"], r["timestamp"], TIMESTAMP_TYPES[r["timestamp_type"]], r["key"], r["value"], headers))
    return head, rows


def _row(offset, timestamp, ts_type, key, value, headers) -> tuple:
    return (offset, timestamp, ts_type, key, value, tuple((h[0], h[1]) for h in headers))


def arrow_rows(partition_dir: Path) -> tuple[list[tuple], set[int]]:
    """read_segment_table over each segment of the partition: its data records, and the offsets of those
    in aborted transactions (from kafkalog's own reading of the markers and .txnindex files)."""
    rows = []
    for log in sorted(partition_dir.glob("*.log")):
        t = read_segment_table(str(log))
        assert t.column("damage").null_count == len(t), f"{log}: damage {set(t.column('damage').to_pylist())}"
        for r in t.to_pylist():
            if not r["is_control"]:
                rows.append(_row(r["offset"], r["timestamp"], r["timestamp_type"], _b64(r["key"]), _b64(r["value"]),
                                 [(h["key"], _b64(h["value"])) for h in r["headers"]]))
    p = Partition(partition_dir)
    rc = ReadCommitted(partition_transactions(p))
    aborted = {rec.offset for _, batch in p.batches() if rc.aborted(batch) for rec in batch.records}
    return rows, aborted


def segment_reader_rows(partition_dir: Path) -> list[tuple]:
    rows = []
    for log in sorted(partition_dir.glob("*.log")):
        with kafkalog.SegmentReader(str(log)) as reader:
            batches = list(reader)
        for batch in batches:
            if batch.is_control:
                continue
            for r in batch.records:
                rows.append(_row(r.offset, r.timestamp, batch.timestamp_type, _b64(r.key), _b64(r.value),
                                 [(h.key, _b64(h.value)) for h in r.headers]))
    return rows


def _within(rows: list[tuple], head: dict) -> list[tuple]:
    return [r for r in rows if head["log_start_offset"] <= r[0] < head["end_offset"]]


def data_partitions(run) -> list[Path]:
    dirs = [d for t in run.topics for d in sorted(run.data_dir.glob(f"{t}-*")) if d.name[len(t) + 1:].isdigit()]
    assert dirs, f"no partition directories for {run.topics} in {run.data_dir}"
    return dirs


def test_read_segment_table_and_partition_give_the_consumers_records(broker_run):
    for d in data_partitions(broker_run):
        head, uncommitted = consumed(broker_run, "read_uncommitted", d)
        _, committed = consumed(broker_run, "read_committed", d)
        assert uncommitted, f"{d}: the consumer read nothing"
        rows, aborted = arrow_rows(d)
        rows = _within(rows, head)
        assert rows == uncommitted, f"{d}: read_segment_table differs from the read_uncommitted consumer"
        expected_aborted = {r[0] for r in uncommitted} - {r[0] for r in committed}
        assert aborted == expected_aborted, f"{d}: aborted records differ from what read_committed skipped"
        assert [r for r in rows if r[0] not in aborted] == committed, d


def test_segment_reader_gives_the_consumers_records(broker_run):
    for d in data_partitions(broker_run):
        head, uncommitted = consumed(broker_run, "read_uncommitted", d)
        assert _within(segment_reader_rows(d), head) == uncommitted, d


def test_dump_json_gives_the_consumers_records(broker_run):
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json",
                          *map(str, data_partitions(broker_run))],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    by_partition: dict[str, list[tuple]] = {}
    rows: list[tuple] | None = None
    ts_type = None
    is_control = False
    for line in res.stdout.splitlines():
        o = json.loads(line)
        if o["type"] == "file":
            is_log = o["path"].endswith(".log")
            rows = by_partition.setdefault(Path(o["path"]).parent.name, [])
        elif o["type"] == "batch" and is_log:
            ts_type, is_control = o["timestamp_type"], o["is_control"]
        elif o["type"] == "record" and is_log and not is_control and rows is not None:
            rows.append(_row(o["offset"], o["timestamp"], ts_type, o["key"], o["value"], o["headers"]))
    for d in data_partitions(broker_run):
        head, uncommitted = consumed(broker_run, "read_uncommitted", d)
        assert _within(by_partition.get(d.name, []), head) == uncommitted, d


def test_spark_gives_the_consumers_records(broker_run, spark):
    for isolation in ("read_uncommitted", "read_committed"):
        df = (spark.read.format("kafkalog").option("subscribe", ",".join(broker_run.topics))
              .option("includeHeaders", "true").option("kafka.isolation.level", isolation)
              .load(str(broker_run.data_dir)))
        got: dict[str, list[tuple]] = {}
        for r in df.selectExpr("topic", "partition", "offset", "CAST(unix_millis(timestamp) AS LONG) AS ts",
                               "timestampType", "key", "value", "headers").orderBy("topic", "partition", "offset").collect():
            ts_type = {0: "CreateTime", 1: "LogAppendTime"}.get(r["timestampType"], "NoTimestampType")
            got.setdefault(f"{r['topic']}-{r['partition']}", []).append(
                _row(r["offset"], r["ts"], ts_type, _b64(r["key"]), _b64(r["value"]),
                     [(h["key"], _b64(h["value"])) for h in r["headers"] or []]))
        for d in data_partitions(broker_run):
            head, expected = consumed(broker_run, isolation, d)
            assert _within(got.get(d.name, []), head) == expected, (isolation, d)
