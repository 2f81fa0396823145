"""Hostile registry values and `_schemas` records (issue 30): each ends in a message naming what is wrong, in bounded
time and memory, never a crash, a RecursionError or a wrong value. Values are written with fastavro's and protobuf's
own writers; JSON with json.dumps."""
from __future__ import annotations

import io
import json
import os
import random
import time

import fastavro
import pytest

from kafkalog.registry.store import SchemaStore
from kafkalog.registry.values import ValueDecoder

LIST = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}


def _store(*schemas: tuple[int, str, object]) -> SchemaStore:
    records = []
    for i, (sid, kind, text) in enumerate(schemas):
        key = json.dumps({"keytype": "SCHEMA", "subject": f"t{sid}-value", "version": 1, "magic": 1}).encode()
        value = json.dumps({"subject": f"t{sid}-value", "version": 1, "id": sid, "schemaType": kind,
                            "schema": text if isinstance(text, str) else json.dumps(text)}).encode()
        records.append((i, key, value))
    return SchemaStore.from_records(records)


def _avro(schema, value) -> bytes:
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, fastavro.parse_schema(schema), value)
    return buf.getvalue()


def _framed(sid: int, body: bytes) -> bytes:
    return b"\x00" + sid.to_bytes(4, "big") + body


def _nested(n: int):
    v = None
    for _ in range(n):
        v = {"next": v}
    return v


@pytest.mark.parametrize("depth", [10_000, 1_000])
def test_a_recursive_avro_value_nested_deep_is_a_message(depth):
    decoder = ValueDecoder(_store((1, "AVRO", LIST)))
    got = decoder.decode(_framed(1, b"\x02" * depth + b"\x00"), None, topic="t1")
    assert got.error is not None and "nest deeper than 100" in got.error and got.schema.id == 1


def test_a_recursive_avro_value_within_the_limit_decodes():
    decoder = ValueDecoder(_store((1, "AVRO", LIST)))
    got = decoder.decode(_framed(1, _avro(LIST, _nested(90))), None, topic="t1")
    assert got.error is None and json.dumps(got.decoded).count("next") == 90


def test_an_overlong_long_and_a_huge_union_index_are_messages():
    decoder = ValueDecoder(_store((1, "AVRO", json.dumps("long")), (2, "AVRO", ["null", "long"])))
    long = decoder.decode(_framed(1, b"\xff" * 20 + b"\x01"), None, topic="t")
    assert "a long written in more than 10 bytes of varint" in long.error
    union = decoder.decode(_framed(2, b"\xfe\xff\xff\xff\x0f"), None, topic="t")
    assert union.error.endswith("byte 0 of the body: union branch index 2147483647, but the union has 2 branches")


def test_a_union_or_enum_index_past_the_schema_names_it_when_the_walk_did_not_run():
    """A 2-byte index: no run of varint bytes, a schema without recursion, so fastavro reads it first."""
    enum = {"type": "enum", "name": "E", "symbols": ["A", "B"]}
    decoder = ValueDecoder(_store((2, "AVRO", ["null", "long"]), (3, "AVRO", enum)))
    union = decoder.decode(_framed(2, b"\xd0\x0f"), None, topic="t")
    assert union.error == ("the Avro body of 2 bytes (schema id 2): byte 0 of the body: union branch index 1000, "
                           "but the union has 2 branches")
    symbol = decoder.decode(_framed(3, b"\xd0\x0f"), None, topic="t")
    assert symbol.error.endswith("byte 0 of the body: enum symbol index 1000, but enum E has 2 symbols")


def test_an_array_of_values_without_bytes_is_refused_by_its_bytes():
    nulls = {"type": "record", "name": "R", "fields": [{"name": f"f{i}", "type": "null"} for i in range(50)]
             + [{"name": "b", "type": "boolean"}]}
    schema = {"type": "array", "items": nulls}
    decoder = ValueDecoder(_store((1, "AVRO", schema)))
    got = decoder.decode(_framed(1, _avro(schema, [{"b": True}] * 10_000)), None, topic="t")
    assert "more than 2 values a byte" in got.error


def test_deep_schemas_and_json_are_messages():
    records = {"type": "int"}
    for i in range(100):
        records = {"type": "record", "name": f"R{i}", "fields": [{"name": "f", "type": records}]}
    arrays: object = "int"
    for _ in range(300):
        arrays = {"type": "array", "items": arrays}
    decoder = ValueDecoder(_store((1, "AVRO", records), (2, "AVRO", arrays), (3, "JSON", {"type": "array"})),
                           validate_json=True)
    for sid in (1, 2):
        got = decoder.decode(_framed(sid, b"\x00"), None, topic="t")
        assert f"schema id {sid} is refused: its arrays and objects nest" in got.error
    deep = decoder.decode(_framed(3, b"[" * 5000 + b"]" * 5000), None, topic="t")
    assert "nest 5000 deep, deeper than kafkalog reads (200)" in deep.error


def test_json_schema_pattern_and_ref_loops_end():
    decoder = ValueDecoder(_store((1, "JSON", {"type": "string", "pattern": "^(a+)+$"}), (2, "JSON", {"$ref": "#"}),
                                  (3, "JSON", {"pattern": "(a)\\1"})), validate_json=True)
    start = time.monotonic()
    redos = decoder.decode(_framed(1, json.dumps("a" * 10_000 + "b").encode()), None, topic="t")
    assert time.monotonic() - start < 2 and "does not match '^(a+)+$'" in redos.error
    assert "refer to each other without end" in decoder.decode(_framed(2, b"1"), None, topic="t").error
    assert "kafkalog runs patterns with RE2" in decoder.decode(_framed(3, b'"aa"'), None, topic="t").error


def test_chained_protobuf_messages_compile_and_deep_values_are_messages():
    text = 'syntax = "proto3";\n' + "".join(f"message M{i} {{ M{i + 1} next = 1; }}\n" for i in range(1000))
    text += "message M1000 { int32 x = 1; }\n"
    decoder = ValueDecoder(_store((1, "PROTOBUF", text)))
    body = b""
    for _ in range(150):
        body = b"\x0a" + _varint(len(body)) + body
    got = decoder.decode(b"\x00" + (1).to_bytes(4, "big") + b"\x00" + body, None, topic="t")
    assert got.error is not None and "M0" in got.error and "Traceback" not in got.error


def _varint(n: int) -> bytes:
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def test_bad_schemas_records_are_skipped_with_their_offset():
    good = (json.dumps({"keytype": "SCHEMA", "subject": "s", "version": 1}).encode(),
            json.dumps({"subject": "s", "version": 1, "id": 1, "schema": '"int"'}).encode())
    deep = (b'{"keytype": "SCHEMA", "subject": "s", "version": 2}', b'{"a":' * 5000 + b"1" + b"}" * 5000)
    refs = (json.dumps({"keytype": "SCHEMA", "subject": "s", "version": 3}).encode(),
            json.dumps({"subject": "s", "version": 3, "id": 3, "schema": '"int"', "references": 5}).encode())
    delete = (json.dumps({"keytype": "DELETE_SUBJECT", "subject": "s"}).encode(), b"")
    store = SchemaStore.from_records([(0, *good), (1, *deep), (2, *refs), (3, *delete)], source="_schemas-0")
    assert store.by_id(1) is not None and store.by_id(3) is None
    assert [p.split(":")[1] for p in store.problems] == [" offset 1", " offset 2"]
    assert "nest 5000 deep" in store.problems[0] and "references 5 is not a list" in store.problems[1]


def test_lookups_by_guid_cost_the_same_with_many_versions():
    records = []
    for i in range(50_000):
        key = json.dumps({"keytype": "SCHEMA", "subject": f"s{i}", "version": 1}).encode()
        md5 = __import__("base64").b64encode(i.to_bytes(16, "big")).decode()
        value = json.dumps({"subject": f"s{i}", "version": 1, "id": i, "schema": '"int"', "md5": md5}).encode()
        records.append((i, key, value))
    store = SchemaStore.from_records(records)
    import uuid
    start = time.monotonic()
    for i in range(0, 50_000, 50):
        assert store.by_guid(uuid.UUID(bytes=i.to_bytes(16, "big"))).id == i
        assert store.version_for(i).subject == f"s{i}"
    assert time.monotonic() - start < 0.5


FUZZ_ROUNDS = int(os.environ.get("KAFKALOG_REGISTRY_FUZZ", "300"))


def test_fuzzed_values_and_schemas_records_end_in_messages():
    """Seeded mutations of real values and `_schemas` records: results or messages only (KAFKALOG_REGISTRY_FUZZ=N)."""
    rng = random.Random(30)
    schema = {"type": "record", "name": "Node", "fields": [
        {"name": "id", "type": "long"}, {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B"]}},
        {"name": "next", "type": ["null", "Node"]}]}
    decoder = ValueDecoder(_store((1, "AVRO", schema), (2, "JSON", {"properties": {"a": {"$ref": "#"}}})),
                           validate_json=True)
    value = {"id": 7, "tags": ["x", "y"], "kind": "B", "next": {"id": -1, "tags": [], "kind": "A", "next": None}}
    seeds = [_framed(1, _avro(schema, value)), _framed(2, json.dumps({"a": {"a": [1, {"a": 2}]}}).encode())]
    for _ in range(FUZZ_ROUNDS):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 4)):
            pos = rng.randrange(5, len(data))
            kind = rng.choice(["flip", "ff", "cut", "insert"])
            if kind == "flip":
                data[pos] ^= 1 << rng.randrange(8)
            elif kind == "ff":
                data[pos:pos] = b"\xff" * rng.randrange(1, 25)
            elif kind == "cut":
                del data[pos:]
            else:
                data[pos:pos] = rng.choice([b"\x02" * 300, b"[" * 300, rng.randbytes(8)])
            if len(data) <= 5:
                break
        got = decoder.decode(bytes(data), None, topic="t")
        assert got.error is None or ("Traceback" not in got.error and "RecursionError" not in got.error)
    key = b'{"keytype": "SCHEMA", "subject": "s", "version": 1}'
    record = json.dumps({"subject": "s", "version": 1, "id": 1, "schema": '"int"', "references": []}).encode()
    fuzzed = []
    for i in range(FUZZ_ROUNDS):
        data = bytearray(record)
        pos = rng.randrange(len(data))
        data[pos:pos + rng.randrange(0, 4)] = rng.choice([b"5", b"[", b"{", b"null", b'"x"', b"[[[[" * 100])
        fuzzed.append((i, key, bytes(data)))
    store = SchemaStore.from_records(fuzzed)
    assert all("offset" in p for p in store.problems)


@pytest.mark.parametrize("draft", ["2020-12", "2019-09"])
def test_every_keyword_that_runs_a_pattern_runs_re2(draft):
    """`unevaluatedProperties` (its subschemas' `patternProperties` too), `propertyNames`, `additionalProperties`,
    `patternProperties`: a backreference, which Python's `re` runs and RE2 does not, is refused by each (with
    Python's `re`, the 28-character name below would take about 20 s against `^(a+)+$`)."""
    meta = f"https://json-schema.org/draft/{draft}/schema"

    def schemas(pattern: str) -> list[dict]:
        return [{"$schema": meta, "patternProperties": {pattern: {}}, "unevaluatedProperties": False},
                {"$schema": meta, "anyOf": [{"patternProperties": {pattern: {}}}], "unevaluatedProperties": False},
                {"$schema": meta, "propertyNames": {"pattern": pattern}},
                {"$schema": meta, "patternProperties": {pattern: {}}, "additionalProperties": False},
                {"$schema": meta, "patternProperties": {pattern: {"type": "string"}}}]
    decoder = ValueDecoder(_store(*((i, "JSON", s) for i, s in enumerate(schemas("^(a+)+$") + schemas("(a)\\1")))),
                           validate_json=True)
    name = "a" * 28 + "b"
    for sid in (0, 1, 3):
        got = decoder.decode(_framed(sid, json.dumps({name: 1}).encode()), None, topic="t").error
        assert got is not None and "properties are not allowed" in got and name in got
    assert "does not match '^(a+)+$'" in decoder.decode(_framed(2, json.dumps({name: 1}).encode()), None,
                                                        topic="t").error
    for sid in range(5, 10):
        got = decoder.decode(_framed(sid, json.dumps({"aa": 1}).encode()), None, topic="t").error
        # (Python's `re` matches "aa" and every schema takes the value; under anyOf, best_match gives the
        # unevaluated name, and RE2's refusal is the anyOf branch's error)
        assert got is not None and ("kafkalog runs patterns with RE2" in got or sid == 6), (sid, got)


def test_what_patterns_evaluate_stays_evaluated():
    meta = "https://json-schema.org/draft/2020-12/schema"
    decoder = ValueDecoder(_store((1, "JSON", {"$schema": meta, "patternProperties": {"^a+$": {}},
                                               "unevaluatedProperties": False})), validate_json=True)
    got = decoder.decode(_framed(1, json.dumps({"aaa": 1, "b": 2}).encode()), None, topic="t").error
    assert got.endswith("unevaluated properties are not allowed ('b' is unexpected)")
    assert decoder.decode(_framed(1, json.dumps({"aaa": 1}).encode()), None, topic="t").error is None


def test_a_format_regex_is_not_run_on_values():
    """Validation runs without a format checker: Python's `re` never compiles a value's text."""
    decoder = ValueDecoder(_store((1, "JSON", {"properties": {"r": {"format": "regex"}}})), validate_json=True)
    got = decoder.decode(_framed(1, json.dumps({"r": "(a+)+b("}).encode()), None, topic="t")
    assert got.error is None and got.decoded == {"r": "(a+)+b("}


def test_an_id_under_many_subjects_is_known_by_the_topics_subject_else_the_first_live_one():
    """A registry gives a schema text it already has its id: one id can be under every subject. The topic's own
    subject is found by (id, subject), the fallback once per id (benchmarks/schema_store.py times both)."""
    records = []
    for i in range(2000):
        key = json.dumps({"keytype": "SCHEMA", "subject": f"s{i:04d}-value", "version": 1}).encode()
        value = {"subject": f"s{i:04d}-value", "version": 1, "id": 1, "schema": '"int"', "deleted": i == 0}
        records.append((i, key, json.dumps(value).encode()))
    store = SchemaStore.from_records(records)
    assert store.version_for(1, "s1234").subject == "s1234-value"
    assert store.version_for(1, "s0000").state == "soft"  # its own subject, deleted: still its own
    assert store.version_for(1, "other").subject == "s0001-value"  # the first live subject
    assert store.version_for(1).subject == "s0001-value" and store.version_for(2) is None
    decoder = ValueDecoder(store)
    assert decoder.decode(_framed(1, b"\x0e"), None, topic="s1999").schema.subject == "s1999-value"
