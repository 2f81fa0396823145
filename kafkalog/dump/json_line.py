"""One JSON line of `kafkalog dump --format json` and `kafkalog verify --format json`.

A module of its own, light to import: `verify` prints its problems and summary with it, and does not load dump's
line writers (`kafkalog.dump.records`) for that (start-up, docs/performance.md).
"""
from __future__ import annotations

import json
from typing import Any


def dumps(obj: dict[str, Any]) -> str:
    """One JSON line, in ASCII (\\u escapes): valid JSON whatever encoding stdout has."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True)
