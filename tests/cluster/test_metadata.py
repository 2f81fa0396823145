"""The KRaft metadata log replayed (`kafkalog.cluster.metadata`) on the committed fixture (written with Kafka's
own classes, scripts/kafka_fixtures.py), and on damaged copies of it: what reads is replayed, what does not is
named with its file, nothing raises."""
from __future__ import annotations

import shutil
from pathlib import Path

from kafkalog.cluster.metadata import read_metadata
from tests.paths import FIXTURES

METADATA = FIXTURES / "internal" / "__cluster_metadata-0"
SNAPSHOT = "00000000000000000100-0000000001.checkpoint"


def test_the_latest_snapshot_then_the_log_after_it():
    md = read_metadata(METADATA)
    assert md.end_offset == 100  # the snapshot's end offset: the log's records (0-76) are all below it
    assert md.problems == []
    assert len(md.topics) == 2 and len(md.partitions) == 6
    for (topic_id, number), p in md.partitions.items():
        assert (p.topic_id, p.partition) == (topic_id, number) and p.replicas


def test_without_the_snapshot_the_log_is_replayed(tmp_path):
    copy = tmp_path / METADATA.name
    shutil.copytree(METADATA, copy)
    (copy / SNAPSHOT).unlink()
    md = read_metadata(copy)
    assert md.end_offset == 77 and md.problems == []
    assert md.topics  # TopicRecords of the log


def _damaged(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / METADATA.name
    shutil.copytree(METADATA, copy)
    data = bytearray((copy / name).read_bytes())
    data[len(data) // 2: len(data) // 2 + 40] = b"\xff" * 40
    (copy / name).write_bytes(bytes(data))
    return copy


def test_a_snapshot_that_does_not_parse_is_named_and_the_log_replayed(tmp_path):
    copy = _damaged(tmp_path, SNAPSHOT)
    md = read_metadata(copy)
    assert any(str(copy / SNAPSHOT) in p for p in md.problems), md.problems
    assert md.end_offset == 77  # replayed from the log instead


def test_a_log_that_does_not_parse_is_replayed_up_to_the_damage(tmp_path):
    copy = _damaged(tmp_path, SNAPSHOT)
    log = next(copy.glob("*.log"))
    data = bytearray(log.read_bytes())
    data[len(data) // 2: len(data) // 2 + 40] = b"\xff" * 40
    log.write_bytes(bytes(data))
    md = read_metadata(copy)
    assert any(str(log) in p and "does not parse" in p for p in md.problems), md.problems
    assert 0 < md.end_offset < 77
