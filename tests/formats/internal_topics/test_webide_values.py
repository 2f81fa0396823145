"""The internal-topic specs in the Web IDE's JavaScript: the same trees as the Python parsers."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from kaitaistruct import KaitaiStream, KaitaiStruct

from kafkalog import SegmentReader
from tests.paths import ROOT

KSC = ROOT / "scripts" / "ksc"
INTERNAL = ROOT / "tests" / "fixtures" / "internal"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None or not (KSC / "node_modules" / "kaitai-struct").is_dir(),
                                reason="node and npm ci --prefix scripts/ksc are needed")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def tree(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if not v.is_integer() else str(int(v))
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, bytes):
        return {"b": v.hex()}
    if isinstance(v, list):
        return [tree(x) for x in v]
    if isinstance(v, KaitaiStruct):
        return {camel(k): tree(x) for k, x in vars(v).items() if not k.startswith("_")}
    return str(int(v))  # enums


def js(tmp_path, spec: str, main: str, inputs: list[bytes], nested=None, param=None) -> list:
    job = {"ksc": str(KSC), "spec": str(ROOT / "schemas" / f"{spec}.ksy"), "main": main, "nested": nested,
           "param": param, "inputs": [i.hex() for i in inputs], "out": str(tmp_path / "out.json")}
    (tmp_path / "job.json").write_text(json.dumps(job))
    subprocess.run([NODE, str(Path(__file__).with_name("webide_values.js")), str(tmp_path / "job.json")],
                   check=True, timeout=120)
    return json.loads((tmp_path / "out.json").read_text())


def records(partition: str):
    with SegmentReader(INTERNAL / partition / "00000000000000000000.log") as reader:
        return [r for b in reader for r in b.records if r.control_type is None]


def test_metadata_values(tmp_path):
    from kafkalog._generated import kafka_metadata_record as m

    values = [r.value for r in records("__cluster_metadata-0")]
    got = js(tmp_path, "kafka_metadata_record", "KafkaMetadataRecord", values)
    want = [tree(m.KafkaMetadataRecord(KaitaiStream(__import__("io").BytesIO(v)))) for v in values]
    assert got == want


def test_group_coordinator_keys_and_values(tmp_path):
    import io

    from kafkalog._generated import kafka_group_coordinator_record as g

    recs = [r for r in records("__consumer_offsets-0") if r.value is not None]
    got = js(tmp_path, "kafka_group_coordinator_record", "KafkaGroupCoordinatorRecord", [r.key for r in recs])
    assert got == [tree(g.KafkaGroupCoordinatorRecord(KaitaiStream(io.BytesIO(r.key)))) for r in recs]
    commits = [r for r in recs if r.key[:2] == b"\x00\x01"]
    got = js(tmp_path, "kafka_group_coordinator_record", "KafkaGroupCoordinatorRecord", [r.value for r in commits],
             nested="Value", param=1)
    assert got == [tree(g.KafkaGroupCoordinatorRecord.Value(1, KaitaiStream(io.BytesIO(r.value)))) for r in commits]
