"""A log directory's own files as real brokers leave them on a clean stop (the session's kraft_4x, Kafka
4.3.1 in KRaft mode with retention and compaction, and zk_legacy, 3.9.2 in ZooKeeper mode): every file
reads, the checkpoints agree with the logs (a clean stop flushes and checkpoints everything), and the topic
ids of one topic's partitions agree. (Every clean run's directory also goes through `verify`, with these
files' checks, in test_broker_checks.)"""
from __future__ import annotations

import pytest

from kafkalog.formats.partition_metadata import read_partition_metadata
from kafkalog.formats.quorum_state import read_quorum_state
from kafkalog.log.log_dir import read_log_dir_state
from kafkalog.log.partition import Partition, partition_dirs

pytestmark = pytest.mark.broker


def _log_end(partition: Partition) -> int:
    last = None
    for _, batch in partition.batches(decode_records=False):
        last = batch.last_offset
    return last + 1 if last is not None else partition.log_segments[-1].base_offset


@pytest.mark.parametrize("name,mode_version", [("kraft_4x", 1), ("zk_legacy", 0)])
def test_a_clean_stops_log_dir_files(request, name, mode_version):
    run = request.getfixturevalue(name)
    state = read_log_dir_state(run.data_dir)
    assert state.problems == [] and state.clean_shutdown
    assert state.meta is not None and state.meta.version == mode_version and state.meta.cluster_id
    topic_ids: dict[str, set[str]] = {}
    for directory in partition_dirs(run.data_dir):
        partition = Partition(directory)
        key = (partition.topic, partition.partition)
        if partition.topic == "__cluster_metadata":
            assert read_quorum_state(directory / "quorum-state").leader_id == state.meta.node_id
            continue
        end = _log_end(partition)
        assert state.high_watermarks[key] == end == state.recovery_points[key], directory
        if key in state.log_start_offsets:
            assert partition.log_segments[0].base_offset <= state.log_start_offsets[key] <= end
        if partition.partition_metadata is not None:
            topic_ids.setdefault(partition.topic, set()).add(read_partition_metadata(partition.partition_metadata).topic_id)
    assert all(len(ids) == 1 for ids in topic_ids.values()), topic_ids
    assert set(state.high_watermarks) == {(Partition(d).topic, Partition(d).partition)
                                          for d in partition_dirs(run.data_dir)} - {("__cluster_metadata", 0)}
    if name == "kraft_4x":
        assert len(topic_ids) >= 10
        compacted = Partition(run.data_dir / "compacted-0")
        assert state.cleaner_offsets[("compacted", 0)] >= compacted.log_segments[-1].base_offset
