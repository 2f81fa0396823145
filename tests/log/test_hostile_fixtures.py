"""tests/fixtures/hostile (issues 8 and 9): the index describes exactly the files there, with Kafka's reading.

The files are written by Kafka's encoder (`scripts/kafka_fixtures.py hostile`, `Hostile.java`); how
kafkalog reads them in bounded memory and time is `benchmarks/hostile_inputs.py`'s business.
"""
from __future__ import annotations

import json

import pytest

from tests.paths import FIXTURES

HOSTILE = FIXTURES / "hostile"
INDEX = json.loads((HOSTILE / "index.json").read_text())


def test_index_lists_every_file_once():
    names = [entry["file"] for entry in INDEX]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(p.name for p in HOSTILE.glob("*.log"))
    assert all(entry["file"] == entry["name"] + ".log" for entry in INDEX)


@pytest.mark.parametrize("entry", INDEX, ids=[e["name"] for e in INDEX])
def test_entry_matches_its_file_and_records_kafkas_reading(entry):
    path = HOSTILE / entry["file"]
    assert path.stat().st_size == entry["size"]
    assert entry["description"]
    kafka = entry["kafka"]
    assert kafka["error"] is None  # Kafka reads every entry of these files
    # One batch a file, but the 300 of v2-zstd-300-batches and v1-gzip-300-wrappers (one batch, repeated)
    assert len(kafka["batches"]) == (300 if entry["name"].endswith(("-300-batches", "-300-wrappers")) else 1)
    assert kafka["records"] == sum(b["records"] for b in kafka["batches"])
    ends = [b["position"] + b["size"] for b in kafka["batches"]]
    assert [b["position"] for b in kafka["batches"]] == [0, *ends[:-1]] and ends[-1] == entry["size"]
    for batch in kafka["batches"]:
        # Patched files had their CRC recomputed: only what the description says is wrong.
        assert batch["crc_valid"] is True
        assert batch["records"] >= 1 and batch["first_offset"] <= batch["last_offset"]
        assert isinstance(batch["error"], (dict, type(None)))


def test_the_inputs_the_issues_ask_for_are_there():
    by_name = {e["name"]: e["kafka"] for e in INDEX}
    batch = {name: k["batches"][0] for name, k in by_name.items()}
    for codec in ("zstd", "lz4", "gzip", "snappy"):
        assert by_name[f"v2-{codec}-1m-records"]["records"] == 1_000_000
        assert batch[f"v2-{codec}-1m-records"]["error"] is None
        assert batch[f"v2-{codec}-count-2g"]["count"] == 2**31 - 1
        assert batch[f"v2-{codec}-count-2g"]["records"] == 1_000_000
        assert "premature EOF" in batch[f"v2-{codec}-count-2g"]["error"]["message"]
    assert by_name["v2-none-1m-records"]["records"] == 1_000_000
    assert batch["v2-zstd-1m-empty-headers"]["max_headers"] == 1_000_000
    for magic in (0, 1):
        assert batch[f"v{magic}-gzip-1m-messages"]["magic"] == magic
        assert batch[f"v{magic}-gzip-1m-messages"]["records"] == 1_000_000
    assert by_name["v2-gzip-past-256mib"]["records"] * 7 > 256 << 20
    bad = batch["v2-gzip-bad-deflate-block"]
    assert bad["records"] * 7 > 32 << 20 and bad["records"] < bad["count"]
    assert "ZipException" in bad["error"]["message"]
    # Small on disk: they are there to decode to a lot from a little.
    assert sum(e["size"] for e in INDEX) < 10 << 20
