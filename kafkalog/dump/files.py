"""`kafkalog dump` of a partition's other files, and of whole partition directories.

JSON lines (`--format json`), one object per entry, offsets absolute:

    {"type":"index","offset":14,"position":1358}
    {"type":"timeindex","timestamp":1700000004004,"offset":14}
    {"type":"snapshot","offset":97,"version":1,"crc":86537952,"crc_valid":true,"producer_entries":2}
    {"type":"snapshot_entry","producer_id":3000,"epoch":1,"last_sequence":39,"last_offset":90,
     "offset_delta":3,"timestamp":1700000050900,"coordinator_epoch":7,"current_txn_first_offset":-1}
    {"type":"aborted_txn","version":0,"producer_id":3001,"first_offset":83,"last_offset":97,"last_stable_offset":98}
    {"type":"leader_epoch","epoch":1,"start_offset":170}
    {"type":"high_watermark","topic":"t","partition":0,"offset":20}
    {"type":"meta_properties","version":1,"node_id":1,"cluster_id":"PQPza3SaRS2lOb8UHh1E4w",
     "directory_id":"wepczIOXDsq8edc__TRcaA","properties":{...}}
    {"type":"partition_metadata","version":0,"topic_id":"gFJcmg8YTmWchffUYd91wg"}
    {"type":"quorum_state","data_version":0,"leader_id":1,"leader_epoch":1,"voted_id":-1,...}
    {"type":"error","position":...,"message":...}

Snapshot entries carry the field names of Kafka's snapshot schema
(`ProducerStateManager`), aborted transactions the snake_cased getters of
`AbortedTxn`. A log directory's offset checkpoints give a line per partition, typed by the file
(`high_watermark`, `recovery_point`, `log_start_offset`, `cleaner_offset`; `checkpoint_offset` for
a file of another name read with --type offset-checkpoint); `meta.properties`, `partition.metadata` and
`quorum-state` a line each, with the fields of Kafka's `MetaProperties`, `PartitionMetadata` and
`QuorumStateData` snake_cased (those of another `quorum-state` version null). An index's
preallocated slots are not printed: a `{"type":"index_end","entries":N,"unused_slots":M}` line closes
each index dump. A partition directory is dumped segment by segment (.log, .index,
.timeindex, .txnindex, then the snapshot at that offset), then the
KRaft snapshots, the leader-epoch-checkpoint, partition.metadata and quorum-state, each file introduced by
`{"type":"file","path":...}`; leftover files get a `{"type":"leftover",...}`
line and are not dumped. The text form follows kafka-dump-log.sh. Directories and files are read on the local disk or
behind a URI (`kafkalog.uri_path.UriPath`) alike.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TextIO, TypeVar

from kafkalog.dump import records as dump_format
from kafkalog.dump.json_line import dumps
from kafkalog.errors import DamagedDataError
from kafkalog.file_names import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_OFFSET_CHECKPOINT,
    REPLICATION_OFFSET_CHECKPOINT,
)
from kafkalog.formats.index import OffsetIndex, TimeIndex, base_offset_of
from kafkalog.formats.leader_epoch_checkpoint import read_leader_epoch_checkpoint
from kafkalog.formats.meta_properties import read_meta_properties
from kafkalog.formats.offset_checkpoint import read_offset_checkpoint
from kafkalog.formats.partition_metadata import read_partition_metadata
from kafkalog.formats.producer_snapshot import read_snapshot
from kafkalog.formats.quorum_state import read_quorum_state
from kafkalog.formats.txn_index import read_txn_index
from kafkalog.javaint import decrement_sequence
from kafkalog.log import file_kinds
from kafkalog.log.partition import Partition
from kafkalog.uri_path import AnyPath

DumpLog = Callable[[AnyPath, str], bool]
_T = TypeVar("_T")
"""Prints a record-batch file of the given kind (kafkalog.cli's segment dump); True when it was whole."""


class _Out:
    """JSON lines for --format json, text (kafka-dump-log.sh's lines) for text and kafka."""

    def __init__(self, fmt: str, out: TextIO):
        self.json = fmt == "json"
        #: Exactly kafka-dump-log.sh's lines: none of kafkalog's own (index ends, a snapshot's header).
        self.kafka = fmt == "kafka"
        self.out = out

    def emit(self, obj: dict, text: str) -> None:
        self.out.write((dumps(obj) if self.json else text) + "\n")

    def error(self, damage: DamagedDataError) -> None:
        self.emit(dump_format.error_json(damage), dump_format.error_text(damage))

    def header(self, path: AnyPath) -> None:
        if not self.json:
            self.out.write(f"Dumping {path}\n")


def dump_offset_index(path: AnyPath, out: _Out, base_offset: int | None = None) -> bool:
    out.header(path)
    with OffsetIndex(path, base_offset=base_offset) as index:
        if len(index) == 0 and not out.json:
            if out.kafka and index.slots:
                # DumpLogSegments prints the first slot, then stops at a slot that holds the base offset again.
                out.out.write(f"offset: {index.base_offset} position: 0\n")
            else:
                out.out.write(f"{path} is empty.\n")
        for entry in index:
            out.emit({"type": "index", "offset": entry.offset, "position": entry.position},
                     f"offset: {entry.offset} position: {entry.position}")
        return _index_end(index, out)


def dump_time_index(path: AnyPath, out: _Out, base_offset: int | None = None) -> bool:
    out.header(path)
    with TimeIndex(path, base_offset=base_offset) as index:
        if len(index) == 0 and not out.json:
            if out.kafka:
                # The first slot, as for an offset index; of an empty file, nothing (no "is empty." here).
                if index.slots:
                    out.out.write(f"timestamp: 0 offset: {index.base_offset}\n")
            else:
                out.out.write(f"{path} is empty.\n")
        for entry in index:
            out.emit({"type": "timeindex", "timestamp": entry.timestamp, "offset": entry.offset},
                     f"timestamp: {entry.timestamp} offset: {entry.offset}")
        return _index_end(index, out)


def _index_end(index, out: _Out) -> bool:
    if not out.kafka:
        out.emit({"type": "index_end", "entries": len(index), "unused_slots": index.unused_slots},
                 f"entries: {len(index)} unused (preallocated) slots: {index.unused_slots}")
    if index.trailing_bytes:
        out.error(DamagedDataError(f"{index.trailing_bytes} bytes after the last whole entry: the length is not "
                                   f"a multiple of {index.entry_size}", path=index.name,
                                   position=index.slots * index.entry_size))
        return False
    return True


def dump_snapshot(path: AnyPath, out: _Out) -> bool:
    out.header(path)
    snap = read_snapshot(path)
    if out.kafka:
        for e in snap.producer_entries:
            out.out.write(_kafka_snapshot_line(e) + "\n")
        for damage in snap.damage:
            out.error(damage)
        return not snap.damage
    out.emit({"type": "snapshot", "offset": snap.offset, "version": snap.version, "crc": snap.crc,
              "crc_valid": snap.crc_valid, "producer_entries": len(snap.producer_entries)},
             f"version: {snap.version} crc: {snap.crc} isValid: {str(snap.crc_valid).lower()}")
    for e in snap.producer_entries:
        out.emit({"type": "snapshot_entry", "producer_id": e.producer_id, "epoch": e.epoch,
                  "last_sequence": e.last_sequence, "last_offset": e.last_offset, "offset_delta": e.offset_delta,
                  "timestamp": e.timestamp, "coordinator_epoch": e.coordinator_epoch,
                  "current_txn_first_offset": e.current_txn_first_offset},
                 f"producerId: {e.producer_id} producerEpoch: {e.epoch} coordinatorEpoch: {e.coordinator_epoch} "
                 f"currentTxnFirstOffset: {e.current_txn_first_offset} lastTimestamp: {e.timestamp} "
                 f"lastSequence: {e.last_sequence} lastOffset: {e.last_offset} offsetDelta: {e.offset_delta}")
    for damage in snap.damage:
        out.error(damage)
    return not snap.damage


def _kafka_snapshot_line(e) -> str:
    """A producer's line as DumpLogSegments.dumpProducerIdSnapshot prints its `ProducerStateEntry`."""
    first = "OptionalLong.empty" if e.current_txn_first_offset < 0 else f"OptionalLong[{e.current_txn_first_offset}]"
    line = (f"producerId: {e.producer_id} producerEpoch: {e.epoch} coordinatorEpoch: {e.coordinator_epoch} "
            f"currentTxnFirstOffset: {first} lastTimestamp: {e.timestamp}")
    if e.last_offset < 0:
        return line  # readSnapshot keeps no batch metadata for an entry without a last offset
    first_sequence = decrement_sequence(e.last_sequence, e.offset_delta)  # as ProducerStateEntry.firstSeq
    return (f"{line} firstSequence: {first_sequence} lastSequence: {e.last_sequence} lastOffset: {e.last_offset} "
            f"offsetDelta: {e.offset_delta} timestamp: {e.timestamp}")


def dump_txn_index(path: AnyPath, out: _Out) -> bool:
    out.header(path)
    read = read_txn_index(path)
    for t in read.entries:
        out.emit({"type": "aborted_txn", "version": t.version, "producer_id": t.producer_id,
                  "first_offset": t.first_offset, "last_offset": t.last_offset,
                  "last_stable_offset": t.last_stable_offset},
                 f"version: {t.version} producerId: {t.producer_id} firstOffset: {t.first_offset} "
                 f"lastOffset: {t.last_offset} lastStableOffset: {t.last_stable_offset}")
    for damage in read.damage:
        out.error(damage)
    return not read.damage


def _read_text_file(path: AnyPath, read: Callable[[AnyPath], _T], out: _Out) -> _T | None:
    """One of Kafka's text files read, after its header line; None when it does not read (the damage printed)."""
    out.header(path)
    try:
        return read(path)
    except DamagedDataError as damage:
        out.error(damage)
        return None


def dump_checkpoint(path: AnyPath, out: _Out) -> bool:
    checkpoint = _read_text_file(path, read_leader_epoch_checkpoint, out)
    if checkpoint is None:
        return False
    for e in checkpoint.entries:
        out.emit({"type": "leader_epoch", "epoch": e.epoch, "start_offset": e.start_offset},
                 f"epoch: {e.epoch} startOffset: {e.start_offset}")
    return True


#: What each offset checkpoint's offsets are: the JSON line's type and the text line's word.
_OFFSET_WORDS = {REPLICATION_OFFSET_CHECKPOINT: ("high_watermark", "highWatermark"),
                 RECOVERY_POINT_OFFSET_CHECKPOINT: ("recovery_point", "recoveryPoint"),
                 LOG_START_OFFSET_CHECKPOINT: ("log_start_offset", "logStartOffset"),
                 CLEANER_OFFSET_CHECKPOINT: ("cleaner_offset", "cleanerOffset")}


def dump_offset_checkpoint(path: AnyPath, out: _Out) -> bool:
    """A log directory's offset checkpoint, a line per partition in the file's order."""
    checkpoint = _read_text_file(path, read_offset_checkpoint, out)
    if checkpoint is None:
        return False
    json_type, word = _OFFSET_WORDS.get(path.name, ("checkpoint_offset", "offset"))
    if not checkpoint.offsets and not out.json:
        out.out.write("no entries\n")
    for (topic, partition), offset in checkpoint.offsets.items():
        out.emit({"type": json_type, "topic": topic, "partition": partition, "offset": offset},
                 f"topic: {_java(topic)} partition: {partition} {word}: {offset}")
    return True


def dump_meta_properties(path: AnyPath, out: _Out) -> bool:
    meta = _read_text_file(path, read_meta_properties, out)
    if meta is None:
        return False
    text = f"version: {meta.version} nodeId: {_java(meta.node_id)} clusterId: {_java(meta.cluster_id)}"
    if meta.directory_id is not None:
        text += f" directoryId: {meta.directory_id}"
    out.emit({"type": "meta_properties", "version": meta.version, "node_id": meta.node_id,
              "cluster_id": meta.cluster_id, "directory_id": meta.directory_id, "properties": meta.properties}, text)
    return True


def dump_partition_metadata(path: AnyPath, out: _Out) -> bool:
    metadata = _read_text_file(path, read_partition_metadata, out)
    if metadata is None:
        return False
    out.emit({"type": "partition_metadata", "version": metadata.version, "topic_id": metadata.topic_id},
             f"version: {metadata.version} topicId: {metadata.topic_id}")
    return True


def dump_quorum_state(path: AnyPath, out: _Out) -> bool:
    state = _read_text_file(path, read_quorum_state, out)
    if state is None:
        return False
    fields = {"data_version": state.data_version, "leader_id": state.leader_id, "leader_epoch": state.leader_epoch,
              "voted_id": state.voted_id, "voted_directory_id": state.voted_directory_id,
              "cluster_id": state.cluster_id, "applied_offset": state.applied_offset,
              "current_voters": state.current_voters}
    text = " ".join(f"{_camel(k)}: {_java(v)}" for k, v in fields.items() if v is not None)
    out.emit({"type": "quorum_state", **fields}, text)
    return True


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(w.title() for w in rest)


def _java(value: object) -> str:
    """A value as the text lines print it: null for none, lists as [1, 2], control characters escaped."""
    return "null" if value is None else dump_format.escape(str(value))


def dump_file(path: AnyPath, kind: str | None, fmt: str, out: TextIO, dump_log: DumpLog) -> bool:
    """Dump one file of the given kind (see kafkalog.log.file_kinds)."""
    o = _Out(fmt, out)
    if kind in file_kinds.RECORD_FILES or kind == file_kinds.KAFKA07:
        return dump_log(path, kind)
    if kind == file_kinds.LEADER_EPOCH:
        return dump_checkpoint(path, o)
    if kind == file_kinds.OFFSET_CHECKPOINT:
        return dump_offset_checkpoint(path, o)
    if kind == file_kinds.META:
        return dump_meta_properties(path, o)
    if kind == file_kinds.TOPIC_ID:
        return dump_partition_metadata(path, o)
    if kind == file_kinds.QUORUM:
        return dump_quorum_state(path, o)
    if kind == file_kinds.INDEX:
        return dump_offset_index(path, o, _base_offset(path))
    if kind == file_kinds.TIME_INDEX:
        return dump_time_index(path, o, _base_offset(path))
    if kind == file_kinds.SNAPSHOT:
        return dump_snapshot(path, o)
    if kind == file_kinds.TXN_INDEX:
        return dump_txn_index(path, o)
    raise ValueError(f"{path}: not a file kafkalog dumps")


def dump_partition(path: AnyPath, fmt: str, out: TextIO, dump_log: DumpLog) -> bool:
    """Segment by segment (.log, .index, .timeindex, .txnindex, then the snapshot at that offset), the
    remaining producer snapshots, KRaft snapshots, then the leader-epoch-checkpoint, partition.metadata and
    quorum-state."""
    partition = Partition(path)
    o = _Out(fmt, out)
    ok = True
    files: list[AnyPath] = []
    files += partition.kafka07_segments
    for segment in partition.segments:
        files += segment.files()
        if segment.base_offset in partition.snapshots:
            files.append(partition.snapshots[segment.base_offset])
    listed = set(files)
    files += [p for _, p in sorted(partition.snapshots.items()) if p not in listed]
    files += file_kinds.kraft_snapshots(path)
    files += [p for p in (partition.leader_epoch_checkpoint, partition.partition_metadata, partition.quorum_state)
              if p is not None]
    for leftover in partition.leftovers:
        o.emit({"type": "leftover", "path": str(leftover.path), "kind": leftover.kind},
               f"Leftover {leftover.kind} file (not dumped): {leftover.path}")
    for file in files:
        if o.json:
            o.emit({"type": "file", "path": str(file)}, "")
        ok = dump_file(file, file_kinds.kind_of(file), fmt, out, dump_log) and ok
    return ok


def dump_log_dir_files(log_dir: AnyPath, fmt: str, out: TextIO, dump_log: DumpLog) -> bool:
    """A log directory's own files (meta.properties, then the offset checkpoints), each introduced in JSON by
    `{"type":"file","path":...}`: dumped after its partitions."""
    ok = True
    for file in file_kinds.log_dir_files(log_dir):
        if fmt == "json":
            out.write(dumps({"type": "file", "path": str(file)}) + "\n")
        ok = dump_file(file, file_kinds.kind_of(file), fmt, out, dump_log) and ok
    return ok


def _base_offset(path: AnyPath) -> int:
    try:
        return base_offset_of(path)
    except ValueError:
        return 0  # a file renamed by hand: offsets print relative to 0
