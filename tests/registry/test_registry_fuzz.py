"""Seeded fuzzing of the registry surfaces the value fuzz of test_hostile_values does not reach (issue 30):
Protobuf values, keys framed for a registry (the prefix in the key, or in the `__key_schema_id` /
`__value_schema_id` header), and Aiven's custom metadata bytes in `__remote_log_metadata`.

The seeds are real: records confluent-kafka's serializers wrote through Karapace (tests/registry/fixtures), and
the custom metadata Aiven's storage manager returned (samples/aiven). Each is damaged many ways; every decode
ends in a value or a message in the format's terms, never an exception, a traceback or parser internals, and a
key read from custom metadata that is followed never leaves the remote root.

A few seconds in CI; longer by hand: KAFKALOG_FUZZ_ROUNDS=5000 pytest tests/registry/test_registry_fuzz.py
"""
from __future__ import annotations

import os
import posixpath
import random

import pytest

import kafkalog
from kafkalog.dataset.registry_values import load_store
from kafkalog.dataset.remote_roots import outside_root
from kafkalog.location import Location
from kafkalog.registry.framing import KEY_HEADER, VALUE_HEADER
from kafkalog.registry.values import ValueDecoder
from kafkalog.remote.aiven_custom_metadata import parse_custom_metadata
from tests.log.test_damage_fuzz import FORBIDDEN, mutations
from tests.paths import SAMPLES

ROUNDS = int(os.environ.get("KAFKALOG_FUZZ_ROUNDS", "60"))
DATA = __import__("pathlib").Path(__file__).resolve().parent / "fixtures" / "karapace-4.3.1" / "data"
#: What mutations splice in besides `mutations`' damage: nesting, long varints, huge lengths and indexes.
SPLICES = [b"\x0a\x7f" * 200, b"\xff" * 11, b"\x00\x00\x00\x00\x00", b"\x01" + bytes(16), b"\x0a\xff\xff\xff\xff\x0f",
           b"\x08" * 50, b"\x02\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", b"../" * 3, b"/etc/", b"s3://x/"]


@pytest.fixture(scope="module")
def decoder() -> ValueDecoder:
    return ValueDecoder(load_store(str(DATA / "_schemas-0")), validate_json=True)


def _records(topic: str) -> list[dict]:
    table = kafkalog.read_table(DATA / f"{topic}-0", includeHeaders="true")
    return [r for r in table.select(["key", "value", "headers"]).to_pylist() if r["value"] is not None]


def _damaged(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return rng.choice(SPLICES)
    if rng.random() < 0.7:
        return next(mutations(data, rng, 1))[2]
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + rng.choice(SPLICES) + data[pos + rng.randrange(0, 3):]


def _clean(message: str | None) -> None:
    if message is not None:
        assert not FORBIDDEN.search(message) and "RecursionError" not in message, message


def _headers(record: dict) -> list[tuple[str, bytes | None]]:
    return [(h["key"], h["value"]) for h in record["headers"] or []]


@pytest.mark.parametrize("topic", ["events", "orders", "clicks"])
def test_fuzzed_keys_and_values_end_in_values_or_messages(decoder, topic):
    """`events` is Protobuf (message indexes [0], [1], [1, 0]; an import and Google's Timestamp), `orders` Avro,
    `clicks` JSON Schema; their keys are framed too."""
    rng = random.Random(f"registry-{topic}")
    records = _records(topic)
    assert records and all(decoder.decode(r["value"], _headers(r), topic=topic).error is None for r in records)
    for _ in range(ROUNDS * 4):
        record = rng.choice(records)
        is_key = rng.random() < 0.4 and record["key"] is not None
        data = _damaged(record["key"] if is_key else record["value"], rng)
        got = decoder.decode(data, _headers(record), topic=topic, is_key=is_key)
        _clean(got.error)
        if got.error is None and got.schema is not None:
            assert got.decoded_json() is not None


def test_fuzzed_schema_id_headers_end_in_values_or_messages(decoder):
    """The prefix in the `__value_schema_id` / `__key_schema_id` header (confluent-kafka's header framing), its
    bytes damaged, the body beside it whole or damaged."""
    rng = random.Random("registry-headers")
    records = _records("framed-in-header")
    assert any(name == VALUE_HEADER for r in records for name, _ in _headers(r))
    for _ in range(ROUNDS * 4):
        record = rng.choice(records)
        headers = _headers(record)
        is_key = rng.random() < 0.3
        name = KEY_HEADER if is_key else VALUE_HEADER
        prefix = next((v for n, v in headers if n == VALUE_HEADER), None) or b"\x00\x00\x00\x00\x01"
        damaged = [(name, _damaged(prefix, rng) if rng.random() < 0.8 else None)] + [h for h in headers if h[0] != name]
        body = record["value"] if rng.random() < 0.5 else _damaged(record["value"], rng)
        got = decoder.decode(body, damaged, topic="framed-in-header", is_key=is_key)
        _clean(got.error)


def test_fuzzed_aiven_custom_metadata_parses_or_is_none_and_never_leaves_the_root():
    rng = random.Random("aiven-custom-metadata")
    seed = (SAMPLES / "aiven" / "segment-custom-metadata.bin").read_bytes()
    assert parse_custom_metadata(seed).object_key == "custom/seg-1"
    root = "/bucket/root"
    for _ in range(ROUNDS * 20):
        data = _damaged(seed, rng)
        meta = parse_custom_metadata(data)  # a result or None: never an exception
        if meta is None or not meta.object_key:
            continue
        assert isinstance(meta.object_key, str) and (meta.object_prefix is None or isinstance(meta.object_prefix, str))
        for name in (f"{meta.object_prefix or ''}{meta.object_key}", meta.object_key):
            why = outside_root(name)
            if why is None:  # followed: joined to the root, it stays under it
                joined = posixpath.normpath(str(Location(root).join(name + ".rsm-manifest")))
                assert joined.startswith(root + "/"), (data, name)
