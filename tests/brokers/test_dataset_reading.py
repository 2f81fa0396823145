"""read_arrow over a stopped broker's whole log directory, held to what the broker's clients saw:
the records a real consumer fetched (read_uncommitted and read_committed), the offsets the group
coordinator reports as committed (Admin.listConsumerGroupOffsets), read through DuckDB and Polars."""
from __future__ import annotations

import base64
import json
from collections import Counter

import pytest

import kafkalog
from tests.brokers.test_consumer_reading import consumed, data_partitions
from tests.dataset.queries import latest_commits, records_per_minute

pytestmark = pytest.mark.broker

KAFKA_TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime", -1: "NoTimestampType"}


def _b64(b: bytes | None) -> str | None:
    return None if b is None else base64.b64encode(b).decode()


def _rows(table) -> dict[tuple[str, int], list[tuple]]:
    out: dict[tuple[str, int], list[tuple]] = {}
    ts = table.column("timestamp").cast("int64").to_pylist()
    for r, micros in zip(table.to_pylist(), ts, strict=True):
        headers = tuple((h["key"], _b64(h["value"])) for h in r["headers"] or ())
        out.setdefault((r["topic"], r["partition"]), []).append(
            (r["offset"], micros // 1000, KAFKA_TIMESTAMP_TYPES[r["timestampType"]], _b64(r["key"]), _b64(r["value"]),
             headers))
    return out


@pytest.mark.parametrize("isolation", ["read_uncommitted", "read_committed"])
def test_read_arrow_over_the_log_directory_gives_the_consumers_records(broker_run, isolation):
    dirs = data_partitions(broker_run)
    table = kafkalog.read_table(broker_run.data_dir, subscribe=broker_run.topics, includeHeaders=True,
                                **{"kafka.isolation.level": isolation})
    got = _rows(table)
    for d in dirs:
        head, want = consumed(broker_run, isolation, d)
        topic, _, partition = d.name.rpartition("-")
        rows = [r for r in got.pop((topic, int(partition)), []) if head["log_start_offset"] <= r[0] < head["end_offset"]]
        assert rows == want, f"{d}: read_arrow ({isolation}) differs from the consumer"
    assert not got, f"partitions the consumer did not read: {sorted(got)}"


def test_duckdb_committed_offsets_are_the_group_coordinators(kraft_4x):
    coordinator = sorted((r["group"], r["topic"], r["partition"], r["offset"]) for r in map(
        json.loads, (kraft_4x.work / "committed.json").read_text().splitlines()))
    assert {c[0] for c in coordinator} == {"g-classic", "g-consumer"}
    reader = kafkalog.read_arrow(kraft_4x.data_dir, subscribe="__consumer_offsets", decode=True)
    commits = [c for c in latest_commits(reader) if c[0] in ("g-classic", "g-consumer")]
    assert commits == coordinator


def test_polars_records_per_minute_are_the_consumers(broker_run):
    for topic in broker_run.topics:
        want: Counter = Counter()
        starting: dict[str, int] = {}
        ending: dict[str, int] = {}
        for d in data_partitions(broker_run):
            name, _, partition = d.name.rpartition("-")
            if name == topic:
                head, rows = consumed(broker_run, "read_uncommitted", d)
                want.update(r[1] // 60_000 * 60_000 for r in rows)
                starting[partition], ending[partition] = head["log_start_offset"], head["end_offset"]
        # the consumer's offsets: the files can still hold records below the log start offset
        reader = kafkalog.read_arrow(broker_run.data_dir, subscribe=topic, startingOffsets={topic: starting},
                                     endingOffsets={topic: ending})
        assert records_per_minute(reader) == dict(want), topic
