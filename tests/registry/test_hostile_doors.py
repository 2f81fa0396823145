"""Issue 30: hostile registry values in a segment Kafka's own record builder wrote (tests/kafka_writer/Values.java),
read through the doors users have: `kafkalog dump --decode-values` and `read_arrow(valueFormat="registry")`.
Each hostile value is an error naming its record, in Kafka's or Avro's terms; every other record of the segment
is read and decoded, the records after the hostile ones included. Bodies are written by fastavro's writer where
Avro can write them; the 21-byte long and the union index past the union are bytes no writer makes."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import kafka_fixtures  # scripts/kafka_fixtures.py (pytest's pythonpath)
import pytest

import kafkalog
from tests.registry.test_hostile_values import LIST, _avro, _framed, _nested

ORDER = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"},
                                                       {"name": "items", "type": {"type": "array", "items": "string"}}]}
SCHEMAS = [(1, "AVRO", ORDER), (2, "AVRO", LIST), (3, "JSON", {"type": "array"}), (4, "AVRO", ["null", "long"]),
           (5, "AVRO", "long")]
#: (offset, value, what the error says); None: the value decodes.
VALUES = [
    (0, _framed(1, _avro(ORDER, {"id": 1, "items": ["a"]})), None),
    (1, _framed(2, b"\x02" * 10_000 + b"\x00"), "records, arrays and maps nest deeper than 100"),
    (2, _framed(3, b"[" * 5000 + b"]" * 5000), "its arrays and objects nest 5000 deep, deeper than kafkalog reads (200)"),
    (3, _framed(4, b"\xfe\xff\xff\xff\x0f"), "union branch index 2147483647, but the union has 2 branches"),
    (4, _framed(5, b"\xff" * 20 + b"\x01"), 'a long written in more than 10 bytes of varint ("Invalid long encoding"'),
    (5, _framed(2, _avro(LIST, _nested(50))), None),
    (6, _framed(1, _avro(ORDER, {"id": 7, "items": ["x", "y"]})), None),
]


def _b64(data: bytes | None) -> str:
    return "-" if data is None else base64.b64encode(data).decode()


def _write(out: Path, topic: str, records: list[tuple[bytes | None, bytes | None]], batch: int) -> None:
    lines = []
    for i, (key, value) in enumerate(records):
        lines.append(f"{_b64(key)} {_b64(value)}")
        if (i + 1) % batch == 0:
            lines.append("")
    kafka_fixtures.run_java(["values", str(out), "--topic", topic], stdin="\n".join(lines).encode() + b"\n")


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory) -> Path:
    """A log directory: `_schemas-0` as a registry writes it, and `orders-0` (two values a batch)."""
    out = tmp_path_factory.mktemp("logs")
    schemas = []
    for sid, kind, schema in SCHEMAS:
        key = {"keytype": "SCHEMA", "subject": f"s{sid}-value", "version": 1, "magic": 1}
        value = {"subject": f"s{sid}-value", "version": 1, "id": sid, "schemaType": kind, "schema": json.dumps(schema)}
        schemas.append((json.dumps(key).encode(), json.dumps(value).encode()))
    _write(out, "_schemas", schemas, batch=1)
    _write(out, "orders", [(b"k%d" % offset, value) for offset, value, _ in VALUES], batch=2)
    return out


def test_dump_decode_values_names_each_hostile_record_and_reads_the_rest(log_dir):
    segment = log_dir / "orders-0" / "00000000000000000000.log"
    done = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--decode-values", "--format", "json",
                           str(segment)], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stdout + done.stderr, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    records = [line for line in lines if line.get("type") == "record"]
    assert [r["offset"] for r in records] == [offset for offset, _, _ in VALUES]
    decoded = {r["offset"]: r["value_decoded"] for r in records}
    assert decoded[0] == {"id": 1, "items": ["a"]} and decoded[6] == {"id": 7, "items": ["x", "y"]}
    assert json.dumps(decoded[5]).count("next") == 50
    errors = [line["message"] for line in lines if line.get("type") == "error"]
    assert len(errors) == sum(1 for _, _, error in VALUES if error is not None), errors
    for offset, _, error in VALUES:
        if error is not None:
            assert decoded[offset] is None
            assert any(m.startswith(f"record at offset {offset}: value: ") and error in m for m in errors), errors


@pytest.mark.parametrize("threads", [1, 2])
def test_read_arrow_gives_each_hostile_value_an_error_and_decodes_the_rest(log_dir, threads):
    table = kafkalog.read_table(log_dir / "orders-0", valueFormat="registry", threads=threads,
                                maxPartitionBytes=2000)
    rows = {r["offset"]: r for r in table.select(["offset", "value_decoded", "value_error", "value_schema"]).to_pylist()}
    assert sorted(rows) == [offset for offset, _, _ in VALUES]
    for offset, value, error in VALUES:
        row = rows[offset]
        assert value[1:5] == row["value_schema"]["id"].to_bytes(4, "big")  # the schema the value names, bad or not
        if error is None:
            assert row["value_error"] is None and row["value_decoded"] is not None
        else:
            assert row["value_decoded"] is None and error in row["value_error"], row
    assert json.loads(rows[6]["value_decoded"]) == {"id": 7, "items": ["x", "y"]}
