"""The Kafka-written partition fixtures (tests/fixtures/partitions) and what their writer recorded.

`expected.json` was written by tests/kafka_writer (PartitionWriter.java, on
Kafka 3.9's jars) together with the files, so it is an account of the files
that does not come from kafkalog.
"""
from __future__ import annotations

import json
import shutil
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
