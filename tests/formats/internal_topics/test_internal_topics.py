"""Internal-topic records decoded through the specs, against what Kafka's library wrote.

tests/fixtures/internal/ is written by tests/kafka_writer/InternalTopics.java: KRaft control
records with kafka-clients' classes, their expected decoding being Kafka's own *JsonConverter
output; the other families built from the field lists of Kafka's message schemas with Kafka's
generic protocol types, every version, every tagged field (and an unknown tag), nullable fields
null and set. Each expected/*.jsonl holds, per offset, the decoding the writer asks for.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from kafkalog._generated import internal_topics_catalog as catalog

from kafkalog import SegmentReader
from kafkalog.formats import internal_topics as it
from tests.paths import ROOT

INTERNAL = ROOT / "tests" / "fixtures" / "internal"
EXPECTED = sorted((INTERNAL / "expected").glob("*.jsonl"))


def file_of(expected: Path) -> Path:
    partition, _, rest = expected.name[: -len(".jsonl")].rpartition("-00000000000000000")
    return INTERNAL / partition / ("00000000000000000" + rest)


def decoded_records(path: Path) -> dict[int, it.Decoded]:
    decoder = it.decoder_for_path(path)
    out = {}
    with SegmentReader(path) as reader:
        for batch in reader:
            for record in batch.records:
                out[record.offset] = it.decode_record(decoder, record.key, record.value, record.control_type)
        assert not reader.damage
    return out


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.name)
def test_decoding_matches_what_kafka_wrote(expected):
    got = decoded_records(file_of(expected))
    lines = [json.loads(line) for line in expected.read_text().splitlines()]
    assert lines and len(got) == len(lines)
    for want in lines:
        d = got[want["offset"]]
        if want["error"]:
            assert d.error is not None and want["error"] in d.error, (want, d)
            continue
        assert d.error is None, (want["offset"], d.error)
        assert d.key == want["key_decoded"], want["offset"]
        assert d.value == want["value_decoded"], want["offset"]


def test_fixtures_cover_every_record_type_and_version():
    seen = set()
    for expected in EXPECTED:
        for line in expected.read_text().splitlines():
            v = json.loads(line)["value_decoded"]
            if v:
                seen.add((v["type"], v["version"]))
    for types in catalog.COORDINATOR.values():
        for _key, value, _newest in types.values():
            assert value is None or _valid(value) <= seen, value
    for apis in catalog.FRAMED.values():
        for name, _newest in apis.values():
            assert _valid(name) and _valid(name) <= seen, name
    for name, _ in catalog.CONTROL.values():
        assert any(t == name for t, _ in seen), name


def _valid(name: str) -> set[tuple[str, int]]:
    schemas = json.loads((ROOT / "tests" / "kafka_writer" / "message-schemas.json").read_text())
    for family in schemas["coordinator"].values():
        for rt in family:
            if rt["value"] and rt["value"]["name"] == name:
                lo, _, hi = rt["value"]["validVersions"].partition("-")
                return {(name, n) for n in range(int(lo), int(hi or lo) + 1)}
    for family in schemas["framed"].values():
        for api in family:
            if api["message"]["name"] == name:
                lo, _, hi = api["message"]["validVersions"].partition("-")
                return {(name, n) for n in range(int(lo), int(hi or lo) + 1)}
    return set()


def test_tagged_fields_and_unknown_tags_are_covered():
    text = "".join(p.read_text() for p in EXPECTED)
    assert '"unknownTaggedFields":[{"tag":1000' in text
    # PartitionChangeRecord is all tagged fields: set in one record, defaults in the other.
    lines = [json.loads(line) for p in EXPECTED for line in p.read_text().splitlines()]
    pcr = [line["value_decoded"]["data"] for line in lines
           if line["value_decoded"] and line["value_decoded"]["type"] == "PartitionChangeRecord"]
    assert any(d["leader"] == -2 and d["isr"] is None for d in pcr)
    assert any(d["leader"] != -2 and d["isr"] for d in pcr)


def test_consumer_protocol_inside_group_metadata():
    d = decoded_records(INTERNAL / "__consumer_offsets-0" / "00000000000000000000.log")
    groups = [x.value["data"] for x in d.values()
              if x.value and x.value["type"] == "GroupMetadataValue" and x.value["data"]["protocolType"] == "consumer"]
    assert len(groups) == 4
    versions = {g["members"][0]["subscription"]["version"] for g in groups}
    assert versions == {0, 1, 2, 3}
    assert groups[-1]["members"][0]["subscription"]["data"]["rackId"] == "rack-3"
    assert groups[-1]["members"][0]["assignment"]["data"]["assignedPartitions"] == [{"topic": "orders", "partitions": [0, 1]}]


def test_snapshot_checkpoint_reads_as_record_batches():
    path = INTERNAL / "__cluster_metadata-0" / "00000000000000000100-0000000001.checkpoint"
    assert it.decoder_for_path(path) == it.METADATA
    d = decoded_records(path)
    first, last = d[min(d)], d[max(d)]
    assert first.value["type"] == "SnapshotHeaderRecord" and last.value["type"] == "SnapshotFooterRecord"
    assert {x.value["type"] for x in d.values()} >= {"TopicRecord", "PartitionRecord", "RegisterBrokerRecord",
                                                     "FeatureLevelRecord", "ConfigRecord"}
    assert it.decoder_for_path(Path("/data/kraft/bootstrap.checkpoint")) == it.METADATA


def test_decoder_choice():
    assert it.decoder_for_path("/x/__consumer_offsets-49/00000000000000000000.log") == it.OFFSETS
    assert it.decoder_for_path("/x/__transaction_state-3/00000000000000000000.log") == it.TRANSACTIONS
    assert it.decoder_for_path("/x/__share_group_state-0/00000000000000000000.log") == it.SHARE
    assert it.decoder_for_path("/x/__remote_log_metadata-1/00000000000000000000.log") == it.REMOTE_LOG_METADATA
    assert it.decoder_for_path("/x/orders-0/00000000000000000000.log") == it.CONTROL_ONLY
    assert it.decoder_for_path("/x/orders-0/00000000000000000000.log", "offsets") == it.OFFSETS
    assert it.decoder_for_path("/x/__consumer_offsets-0/0.log", "none") is None
    with pytest.raises(Exception, match="--decode"):
        it.decoder_for_path("x.log", "bogus")


def _values(path: Path) -> list[tuple[bytes | None, bytes | None, str | None]]:
    with SegmentReader(path) as reader:
        return [(r.key, r.value, r.control_type) for b in reader for r in b.records]


@pytest.mark.parametrize("partition,decoder", [("__consumer_offsets-0", it.OFFSETS),
                                               ("__transaction_state-0", it.TRANSACTIONS),
                                               ("__share_group_state-0", it.SHARE),
                                               ("__cluster_metadata-0", it.METADATA),
                                               ("__remote_log_metadata-0", it.REMOTE_LOG_METADATA)])
def test_cut_or_damaged_bytes_give_an_error_never_an_exception(partition, decoder):
    records = _values(INTERNAL / partition / "00000000000000000000.log")
    for key, value, control in records[::7]:
        for cut in range(0, len(value or b"") - 1, 3):
            d = it.decode_record(decoder, key, value[:cut], control)
            assert d.error, (partition, cut)
            assert "Kaitai" not in d.error and "_io" not in d.error
        if value:
            flipped = bytes([value[0] ^ 0x7f]) + value[1:] + b"\xff" * 5
            it.decode_record(decoder, key, flipped, control)  # decodes or says why; never raises
        # a huge claimed array count allocates nothing: it fails at the end of the bytes
        it.decode_record(decoder, key, (value or b"")[:4] + b"\x7f\xff\xff\xff" * 4, control)


def test_errors_speak_kafkas_terms():
    assert "unknown record type 77" in it.decode_record(it.OFFSETS, b"\x00\x4d\x00", b"\x00\x00").error
    assert "null key" in it.decode_record(it.OFFSETS, None, b"\x00\x00").error
    assert "frame version 0" in it.decode_record(it.METADATA, None, b"\x00\x02\x00").error
    assert "unknown record type (API key) 99" in it.decode_record(it.METADATA, None, b"\x01\x63\x00\x00").error
    topic = _values(INTERNAL / "__cluster_metadata-0" / "00000000000000000000.log")[3][1]
    assert "garbage" in it.decode_record(it.METADATA, None, topic + b"\x00").error
    assert it.decode_record(it.OFFSETS, b"\x00\x01\x00\x01g\x00\x01t\x00\x00\x00\x00", None).value is None


def test_a_malformed_string_reads_as_kafkas_java_decoder_reads_it():
    """Kafka's readers decode a string with `new String(bytes, UTF_8)`: malformed bytes become U+FFFD, one for
    an encoded surrogate (ED A0 80) where Python's "replace" writes three, and the record still decodes."""
    group = b"g\xed\xa0\x80\xffx"
    key = b"\x00\x01" + len(group).to_bytes(2, "big") + group + b"\x00\x01t" + b"\x00\x00\x00\x07"
    d = it.decode_record(it.OFFSETS, key, None)
    assert d.error is None
    assert d.key == {"type": "OffsetCommitKey", "version": 1,
                     "data": {"group": "g\ufffd\ufffdx", "topic": "t", "partition": 7}}
