"""Kafka's own readings of the fixtures, in the shape of the reader's rows."""
from __future__ import annotations

import base64
import json

from kafkalog.dataset.schema import TIMESTAMP_TYPE_IDS
from tests.paths import ROOT

SEGMENTS = ROOT / "tests" / "fixtures" / "segments"
PARTITIONS = ROOT / "tests" / "fixtures" / "partitions"


def b64(value):
    return None if value is None else base64.b64decode(value)


def spark_micros(ms: int, kafka_shape: bool = True) -> int | None:
    """Kafka's timestamp as the reader's timestamp column holds it: microseconds as Kafka's source gives them
    (-1 ms stays -1 ms), null outside Spark's range. The UDFs (kafkalog's shape) give null for -1."""
    from kafkalog.dataset.rows import MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS

    if ms < MIN_TIMESTAMP_MS or ms > MAX_TIMESTAMP_MS or (ms == -1 and not kafka_shape):
        return None
    return ms * 1000


def kafka_reading(name: str, kafka_shape: bool = True) -> dict:
    """Kafka's reading of tests/fixtures/segments/NAME.log: records (with their batch's fields) and errors."""
    records, errors, batch = [], [], None
    for line in (SEGMENTS / f"{name}.kafka.jsonl").read_text().splitlines():
        obj = json.loads(line)
        if obj["type"] == "batch":
            batch = obj
        elif obj["type"] == "record":
            records.append(expected_row(obj, batch, kafka_shape))
        elif obj["type"] == "error":
            errors.append(obj)
    return {"records": records, "errors": errors}


def expected_row(rec: dict, batch: dict | None, kafka_shape: bool = True) -> dict:
    """A row of the data source (Kafka's source's shape), or with kafka_shape=False of the UDFs (kafkalog's)."""
    headers = [{"key": k, "value": b64(v)} for k, v in rec["headers"]]
    row = {
        "offset": rec["offset"],
        "timestamp": spark_micros(rec["timestamp"], kafka_shape),
        "sequence": rec["sequence"],
        "key": b64(rec["key"]),
        "value": b64(rec["value"]),
        # As Kafka's source: null when a record has no headers.
        "headers": (headers or None) if kafka_shape else headers,
        "control_type": rec["control_type"],
    }
    if batch is not None:
        row.update({
            "batch_position": batch["position"], "magic": batch["magic"], "compression": batch["compression"],
            "producer_id": batch["producer_id"],
            "producer_epoch": batch["producer_epoch"], "is_transactional": batch["is_transactional"],
            "is_control": batch["is_control"], "partition_leader_epoch": batch["partition_leader_epoch"],
        })
        if kafka_shape:
            row["timestampType"] = TIMESTAMP_TYPE_IDS[batch["timestamp_type"]]
        else:
            row["timestamp_type"] = batch["timestamp_type"]
    return row


def fixture_index() -> list[dict]:
    return json.loads((SEGMENTS / "index.json").read_text())


def partitions_expected() -> dict:
    return json.loads((PARTITIONS / "expected.json").read_text())


def rows(df) -> list[dict]:
    """A DataFrame's rows as dicts, with `timestamp` as integer microseconds (or None)."""
    import pyarrow as pa

    table = df.toArrow()
    if "timestamp" in table.column_names:
        i = table.column_names.index("timestamp")
        table = table.set_column(i, "timestamp", table.column(i).cast(pa.int64()))
    return table.to_pylist()


def project(row: dict, keys) -> dict:
    return {k: row[k] for k in keys}
