"""DuckDB and Polars over kafkalog.read_arrow, held to Kafka's own reading of the fixtures."""
from __future__ import annotations

import json
from collections import Counter

import kafkalog
from tests.dataset.queries import latest_commits, records_per_minute
from tests.paths import FIXTURES

INTERNAL = FIXTURES / "internal"
PARTITIONS = FIXTURES / "partitions"


def test_duckdb_latest_committed_offsets_are_kafkas():
    expected: dict[tuple, int | None] = {}
    for name in ("__consumer_offsets-0", "__consumer_offsets-1"):
        # Kafka's own decoding of the fixture (its generated message classes), in log order
        for line in (INTERNAL / "expected" / f"{name}-00000000000000000000.log.jsonl").read_text().splitlines():
            r = json.loads(line)
            key = r["key_decoded"]
            if key and key["type"] == "OffsetCommitKey":
                data = key["data"]
                value = r["value_decoded"]
                expected[(data["group"], data["topic"], data["partition"])] = value and value["data"]["offset"]
    want = sorted((*k, v) for k, v in expected.items() if v is not None)
    assert len(want) > 10
    reader = kafkalog.read_arrow(INTERNAL, subscribe="__consumer_offsets", decode=True)
    assert latest_commits(reader) == want


def test_polars_records_per_minute_are_kafkas():
    partitions = json.loads((PARTITIONS / "expected.json").read_text())["partitions"]
    expected = Counter(r["timestamp"] // 60_000 * 60_000 for name in ("orders-0", "orders-1")
                       for r in partitions[name]["records"] if r["control_type"] is None)
    got = records_per_minute(kafkalog.read_arrow(PARTITIONS, subscribe="orders"))
    assert got == dict(expected) and sum(got.values()) > 500
