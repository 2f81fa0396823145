"""The generated internal-topic specs follow the repository's spec conventions."""
from __future__ import annotations

import pytest
import yaml

from tests.paths import ROOT

SPECS = ["kafka_message_common", "kafka_group_coordinator_record", "kafka_transaction_log_record",
         "kafka_share_coordinator_record", "kafka_metadata_record", "kafka_remote_log_metadata_record",
         "kafka_raft_control_record", "kafka_consumer_protocol"]


def types_of(doc: dict, path: str):
    yield path, doc
    for name, t in (doc.get("types") or {}).items():
        yield from types_of(t, f"{path}::{name}")


@pytest.mark.parametrize("name", SPECS)
def test_doc_and_doc_ref_everywhere(name):
    doc = yaml.safe_load((ROOT / "schemas" / f"{name}.ksy").read_text())
    meta = doc["meta"]
    assert meta["id"] == name and meta["license"] == "Apache-2.0" and meta["endian"] == "be" and meta["xref"]
    assert "file-extension" not in meta
    for path, t in types_of(doc, name):
        assert t.get("doc") and t.get("doc-ref"), path
        assert t.get("-webide-representation"), path
        for attr in t.get("seq", []):
            assert attr.get("doc"), f"{path}.{attr['id']}"
        for inst_name, inst in (t.get("instances") or {}).items():
            assert inst.get("doc"), f"{path}.{inst_name}"


def test_doc_refs_cite_kafkas_schema_files():
    text = (ROOT / "schemas" / "kafka_metadata_record.ksy").read_text()
    assert "metadata/src/main/resources/common/metadata/PartitionChangeRecord.json" in text
    text = (ROOT / "schemas" / "kafka_group_coordinator_record.ksy").read_text()
    assert "group-coordinator/src/main/resources/common/message/OffsetCommitValue.json" in text


def test_catalog_names_the_generated_classes():
    """generated/internal_topics_catalog.py and the specs come from one run of scripts/message_specs.py."""
    import importlib

    from kafkalog._generated import internal_topics_catalog as catalog

    from kafkalog.formats import internal_topics as it

    for spec, types in {**catalog.COORDINATOR}.items():
        top = getattr(importlib.import_module(f"kafkalog._generated.{spec}"), it._cls(spec))
        for key, value, _ in types.values():
            assert hasattr(top, it._cls(it.snake_case(key))), key
            assert value is None or hasattr(top, it._cls(it.snake_case(value))), value
    for spec, apis in catalog.FRAMED.items():
        top = getattr(importlib.import_module(f"kafkalog._generated.{spec}"), it._cls(spec))
        for name, _ in apis.values():
            assert hasattr(top, it._cls(it.snake_case(name))), name
    for qualname in catalog.TAGGED:
        parts = qualname.split(".")
        spec = "_".join(p.lower() for p in __import__("re").findall(r"[A-Z][a-z]*", parts[0]))
        obj = importlib.import_module(f"kafkalog._generated.{spec}")
        for part in parts:
            obj = getattr(obj, part)
        assert obj.__qualname__ == qualname
