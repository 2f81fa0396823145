"""kafkalog's reading of Kafka-written segments, field by field against Kafka's own reading."""
from __future__ import annotations

import itertools
import json

import pytest

from kafkalog import cli
from tests.kafka_reference import SEGMENTS, compare_with_kafka, fixture_index, kafka_reading

FIXTURES = fixture_index()


def dump_json(capsys, *paths) -> tuple[int, list[dict]]:
    status = cli.main(["dump", "--format", "json", *map(str, paths)])
    out = capsys.readouterr().out
    return status, [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_dump_agrees_with_kafka(fixture, capsys):
    status, ours = dump_json(capsys, SEGMENTS / f"{fixture['name']}.log")
    kafka = kafka_reading(fixture["name"])
    assert compare_with_kafka(ours, kafka) == []
    if fixture["damaged"]:
        assert status == 1
        assert any(line["type"] == "error" for line in ours)
    else:
        assert status == 0
        assert not any(line["type"] == "error" for line in ours)


def test_the_comparison_catches_a_wrong_field(capsys):
    _, ours = dump_json(capsys, SEGMENTS / "v1-compacted.log")
    kafka = kafka_reading("v1-compacted")
    record = next(line for line in ours if line["type"] == "record")
    record["offset"] += 1
    assert compare_with_kafka(ours, kafka)


def test_the_comparison_catches_a_missed_error(capsys):
    _, ours = dump_json(capsys, SEGMENTS / "damaged-zstd-flip.log")
    kafka = kafka_reading("damaged-zstd-flip")
    ours = [line for line in ours if line["type"] != "error"]
    assert compare_with_kafka(ours, kafka)


def test_fixtures_cover_every_format_and_codec():
    names = {f["name"] for f in FIXTURES}
    for magic, codecs in ((0, "none gzip snappy lz4"), (1, "none gzip snappy lz4"), (2, "none gzip snappy lz4 zstd")):
        for codec in codecs.split():
            assert f"v{magic}-{codec}" in names


def test_v1_wrapper_offsets_resolve_to_absolute_with_gaps(capsys):
    _, ours = dump_json(capsys, SEGMENTS / "v1-compacted.log")
    wrappers = [line for line in ours if line["type"] == "batch" and line["compression"] != "none"]
    assert wrappers
    for wrapper in wrappers:
        i = ours.index(wrapper)
        offsets = []
        for line in ours[i + 1:]:
            if line["type"] != "record":
                break
            offsets.append(line["offset"])
        # A wrapper's offset is its last inner offset, its base offset the first one.
        assert offsets[-1] == wrapper["last_offset"] and offsets[0] == wrapper["base_offset"]
    all_offsets = [line["offset"] for line in ours if line["type"] == "record"]
    assert any(b - a > 1 for a, b in itertools.pairwise(all_offsets)), "compaction left no gap"
