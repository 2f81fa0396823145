"""Keys and values that name a schema and do not decode: a message per record, the raw bytes kept, the read going on.

The bytes are the real ones of tests/registry/fixtures/karapace-4.3.1 (confluent-kafka's serializers
through Karapace), cut or changed; the schemas are the registry's own answers, some left out or spoilt.
"""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from io import BytesIO
from pathlib import Path

import pytest
from kafkalog._generated.schema_registry_framing import SchemaRegistryFraming
from kaitaistruct import KaitaiStream

import kafkalog
from kafkalog.dataset.registry_values import load_store
from kafkalog.errors import UndecodableValueError
from kafkalog.registry.store import SchemaStore
from kafkalog.registry.values import ValueDecoder

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "karapace-4.3.1"
DATA = FIXTURE / "data"
REGISTRY = json.loads((FIXTURE / "registry.json").read_text())
STORE = load_store(str(DATA / "_schemas-0"))


def _values(topic: str) -> list[bytes]:
    return [v for v in kafkalog.read_table(DATA / f"{topic}-0").column("value").to_pylist() if v]


def _export(tmp_path: Path, change) -> Path:
    """The registry's answers for every version, as a GET /schemas export, after `change` (answers -> answers)."""
    answers = [a for versions in REGISTRY["subjects"].values() for v, a in versions.items() if v != "live"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(change(answers)))
    return path


ORDER = _values("orders")[0]
EVENT = _values("events")[0]


@pytest.mark.parametrize("data, message", [
    (b"\x00" + struct.pack(">i", 999) + ORDER[5:], "value names schema id 999, which is not in the schema store"),
    (ORDER[:3], "value of 3 bytes is too short for its magic byte 0 and schema id (5 bytes)"),
    (b"\x01" + ORDER[1:10], "value of 10 bytes is too short for its magic byte 1 and schema GUID (17 bytes)"),
    (ORDER[:20], "the Avro body of 15 bytes ends before the value of schema id 3 is whole"),
    (EVENT[:6] + b"\x0f" + EVENT[7:], "the Protobuf body of 104 bytes does not decode as ex.events.Click (schema id 8): "),
    (EVENT[:5] + b"\xff", "the Protobuf message indexes end before they are whole"),
    (EVENT[:5] + b"\x7f", "the Protobuf message index count is negative (-64)"),
    (EVENT[:5] + b"\x02\x0a" + EVENT[6:], "message indexes [5] name no message of schema id 8"),
])
def test_each_bad_value_is_a_message(data, message):
    got = ValueDecoder(STORE).decode(data, None, topic="orders" if data[5:6] != EVENT[5:6] else "events")
    assert got.decoded is None
    assert got.error is not None and got.error.startswith(message), got.error


def test_a_schema_that_does_not_parse_and_a_reference_that_does_not_resolve(tmp_path):
    def spoil(answers):
        out = []
        for a in answers:
            if a["id"] == 3:
                a = {**a, "schema": '{"type": "record", "name": "Order", "fields": [{"name": "id"}]}'}
            if a["subject"] == "common.proto":
                continue
            out.append(a)
        return out
    store = SchemaStore.from_export(_export(tmp_path, spoil))
    decoder = ValueDecoder(store)
    bad = decoder.decode(ORDER, None, topic="orders")
    assert bad.error.startswith("schema id 3 does not parse as Avro") and bad.schema.id == 3
    unresolved = decoder.decode(EVENT, None, topic="events")
    assert unresolved.error == ("schema id 8: its reference 'common.proto' (subject 'common.proto' version 1) is not in "
                                "the schema store")
    # a spoilt schema is compiled once: the next record says the same without compiling again
    assert decoder.decode(ORDER, None, topic="orders").error == bad.error


def test_read_arrow_keeps_every_record_and_its_bytes(tmp_path):
    export = _export(tmp_path, lambda answers: [a for a in answers if a["id"] not in (3, 4)])
    table = kafkalog.read_table(DATA / "orders-0", valueFormat="registry", schemaRegistry=str(export))
    rows = table.to_pylist()
    assert len(rows) == 13  # every record, the tombstone too
    failed = [r for r in rows if r["value_error"]]
    assert len(failed) == 8  # versions 1 and 2 (ids 3 and 4) are not in the export
    assert all(r["value"][:1] == b"\x00" and r["value_decoded"] is None for r in failed)
    assert all("which is not in the schema store" in r["value_error"] for r in failed)
    assert sum(r["value_decoded"] is not None for r in rows) == 4


def test_a_typed_column_fails_fast_by_default_and_is_damage_when_permissive(tmp_path):
    export = _export(tmp_path, lambda answers: [a for a in answers if a["id"] != 3])
    with pytest.raises(UndecodableValueError) as err:
        kafkalog.read_table(DATA / "orders-0", valueSubject="orders-value", schemaRegistry=str(export))
    assert str(err.value).startswith(str(DATA / "orders-0" / "00000000000000000000.log") + ": byte 0: record at offset 0: ")
    table = kafkalog.read_table(DATA / "orders-0", valueSubject="orders-value", schemaRegistry=str(export),
                                mode="PERMISSIVE")
    rows = table.to_pylist()
    assert [r["offset"] for r in rows if r["damage"]] == [0, 1, 2, 3]
    assert all(r["value_typed"] is None and "schema id 3" in r["damage"] for r in rows if r["damage"])
    assert all(r["value_typed"] is not None for r in rows[4:12])
    dropped = kafkalog.read_table(DATA / "orders-0", valueSubject="orders-value", schemaRegistry=str(export),
                                  mode="DROPMALFORMED")
    assert dropped.column("offset").to_pylist() == list(range(4, 13))


def test_dump_prints_an_error_line_after_the_record_and_exits_1(tmp_path):
    export = _export(tmp_path, lambda answers: [a for a in answers if a["id"] != 3])
    result = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--decode-values", "--format", "json",
                             "--schema-registry", str(export), str(DATA / "orders-0")], capture_output=True, text=True)
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    records = [line for line in lines if line["type"] == "record"]
    errors = [line for line in lines if line["type"] == "error"]
    assert len(records) == 13 and len(errors) == 4
    assert errors[0]["message"].startswith("record at offset 0: value: value names schema id 3")
    assert records[4]["value_decoded"]["id"] == 5


def test_options_and_paths_that_cannot_be(tmp_path):
    alone = tmp_path / "orders-0"
    shutil.copytree(DATA / "orders-0", alone)
    with pytest.raises(kafkalog.KafkalogError, match="no _schemas-0 directory in its log directory"):
        kafkalog.read_table(alone / "00000000000000000000.log", valueFormat="registry")
    with pytest.raises(kafkalog.KafkalogError, match="nothing: no such file or directory"):
        kafkalog.read_table(alone, valueFormat="registry", schemaRegistry=str(tmp_path / "nothing"))
    with pytest.raises(kafkalog.KafkalogError, match="no live version of that subject"):
        kafkalog.read_table(DATA / "orders-0", valueSubject="nope")
    with pytest.raises(kafkalog.KafkalogError, match="holds JSON schemas"):
        kafkalog.read_table(DATA / "clicks-0", valueSubject="clicks-value")
    with pytest.raises(kafkalog.KafkalogError, match="option valueFormat: expected registry"):
        kafkalog.read_table(DATA / "orders-0", valueFormat="avro")


def test_the_web_ide_samples_parse_with_the_spec():
    samples = Path(__file__).resolve().parents[2] / "samples" / "registry"

    def parse(name: str) -> SchemaRegistryFraming:
        return SchemaRegistryFraming(KaitaiStream(BytesIO((samples / name).read_bytes())))
    assert (parse("orders-value-avro.bin").schema_id, len(parse("orders-value-avro.bin").body)) == (3, 106)
    protobuf = parse("events-value-protobuf.bin")
    indexes = SchemaRegistryFraming.MessageIndexes(KaitaiStream(BytesIO(protobuf.body)))
    assert (protobuf.schema_id, [i.value for i in indexes.indexes]) == (8, [1, 0])
    header = parse("value-schema-id-header.bin")
    assert (header.schema_id, header.body) == (1, b"")
