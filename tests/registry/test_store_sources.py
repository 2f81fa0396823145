"""Schema stores from the other sources, and what Karapace cannot write: Avro and JSON Schema references, GUIDs.

The schemas are in the registry's export format (`GET /schemas?deleted=true`, Confluent's `Schema`
JSON); the Avro bodies are written by fastavro's writer, which confluent-kafka's AvroSerializer runs.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import struct
import uuid

import fastavro

from kafkalog.registry.store import SchemaStore
from kafkalog.registry.values import ValueDecoder

CUSTOMER = {"type": "record", "name": "Customer", "namespace": "com.example",
            "fields": [{"name": "name", "type": "string"}]}
INVOICE = {"type": "record", "name": "Invoice", "namespace": "com.example",
           "fields": [{"name": "id", "type": "long"}, {"name": "customer", "type": "com.example.Customer"}]}
ADDRESS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
VISIT = {"type": "object", "properties": {"address": {"$ref": "address.json"}}}


def _export(tmp_path, entries):
    path = tmp_path / "schemas.json"
    path.write_text(json.dumps(entries))
    return SchemaStore.from_export(path)


def _avro(schema_id: int, value, *schemas) -> bytes:
    named: dict = {}
    parsed = [fastavro.parse_schema(s, named_schemas=named) for s in schemas][-1]
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, value)
    return b"\x00" + struct.pack(">i", schema_id) + out.getvalue()


def test_avro_named_types_of_another_subject(tmp_path):
    store = _export(tmp_path, [
        {"subject": "customer", "version": 1, "id": 1, "schema": json.dumps(CUSTOMER)},
        {"subject": "invoices-value", "version": 1, "id": 2, "schema": json.dumps(INVOICE),
         "references": [{"name": "com.example.Customer", "subject": "customer", "version": 1}]},
    ])
    got = ValueDecoder(store).decode(_avro(2, {"id": 7, "customer": {"name": "Ann"}}, CUSTOMER, INVOICE), None,
                                     topic="invoices")
    assert got.error is None and got.decoded == {"id": 7, "customer": {"name": "Ann"}}
    assert got.schema.as_json() == {"id": 2, "subject": "invoices-value", "version": 1, "format": "avro"}


def test_json_schema_refs_and_validation(tmp_path):
    store = _export(tmp_path, [
        {"subject": "address", "version": 1, "id": 1, "schemaType": "JSON", "schema": json.dumps(ADDRESS)},
        {"subject": "visits-value", "version": 1, "id": 2, "schemaType": "JSON", "schema": json.dumps(VISIT),
         "references": [{"name": "address.json", "subject": "address", "version": -1}]},
    ])
    good = b"\x00\x00\x00\x00\x02" + json.dumps({"address": {"city": "Oslo"}}).encode()
    bad = b"\x00\x00\x00\x00\x02" + json.dumps({"address": {"street": "x"}}).encode()
    assert ValueDecoder(store).decode(bad, None, topic="visits").decoded == {"address": {"street": "x"}}
    checking = ValueDecoder(store, validate_json=True)
    assert checking.decode(good, None, topic="visits").decoded == {"address": {"city": "Oslo"}}
    assert checking.decode(bad, None, topic="visits").error == (
        "the JSON value does not match schema id 2 at address: 'city' is a required property")


def test_the_guid_framing_names_a_schema_by_its_md5(tmp_path):
    text = json.dumps(CUSTOMER)
    md5 = hashlib.md5(text.encode()).digest()
    store = _export(tmp_path, [{"subject": "c-value", "version": 1, "id": 5, "schema": text,
                                "md5": base64.b64encode(md5).decode()}])
    body = _avro(5, {"name": "Bo"}, CUSTOMER)[5:]
    got = ValueDecoder(store).decode(b"\x01" + uuid.UUID(bytes=md5).bytes + body, None, topic="c")
    assert got.decoded == {"name": "Bo"} and got.schema.id == 5
    unknown = ValueDecoder(store).decode(b"\x01" + bytes(16) + body, None, topic="c")
    assert unknown.error.startswith("value names schema GUID 00000000-0000-0000-0000-000000000000, which is not")


def test_a_directory_of_schema_files(tmp_path):
    (tmp_path / "7.avsc").write_text(json.dumps(CUSTOMER))
    store = SchemaStore.from_export(tmp_path)
    got = ValueDecoder(store).decode(_avro(7, {"name": "Cy"}, CUSTOMER), None, topic="t")
    assert got.decoded == {"name": "Cy"} and got.schema.as_json() == {"id": 7, "subject": None, "version": None,
                                                                       "format": "avro"}


def test_delete_subject_and_clear_subject_records():
    def key(keytype, subject, version=None):
        k = {"keytype": keytype, "subject": subject, "magic": 0 if version is None else 1}
        if version is not None:
            k["version"] = version
        return json.dumps(k).encode()

    def schema(v, i):
        return json.dumps({"subject": "s", "version": v, "id": i, "schema": '"string"'}).encode()
    records = [(0, key("SCHEMA", "s", 1), schema(1, 1)), (1, key("SCHEMA", "s", 2), schema(2, 2)),
               (2, key("SCHEMA", "s", 3), schema(3, 3)),
               (3, key("DELETE_SUBJECT", "s"), json.dumps({"subject": "s", "version": 2}).encode()),
               (4, key("CLEAR_SUBJECT", "s"), json.dumps({"subject": "s"}).encode()),
               (5, b"not json", b"{}"), (6, key("NOOP", None), None)]
    store = SchemaStore.from_records(records, "_schemas-0")
    assert [store.versions[("s", v)].state for v in (1, 2, 3)] == ["hard", "hard", "live"]
    assert store.latest("s").version == 3 and store.by_id(1) is not None
    assert store.problems == ["_schemas-0: offset 5: key 'not json' is not JSON: Expecting value: line 1 column 1 "
                              "(char 0); record skipped"]


def test_arrays_of_items_written_in_no_bytes_are_refused_not_counted(tmp_path):
    store = _export(tmp_path, [{"subject": "s", "version": 1, "id": 1,
                                "schema": json.dumps({"type": "array", "items": "null"})}])
    # a block claiming 2^62 items in 9 bytes: refused at once, never made
    got = ValueDecoder(store).decode(b"\x00\x00\x00\x00\x01" + b"\xfe" + b"\xff" * 7 + b"\x7f", None, topic="t")
    assert got.error == ("schema id 1 has an array whose items are written in no bytes; kafkalog does not decode it: "
                         "its item counts alone could claim unbounded memory")
