"""Remote storage roots of tiered topics (KIP-405): which remote segment files hold which partition's offsets.

Kafka's own `LocalTieredStorage` (the remote storage manager of Kafka's tiered-storage tests, in the
kafka-storage test jar) keeps plain Kafka files under its `dir`:

    <dir>/kafka-tiered-storage/<topic>-<partition>-<topic id>/<start offset:020d>-<segment id>.log
                                                             ... .index .timeindex .snapshot
                                                                 .leader_epoch_checkpoint [.txnindex]

(`RemoteTopicPartitionDirectory`, `RemoteLogSegmentFileset`; the ids are Kafka's 22-character base64
`Uuid`s). A root is that `dir`, its `kafka-tiered-storage` folder, or one partition folder, on the local
disk or behind a URI (`kafkalog.dataset.fs`). A remote segment reads as a local one does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kafkalog.dataset import fs

#: `RemoteTopicPartitionDirectory`'s name: topic, partition and the topic's id.
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)-(?P<topic_id>[A-Za-z0-9_-]{22})$")
#: `RemoteLogSegmentFileset`'s name of a segment's records.
_SEGMENT = re.compile(r"^(?P<base>\d{20})-(?P<segment_id>[A-Za-z0-9_-]{22})\.log$")
ROOT_DIR_NAME = "kafka-tiered-storage"  # LocalTieredStorage.ROOT_STORAGE_DIR_NAME


@dataclass(frozen=True)
class RemoteSegment:
    location: str
    size: int
    topic: str
    partition: int
    topic_id: str
    base_offset: int
    segment_id: str


def list_remote_segments(root: str) -> list[RemoteSegment]:
    """Every remote segment under `root`, by topic, partition and start offset."""
    found = fs.info(root)
    if found is None or not found.is_dir:
        raise FileNotFoundError(root)
    out: list[RemoteSegment] = []
    for directory in _partition_dirs(found):
        match = _PARTITION_DIR.match(directory.name)
        for entry in fs.listdir(directory.location):
            segment = _SEGMENT.match(entry.name)
            if segment and not entry.is_dir:
                out.append(RemoteSegment(entry.location, entry.size, match["topic"], int(match["partition"]),
                                         match["topic_id"], int(segment["base"]), segment["segment_id"]))
    return sorted(out, key=lambda s: (s.topic, s.partition, s.base_offset, s.segment_id))


def _partition_dirs(root: fs.FileInfo) -> list[fs.FileInfo]:
    if _PARTITION_DIR.match(root.name):
        return [root]
    entries = [e for e in fs.listdir(root.location) if e.is_dir]
    nested = [e for e in entries if e.name == ROOT_DIR_NAME]
    if nested:
        entries += [e for e in fs.listdir(nested[0].location) if e.is_dir]
    return [e for e in entries if _PARTITION_DIR.match(e.name)]
