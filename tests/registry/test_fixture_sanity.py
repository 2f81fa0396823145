"""tests/registry/fixtures/karapace-full-4.3.1 holds together: expected.jsonl (what the real deserializers
returned, written by tests/registry/make_full_fixture.py) has one line for every record of every data
topic in data/, and the ids it names are the ones in the bytes and in schemas.json."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

import kafkalog

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "karapace-full-4.3.1"
EXPECTED = [json.loads(line) for line in (FIXTURE / "expected.jsonl").read_text().splitlines()]
SCHEMAS = json.loads((FIXTURE / "schemas.json").read_text())


@pytest.fixture(scope="module")
def records() -> dict[tuple[str, int, int], dict]:
    table = kafkalog.read_table(str(FIXTURE / "data"))
    return {(r["topic"], r["partition"], r["offset"]): r for r in table.to_pylist()}


def test_expected_covers_every_data_record(records):
    in_data = {k for k in records if k[0] != "_schemas"}
    in_expected = [(r["topic"], r["partition"], r["offset"]) for r in EXPECTED]
    assert len(in_expected) == len(set(in_expected))
    assert in_expected == sorted(in_expected)
    assert set(in_expected) == in_data
    assert {k[0] for k in in_data} == {"orders", "temp", "events", "clicks", "framed-in-header", "raw"}
    assert any(k[0] == "_schemas" for k in records)


def test_ids_are_the_bytes_and_the_registry_s(records):
    for row in EXPECTED:
        rec = records[(row["topic"], row["partition"], row["offset"])]
        for side in ("key", "value"):
            schema_id, data = row[f"{side}_schema_id"], rec[side]
            if schema_id is None:
                continue
            assert str(schema_id) in SCHEMAS["ids"] and "schema" in SCHEMAS["ids"][str(schema_id)]
            if row["topic"] != "framed-in-header":  # there the id is in a header
                assert data[0] == 0 and struct.unpack(">I", data[1:5])[0] == schema_id


def test_what_the_fixture_is_meant_to_hold():
    by_topic: dict[str, list[dict]] = {}
    for row in EXPECTED:
        by_topic.setdefault(row["topic"], []).append(row)
    # three versions of orders-value, a tombstone, all decoded
    assert len({r["value_schema_id"] for r in by_topic["orders"] if r["value_schema_id"]}) == 3
    assert by_topic["orders"][-1]["value_decoded"] is None and by_topic["orders"][-1]["value_error"] is None
    assert all(r["value_error"] is None and r["key_error"] is None for r in by_topic["orders"])
    # soft-deleted version 1 of orders-value, hard-deleted version 1 of temp-value
    assert SCHEMAS["subjects"]["orders-value"]["versions_deleted_true"] == [1, 2, 3]
    assert SCHEMAS["subjects"]["orders-value"]["versions_live"] == [2, 3]
    assert SCHEMAS["subjects"]["temp-value"]["versions_deleted_true"] == [2]
    # Karapace 3.15 refuses Avro and JSON Schema references and gives no guid
    assert SCHEMAS["attempts"]["avro_reference"]["answer"]["error_code"] == 44302
    assert SCHEMAS["attempts"]["json_reference"]["answer"]["error_code"] == 44302
    assert "GUID" in SCHEMAS["attempts"]["guid_header"]
    # the raw values: every one an error of the deserializer
    assert all(r["value_error"] for r in by_topic["raw"])
