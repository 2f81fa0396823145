"""Remote storage roots of tiered topics (KIP-405): which remote segment files hold which partition's offsets.

Kafka's own `LocalTieredStorage` (the remote storage manager of Kafka's tiered-storage tests, in the
kafka-storage test jar) keeps plain Kafka files under its `dir`:

    <dir>/kafka-tiered-storage/<topic>-<partition>-<topic id>/<start offset:020d>-<segment id>.log
                                                             ... .index .timeindex .snapshot
                                                                 .leader_epoch_checkpoint [.txnindex]

(`RemoteTopicPartitionDirectory`, `RemoteLogSegmentFileset`; the ids are Kafka's 22-character base64
`Uuid`s). A root is that `dir`, its `kafka-tiered-storage` folder, or one partition folder, on the local
disk or behind a URI (`kafkalog.dataset.fs`). A remote segment reads as a local one does.

Which remote segments belong to the log is what `__remote_log_metadata` says, as the broker's
`TopicBasedRemoteLogMetadataManager` reads it: each segment's last state, of which only
COPY_SEGMENT_FINISHED is readable (a copy that never finished, or a segment being deleted, is not),
with the offsets it covers. Without that topic, the files' names are all there is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kafkalog.dataset import fs
from kafkalog.formats.internal_topics import decode_record, decoder_for_topic
from kafkalog.log.segment import SegmentReader

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


METADATA_TOPIC = "__remote_log_metadata"
#: RemoteLogSegmentState: COPY_SEGMENT_STARTED 0, COPY_SEGMENT_FINISHED 1, DELETE_SEGMENT_STARTED 2,
#: DELETE_SEGMENT_FINISHED 3.
COPY_SEGMENT_FINISHED = 1


@dataclass(frozen=True)
class SegmentState:
    """A remote segment as `__remote_log_metadata` last describes it."""

    segment_id: str
    topic: str
    partition: int
    start_offset: int
    end_offset: int
    state: int

    @property
    def readable(self) -> bool:
        return self.state == COPY_SEGMENT_FINISHED


def segment_states(log_dirs: list[str]) -> dict[str, SegmentState] | None:
    """Every remote segment's last state, from the `__remote_log_metadata` partitions in `log_dirs`, by segment
    id; None when there are none (then the files' names are all there is)."""
    partitions = [e for d in log_dirs for e in fs.listdir(d)
                  if e.is_dir and re.fullmatch(rf"{METADATA_TOPIC}-\d+", e.name)]
    if not partitions:
        return None
    decoder = decoder_for_topic(METADATA_TOPIC)
    states: dict[str, SegmentState] = {}
    for directory in partitions:
        logs = sorted((e for e in fs.listdir(directory.location) if _LOG.match(e.name)), key=lambda e: e.name)
        for entry in logs:
            with fs.open_binary(entry.location) as f, SegmentReader(f, name=entry.location) as reader:
                for batch in reader:
                    for record in batch.records:
                        decoded = decode_record(decoder, record.key, record.value, record.control_type)
                        if decoded.value is not None:
                            _apply(states, decoded.value)
    return states


_LOG = re.compile(r"^\d{20}\.log$")


def _apply(states: dict[str, SegmentState], value: dict) -> None:
    data = value["data"]
    if value["type"] == "RemoteLogSegmentMetadataRecord":
        segment = data["remoteLogSegmentId"]
        tp = segment["topicIdPartition"]
        states[segment["id"]] = SegmentState(segment["id"], tp["name"], tp["partition"], data["startOffset"],
                                             data["endOffset"], data["remoteLogSegmentState"])
    elif value["type"] == "RemoteLogSegmentMetadataUpdateRecord":
        known = states.get(data["remoteLogSegmentId"]["id"])
        if known is not None:
            states[known.segment_id] = SegmentState(known.segment_id, known.topic, known.partition,
                                                    known.start_offset, known.end_offset,
                                                    data["remoteLogSegmentState"])
