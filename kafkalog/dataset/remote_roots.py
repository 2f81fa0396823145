"""Remote storage roots of tiered topics (KIP-405): which remote segment files hold which partition's offsets.

Kafka's own `LocalTieredStorage` (the remote storage manager of Kafka's tiered-storage tests, in the
kafka-storage test jar) keeps plain Kafka files under its `dir`:

    <dir>/kafka-tiered-storage/<topic>-<partition>-<topic id>/<start offset:020d>-<segment id>.log
                                                             ... .index .timeindex .snapshot
                                                                 .leader_epoch_checkpoint [.txnindex]

(`RemoteTopicPartitionDirectory`, `RemoteLogSegmentFileset`; the ids are Kafka's 22-character base64
`Uuid`s). A root is that `dir`, its `kafka-tiered-storage` folder, or one partition folder, on the local
disk or behind a URI (`kafkalog.dataset.fs`). A remote segment reads as a local one does.

Aiven's `tiered-storage-for-apache-kafka` keeps each segment as three objects (`ObjectKeyFactory`):

    <prefix><topic>-<topic id>/<partition>/<start offset:020d>-<segment id>.rsm-manifest  .log  .indexes

A root is the folder of the prefix (or any folder up to three levels above the topic folders); a segment
is known by its manifest's location, and reads through `kafkalog.remote.aiven_object`.

Which remote segments belong to the log is what `__remote_log_metadata` says, as the broker's
`TopicBasedRemoteLogMetadataManager` reads it: each segment's last state, of which only
COPY_SEGMENT_FINISHED is readable (a copy that never finished, or a segment being deleted, is not),
with the offsets it covers. Without that topic, the files' names are all there is.
"""
from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from kafkalog import file_names
from kafkalog.dataset import fs
from kafkalog.errors import DamagedDataError, RemoteObjectError
from kafkalog.location import Location

# The readers of remote objects, of `__remote_log_metadata` and of checkpoints are imported where they read:
# every read's planner imports this module, and a read without remoteRoot loads none of them (issue 33: start-up).

_T = TypeVar("_T")
#: How deep under a root Aiven's topic folders are looked for (the prefix may hold folders).
_AIVEN_SEARCH_DEPTH = 3


@dataclass(frozen=True)
class RemoteSegment:
    location: str
    size: int
    #: None for an Aiven manifest outside Aiven's key layout whose metadata does not say.
    topic: str | None
    partition: int | None
    topic_id: str
    base_offset: int
    segment_id: str
    #: The last offset, where the manifest or `__remote_log_metadata` says it; None otherwise.
    end_offset: int | None = None


def list_remote_segments(root: str) -> list[RemoteSegment]:
    """Every remote segment under `root`, by topic, partition and start offset."""
    found = fs.info(root)
    if found is None or not found.is_dir:
        raise FileNotFoundError(root)
    out: list[RemoteSegment] = []
    for directory in _partition_dirs(found):
        partition = file_names.parse_remote_partition_dir_name(directory.location)
        assert partition is not None  # (as _partition_dirs found it)
        for entry in fs.listdir(directory.location):
            segment = file_names.parse_remote_segment_name(entry.location)
            if segment and segment.suffix == file_names.LOG_SUFFIX and not entry.is_dir:
                out.append(RemoteSegment(entry.location, entry.size, partition.topic, partition.partition,
                                         partition.topic_id, segment.base_offset, segment.segment_id))
    for directory in _aiven_partition_dirs(found, _AIVEN_SEARCH_DEPTH):
        for entry in fs.listdir(directory.location):
            if not entry.is_dir and _aiven_manifest_name(entry.location) is not None:
                out.append(aiven_segment(entry))
    return sorted(out, key=lambda s: (s.topic, s.partition, s.base_offset, s.segment_id))


def segments_by_custom_metadata(root: str, states: dict[str, SegmentState], known: set[str],
                                refuse: Callable[[str], None]) -> list[RemoteSegment]:
    """Aiven segments that `__remote_log_metadata` places by their custom metadata (`object_prefix` +
    `object_key`, as Aiven's `ObjectKeyFactory` makes keys from it) and that listing the root did not find
    (`known` segment ids): objects written under an earlier prefix or key. The manifest is looked for under
    the root with the prefix, then without it (a root that is the prefix's own folder).

    A key that would leave the root (`..`, absolute, a scheme) is not followed: `refuse` gets why, naming the
    metadata record, and the segment's offsets are missing as any other segment's are."""
    from kafkalog.remote.aiven_custom_metadata import parse_custom_metadata  # noqa: PLC0415  (see the imports)

    out: list[RemoteSegment] = []
    for state in states.values():
        meta = parse_custom_metadata(state.custom_metadata)
        if state.segment_id in known or not state.readable or meta is None or not meta.object_key:
            continue
        names = [f"{meta.object_prefix or ''}{meta.object_key}", meta.object_key]
        unsafe = next((why for why in map(outside_root, names) if why is not None), None)
        if unsafe is not None:
            refuse(f"{state.record}: the custom metadata of remote segment {state.segment_id} ({state.topic}-"
                   f"{state.partition}, offsets {state.start_offset} to {state.end_offset}) puts its objects at "
                   f"{_shown_key(names[0])}, {unsafe}: outside the remote root {root}, not read")
            continue
        for name in dict.fromkeys(names):
            found = fs.info(Location(root).join(name + file_names.MANIFEST_SUFFIX))
            if found is not None and not found.is_dir:
                out.append(aiven_segment(found))
                break
    return out


def outside_root(key: str) -> str | None:
    """Why an object key from a segment's metadata would name something outside the root it is joined to (on
    the local disk or in a bucket), or None: only plain relative keys are followed."""
    if not key:
        return "an empty key"
    if key.startswith("/"):
        return "an absolute key"
    if "\\" in key:
        return "a key with a backslash (a separator on Windows)"
    if any(ord(c) < 32 for c in key):
        return "a key with a control character"
    parts = key.split("/")
    if ":" in parts[0]:
        return "a key that names a scheme or drive"
    if any(p in (".", "..") for p in parts):
        return "a key with `.` or `..`"
    if "" in parts[:-1]:
        return "a key with an empty part (`//`)"
    return None


def _shown_key(key: str) -> str:
    shown = repr(key)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def aiven_segment(found: fs.FileInfo) -> RemoteSegment:
    """An Aiven segment by its manifest: topic, partition and ids from the manifest's metadata (else from its
    key), its size the segment's. A manifest that does not read keeps a size of 1, so that reading it reports
    why (`kafkalog.dataset.decode`)."""
    name = _aiven_manifest_name(found.location)
    partition_dir = found.where.parent
    topic_dir = file_names.parse_aiven_topic_dir_name(partition_dir.parent.name)
    topic = topic_dir[0] if topic_dir else None
    topic_id = topic_dir[1] if topic_dir else ""
    partition_name = partition_dir.name
    partition = int(partition_name) if file_names.is_aiven_partition_dir_name(str(partition_dir)) else None
    base = name.base_offset if name else 0
    segment_id = name.segment_id if name else ""
    from kafkalog.remote import aiven_object  # noqa: PLC0415  (see the imports)

    try:
        manifest = aiven_object.read_manifest(found.location, fs.open_object)
    except RemoteObjectError:
        return RemoteSegment(found.location, 1, topic, partition, topic_id, base, segment_id)
    meta = manifest.metadata
    if meta is None:
        return RemoteSegment(found.location, manifest.original_file_size, topic, partition, topic_id, base,
                             segment_id)
    return RemoteSegment(found.location, manifest.original_file_size, _first(meta.topic, topic),
                         _first(meta.partition, partition), _first(meta.topic_id, topic_id),
                         _first(meta.start_offset, base), _first(meta.segment_id, segment_id), meta.end_offset)


def _first(value: _T | None, default: _T) -> _T:
    return value if value is not None else default


def _aiven_manifest_name(name: str) -> file_names.RemoteSegmentName | None:
    parsed = file_names.parse_remote_segment_name(name)
    return parsed if parsed is not None and parsed.suffix == file_names.MANIFEST_SUFFIX else None


def _aiven_partition_dirs(root: fs.FileInfo, depth: int) -> list[fs.FileInfo]:
    """Aiven's `<partition>` folders under `<topic>-<topic id>` folders, at most `depth` levels down."""
    if file_names.is_aiven_partition_dir_name(root.location) \
            and file_names.parse_aiven_topic_dir_name(root.where.parent.name):
        return [root]
    entries = [e for e in fs.listdir(root.location) if e.is_dir]
    if file_names.parse_aiven_topic_dir_name(root.name):
        partitions = [e for e in entries if file_names.is_aiven_partition_dir_name(e.location)]
        if partitions:
            return partitions
    if depth == 0:
        return []
    return [d for e in entries for d in _aiven_partition_dirs(e, depth - 1)]


def _partition_dirs(root: fs.FileInfo) -> list[fs.FileInfo]:
    if file_names.parse_remote_partition_dir_name(root.location):
        return [root]
    entries = [e for e in fs.listdir(root.location) if e.is_dir]
    nested = [e for e in entries if e.name == file_names.LOCAL_TIERED_STORAGE_DIR]
    if nested:
        entries += [e for e in fs.listdir(nested[0].location) if e.is_dir]
    return [e for e in entries if file_names.parse_remote_partition_dir_name(e.location)]


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
    #: (leader epoch, its first offset in the segment), as the segment's metadata lists them.
    leader_epochs: tuple[tuple[int, int], ...] = ()
    #: What the remote storage manager returned for the segment (Aiven's: where its objects are).
    custom_metadata: bytes | None = None
    #: The `__remote_log_metadata` record that said it: its partition and offset.
    record: str = ""

    @property
    def readable(self) -> bool:
        return self.state == COPY_SEGMENT_FINISHED


def leader_epoch_lineage(partition_dir: str) -> list[tuple[int, int]] | None:
    """A local partition's leader epochs and their start offsets (its `leader-epoch-checkpoint`); None without one."""
    location = str(Location(partition_dir).join(file_names.LEADER_EPOCH_CHECKPOINT))
    if fs.info(location) is None:
        return None
    from kafkalog.formats.leader_epoch_checkpoint import parse_leader_epoch_checkpoint  # noqa: PLC0415  (see the imports)

    try:
        checkpoint = parse_leader_epoch_checkpoint(fs.read_bytes(location).decode("utf-8", "replace"), location)
    except DamagedDataError:
        return None
    return [(e.epoch, e.start_offset) for e in checkpoint.entries] or None


def within_lineage(state: SegmentState, lineage: list[tuple[int, int]]) -> bool:
    """Whether a remote segment lies on the partition's leader epoch lineage, as the broker's
    `RemoteLogManager.isRemoteSegmentWithinLeaderEpochs` decides (a segment an old leader copied before an
    unclean election, whose epochs the lineage does not have or has elsewhere, is not part of the log).
    The log end offset's own check is left to the local log, which kafkalog reads as it is."""
    epochs = dict(sorted(lineage))
    segment = _filtered(dict(sorted(state.leader_epochs)))
    if not segment or not epochs:
        return True
    keys = list(epochs)
    last = max(segment)
    if last < keys[0] or last > keys[-1]:
        return False
    first = min((e for e in segment if e >= keys[0]), default=None)
    if first is None:
        return False
    seg_keys = sorted(segment)
    for epoch in seg_keys:
        offset = segment[epoch]
        if epoch < first:
            continue
        if epoch not in epochs:
            return False
        lower = [k for k in keys if k < epoch]
        if epoch == first and lower and offset < epochs[epoch]:
            return False
        higher = [k for k in keys if k > epoch]
        if epoch == last and higher and state.end_offset > epochs[higher[0]] - 1:
            return False
        seg_higher = [k for k in seg_keys if k > epoch]
        if epoch != last and (not higher or not seg_higher or (higher[0], epochs[higher[0]]) != (
                seg_higher[0], segment[seg_higher[0]])):
            return False
    return True


def _filtered(epochs: dict[int, int]) -> dict[int, int]:
    """`buildFilteredLeaderEpochMap`: epochs that hold no record (the next one starts at the same offset) dropped."""
    out: dict[int, int] = {}
    items = list(epochs.items())
    for (epoch, offset), nxt in zip(items, [*items[1:], None], strict=True):
        if nxt is None or nxt[1] != offset:
            out[epoch] = offset
    return out


def segment_states(log_dirs: list[str]) -> dict[str, SegmentState] | None:
    """Every remote segment's last state, from the `__remote_log_metadata` partitions in `log_dirs`, by segment
    id; None when there are none (then the files' names are all there is)."""
    partitions = [e for d in log_dirs for e in fs.listdir(d) if e.is_dir and _is_metadata_partition(e.name)]
    if not partitions:
        return None
    from kafkalog.formats.internal_topics import decode_record, decoder_for_topic  # noqa: PLC0415  (see the imports)
    from kafkalog.log.segment import SegmentReader  # noqa: PLC0415

    decoder = decoder_for_topic(METADATA_TOPIC)
    states: dict[str, SegmentState] = {}
    for directory in partitions:
        logs = sorted((e for e in fs.listdir(directory.location) if _is_segment_log(e.name)), key=lambda e: e.name)
        for entry in logs:
            with fs.open_binary(entry.location) as f, SegmentReader(f, name=entry.location) as reader:
                for batch in reader:
                    for record in batch.records:
                        decoded = decode_record(decoder, record.key, record.value, record.control_type)
                        if decoded.value is not None:
                            _apply(states, decoded.value, f"{METADATA_TOPIC} partition "
                                   f"{file_names.parse_partition_dir_name(directory.name).partition} "  # type: ignore[union-attr]
                                   f"record at offset {record.offset}")
    return states


def _is_metadata_partition(name: str) -> bool:
    parsed = file_names.parse_partition_dir_name(name)
    return parsed is not None and parsed.topic == METADATA_TOPIC and parsed.state is None


def _is_segment_log(name: str) -> bool:
    parsed = file_names.parse_offset_file_name(name)
    return parsed is not None and parsed.suffix == file_names.LOG_SUFFIX and parsed.extra is None


def _apply(states: dict[str, SegmentState], value: dict, record: str) -> None:
    data = value["data"]
    if value["type"] == "RemoteLogSegmentMetadataRecord":
        segment = data["remoteLogSegmentId"]
        tp = segment["topicIdPartition"]
        epochs = tuple((e["leaderEpoch"], e["offset"]) for e in data.get("segmentLeaderEpochs") or ())
        custom = base64.b64decode(data["customMetadata"]) if data.get("customMetadata") else None
        states[segment["id"]] = SegmentState(segment["id"], tp["name"], tp["partition"], data["startOffset"],
                                             data["endOffset"], data["remoteLogSegmentState"], epochs, custom,
                                             record)
    elif value["type"] == "RemoteLogSegmentMetadataUpdateRecord":
        known = states.get(data["remoteLogSegmentId"]["id"])
        if known is not None:
            custom = base64.b64decode(data["customMetadata"]) if data.get("customMetadata") else known.custom_metadata
            states[known.segment_id] = SegmentState(known.segment_id, known.topic, known.partition,
                                                    known.start_offset, known.end_offset,
                                                    data["remoteLogSegmentState"], known.leader_epochs, custom,
                                                    record if data.get("customMetadata") else known.record)
