"""A partition directory (`topic-N`): its segments and other files, and records across segments.

    partition = Partition("/var/lib/kafka/orders-0")
    partition.segments            # by base offset, each with its .log/.index/.timeindex/.txnindex
    partition.leftovers           # .deleted / .cleaned / .swap files a broker left behind
    for record in partition.records(start_offset=150):
        ...
    partition.find_offset(150)    # see kafkalog.log.lookup

Files are named as Kafka's `LogFileUtils` names them: a 20-digit base offset
and a suffix. A file with a `.deleted`, `.cleaned` or `.swap` suffix after
that is not part of the log (a segment waiting for asynchronous deletion, log
cleaner output not yet swapped in, an interrupted replacement); kafkalog
reports it and reads only the live files, as the broker does once it has
finished its recovery.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from kafkalog.errors import UsageError
from kafkalog.file_names import (
    KAFKA07_SUFFIX,
    LEADER_EPOCH_CHECKPOINT,
    LEFTOVER_SUFFIXES,
    META_PROPERTIES,
    PARTITION_METADATA,
    QUORUM_STATE,
    SNAPSHOT_SUFFIX,
    is_kafka_name,
    parse_offset_file_name,
    parse_partition_dir_name,
    parse_remote_segment_name,
)
from kafkalog.location import broken_link
from kafkalog.log.lookup import OffsetLookup, TimestampLookup, find_offset, find_timestamp
from kafkalog.log.segment import SegmentReader
from kafkalog.log.segment_files import SEGMENT_SUFFIXES, SegmentFiles, segment_for
from kafkalog.model import Batch, Record
from kafkalog.uri_path import AnyPath, UriPath, as_path

#: Other files a broker keeps in a partition directory.
KNOWN_FILES = (LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA, QUORUM_STATE)


@dataclass(frozen=True)
class LeftoverFile:
    """A file the broker renamed out of the log: kind is 'deleted', 'cleaned' or 'swap'."""

    path: AnyPath
    kind: str
    base_offset: int
    #: The file type under the leftover suffix: '.log', '.index', ...
    suffix: str


class Partition:
    """The files of one partition directory, listed once when opened.

    A partition directory is named ``<topic>-<partition>`` and holds its segments (``.log`` with
    ``.index``, ``.timeindex`` and ``.txnindex``), producer snapshots and a leader epoch checkpoint.

    Parameters
    ----------
    path : str or os.PathLike
        The partition directory: a local path, or a URI (``s3://...``, read through `pyarrow.fs`).

    Attributes
    ----------
    path : pathlib.Path or kafkalog.uri_path.UriPath
        The directory (its files are of the same kind).
    topic, partition : str and int, or None
        What the directory's name says (None when it is not ``<topic>-<partition>``).
    segments : list of SegmentFiles
        The segments in base offset order, a segment without a ``.log`` file listed too.
    log_segments : list of SegmentFiles
        The segments that have a ``.log`` file.
    kafka07_segments : list of pathlib.Path
        Kafka 0.7's segments (``.kafka``, named by byte offset), in offset order.
    snapshots : dict of int to pathlib.Path
        Producer state snapshots by offset.
    leader_epoch_checkpoint : pathlib.Path or None
        The ``leader-epoch-checkpoint`` file.
    partition_metadata : pathlib.Path or None
        The ``partition.metadata`` file (the topic id).
    quorum_state : pathlib.Path or None
        KRaft's ``quorum-state`` (in ``__cluster_metadata-0``).
    leftovers : list of LeftoverFile
        Files a broker leaves during deletion, cleaning or a swap (``.deleted``, ``.cleaned``, ``.swap``).
    other_files : list of pathlib.Path
        Files kafkalog does not know.

    Raises
    ------
    NotADirectoryError
        `path` is not a directory.

    See Also
    --------
    SegmentReader : The batches of one segment.
    read_arrow : Records of many partitions, with the Kafka source's options.

    Examples
    --------
    >>> import kafkalog
    >>> partition = kafkalog.Partition("tests/fixtures/partitions/orders-0")
    >>> partition
    Partition('tests/fixtures/partitions/orders-0', 5 segments)
    >>> partition.topic, partition.partition, [s.base_offset for s in partition.segments]
    ('orders', 0, [0, 106, 207, 312, 417])
    >>> record = next(partition.records(start_offset=5))
    >>> record.offset, record.key
    (5, b'order-5')
    >>> partition.find_offset(5).batch.base_offset
    3
    """

    def __init__(self, path: str | os.PathLike):
        self.path = as_path(path)
        if not self.path.is_dir():
            raise NotADirectoryError(f"{self.path}: not a directory")
        parsed = parse_partition_dir_name(self.path)
        self.topic = parsed.topic if parsed else None
        self.partition = parsed.partition if parsed else None
        segments: dict[int, SegmentFiles] = {}
        #: Producer state snapshots by offset.
        self.snapshots: dict[int, AnyPath] = {}
        self.leftovers: list[LeftoverFile] = []
        #: Files kafkalog does not know.
        self.other_files: list[AnyPath] = []
        self.leader_epoch_checkpoint: AnyPath | None = None
        kafka07: dict[int, AnyPath] = {}
        self.partition_metadata: AnyPath | None = None
        self.quorum_state: AnyPath | None = None
        for entry in listing(self.path):
            name = entry.name
            if not entry.is_file():
                self.other_files.append(entry)
                continue
            if name == LEADER_EPOCH_CHECKPOINT:
                self.leader_epoch_checkpoint = entry
                continue
            if name == PARTITION_METADATA:
                self.partition_metadata = entry
                continue
            if name == QUORUM_STATE:
                self.quorum_state = entry
                continue
            file_name = parse_offset_file_name(entry)
            if file_name is None:
                if name not in KNOWN_FILES:
                    self.other_files.append(entry)
                continue
            base, suffix, extra = file_name.base_offset, file_name.suffix, file_name.extra
            if extra is not None:
                if extra in LEFTOVER_SUFFIXES:
                    self.leftovers.append(LeftoverFile(entry, LEFTOVER_SUFFIXES[extra], base, suffix))
                else:
                    self.other_files.append(entry)
            elif suffix in LEFTOVER_SUFFIXES:  # 00000000000000000083.cleaned (no type suffix)
                self.leftovers.append(LeftoverFile(entry, LEFTOVER_SUFFIXES[suffix], base, ""))
            elif suffix == SNAPSHOT_SUFFIX:
                self.snapshots[base] = entry
            elif suffix == KAFKA07_SUFFIX:
                kafka07[base] = entry
            elif suffix in SEGMENT_SUFFIXES:
                segment = segments.setdefault(base, SegmentFiles(base))
                setattr(segment, SEGMENT_SUFFIXES[suffix], entry)
            else:
                self.other_files.append(entry)
        #: Segments in base offset order (a segment without a .log file is listed too, with log None).
        self.segments: list[SegmentFiles] = [segments[k] for k in sorted(segments)]
        #: Kafka 0.7's segments (`.kafka`, named by byte offset) in offset order (`kafkalog.log.kafka_07_segment`).
        self.kafka07_segments: list[AnyPath] = [kafka07[k] for k in sorted(kafka07)]

    def __repr__(self) -> str:
        return f"Partition({str(self.path)!r}, {len(self.segments)} segments)"

    @property
    def log_segments(self) -> list[SegmentFiles]:
        return [s for s in self.segments if s.log is not None]

    def segment_for(self, offset: int) -> int | None:
        """Position in `log_segments` of the segment that would hold `offset`: the floor by base offset."""
        return segment_for(self.log_segments, offset)

    def batches(self, start_offset: int | None = None, **options) -> Iterator[tuple[SegmentFiles, Batch]]:
        """Every batch in offset order, with its segment; from the batch holding `start_offset` when given.

        `options` go to `SegmentReader` (decode_records, strict, ...). Damage is
        attached to the batches; use `kafkalog.verify` for a full report.
        """
        segments = self.log_segments
        first, start_pos = 0, 0
        if start_offset is not None:
            found = find_offset(segments, start_offset)
            if found.batch is None:
                return
            assert found.segment is not None  # (a batch found is in a segment)
            first = segments.index(found.segment)
            start_pos = found.batch.position
        for n in range(first, len(segments)):
            segment = segments[n]
            assert segment.log is not None  # (log_segments)
            with SegmentReader(segment.log, start=start_pos if n == first else 0, **options) as reader:
                for batch in reader:
                    yield segment, batch

    def records(self, start_offset: int | None = None, **options) -> Iterator[Record]:
        """Every record in offset order, control records included (see `Record.control_type`)."""
        for _, batch in self.batches(start_offset, **options):
            for record in batch.records:
                if start_offset is None or record.offset >= start_offset:
                    yield record

    def find_offset(self, offset: int) -> OffsetLookup:
        """The batch and record holding `offset`, found as the broker finds it (see `kafkalog.log.lookup`)."""
        return find_offset(self.log_segments, offset)

    def find_timestamp(self, timestamp: int) -> TimestampLookup:
        """The first record at or after `timestamp`, found as the broker finds it (see `kafkalog.log.lookup`)."""
        return find_timestamp(self.log_segments, timestamp)


def listing(directory: AnyPath) -> list[AnyPath]:
    """A directory's entries, sorted. An entry named as Kafka names what it reads (`file_names.is_kafka_name`)
    that is a broken symbolic link (to nothing, or round a loop) is refused with a `UsageError` naming it, as
    `read_arrow`'s listing refuses it; any other broken link is passed by, as Kafka passes it by."""
    out: list[AnyPath] = []
    entries: list[AnyPath] = list(directory.iterdir())
    for entry in sorted(entries, key=str):
        broken = None if isinstance(entry, UriPath) else broken_link(entry)
        if broken is None:
            out.append(entry)
        elif is_kafka_name(entry.name):
            raise UsageError(f"{entry}: {broken}")
    return out


def is_skipped_dir(path: str | os.PathLike) -> bool:
    """A partition directory Kafka renamed to delete it (``topic-N.<uuid>-delete``), to move it to another log
    directory (``-future``, the copy being made) or as a stray (``-stray``): not the partition's log, and not read
    when walking a log directory (in `read_arrow`, `dump` and `verify` alike); read when named on its own."""
    parsed = parse_partition_dir_name(path)
    return parsed is not None and parsed.state is not None


# What a directory is, for every door (read_arrow and Spark, dump, verify), on a local disk or behind a URI. Kafka's
# layout has two levels: a log directory (one of `log.dirs`) holds partition directories, and a partition directory
# holds the partition's files. So a directory named on the command line or given to read_arrow is
# - a partition directory when it is named `topic-N` (renamed ones included: named on their own, they are read) or
#   holds a file named as a partition's files are (`00000000000000000106.log`) or as a remote segment's (an Aiven
#   partition folder `<N>/` of `<offset>-<segment id>.rsm-manifest`s);
# - else a log directory, whose partitions are its sub-directories named `topic-N` (`is_log_dir_partition`).
# Nothing deeper is read: a directory of log directories is named with a glob (`/data/*`) or as several paths,
# as `log.dirs` lists them. Reading further down would take in what is not the log: backups, a
# LocalTieredStorage root inside the log directory (the partition read twice), whatever else lies below.

def is_partition_listing(directory: str | os.PathLike, file_names_in_it: list[str]) -> bool:
    """Whether `directory` (its path or URI: an error names it), which holds files named `file_names_in_it`, is a
    partition directory: never one holding `meta.properties` (a log directory, however it is named: `kafka-1`)."""
    if META_PROPERTIES in file_names_in_it:
        return False
    return parse_partition_dir_name(directory) is not None or any(
        parse_offset_file_name(f) is not None or parse_remote_segment_name(f) is not None for f in file_names_in_it)


def is_log_dir_partition(directory: str | os.PathLike) -> bool:
    """Whether a log directory's sub-directory (its path or URI) is one of its partitions: named `topic-N`, and not one
    Kafka is deleting or moving (`is_skipped_dir`)."""
    return parse_partition_dir_name(directory) is not None and not is_skipped_dir(directory)


def is_partition_dir(path: AnyPath) -> bool:
    """A local directory that is a partition directory (`is_partition_listing`); never a log directory (one holding
    `meta.properties`, which Kafka writes there only), however it is named (`/var/lib/kafka-1`)."""
    if not path.is_dir() or (path / META_PROPERTIES).exists():
        return False
    return is_partition_listing(path, [p.name for p in listing(path) if not p.is_dir()])


def partition_dirs(log_dir: str | os.PathLike) -> list[AnyPath]:
    """The partition directories in a broker's log directory (`is_log_dir_partition`), sorted by topic, then
    partition."""
    found = [p for p in listing(as_path(log_dir)) if p.is_dir() and is_log_dir_partition(p)]

    def key(p: AnyPath):
        name = parse_partition_dir_name(p)
        assert name is not None  # (found holds partition directories only)
        return (name.topic, name.partition, name.state or "")

    return sorted(found, key=key)
