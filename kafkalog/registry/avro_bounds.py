"""An Avro body checked before fastavro reads it: how deep its values nest, how many values it holds,
whether its varints and union indexes are ones Avro's Java decoder accepts.

fastavro's reader (Cython) recurses once per nesting level without a depth check: a recursive schema's
value 10,000 deep overflows the process's stack. It also reads a varint of any length (21 bytes of long
decode as a wrong number, silently; Java's decoder throws "Invalid long encoding"). This walk reads the
body with an explicit stack, so it never recurses, and refuses what fastavro would mishandle. It runs
only when it can find something (`needs_walk`): for a recursive schema, a schema whose array items can
hold more values than bytes, or a body with a run of 5 bytes that continue a varint; else fastavro's
reading is already bounded by the schema's own depth (MAX_JSON_DEPTH) and the body's bytes.

    problem = check(parsed_schema, named, body)    # None, or what is wrong (a sentence)
"""
from __future__ import annotations

import re
from typing import Any

#: How deep records, arrays and maps may nest in a value (Protobuf's parsers default to 100 as well).
MAX_VALUE_DEPTH = 100
#: Decoded values (records, items, fields) a body may hold per byte, and a constant for zero-byte fields.
MAX_VALUES_PER_BYTE = 2
VALUES_SLACK = 1024
#: A long takes at most 10 bytes of zigzag varint, an int 5 (Avro's spec; Java's BinaryDecoder).
_LONG_BYTES, _INT_BYTES = 10, 5
_VARINT_RUN = re.compile(rb"[\x80-\xff]{5}")
_FIXED_SIZES = {"boolean": 1, "float": 4, "double": 8}


class _Bad(Exception):
    """What is wrong at a byte of the body."""


def needs_walk(recursive_or_amplifying: bool, body: bytes) -> bool:
    """Whether `check` can find anything fastavro would mishandle in this body."""
    return recursive_or_amplifying or _VARINT_RUN.search(body) is not None


def check(schema: Any, named: dict[str, Any], body: bytes) -> str | None:
    """What is wrong with `body` as a value of `schema` that fastavro would not refuse cleanly; None when nothing.
    Bytes that end early are left to fastavro (it says so)."""
    try:
        _walk(schema, named, body)
    except _Bad as e:
        return str(e)
    except IndexError:
        return None  # the body ends early: fastavro's own EOFError names it
    return None


def _varint(body: bytes, pos: int, limit: int, what: str) -> tuple[int, int]:
    n = shift = 0
    start = pos
    while True:
        b = body[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if pos - start >= limit:
            article = "an" if what == "int" else "a"
            raise _Bad(f"byte {start} of the body: {article} {what} written in more than {limit} bytes of varint "
                       f"(\"Invalid {what} encoding\" in Avro's Java decoder)")
    return (n >> 1) ^ -(n & 1), pos


def _walk(schema: Any, named: dict[str, Any], body: bytes) -> None:
    budget = MAX_VALUES_PER_BYTE * len(body) + VALUES_SLACK
    # Each task: (schema, depth) for one value, or ("items", item schema, depth, remaining, is map).
    stack: list[tuple[Any, ...]] = [(schema, 0)]
    pos = 0
    while stack:
        task = stack.pop()
        budget -= 1
        if budget < 0:
            raise _Bad(f"a body of {len(body)} bytes holding more than {MAX_VALUES_PER_BYTE} values a byte: kafkalog "
                       "does not decode it (its decoded form could be far larger than its bytes)")
        if len(task) == 5:
            _, items, depth, remaining, is_map = task
            if remaining == 0:
                count, pos = _varint(body, pos, _LONG_BYTES, "long")
                if count == 0:
                    continue
                if count < 0:
                    count = -count
                    _, pos = _varint(body, pos, _LONG_BYTES, "long")  # the block's size in bytes
                remaining = count
            stack.append(("items", items, depth, remaining - 1, is_map))
            stack.append((items, depth))
            if is_map:
                stack.append(("string", depth))
            continue
        s, depth = task
        while isinstance(s, str) and s in named:
            s = named[s]
        if isinstance(s, list):
            start = pos
            index, pos = _varint(body, pos, _LONG_BYTES, "long")
            if not 0 <= index < len(s):
                raise _Bad(f"byte {start} of the body: union branch index {index}, but the union has "
                           f"{len(s)} branches")
            stack.append((s[index], depth))
            continue
        t = s["type"] if isinstance(s, dict) else s
        if isinstance(t, (dict, list)) or (isinstance(t, str) and t in named):
            stack.append((t, depth))
            continue
        if t in ("record", "error", "array", "map"):
            if depth >= MAX_VALUE_DEPTH:
                raise _Bad(f"byte {pos} of the body: records, arrays and maps nest deeper than {MAX_VALUE_DEPTH}")
            if t == "array" or t == "map":
                stack.append(("items", s["items"] if t == "array" else s["values"], depth + 1, 0, t == "map"))
            else:
                stack.extend((f["type"], depth + 1) for f in reversed(s["fields"]))
        elif t == "enum":
            start = pos
            index, pos = _varint(body, pos, _INT_BYTES, "int")
            if not 0 <= index < len(s["symbols"]):
                raise _Bad(f"byte {start} of the body: enum symbol index {index}, but enum {s.get('name')} has "
                           f"{len(s['symbols'])} symbols")
        elif t in ("int", "long"):
            _, pos = _varint(body, pos, _INT_BYTES if t == "int" else _LONG_BYTES, t)
        elif t in ("bytes", "string"):
            size, pos = _varint(body, pos, _LONG_BYTES, "long")
            if size < 0 or pos + size > len(body):
                return  # fastavro names it
            pos += size
        elif t == "fixed":
            pos += s["size"]
        elif t in _FIXED_SIZES:
            pos += _FIXED_SIZES[t]
        if pos > len(body):
            return


def needs_walk_for(schema: Any, named: dict[str, Any]) -> bool:
    """Whether a schema's values can nest without bound (a recursive type) or deeper than MAX_VALUE_DEPTH, or
    its array and map items hold more than MAX_VALUES_PER_BYTE values a byte: the walk then runs on every body."""
    try:
        _, _, deep = _shape(schema, named, frozenset(), 0)
    except _Recursive:
        return True
    return deep


class _Recursive(Exception):
    pass


def _shape(s: Any, named: dict[str, Any], seen: frozenset[str], depth: int) -> tuple[int, int, bool]:
    """(values a value holds at most, bytes it takes at least, whether it nests or amplifies past the limits)."""
    if isinstance(s, str) and s in named:
        if s in seen:
            raise _Recursive
        return _shape(named[s], named, seen | {s}, depth)
    if isinstance(s, list):
        shapes = [_shape(b, named, seen, depth) for b in s]
        return (max((v for v, _, _ in shapes), default=1), 1 + min((b for _, b, _ in shapes), default=0),
                any(d for _, _, d in shapes))
    t = s["type"] if isinstance(s, dict) else s
    if isinstance(t, (dict, list)) or (isinstance(t, str) and t in named):
        return _shape(t, named, seen, depth)
    if t in ("record", "error", "array", "map") and depth >= MAX_VALUE_DEPTH:
        return 1, 0, True
    if t in ("record", "error"):
        name = s.get("name")
        inner = seen | {name} if name else seen
        shapes = [_shape(f["type"], named, inner, depth + 1) for f in s["fields"]]
        return 1 + sum(v for v, _, _ in shapes), sum(b for _, b, _ in shapes), any(d for _, _, d in shapes)
    if t in ("array", "map"):
        values, size, deep = _shape(s["items"] if t == "array" else s["values"], named, seen, depth + 1)
        if t == "map":
            values, size = values + 1, size + 1
        return 1, 1, deep or values > MAX_VALUES_PER_BYTE * max(size, 1) or size == 0
    return 1, {"null": 0, "fixed": s.get("size", 0) if isinstance(s, dict) else 0}.get(t, _FIXED_SIZES.get(t, 1)), False
