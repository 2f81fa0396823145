"""Kafka's own reading of the fixture segments, and how ours must relate to it.

The fixtures in tests/fixtures/segments were written by Kafka's Java client
library (tests/kafka_writer), which also wrote `<name>.kafka.jsonl`: Kafka's
reading of each file in the JSON-lines form of `kafkalog dump --format json`.
"""
from __future__ import annotations

import json
from typing import Any

from tests.paths import FIXTURES

SEGMENTS = FIXTURES / "segments"


def fixture_index() -> list[dict[str, Any]]:
    return json.loads((SEGMENTS / "index.json").read_text())


def kafka_reading(name: str) -> list[dict[str, Any]]:
    lines = (SEGMENTS / f"{name}.kafka.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def compare_with_kafka(ours: list[dict[str, Any]], kafka: list[dict[str, Any]]) -> list[str]:
    """Differences between our dump and Kafka's reading; empty when they agree.

    * Every batch and record line Kafka printed must be ours too, equal field
      for field and in the same order. Where Kafka could not print a batch
      (it threw while reading its header, as for a v1 wrapper whose data does
      not decompress) we may print it: those batches are left out.
    * Every place Kafka reported damage, we report damage too.
    * We may report more, but only what Kafka shows as a field rather than
      an error: a batch whose CRC does not match, or a magic byte Kafka does
      not write.
    """
    problems: list[str] = []
    # The internal-topic decoding (issue 10, tests/formats/internal_topics/) has no counterpart in this reading.
    ours = [{k: v for k, v in line.items() if k not in ("key_decoded", "value_decoded")} for line in ours]
    kafka_errors = {line["position"] for line in kafka if line["type"] == "error"}
    kafka_batches = {line["position"] for line in kafka if line["type"] == "batch"}
    ours_data = [
        line for line in ours
        if line["type"] == "record"
        or (line["type"] == "batch" and not (line["position"] in kafka_errors and line["position"] not in kafka_batches))
    ]
    kafka_data = [line for line in kafka if line["type"] in ("batch", "record")]
    # (strict=False: the first difference in the lines both printed; a difference in their number is said below)
    for i, (want, got) in enumerate(zip(kafka_data, ours_data, strict=False)):
        if want != got:
            problems.append(f"line {i}: Kafka {want} != ours {got}")
            break
    if len(kafka_data) != len(ours_data):
        problems.append(f"Kafka printed {len(kafka_data)} batch/record lines, we printed {len(ours_data)}")

    our_errors = {line["position"] for line in ours if line["type"] == "error"}
    missing = kafka_errors - our_errors
    if missing:
        problems.append(f"Kafka reports damage at {sorted(missing)}, we do not")
    explained = {
        line["position"] for line in ours
        if line["type"] == "batch" and (not line["crc_valid"] or line["magic"] not in (0, 1, 2))
    }
    unexplained = our_errors - kafka_errors - explained
    if unexplained:
        problems.append(f"we report damage at {sorted(unexplained)}, where Kafka reads the file fine")
    return problems
