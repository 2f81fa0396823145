"""Regression fixtures real brokers wrote (tests/brokers/fixtures, by tests/brokers/make_fixtures.py):
behaviour the hand-made fixtures missed. No broker runs here; DumpLogSegments runs from the jars."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import kafka_jars

from kafkalog.formats import internal_topics as it
from kafkalog.log.segment import SegmentReader
from kafkalog.verify import verify_path
from tests.brokers.harness import JVM_OPTS, java

FIXTURES = Path(__file__).resolve().parent / "fixtures"
KILLED = FIXTURES / "killed-4.3.1" / "unclean-0"


def test_a_killed_brokers_preallocated_time_index_is_a_note_as_kafka_calls_it_corrupt():
    report = verify_path(KILLED)
    assert report.ok, [str(p) for p in report.problems]
    timeindex = KILLED / "00000000000000000000.timeindex"
    assert [n.split(": ")[0] for n in report.notes] == [str(timeindex)]
    assert "--index-sanity-check calls corrupt" in report.notes[0]
    res = subprocess.run([java(), *JVM_OPTS, "-cp", os.pathsep.join(kafka_jars.classpath("4.3.1")),
                          "org.apache.kafka.tools.DumpLogSegments", "--index-sanity-check", "--files", str(timeindex)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert "CorruptIndexException" in res.stdout and "last timestamp is 0" in res.stdout, res.stdout[-2000:]


def test_a_consumer_protocol_member_without_classic_metadata():
    """3.9.2's ConsumerGroupMemberMetadataValue: the tagged, nullable ClassicMemberMetadata written as null
    (tag 0, size 1, presence marker 0)."""
    (log,) = FIXTURES.glob("kraft-3.9.2/__consumer_offsets-*/*.log")
    decoder = it.decoder_for_path(log)
    members = []
    with SegmentReader(log) as reader:
        for batch in reader:
            for record in batch.records:
                d = it.decode_record(decoder, record.key, record.value, record.control_type)
                assert d.error is None, (record.offset, d.error)
                if d.value and d.value["type"] == "ConsumerGroupMemberMetadataValue":
                    members.append(d.value["data"])
        assert not reader.damage
    assert members and all(m["classicMemberMetadata"] is None for m in members), members
    assert {m["subscribedTopicNames"][0] for m in members} == {"codec-gzip"}
