"""The Kafka-written partition fixtures (tests/fixtures/partitions) and what their writer recorded.

`expected.json` was written by tests/kafka_writer (PartitionWriter.java, on
Kafka 3.9's jars) together with the files, so it is an account of the files
that does not come from kafkalog.
"""
from __future__ import annotations

import json
import shutil
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.paths import FIXTURES

PARTITIONS = FIXTURES / "partitions"
HEALTHY = ("orders-0", "orders-1", "payments-0")
ALL = HEALTHY + ("broken-index-0",)


@lru_cache(maxsize=None)
def expected() -> dict[str, Any]:
    return json.loads((PARTITIONS / "expected.json").read_text())


def partition(name: str) -> dict[str, Any]:
    return expected()["partitions"][name]


def copy_partition(name: str, tmp_path: Path) -> Path:
    """A scratch copy to damage."""
    return Path(shutil.copytree(PARTITIONS / name, tmp_path / name))


def entry_starts(data: bytes) -> list[int]:
    """Where each entry of a segment's bytes starts, by the size field after its offset (to damage one in the
    middle of a scratch copy)."""
    starts, pos = [], 0
    while pos + 12 <= len(data):
        starts.append(pos)
        pos += 12 + struct.unpack_from(">i", data, pos + 8)[0]
    return starts


def count_ranges(monkeypatch, module) -> list[int]:
    """Large segments made small for `module` (`kafkalog.verify`, `kafkalog.dump.segment_lines`): every segment of a
    few index entries is read in 1 KiB ranges on threads, and the number of ranges of each ranged read is recorded,
    so that a test can see it happened."""
    counts: list[int] = []
    real = module.read_in_ranges

    def read_in_ranges(path, cuts, *args, **kwargs):
        counts.append(len(cuts))
        return real(path, cuts, *args, **kwargs)
    monkeypatch.setattr(module, "RANGE_BYTES", 1024)
    monkeypatch.setattr(module, "read_in_ranges", read_in_ranges)
    return counts
