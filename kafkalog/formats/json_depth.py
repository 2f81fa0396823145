"""JSON text read with its nesting bounded: how deep its arrays and objects nest is counted over the bytes,
in C (a regular expression and numpy), before `json.loads` builds anything.

    value = loads(data, MAX_JSON_DEPTH)   # JsonDepthError (a ValueError) when it nests deeper

Python's own JSON parser and everything that walks its values (jsonschema, fastavro's schema parser)
recurse once per level: a few kilobytes of `[[[[...` would end in RecursionError, or overflow the stack.
"""
from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

#: How deep a JSON text's arrays and objects may nest: `_schemas` records, schema texts, JSON Schema bodies.
MAX_JSON_DEPTH = 200
#: A JSON string, escapes included (unrolled so that the regular expression engine does not recurse).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[^\[\]{}]")


class JsonDepthError(ValueError):
    """JSON text that nests deeper than the limit."""


def json_depth(data: bytes | str) -> int:
    """How deep arrays and objects nest in `data` (strings left out); a conservative count for text that is not JSON."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    opening = raw.count(b"[") + raw.count(b"{")
    if opening <= 1:
        return opening
    brackets = _BRACKETS.sub(b"", _STRING.sub(b"", raw))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def loads(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads`, refused with JsonDepthError when the text nests deeper than `max_depth`."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= max_depth:  # cannot nest deeper: no scan
        return json.loads(data)
    depth = json_depth(raw)
    if depth > max_depth:
        raise JsonDepthError(f"its arrays and objects nest {depth} deep, deeper than kafkalog reads ({max_depth})")
    return json.loads(data)
