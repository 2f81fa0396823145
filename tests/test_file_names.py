"""The rules of Kafka's file and directory names, in one place (`kafkalog.file_names`)."""
from __future__ import annotations

import pytest

from kafkalog import file_names
from kafkalog.errors import FileNameError
from kafkalog.file_names import (
    OffsetFileName,
    PartitionName,
    RemotePartitionName,
    RemoteSegmentName,
)

TOPIC_ID = "q2b3TK0ZQEWqbpAAlJMZ0g"


@pytest.mark.parametrize(("name", "base"), [
    ("00000000000000000106.index", 106),
    ("00000000000000000000.log", 0),
    (f"00000000000000000100-{TOPIC_ID}.rsm-manifest", 100),  # a remote segment: `-<segment id>` after the offset
    ("0000000000000000106.log", None),  # 19 digits
    ("00000000000000000106", None),  # no suffix
    ("copy.log", None),
])
def test_a_base_offset_is_the_20_digits_a_name_starts_with(name, base):
    assert file_names.base_offset_of(name) == base


def test_a_segment_file_name_is_its_base_offset_zero_padded_to_20_digits():
    assert file_names.segment_file_name(106, file_names.LOG_SUFFIX) == "00000000000000000106.log"
    assert file_names.base_offset_of(file_names.segment_file_name(2**62, ".index")) == 2**62


@pytest.mark.parametrize(("name", "parsed"), [
    ("00000000000000000106.log", OffsetFileName(106, ".log", None)),
    ("00000000000000000106.log.deleted", OffsetFileName(106, ".log", ".deleted")),
    ("00000000000000000083.cleaned", OffsetFileName(83, ".cleaned", None)),
    ("leader-epoch-checkpoint", None),
    (f"00000000000000000100-{TOPIC_ID}.log", None),  # a remote segment's, not a partition directory's
])
def test_a_partition_directory_file_is_offset_suffix_and_a_leftover_suffix(name, parsed):
    assert file_names.parse_offset_file_name(name) == parsed


@pytest.mark.parametrize(("name", "parsed"), [
    ("orders-0", PartitionName("orders", 0)),
    ("my-topic-12", PartitionName("my-topic", 12)),
    ("orders-0.0123456789abcdef0123456789abcdef-delete", PartitionName("orders", 0, "delete")),
    ("orders-0.0123456789abcdef0123456789abcdef-future", PartitionName("orders", 0, "future")),
    ("orders-0.0123456789abcdef0123456789abcdef-stray", PartitionName("orders", 0, "stray")),
    ("orders", None),
    ("orders-0.notauuid-delete", None),
])
def test_a_partition_directory_is_topic_dash_partition_or_its_renamed_forms(name, parsed):
    assert file_names.parse_partition_dir_name(name) == parsed


def test_segment_and_manifest_names():
    assert file_names.is_segment_name("00000000000000000000.log")
    assert file_names.is_segment_name(f"00000000000000000000-{TOPIC_ID}.rsm-manifest")
    assert not file_names.is_segment_name("00000000000000000000.index")
    assert file_names.is_manifest_name("x.rsm-manifest") and not file_names.is_manifest_name("x.log")
    assert file_names.kraft_snapshot_id("00000000000000000100-0000000003.checkpoint") == (100, 3)
    assert file_names.kraft_snapshot_id("bootstrap.checkpoint") is None
    assert file_names.kraft_snapshot_id("00000000000000000100-2147483647.checkpoint") == (100, 2**31 - 1)
    with pytest.raises(FileNameError, match="the epoch 2147483648 in its name is past Kafka's largest epoch"):
        file_names.kraft_snapshot_id("00000000000000000100-2147483648.checkpoint")


def test_remote_storage_names():
    assert file_names.parse_remote_segment_name(f"00000000000000000100-{TOPIC_ID}.rsm-manifest") == \
        RemoteSegmentName(100, TOPIC_ID, ".rsm-manifest")
    assert file_names.parse_remote_segment_name("00000000000000000100.log") is None
    assert file_names.parse_remote_partition_dir_name(f"orders-3-{TOPIC_ID}") == RemotePartitionName("orders", 3, TOPIC_ID)
    assert file_names.parse_remote_partition_dir_name("orders-3") is None
    assert file_names.parse_aiven_topic_dir_name(f"orders-{TOPIC_ID}") == ("orders", TOPIC_ID)
    assert file_names.is_aiven_partition_dir_name("3") and not file_names.is_aiven_partition_dir_name("orders-3")
