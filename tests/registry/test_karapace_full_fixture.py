"""The wider real-registry fixture (tests/registry/fixtures/karapace-full-4.3.1, made by
tests/registry/make_full_fixture.py): every key and value read offline equals what confluent-kafka's own
deserializers returned against the live Karapace. Protobuf with nested message indexes down to [1, 0, 0],
oneofs, maps of messages, every scalar; Avro NaN and infinities, dates before 1970, unions of records;
JSON Schema over two partitions; the schema id in the headers.

Where kafkalog differs on purpose: bytes that name no schema (no magic byte 0 or 1, no schema-id header)
are not registry values, so kafkalog gives null and no error where the deserializer raises "Invalid magic
byte" (and a raw topic's string keys, which the fixture read with a string deserializer, are not decoded);
a magic byte with too few bytes after it is kafkalog's own message, as the deserializer's is its own; and a
header-framed body of 5 bytes or less, which AvroDeserializer refuses before looking at the header, decodes.
"""
from __future__ import annotations

import json
from pathlib import Path

import kafkalog

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "karapace-full-4.3.1"
EXPECTED = [json.loads(line) for line in (FIXTURE / "expected.jsonl").read_text().splitlines()]


def test_every_key_and_value_reads_as_the_deserializers_read_it():
    table = kafkalog.read_table(FIXTURE / "data", valueFormat="registry", keyFormat="registry")
    rows = {(r["topic"], r["partition"], r["offset"]): r for r in table.to_pylist()}
    compared = 0
    for want in EXPECTED:
        got = rows[(want["topic"], want["partition"], want["offset"])]
        for side in ("key", "value"):
            decoded = None if got[f"{side}_decoded"] is None else json.loads(got[f"{side}_decoded"])
            schema = got[f"{side}_schema"]
            if want[f"{side}_schema_id"] is None:
                error = got[f"{side}_error"]
                assert decoded is None and schema is None, (want, side)
                if error is not None:  # a magic byte 0 and too few bytes after it: the framing's own message
                    assert error.startswith(f"{side} of ") and "is too short for its magic byte" in error
                    assert want[f"{side}_error"] is not None  # the deserializer fails too, in its own words
                continue  # else: bytes that name no schema, not a registry value
            assert schema["id"] == want[f"{side}_schema_id"], (want, side)
            if want[f"{side}_error"] is not None:
                assert "framing of length 6 bytes or more" in want[f"{side}_error"] and decoded is not None
                continue
            assert got[f"{side}_error"] is None and decoded == want[f"{side}_decoded"], (want, side, decoded)
            compared += 1
    assert compared >= 50
