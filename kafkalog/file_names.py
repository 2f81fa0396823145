"""The rules of the names Kafka (and its remote storage managers) give files and directories.

    base_offset_of("00000000000000000106.index")        # 106
    parse_partition_dir_name("orders-0")                # PartitionName('orders', 0, None)
    segment_file_name(106, LOG_SUFFIX)                  # '00000000000000000106.log'

Names only: which kind of file a name is, and how a directory's files are read, are the layers' above
(`kafkalog.log.file_kinds`, `kafkalog.log.partition`, `kafkalog.dataset.layout`, `kafkalog.dataset.remote_roots`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kafkalog.errors import FileNameError

#: Kafka's partition numbers are Java ints and its offsets Java longs (`UnifiedLog.parseTopicPartitionName`,
#: `LogFileUtils.offsetFromFileName` fail past them, and the broker does not load the directory): a name past
#: them is refused, naming the file, never read with a number no column holds.
MAX_PARTITION = 2**31 - 1
MAX_OFFSET = 2**63 - 1

# A segment's files and a partition's other offset-named files (`LogFileUtils`).
LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TXN_INDEX_SUFFIX = ".txnindex"
SNAPSHOT_SUFFIX = ".snapshot"
#: A remote segment's leader epochs, in LocalTieredStorage's layout (`RemoteLogSegmentFileset`).
REMOTE_LEADER_EPOCH_SUFFIX = ".leader_epoch_checkpoint"
#: Aiven's three objects of a remote segment (`ObjectKeyFactory.Suffix`): the manifest a segment is known by,
#: its records, its indexes.
MANIFEST_SUFFIX = ".rsm-manifest"
INDEXES_SUFFIX = ".indexes"
#: What a broker renames a file out of the log to (`LogFileUtils`), and what kafkalog calls each.
LEFTOVER_SUFFIXES = {".deleted": "deleted", ".cleaned": "cleaned", ".swap": "swap"}

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"  # LeaderEpochCheckpointFile.LEADER_EPOCH_CHECKPOINT_FILENAME
PARTITION_METADATA = "partition.metadata"
BOOTSTRAP_CHECKPOINT = "bootstrap.checkpoint"  # BootstrapDirectory.BINARY_BOOTSTRAP_FILENAME
#: A log directory's own files (`LogManager`, `ReplicaManager`, `LogCleanerManager`, `MetaPropertiesEnsemble`).
REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint"  # ReplicaManager.HighWatermarkFilename
RECOVERY_POINT_OFFSET_CHECKPOINT = "recovery-point-offset-checkpoint"  # LogManager.RecoveryPointCheckpointFile
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"  # LogManager.LogStartOffsetCheckpointFile
CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint"  # LogCleanerManager.offsetCheckpointFile
OFFSET_CHECKPOINTS = (REPLICATION_OFFSET_CHECKPOINT, RECOVERY_POINT_OFFSET_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT,
                      CLEANER_OFFSET_CHECKPOINT)
META_PROPERTIES = "meta.properties"  # MetaPropertiesEnsemble.META_PROPERTIES_NAME
CLEAN_SHUTDOWN = ".kafka_cleanshutdown"  # CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME
QUORUM_STATE = "quorum-state"  # KafkaRaftManager: the KRaft election state in __cluster_metadata-0

#: A name that starts with a 20-digit base offset (`LogFileUtils.offsetFromFileName`), then a suffix or,
#: for a remote segment, `-<segment id>`.
_BASE_OFFSET = re.compile(r"^(\d{20})[.-]")
#: A partition directory's offset-named file: base offset, suffix, and a leftover's second suffix.
_OFFSET_FILE = re.compile(r"^(\d{20})(\.[a-z]+)(\.[a-z]+)?$")
#: A KRaft snapshot: `<20-digit end offset>-<10-digit epoch>.checkpoint` (`Snapshots.parse`).
_KRAFT_SNAPSHOT = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")
# topic-N, and the renamed directories of a partition being deleted or moved (topic-N.<uuid>-delete, -future, -stray)
_PARTITION_DIR = re.compile(
    r"^(?P<topic>.+)-(?P<partition>\d+)(?:\.(?P<uid>[0-9a-f]{32})-(?P<state>delete|future|stray))?$")


def segment_file_name(base_offset: int, suffix: str) -> str:
    """Kafka's `LogFileUtils.filenamePrefixFromOffset`: the offset zero-padded to 20 digits, then `suffix`."""
    return f"{base_offset:020d}{suffix}"


#: A name, or a path (a URI too) whose last part is the name: an error then names the whole path.
Name = str | os.PathLike


def _last(name: Name) -> str:
    return os.path.basename(os.fspath(name).rstrip("/"))


def _number(text: str, most: int) -> int | None:
    """The decimal `text` as an int, None past `most` (a name's digits can be thousands: never all converted)."""
    digits = text.lstrip("0")
    return int(text) if len(digits) <= len(str(most)) and int(text) <= most else None


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"


def _offset(text: str, name: Name) -> int:
    value = _number(text, MAX_OFFSET)
    if value is None:
        raise FileNameError(os.fspath(name), f"the offset {_shown(text)} in its name is past Kafka's largest offset "
                                             f"({MAX_OFFSET}); Kafka names no file so and does not load one")
    return value


def _partition(text: str, name: Name) -> int:
    value = _number(text, MAX_PARTITION)
    if value is None:
        raise FileNameError(os.fspath(name), f"partition {_shown(text)} in its name is past Kafka's largest "
                                             f"partition number ({MAX_PARTITION}); Kafka names no directory so and "
                                             "does not load one")
    return value


def base_offset_of(name: Name) -> int | None:
    """The base offset a file's name starts with (`00000000000000000106.index` -> 106), None for another name."""
    match = _BASE_OFFSET.match(_last(name))
    return _offset(match.group(1), name) if match else None


@dataclass(frozen=True)
class OffsetFileName:
    """A partition directory's offset-named file: `00000000000000000106.log`, `...106.log.deleted`."""

    base_offset: int
    suffix: str
    #: A leftover's second suffix (`.deleted`, `.cleaned`, `.swap`, or one kafkalog does not know); None otherwise.
    extra: str | None


def parse_offset_file_name(name: Name) -> OffsetFileName | None:
    match = _OFFSET_FILE.match(_last(name))
    return OffsetFileName(_offset(match.group(1), name), match.group(2), match.group(3)) if match else None


def kraft_snapshot_id(name: Name) -> tuple[int, int] | None:
    """(end offset, epoch) from a KRaft snapshot's name, None for another name."""
    match = _KRAFT_SNAPSHOT.match(_last(name))
    return (_offset(match.group(1), name), int(match.group(2))) if match else None


def is_kafka_name(name: str) -> bool:
    """A name Kafka gives the files and directories it reads: a partition directory, an offset-named file (a
    segment's, a snapshot), a KRaft snapshot, an Aiven manifest, a leader epoch checkpoint. Such a name that
    leads nowhere (a broken symbolic link) is refused by every reader; any other name is not read."""
    return (is_segment_name(name) or name == LEADER_EPOCH_CHECKPOINT or _OFFSET_FILE.match(name) is not None
            or _KRAFT_SNAPSHOT.match(name) is not None or _PARTITION_DIR.match(name) is not None)


def is_segment_name(name: str) -> bool:
    """A segment's name as a listing finds it: a `.log`, or an Aiven segment's manifest."""
    return name.endswith((LOG_SUFFIX, MANIFEST_SUFFIX))


def is_manifest_name(name: str) -> bool:
    return name.endswith(MANIFEST_SUFFIX)


@dataclass(frozen=True)
class PartitionName:
    topic: str
    partition: int
    #: None for a live partition; 'delete', 'future' or 'stray' for a renamed directory.
    state: str | None = None


def parse_partition_dir_name(name: Name) -> PartitionName | None:
    """`orders-0` -> ('orders', 0); None when the name is not a partition directory's."""
    match = _PARTITION_DIR.match(_last(name))
    if not match:
        return None
    return PartitionName(match["topic"], _partition(match["partition"], name), match["state"])


# Remote storage (KIP-405): the names remote storage managers give a remote segment's files and folders.
_UUID = r"[A-Za-z0-9_-]{22}"  # Kafka's `Uuid` in base64, as topic and segment ids are written in names
#: `<start offset:020d>-<segment id>` then a suffix: LocalTieredStorage's `RemoteLogSegmentFileset` and Aiven's
#: `ObjectKeyFactory` name a remote segment's files so.
_REMOTE_SEGMENT = re.compile(rf"^(?P<base>\d{{20}})-(?P<segment_id>{_UUID})(?P<suffix>\.[a-z_-]+)$")
#: LocalTieredStorage's `RemoteTopicPartitionDirectory`: `<topic>-<partition>-<topic id>`.
_REMOTE_PARTITION_DIR = re.compile(rf"^(?P<topic>.+)-(?P<partition>\d+)-(?P<topic_id>{_UUID})$")
#: Aiven's topic folder, `<topic>-<topic id>`, which holds a `<partition>` folder for each partition.
_AIVEN_TOPIC_DIR = re.compile(rf"^(?P<topic>.+)-(?P<topic_id>{_UUID})$")
_AIVEN_PARTITION_DIR = re.compile(r"^\d+$")
#: LocalTieredStorage's folder under its `dir` (`LocalTieredStorage.ROOT_STORAGE_DIR_NAME`).
LOCAL_TIERED_STORAGE_DIR = "kafka-tiered-storage"


@dataclass(frozen=True)
class RemoteSegmentName:
    base_offset: int
    segment_id: str
    suffix: str


def parse_remote_segment_name(name: Name) -> RemoteSegmentName | None:
    """`00000000000000000100-<segment id>.log` -> (100, segment id, '.log'); None for another name."""
    match = _REMOTE_SEGMENT.match(_last(name))
    if not match:
        return None
    return RemoteSegmentName(_offset(match["base"], name), match["segment_id"], match["suffix"])


@dataclass(frozen=True)
class RemotePartitionName:
    topic: str
    partition: int
    topic_id: str


def parse_remote_partition_dir_name(name: Name) -> RemotePartitionName | None:
    """LocalTieredStorage's `orders-0-<topic id>` -> ('orders', 0, topic id); None for another name."""
    match = _REMOTE_PARTITION_DIR.match(_last(name))
    return (RemotePartitionName(match["topic"], _partition(match["partition"], name), match["topic_id"])
            if match else None)


def parse_aiven_topic_dir_name(name: str) -> tuple[str, str] | None:
    """Aiven's `orders-<topic id>` -> ('orders', topic id); None for another name."""
    match = _AIVEN_TOPIC_DIR.match(name)
    return (match["topic"], match["topic_id"]) if match else None


def is_aiven_partition_dir_name(name: Name) -> bool:
    if not _AIVEN_PARTITION_DIR.match(_last(name)):
        return False
    _partition(_last(name), name)  # (refused past a Java int, as a local partition directory is)
    return True
