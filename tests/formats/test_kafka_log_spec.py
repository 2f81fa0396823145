"""The top-level spec reads whole segments as the Web IDE does: one pass, each entry by its magic."""
from __future__ import annotations

import pytest
from kafkalog._generated.kafka_log import KafkaLog
from kaitaistruct import KaitaiStream

from tests.kafka_reference import SEGMENTS, fixture_index, kafka_reading

WHOLE = [f["name"] for f in fixture_index() if not f["damaged"] and f["name"] != "empty"]


@pytest.mark.parametrize("name", WHOLE)
def test_entries_are_kafkas_batches(name):
    with KaitaiStream(open(SEGMENTS / f"{name}.log", "rb")) as io:
        log = KafkaLog(io)
        entries = [(e.magic, e.body) for e in log.entries]
    batches = [line for line in kafka_reading(name) if line["type"] == "batch"]
    assert [m for m, _ in entries] == [b["magic"] for b in batches]
    for (magic, body), batch in zip(entries, batches, strict=True):
        if magic == 2:
            assert (body.base_offset, body.last_offset, body.num_records) == (
                batch["base_offset"], batch["last_offset"], batch["count"])
        else:
            assert body.offset == batch["last_offset"]


def test_compressed_records_parse_through_the_process_routine():
    with KaitaiStream(open(SEGMENTS / "mixed-formats.log", "rb")) as io:
        log = KafkaLog(io)
        inner = []
        for entry in log.entries:
            if entry.magic == 2 and int(entry.body.attributes.compression) != 0:
                inner += [r.body.value for r in entry.body.records_data.decompressed.records]
            elif entry.magic < 2 and int(entry.body.message.attributes.compression) != 0:
                inner += [m.message.value for m in entry.body.message.compressed_value.messages.entries]
    values = [line["value"] for line in kafka_reading("mixed-formats") if line["type"] == "record"]
    import base64
    assert inner and set(base64.b64encode(v).decode() for v in inner) <= set(values)
