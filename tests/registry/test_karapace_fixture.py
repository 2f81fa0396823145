"""Registry-framed values read offline, held to what a real registry and its deserializers said.

tests/registry/fixtures/karapace-4.3.1 was written by a Kafka 4.3.1 broker with Karapace as its
schema registry, through confluent-kafka's own serializers (tests/registry/make_fixtures.py). Its
`expected.jsonl` is what AvroDeserializer, ProtobufDeserializer and JSONDeserializer returned for every
record against the live registry, and `registry.json` what the registry answered for every subject,
version and id. kafkalog reads the stopped broker's directory with no registry at all.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import kafkalog
from kafkalog.dataset.registry_values import load_store
from kafkalog.registry.store import HARD, LIVE, SOFT

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "karapace-4.3.1"
DATA = FIXTURE / "data"
EXPECTED = [json.loads(line) for line in (FIXTURE / "expected.jsonl").read_text().splitlines()]
REGISTRY = json.loads((FIXTURE / "registry.json").read_text())


def _by_record(rows) -> dict[tuple[str, int], dict]:
    return {(r["topic"], r["offset"]): r for r in rows}


def _subject_version(schema_id: int, topic: str, side: str) -> tuple[str, int]:
    """The registry's subject and version for an id: under the topic's own subject when it has it there."""
    found = [(s, int(v)) for s, versions in REGISTRY["subjects"].items() for v, a in versions.items()
             if v != "live" and a["id"] == schema_id]
    own = [f for f in found if f[0] == f"{topic}-{side}"]
    if not found:  # hard-deleted: the registry no longer says; the _schemas records still do
        assert (topic, schema_id) == ("temp", REGISTRY["subjects"]["temp-value"]["2"]["id"] - 1)
        return "temp-value", 1
    return (own or sorted(found))[0]


def _check(side: str, row: dict, decoded, schema: dict | None) -> None:
    want_id = row[f"{side}_schema_id"]
    if row[f"{side}_error"] is not None:
        pytest.fail(f"the deserializer failed on {row['topic']}@{row['offset']}: {row[f'{side}_error']}")
    if want_id is None:
        assert schema is None and decoded is None, (row["topic"], row["offset"], side)
        return
    assert decoded == row[f"{side}_decoded"], (row["topic"], row["offset"], side)
    subject, version = _subject_version(want_id, row["topic"], side)
    assert schema == {"id": want_id, "subject": subject, "version": version, "format": schema["format"]}


def test_the_fixture_holds_every_kind_of_record():
    topics = {r["topic"] for r in EXPECTED}
    assert topics == {"orders", "events", "clicks", "temp", "framed-in-header", "raw"}
    assert sum(r["value_decoded"] is not None for r in EXPECTED) == 21
    assert REGISTRY["deletes"] == {"soft_deleted": 1, "hard_deleted": 1}


def test_dump_decode_values_gives_what_the_deserializers_gave():
    result = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--decode-values", "--format", "json",
                             str(DATA)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    records: dict[tuple[str, int], dict] = {}
    topic = None
    for line in map(json.loads, result.stdout.splitlines()):
        if line["type"] == "partition":
            topic = Path(line["path"]).name.rsplit("-", 1)[0]
        elif line["type"] == "record":
            records[(topic, line["offset"])] = line
    for row in EXPECTED:
        got = records[(row["topic"], row["offset"])]
        for side in ("key", "value"):
            _check(side, row, got[f"{side}_decoded"], got[f"{side}_schema"])
    # _schemas itself is decoded as the registry's records: subject, version, id, type, schema, deleted
    schema_lines = [r for (t, _), r in sorted(records.items()) if t == "_schemas" and r["value_decoded"]]
    assert {(r["value_decoded"]["subject"], r["value_decoded"]["version"], r["value_decoded"]["deleted"])
            for r in schema_lines} >= {("orders-value", 1, True), ("temp-value", 1, True), ("events-value", 1, False)}


def test_read_arrow_gives_what_the_deserializers_gave():
    table = kafkalog.read_table(DATA, valueFormat="registry", keyFormat="registry")
    assert {"value_decoded", "value_schema", "value_error", "key_decoded", "key_schema", "key_error"} <= set(
        table.column_names)
    rows = _by_record(table.to_pylist())
    for row in EXPECTED:
        got = rows[(row["topic"], row["offset"])]
        for side in ("key", "value"):
            decoded = got[f"{side}_decoded"]
            _check(side, row, None if decoded is None else json.loads(decoded), got[f"{side}_schema"])
            assert got[f"{side}_error"] is None


def test_the_store_agrees_with_the_registry():
    store = load_store(str(DATA / "_schemas-0"))
    assert store.problems == []
    for subject, versions in REGISTRY["subjects"].items():
        live = set(versions["live"])
        for v, answer in versions.items():
            if v == "live":
                continue
            ours = store.versions[(subject, int(v))]
            assert ours.id == answer["id"]
            assert ours.state == (LIVE if int(v) in live else SOFT)
            schema = store.by_id(answer["id"])
            assert schema.text == answer["schema"]
            assert schema.schema_type == answer.get("schemaType", "AVRO")
            assert [(r.name, r.subject, r.version) for r in schema.references] == [
                (r["name"], r["subject"], r["version"]) for r in answer.get("references", [])]
    # temp-value 1 was deleted for good: the registry lists it no more, its records still decode
    assert "1" not in REGISTRY["subjects"]["temp-value"]
    assert store.versions[("temp-value", 1)].state == HARD
    assert store.latest("orders-value").version == 3


def test_a_registry_export_reads_as_the_topic_does(tmp_path):
    export = [answer for versions in REGISTRY["subjects"].values() for v, answer in versions.items() if v != "live"]
    path = tmp_path / "schemas.json"
    path.write_text(json.dumps(export))
    table = kafkalog.read_table(DATA / "events-0", valueFormat="registry", schemaRegistry=str(path))
    want = {r["offset"]: r["value_decoded"] for r in EXPECTED if r["topic"] == "events"}
    assert {r["offset"]: json.loads(r["value_decoded"]) for r in table.to_pylist()} == want


def test_a_typed_column_resolves_older_versions_to_the_latest():
    table = kafkalog.read_table(DATA / "orders-0", valueSubject="orders-value")
    typed = table.column("value_typed")
    assert typed.type.field("priority").type == pa.int32()
    assert "note" not in [typed.type.field(i).name for i in range(typed.type.num_fields)]
    rows = table.to_pylist()
    for row, want in zip(rows, [r for r in EXPECTED if r["topic"] == "orders"], strict=True):
        v = row["value_typed"]
        if want["value_decoded"] is None:
            assert v is None
            continue
        w = want["value_decoded"]
        assert v["id"] == w["id"] and v["channel"] == w.get("channel", "web") and v["priority"] == w.get("priority", 0)
        assert str(v["amount"]) == w["amount"] and v["day"].isoformat() == w["day"]
        assert v["created"].isoformat() == w["created"] and v["updated"].isoformat() == w["updated"]
        assert dict(v["tags"]) == w["tags"]
        member = v["choice"]
        if w["choice"] is None:
            assert member is None
        elif isinstance(w["choice"], str):
            assert member["member0"] == w["choice"]
        elif isinstance(w["choice"], int):
            assert member["member1"] == w["choice"]
        else:
            assert member["member2"] == w["choice"]


def test_spark_gives_the_json_and_the_typed_columns(spark):
    df = (spark.read.format("kafkalog").option("valueFormat", "registry").option("valueSubject", "orders-value")
          .load(str(DATA / "orders-0")))
    types = dict(df.dtypes)
    assert types["value_decoded"] == "string"
    assert types["value_schema"] == "struct<id:int,subject:string,version:int,format:string>"
    assert types["value_typed"].startswith("struct<id:bigint,status:string,items:array<struct<sku:string,qty:int>>")
    rows = {r["offset"]: r for r in df.collect()}
    for want in (r for r in EXPECTED if r["topic"] == "orders"):
        got = rows[want["offset"]]
        if want["value_decoded"] is None:
            assert got["value_decoded"] is None and got["value_typed"] is None
            continue
        assert json.loads(got["value_decoded"]) == want["value_decoded"]
        assert got["value_schema"]["id"] == want["value_schema_id"]
        assert got["value_typed"]["id"] == want["value_decoded"]["id"]
        assert got["value_typed"]["tags"] == want["value_decoded"]["tags"]


def test_a_protobuf_typed_column_follows_spark_protobuf(spark):
    table = kafkalog.read_table(DATA / "events-0", keySubject="events-key", mode="PERMISSIVE")
    assert [r["key_typed"] for r in table.to_pylist()] == [{"id": f"e{i}"} for i in range(4)]


def test_decode_and_value_format_share_one_value_decoded_column():
    table = kafkalog.read_table(DATA, decode=True, valueFormat="registry")
    assert table.column_names.count("value_decoded") == 1
    rows = table.to_pylist()
    schemas = [json.loads(r["value_decoded"]) for r in rows if r["topic"] == "_schemas" and r["value_decoded"]]
    assert (schemas[0]["subject"], schemas[0]["version"], schemas[0]["id"]) == ("customer", 1, 1)
    orders = [json.loads(r["value_decoded"]) for r in rows if r["topic"] == "orders" and r["value_decoded"]]
    assert [o["id"] for o in orders] == list(range(1, 13))
