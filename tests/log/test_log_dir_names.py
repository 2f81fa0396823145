"""A log directory named like a partition (`/var/lib/kafka-1`, a volume `kafka-0`) is a log directory: it holds
`meta.properties`, which Kafka writes only there."""
from __future__ import annotations

import shutil

import kafkalog
from kafkalog.log.file_kinds import directory_partitions
from kafkalog.log.partition import is_partition_dir
from tests.paths import FIXTURES


def test_a_log_directory_named_like_a_partition(tmp_path):
    log_dir = tmp_path / "kafka-1"
    shutil.copytree(FIXTURES / "partitions" / "orders-0", log_dir / "orders-0")
    assert is_partition_dir(log_dir)  # by its name alone, it could be partition 1 of topic "kafka"
    (log_dir / "meta.properties").write_text("version=1\nnode.id=1\ncluster.id=Ckh6IAgpQFaIxGypgVyD2w\n")
    assert not is_partition_dir(log_dir)
    assert directory_partitions(log_dir) == [log_dir / "orders-0"]
    # read_arrow's planner walks it as a log directory too: its partition's records, not none
    assert kafkalog.read_table(str(log_dir)).num_rows == kafkalog.read_table(str(log_dir / "orders-0")).num_rows > 0
