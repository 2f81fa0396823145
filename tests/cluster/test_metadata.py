"""The KRaft metadata log replayed (`kafkalog.cluster.metadata`) on the committed fixture (written with Kafka's
own classes, scripts/kafka_fixtures.py), and on damaged copies of it: what reads is replayed, what does not is
named with its file, nothing raises."""
from __future__ import annotations

import functools
import io
import shutil
from pathlib import Path

from kafkalog.cluster.metadata import MetadataFile, read_metadata
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


def test_files_listed_and_opened_by_the_caller_replay_as_the_directory():
    """As a metadata log behind a URI is read (restore.topics lists and opens its objects): the same state."""
    files = [MetadataFile(p.name, f"s3://lost/{p.name}", functools.partial(io.BytesIO, p.read_bytes()))
             for p in sorted(METADATA.iterdir()) if p.is_file()]
    md, local = read_metadata("s3://lost", files), read_metadata(METADATA)
    assert md.source == "s3://lost" and md.problems == []
    assert (md.end_offset, md.topics, md.partitions, md.topic_configs) == (
        local.end_offset, local.topics, local.partitions, local.topic_configs)
    # without the snapshot, from the log alone: what is wrong is named by the caller's name for the file
    log = next(f for f in files if f.name.endswith(".log"))
    broken = MetadataFile(log.name, log.where, functools.partial(io.BytesIO, log.open().read()[:-7]))
    md = read_metadata("s3://lost", [broken])
    assert md.topics and any(p.startswith(f"s3://lost/{log.name}") for p in md.problems), md.problems


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
