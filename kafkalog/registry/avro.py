"""Avro bodies, decoded with fastavro (the library confluent-kafka's `AvroDeserializer` runs).

    schema = compile_avro(store, store.by_id(4))     # parsed once, its references' named types first
    value = decode_avro(schema, body)                 # fastavro's Python values, unions unwrapped
    value = decode_avro(schema, body, reader)         # resolved to a reader schema (Avro's resolution rules)
    plain_json(value)                                 # bytes as base64, logical types as ISO text

A schema's references name other subjects' versions whose named types it uses; they are parsed
first into the same set of names, depth first, as the registry's `AvroSchemaProvider` does.
"""
from __future__ import annotations

import base64
import datetime
import decimal
import math
import uuid
from dataclasses import dataclass
from io import BytesIO
from typing import Any

import fastavro
from fastavro.read import SchemaResolutionError

from kafkalog.errors import UndecodableValueError
from kafkalog.formats import json_depth
from kafkalog.registry import avro_bounds
from kafkalog.registry.store import Schema, SchemaStore


@dataclass(frozen=True)
class AvroSchema:
    """A parsed Avro schema, ready for fastavro, and its JSON form (for type mapping)."""

    id: int
    parsed: Any
    named: dict[str, Any]
    #: Whether every body is walked before fastavro reads it (a recursive or amplifying schema: avro_bounds).
    walk: bool = False


def compile_avro(store: SchemaStore, schema: Schema) -> AvroSchema:
    """Parse `schema` with its references' named types; UndecodableValueError when a schema or reference does not
    parse."""
    named: dict[str, Any] = {}
    for _, referenced in store.references(schema):  # their named types first
        _parse(referenced, named)
    parsed = _parse(schema, named)
    empty = _zero_size_items(parsed, named, set())
    if empty is not None:
        # fastavro would make as many items as a block count claims, however few bytes follow.
        raise UndecodableValueError(f"schema id {schema.id} has {empty} whose items are written in no bytes; "
                                    "kafkalog does not decode it: its item counts alone could claim unbounded memory")
    return AvroSchema(schema.id, parsed, named, avro_bounds.needs_walk_for(parsed, named))


def decode_avro(schema: AvroSchema, body: bytes, reader: AvroSchema | None = None) -> Any:
    """The value an Avro body holds (resolved to `reader` when given); UndecodableValueError when it does not read."""
    if avro_bounds.needs_walk(schema.walk, body):
        problem = avro_bounds.check(schema.parsed, schema.named, body)
        if problem is not None:
            raise UndecodableValueError(f"the Avro body of {len(body)} bytes (schema id {schema.id}): {problem}")
    try:
        return fastavro.schemaless_reader(BytesIO(body), schema.parsed, reader.parsed if reader else None)
    except SchemaResolutionError as e:
        raise UndecodableValueError(f"written with schema id {schema.id}, it does not resolve to schema id "
                             f"{reader.id if reader else '?'}: {e}") from None
    except IndexError:  # fastavro's union and enum reads index their lists with the bytes' number
        # The walk (skipped for bodies it has nothing to find in) names the index, the byte and the branch count.
        problem = avro_bounds.check(schema.parsed, schema.named, body)
        raise UndecodableValueError(f"the Avro body of {len(body)} bytes (schema id {schema.id}): {problem}" if problem
                                    else f"the Avro body of {len(body)} bytes has a union branch or enum symbol index "
                                    f"that schema id {schema.id} does not have") from None
    except EOFError:
        raise UndecodableValueError(f"the Avro body of {len(body)} bytes ends before the value of schema id "
                                    f"{schema.id} is whole") from None
    except Exception as e:  # fastavro's readers raise what the bytes make them raise
        raise UndecodableValueError(f"the Avro body does not decode with schema id {schema.id}: "
                             f"{type(e).__name__}: {e}") from None


def plain_json(value: Any) -> Any:
    """fastavro's Python values as plain JSON: unions unwrapped (as read), bytes and fixed as base64,
    decimals as exact text, dates, times and timestamps as ISO 8601, UUIDs as text.

    The records, arrays and maps of `value` are converted in place, with an explicit stack: a copy would
    double what a value's Python objects hold (about 190 bytes for each byte of an array of one-boolean
    records). `value` is what fastavro has just read for this body, shared with nothing."""
    if isinstance(value, (dict, list)):
        stack: list[dict | list] = [value]
        while stack:
            container = stack.pop()
            keys = container.keys() if isinstance(container, dict) else range(len(container))
            for k in keys:
                item = container[k]
                if isinstance(item, (dict, list)):
                    stack.append(item)
                elif not isinstance(item, (str, int, bool)) and item is not None:
                    container[k] = _plain_scalar(item)
        return value
    return _plain_scalar(value)


def _plain_scalar(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def _zero_size(s: Any, named: dict[str, Any], seen: set[str]) -> bool:
    """Whether a value of this type takes no bytes (null, an empty fixed, a record of such fields)."""
    if isinstance(s, str):
        if s in named:
            if s in seen:
                return False
            return _zero_size(named[s], named, seen | {s})
        return s == "null"
    if isinstance(s, list):
        return len(s) == 1 and _zero_size(s[0], named, seen)  # a union writes its branch index
    t = s.get("type")
    if t == "fixed":
        return s.get("size") == 0
    if t in ("record", "error"):
        return all(_zero_size(f["type"], named, seen | {s.get("name", "")}) for f in s.get("fields", []))
    if isinstance(t, (str, list, dict)) and t not in ("array", "map", "enum"):
        return _zero_size(t, named, seen)
    return False


def _zero_size_items(s: Any, named: dict[str, Any], seen: set[str]) -> str | None:
    """The first array or map whose items take no bytes, described; None when there is none."""
    if isinstance(s, str):
        if s in named and s not in seen:
            return _zero_size_items(named[s], named, seen | {s})
        return None
    if isinstance(s, list):
        for branch in s:
            found = _zero_size_items(branch, named, seen)
            if found:
                return found
        return None
    t = s.get("type")
    if t == "array":
        return "an array" if _zero_size(s["items"], named, set()) else _zero_size_items(s["items"], named, seen)
    if t == "map":
        return "a map" if _zero_size(s["values"], named, set()) else _zero_size_items(s["values"], named, seen)
    if t in ("record", "error"):
        for f in s.get("fields", []):
            found = _zero_size_items(f["type"], named, seen | {s.get("name", "")})
            if found:
                return found
        return None
    if isinstance(t, (list, dict)):
        return _zero_size_items(t, named, seen)
    return None


def _parse(schema: Schema, named: dict[str, Any]) -> Any:
    try:
        text = json_depth.loads(schema.text)
    except json_depth.JsonDepthError as e:
        raise UndecodableValueError(f"schema id {schema.id} is refused: {e}") from None
    except ValueError as e:
        # A bare name such as "string" is JSON too; anything else is not an Avro schema.
        raise UndecodableValueError(f"schema id {schema.id} is not Avro schema JSON: {e}") from None
    try:
        return fastavro.parse_schema(text, named_schemas=named)
    except Exception as e:
        raise UndecodableValueError(f"schema id {schema.id} does not parse as Avro: {type(e).__name__}: {e}") from None
