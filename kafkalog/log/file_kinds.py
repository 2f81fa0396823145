"""Which kind of Kafka file a path is, by its name (or as the user says), and what a directory holds.

    kind_of(Path("00000000000000000000.log"))                     # 'log'
    kind_of(Path("00000000000000000100-0000000001.checkpoint"))   # 'kraft-snapshot'
    kind_of(Path("copy.bin"))                                      # None: unknown, ask for --type

Kinds follow the names Kafka gives its files (`LogFileUtils`, `Snapshots`,
`BootstrapDirectory`, `LeaderEpochCheckpointFile`, the log directory's own files in `file_names`). A KRaft snapshot
(`<20-digit end offset>-<10-digit epoch>.checkpoint` in `__cluster_metadata-0`)
and the log directory's `bootstrap.checkpoint` are record-batch files: they
read as a `.log` does.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kafkalog import file_names
from kafkalog.errors import UsageError
from kafkalog.file_names import (
    BOOTSTRAP_CHECKPOINT,
    LEADER_EPOCH_CHECKPOINT,
    META_PROPERTIES,
    OFFSET_CHECKPOINTS,
    PARTITION_METADATA,
    QUORUM_STATE,
)
from kafkalog.log.partition import is_partition_dir, listing, partition_dirs
from kafkalog.uri_path import AnyPath

LOG, INDEX, TIME_INDEX, SNAPSHOT, TXN_INDEX = "log", "index", "timeindex", "snapshot", "txnindex"
LEADER_EPOCH, KRAFT_SNAPSHOT, BOOTSTRAP = "leader-epoch-checkpoint", "kraft-snapshot", "bootstrap-snapshot"
#: A Kafka 0.7 segment (`<20-digit byte offset>.kafka`): 0.7's message sets (`log.kafka_07_segment`).
KAFKA07 = "kafka07"
#: The text files Kafka keeps beside the data: a log directory's offset checkpoints and meta.properties, a partition
#: directory's partition.metadata, KRaft's quorum-state.
OFFSET_CHECKPOINT, META, TOPIC_ID, QUORUM = "offset-checkpoint", "meta-properties", "partition-metadata", "quorum-state"
#: An Aiven remote segment's manifest: the segment is read from the `.log` object beside it (kafkalog.remote).
RSM_MANIFEST = "rsm-manifest"

#: The kinds a user can force with `--type`.
KINDS = (LOG, INDEX, TIME_INDEX, SNAPSHOT, TXN_INDEX, LEADER_EPOCH, KRAFT_SNAPSHOT, KAFKA07, OFFSET_CHECKPOINT, META,
         TOPIC_ID, QUORUM)
#: Kinds whose bytes are record batches, read by `SegmentReader`.
RECORD_FILES = (LOG, KRAFT_SNAPSHOT, BOOTSTRAP, RSM_MANIFEST)

_SUFFIXES = {file_names.LOG_SUFFIX: LOG, file_names.INDEX_SUFFIX: INDEX, file_names.TIME_INDEX_SUFFIX: TIME_INDEX,
             file_names.SNAPSHOT_SUFFIX: SNAPSHOT, file_names.TXN_INDEX_SUFFIX: TXN_INDEX,
             file_names.REMOTE_LEADER_EPOCH_SUFFIX: LEADER_EPOCH, file_names.MANIFEST_SUFFIX: RSM_MANIFEST,
             file_names.KAFKA07_SUFFIX: KAFKA07}
_NAMES = {LEADER_EPOCH_CHECKPOINT: LEADER_EPOCH, BOOTSTRAP_CHECKPOINT: BOOTSTRAP, META_PROPERTIES: META,
          PARTITION_METADATA: TOPIC_ID, QUORUM_STATE: QUORUM, **dict.fromkeys(OFFSET_CHECKPOINTS, OFFSET_CHECKPOINT)}


def kind_of(path: AnyPath, forced: str | None = None) -> str | None:
    """The kind of file `path` is: `forced` when given, else by its name; None when the name says nothing."""
    if forced is not None:
        return forced
    if path.name in _NAMES:
        return _NAMES[path.name]
    if file_names.kraft_snapshot_id(path) is not None:
        return KRAFT_SNAPSHOT
    return _SUFFIXES.get(path.suffix)


def aiven_manifest_of(path: Path) -> Path | None:
    """The `.rsm-manifest` beside an Aiven `.log` object: the object's bytes are chunks (maybe compressed and
    encrypted), and the segment is read through its manifest."""
    if path.suffix != file_names.LOG_SUFFIX:
        return None
    manifest = path.with_suffix(file_names.MANIFEST_SUFFIX)
    return manifest if manifest.is_file() else None


def kraft_snapshot_id(path: Path) -> tuple[int, int] | None:
    """(end offset, epoch) from a KRaft snapshot's name, None for another name."""
    return file_names.kraft_snapshot_id(path)


def kraft_snapshots(directory: AnyPath) -> list[AnyPath]:
    """The KRaft snapshots in a partition directory (only `__cluster_metadata-0` has them), by end offset."""
    return [p for p in listing(directory) if p.is_file() and file_names.kraft_snapshot_id(p) is not None]


def directory_partitions(path: AnyPath) -> list[AnyPath] | None:
    """The partition directories `path` stands for: itself when it is one, those in it when it is a log
    directory; None when it holds neither (an empty directory, one with no Kafka files)."""
    if is_partition_dir(path):
        names = [p.name for p in listing(path) if p.is_file()]
        if not any(file_names.parse_offset_file_name(n) for n in names) \
                and any(file_names.parse_remote_segment_name(n) for n in names):
            # A remote storage's partition folder (LocalTieredStorage's, Aiven's): read_arrow reads it; a Partition
            # holds a log directory's files, which are named by offset alone.
            raise UsageError(f"{path}: a tiered storage's partition folder (its segments are named <offset>-<segment "
                             "id>): name its segments (.log, .rsm-manifest) one by one, or its tiered-storage root "
                             "with --remote-root")
        return [path] if names else None
    found = [d for d in partition_dirs(path) if _has_files(d)]
    return found or None


def record_files(partitions: Sequence[AnyPath]) -> list[AnyPath]:
    """The record-batch files of partition directories (segments' .log files and KRaft snapshots), for
    totals of bytes to read; a log directory's bootstrap.checkpoint is added by the caller."""
    found: list[AnyPath] = []
    for directory in partitions:
        found += [p for p in listing(directory) if p.name.endswith((file_names.LOG_SUFFIX, file_names.KAFKA07_SUFFIX))]
        found += kraft_snapshots(directory)
    return [p for p in found if p.is_file()]


def log_dir_files(log_dir: AnyPath) -> list[AnyPath]:
    """A log directory's own text files that are there: meta.properties, then the offset checkpoints."""
    found = [log_dir / name for name in (META_PROPERTIES, *OFFSET_CHECKPOINTS)]
    return [p for p in found if p.is_file()]


def _has_files(directory: AnyPath) -> bool:
    return any(p.is_file() for p in listing(directory))


def unknown_kind(path: AnyPath) -> UsageError:
    return UsageError(f"{path}: cannot tell from its name what kind of Kafka file this is; name its kind with "
                      f"--type ({', '.join(KINDS)}), e.g. --type log for a renamed segment")


def no_kafka_files(path: AnyPath) -> UsageError:
    return UsageError(f"{path}: no Kafka files here: neither a partition directory (segment files) nor a log "
                      "directory (partition directories)")


def type_of_a_directory(path: AnyPath) -> UsageError:
    return UsageError(f"{path}: --type names the kind of a file, and this is a directory")
