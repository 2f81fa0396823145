"""Verification of segments, partitions and log directories, in the spirit of kafka-dump-log.sh.

    report = verify_path("/var/lib/kafka")          # a .log file, a partition directory or a log directory
    for problem in report.problems:
        print(problem)                               # file, entry number (0-based), kind, detail

Checks, with the Kafka code each follows:
- segments: every batch's structure and checksum (kafkalog's `SegmentReader`);
  offsets that go backwards between batches, or below the segment's base offset;
- `.index` (`DumpLogSegments.dumpIndex` with `--verify-index-only`, `OffsetIndex.sanityCheck`
  as `--index-sanity-check`): a length that is not a multiple of 8, entries whose
  offset is below the base offset or not above the previous entry's, whose position is
  past the end of the log or at no batch, or whose batch's last offset is not the
  entry's offset; non-zero slots after the zero slot that ends the index;
- `.timeindex` (`dumpTimeIndex`, `TimeIndex.sanityCheck`): the same for lengths and
  offsets, timestamps that do not increase, offsets with no batch ending there, and
  timestamps that are not that batch's max timestamp;
- `.txnindex` (`TransactionIndex.sanityCheck`): entries whose last offset is below the
  segment's base offset or not above the previous entry's, or that match no ABORT
  marker of the producer in the segment; a partial entry at the end;
- `.snapshot`: version and CRC-32C (`ProducerStateManager.readSnapshot`);
- `leader-epoch-checkpoint`: format (`CheckpointFile`), epochs and start offsets in order;
- the partition: segments without a `.log`, segments whose offsets overlap the next one's;
- `partition.metadata`, `quorum-state`, `meta.properties` and the offset checkpoints: their format, as
  Kafka reads them;
- a log directory's checkpoints against its partitions' logs, and JBOD directories given together against
  each other (`kafkalog.log.log_dir_checks` says which findings are problems and which notes);
- several brokers' log directories (of one cluster): each replica against the log a cluster restarted on
  them serves (`kafkalog.cluster.served`: the records a restart discards);
- KRaft snapshots (`<offset>-<epoch>.checkpoint`) and a log directory's `bootstrap.checkpoint`:
  record batches, as a segment without index files.
A file whose name does not say its kind, or a directory with no Kafka files, is a
`UsageError`: verify never reports as checked what it did not check.
Leftover `.deleted`/`.cleaned`/`.swap` files are listed as notes, not problems: a
running broker has them between two steps of its work. So is a time index still preallocated
(its last slot zero), which `TimeIndex.sanityCheck` (--index-sanity-check) calls corrupt: a
running broker's active segment has one, and Kafka rebuilds it after an unclean shutdown. And so is
an offset index entry of the kind older brokers (1.1, 2.8) wrote for an append of several v0/v1
messages: at the append's last offset and its first message's position, which --verify-index-only
prints among its mismatches, though lookups through it work.
"""
from __future__ import annotations

import bisect
import contextlib
import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np

from kafkalog import file_names
from kafkalog.cluster.disks import is_cluster
from kafkalog.dataset import fs, layout
from kafkalog.errors import (
    DamagedDataError,
    KafkalogError,
    RemoteObjectError,
    UsageError,
)
from kafkalog.formats.index import OffsetIndex, TimeIndex
from kafkalog.formats.leader_epoch_checkpoint import read_leader_epoch_checkpoint
from kafkalog.formats.meta_properties import read_meta_properties
from kafkalog.formats.offset_checkpoint import read_offset_checkpoint
from kafkalog.formats.partition_metadata import read_partition_metadata
from kafkalog.formats.producer_snapshot import read_snapshot
from kafkalog.formats.quorum_state import read_quorum_state
from kafkalog.formats.txn_index import decode_txn_index, read_txn_index
from kafkalog.location import Location
from kafkalog.log import kafka_07_segment
from kafkalog.log.file_kinds import (
    BOOTSTRAP,
    BOOTSTRAP_CHECKPOINT,
    KAFKA07,
    KRAFT_SNAPSHOT,
    LEADER_EPOCH,
    LOG,
    META,
    OFFSET_CHECKPOINT,
    QUORUM,
    RSM_MANIFEST,
    SNAPSHOT,
    TOPIC_ID,
    aiven_manifest_of,
    directory_partitions,
    kind_of,
    kraft_snapshots,
    log_dir_files,
    no_kafka_files,
    type_of_a_directory,
    unknown_kind,
)
from kafkalog.log.log_dir import partition_log_dir_state, read_log_dir_state
from kafkalog.log.log_dir_checks import Findings, PartitionExtent, check_log_dir, check_log_dirs
from kafkalog.log.partition import Partition
from kafkalog.log.segment import SegmentReader
from kafkalog.log.segment_files import SegmentFiles
from kafkalog.log.segment_ranges import RANGE_BYTES, range_starts, read_in_ranges
from kafkalog.log.served_log import ServedBounds, served_bounds
from kafkalog.log.transactions import scan_transactions
from kafkalog.model import BatchColumns, Decoder
from kafkalog.progress import ByteProgress
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_keys import Keyring, keyring
from kafkalog.threads import DEFAULT_THREADS
from kafkalog.uri_path import AnyPath, UriPath, as_path


@dataclass(frozen=True)
class Problem:
    """One problem: the file, the entry number in an index file (0-based) or byte position, a kind, a detail."""

    file: str
    kind: str
    detail: str
    entry: int | None = None
    position: int | None = None

    def __str__(self) -> str:
        where = self.file
        if self.entry is not None:
            where += f": entry {self.entry}"
        elif self.position is not None:
            where += f": byte {self.position}"
        return f"{where}: {self.kind}: {self.detail}"


@dataclass
class VerifyReport:
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    partitions: int = 0
    segments: int = 0
    batches: int = 0
    records: int = 0
    index_entries: int = 0
    files: int = 0
    #: How the checks read (`kafkalog.model.Decoder`): the fast path, or (AUTO, for a small input, whose start-up
    #: the kernels would not repay) the object path until a batch holds many records. The same problems either way.
    decoder: Decoder = Decoder.FAST
    #: Threads that read a large segment's byte ranges at once (`kafkalog.log.segment_ranges`). The same
    #: problems, in the same order, however many.
    threads: int = DEFAULT_THREADS

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        return (f"{self.partitions} partition(s), {self.segments} segment(s), {self.files} file(s), "
                f"{self.batches} batches, {self.records} records, {self.index_entries} index entries: "
                + ("OK" if self.ok else f"{len(self.problems)} problem(s)")
                + (f", {len(self.notes)} note(s)" if self.notes else ""))


@dataclass
class _LogSummary:
    size: int
    positions: np.ndarray  # of each batch, in file order
    last_offsets: np.ndarray
    max_timestamps: np.ndarray
    aborts: set[tuple[int, int]]  # (producer id, marker offset)
    first_offset: int | None
    last_offset: int | None


def verify_path(path: Location | str | os.PathLike[str], progress: ByteProgress | None = None, kind: str | None = None,
                private_keys: tuple[str, ...] = (), report: VerifyReport | None = None) -> VerifyReport:
    """Verify a file (a segment's `.log` with its index files, or any one file of a partition), a partition
    directory or a log directory.

    A file is taken for the kind its name says (`kafkalog.log.file_kinds.kind_of`), or for `kind` when given;
    a `UsageError` says so when neither tells, and when a directory holds no Kafka files: nothing is
    reported as checked that was not.

    Behind a URI (`s3://…`, any `pyarrow.fs` scheme), a segment's `.log` with the index files beside it, or an
    Aiven `.rsm-manifest`, is verified as on disk, and so is a partition or log directory (read through the
    store, nothing copied); behind another directory URI (a tiered-storage root), each segment under it is.

    Parameters
    ----------
    path : str or os.PathLike
        A file, a partition directory, a log directory, or a URI of a file or a directory.
    progress : kafkalog.progress.ByteProgress, optional
        Told the bytes read as the checks go (the CLI's progress line).
    kind : str, optional
        The file kind to take a file for (`kafkalog.log.file_kinds`), when its name does not say.
    private_keys : tuple of str, default ()
        The RSA private keys (PEM files, ``PATH`` or ``KEY_ID=PATH``) that decrypt an encrypted Aiven remote
        segment (``.rsm-manifest``).
    report : VerifyReport, optional
        A report to add to (several paths into one report); its `decoder` and `threads` say how to read.
        By default a new one.

    Returns
    -------
    VerifyReport
        The problems found (``report.problems``, each naming the file and the entry or byte position),
        the notes, and the counts of what was checked; ``report.ok`` when there is no problem.

    Raises
    ------
    kafkalog.UsageError
        No such file or directory, a file whose kind is not known, a `kind` given for a directory, a
        directory with no Kafka files, or a private key file that is not an RSA private key.

    Examples
    --------
    >>> from kafkalog.verify import verify_path
    >>> report = verify_path("tests/fixtures/partitions/orders-0")
    >>> report.ok, report.segments, report.batches
    (True, 5, 160)
    >>> report = verify_path("tests/fixtures/partitions/broken-index-0")
    >>> report.ok, len(report.problems)
    (False, 5)
    >>> problem = report.problems[0]
    >>> problem.file, problem.entry, problem.kind
    ('tests/fixtures/partitions/broken-index-0/00000000000000000000.index', 2, 'position_past_end_of_log')
    >>> problem.detail
    'position 8787 is past the end of the 7787-byte log'
    """
    report = report if report is not None else VerifyReport()  # (several paths into one report)
    location = Location.of(path)
    if location.is_uri:
        _verify_uri(location, kind, report, progress, private_keys)
        return report
    path = location.path
    if path.is_file():
        manifest = aiven_manifest_of(path) if kind is None else None
        if manifest is not None:  # an Aiven .log object: its segment, through the manifest beside it
            path, kind = manifest, RSM_MANIFEST
        _verify_file(path, kind_of(path, kind), report, progress, private_keys)
    elif path.is_dir():
        if kind is not None:
            raise type_of_a_directory(path)
        dirs = directory_partitions(path)
        if dirs is None:
            raise no_kafka_files(path)
        _verify_directory(path, dirs, report, progress)
    else:
        raise UsageError(f"{path}: no such file or directory")
    return report


def _verify_directory(path: AnyPath, dirs: list[AnyPath], report: VerifyReport,
                      progress: ByteProgress | None) -> None:
    """A partition directory (`dirs` is itself) or a log directory (`dirs` its partitions), on a disk or behind a
    URI: each partition's files, then the log directory's own files and what they say of its partitions."""
    extents = {}
    for d in dirs:
        partition = Partition(d)
        extent = verify_partition(partition, report, progress)
        if extent is not None and partition.topic is not None and partition.partition is not None:
            extents[(partition.topic, partition.partition)] = extent
    bootstrap = path / BOOTSTRAP_CHECKPOINT
    if dirs != [path] and bootstrap.is_file():
        _verify_record_file(bootstrap, report, progress)
    if dirs != [path]:  # a log directory: its own files, and what they say of its partitions
        state = read_log_dir_state(path)
        report.files += len(log_dir_files(path))
        _add_findings(check_log_dir(state, extents), report)


def _verify_file(path: Path, kind: str | None, report: VerifyReport, progress: ByteProgress | None,
                 private_keys: tuple[str, ...] = ()) -> None:
    if kind is None:
        raise unknown_kind(path)
    if kind in (KRAFT_SNAPSHOT, BOOTSTRAP):
        _verify_record_file(path, report, progress)
    elif kind == SNAPSHOT:
        report.files += 1
        for damage in read_snapshot(path).damage:
            report.problems.append(Problem(str(path), damage.kind, damage.message, position=damage.position))
    elif kind == LEADER_EPOCH:
        _verify_checkpoint(path, report)
    elif kind in _TEXT_READERS:
        _verify_text_file(path, kind, report)
    elif kind == RSM_MANIFEST:
        _verify_aiven_segment(path, report, progress, keyring(private_keys))
    elif kind == KAFKA07:
        _verify_kafka07(path, report)
    else:
        segment = _SegmentSources(file_names.base_offset_of(path) or 0)
        if kind == LOG and path.suffix == file_names.LOG_SUFFIX:
            # A segment named as Kafka names it is checked with its index files.
            stem = path.name.split(".")[0]
            for suffix in _SEGMENT_INDEX_SUFFIXES:
                candidate = path.with_name(stem + suffix)
                if candidate.is_file():
                    setattr(segment, suffix[1:], candidate)
        setattr(segment, kind, path)
        verify_segment(segment, report, progress)


#: The files beside a segment's `.log` that are checked with it.
_SEGMENT_INDEX_SUFFIXES = (file_names.INDEX_SUFFIX, file_names.TIME_INDEX_SUFFIX, file_names.TXN_INDEX_SUFFIX)


def _verify_uri(uri: Location, kind: str | None, report: VerifyReport, progress: ByteProgress | None,
                private_keys: tuple[str, ...]) -> None:
    """A segment behind a URI: read in blocks from the store, its index files whole (a few MiB)."""
    try:
        found = fs.info(uri)
    except OSError as exc:
        raise UsageError(f"{uri}: cannot read it: {exc}") from None
    if found is None:
        raise UsageError(f"{uri}: no such object")
    if found.is_dir and kind is None:
        directory = as_path(str(uri))
        dirs = directory_partitions(directory)
        if dirs:  # a partition or log directory: checked as on a disk, through the store
            _verify_directory(directory, dirs, report, progress)
            return
        # Another directory (a tiered-storage root, say): every segment the planner finds there, with its indexes.
        from kafkalog.dataset import plan  # (start-up: pyarrow's compute and the kernels, for directories only)

        segments = plan.list_segments(str(uri))
        if not segments:
            raise UsageError(f"{uri}: no Kafka segments here")
        report.partitions += len({Location(s.location).parent for s in segments})
        for segment in segments:
            _verify_uri(Location(segment.location), None, report, progress, private_keys)
        return
    kind = kind or kind_of(Path(uri.name), None)
    if found.is_dir or kind not in (LOG, RSM_MANIFEST):
        raise UsageError(f"{uri}: verify reads segments (.log), Aiven manifests (.rsm-manifest) and the segments of "
                         "directories behind URIs; copy other files to a local disk to verify them")
    if kind == RSM_MANIFEST:
        _verify_aiven_segment(uri, report, progress, keyring(private_keys), fs.open_object)
        return
    files = _SegmentSources(file_names.base_offset_of(str(uri)) or 0, log_name=str(uri))  # problems name it so
    if uri.suffix == file_names.LOG_SUFFIX:
        for suffix in _SEGMENT_INDEX_SUFFIXES:
            index = uri.with_suffix(suffix)
            beside = fs.info(index)
            if beside is not None and not beside.is_dir:
                setattr(files, suffix[1:], _NamedBytes(fs.read_bytes(index), str(index)))
    with fs.open_object(uri) as log:
        files.log = log
        verify_segment(files, report, progress)


class _NamedBytes(io.BytesIO):
    """An index read whole out of an object (behind a URI, or an Aiven `.indexes` object), known by where it
    came from."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name = name


#: A file of a segment as verify reads it: a path on a disk, or an object's bytes opened (behind a URI, or an
#: Aiven segment's objects).
_Source = AnyPath | BinaryIO


@dataclass
class _SegmentSources:
    """One segment's files as verify reads them: a `SegmentFiles` on a disk, or a segment behind a URI or in
    Aiven's objects (its log opened, its indexes read whole)."""

    base_offset: int
    log: _Source | None = None
    index: _Source | None = None
    timeindex: _Source | None = None
    txnindex: _Source | None = None
    #: The log's name in problems, where its object does not say it (a URI as the user gave it).
    log_name: str | None = None

    @classmethod
    def of(cls, files: SegmentFiles) -> _SegmentSources:
        return cls(files.base_offset, files.log, files.index, files.timeindex, files.txnindex)


def _name(source: str | os.PathLike[str] | BinaryIO) -> str:
    """A file's name in problems: the path, or what an object behind a URI is known by."""
    return str(source) if isinstance(source, (str, os.PathLike)) else str(source.name)


#: An Aiven segment's indexes checked as a local segment's: (name in the manifest, `SegmentFiles` field).
_AIVEN_INDEXES = (("offset", "index"), ("timestamp", "timeindex"), ("transaction", "txnindex"))


def _verify_aiven_segment(manifest: Location | Path, report: VerifyReport, progress: ByteProgress | None,
                          keys: Keyring, opener: aiven_object.Opener = aiven_object.open_local) -> None:
    """An Aiven remote segment: its batches read from the `.log` object, its offset, time and transaction
    indexes from the `.indexes` object, checked as a local segment's files are."""
    location = str(manifest)
    try:
        parsed = aiven_object.read_manifest(location, opener)
    except RemoteObjectError as exc:
        report.files += 1
        report.problems.append(Problem(location, exc.kind, exc.message, position=exc.position))
        return
    base = file_names.base_offset_of(str(Location.of(manifest)))
    if base is None:
        base = parsed.start_offset or 0
    indexes_location = aiven_object.sibling(location, file_names.INDEXES_SUFFIX)
    with aiven_object.AivenSegmentFile(location, opener, keyring=keys, manifest=parsed) as log:
        # (an Aiven segment reads, seeks and tells as a binary file does: all that a reader calls)
        segment = _SegmentSources(base, log=cast(BinaryIO, log))
        for index_name, attr in _AIVEN_INDEXES:
            try:
                data = aiven_object.read_index(location, index_name, opener, keyring=keys, manifest=parsed)
            except RemoteObjectError as exc:
                report.files += 1
                report.problems.append(Problem(str(exc.path), exc.kind, exc.message, position=exc.position))
                continue
            if data is not None:
                setattr(segment, attr, _NamedBytes(data, f"{indexes_location} ({index_name} index)"))
        verify_segment(segment, report, progress)


def _verify_record_file(path: AnyPath, report: VerifyReport, progress: ByteProgress | None) -> None:
    """A KRaft snapshot or bootstrap.checkpoint: record batches, as a segment without indexes."""
    report.segments += 1
    _verify_log(_SegmentSources(0, log=path), report, progress)


def verify_log_dirs(paths: list[Path], report: VerifyReport) -> None:
    """JBOD log directories given together, checked against each other (their `meta.properties`); each one's
    own checks are `verify_path`'s."""
    states = [read_log_dir_state(p) for p in paths if p.is_dir() and directory_partitions(p) != [p]]
    _add_findings(check_log_dirs(states), report)


def verify_cluster(paths: list[str], report: VerifyReport) -> bool:
    """Several brokers' disks (`kafkalog.cluster.disks.is_cluster`): each replica checked against the log a
    cluster restarted on exactly those disks serves (`kafkalog.cluster.served`); its records the restart would
    discard are a problem, as are disks of another cluster and copies of one disk. False, and nothing checked,
    when the paths are not several brokers' disks."""
    if not is_cluster(paths):
        return False
    # (start-up: the cluster's metadata decoders are loaded only for several brokers' disks, docs/performance.md)
    from kafkalog.cluster.served import cluster_view, replica_findings  # noqa: PLC0415

    view = cluster_view(paths)
    report.problems += [Problem(message.split(": ", 1)[0], "cluster", message.split(": ", 1)[-1])
                        for message in view.problems]
    report.problems += [Problem(str(path), kind.replace(" ", "_"), detail)
                        for path, kind, detail in replica_findings(view)]
    return True


def _add_findings(found: Findings, report: VerifyReport) -> None:
    report.problems += [Problem(str(f.file), f.kind, f.detail) for f in found.problems]
    report.notes += found.notes


#: The text files read by a `formats` reader alone: their checks are that they read.
_TEXT_READERS: dict[str, Callable[[AnyPath], object]] = {
    OFFSET_CHECKPOINT: read_offset_checkpoint, META: read_meta_properties, TOPIC_ID: read_partition_metadata,
    QUORUM: read_quorum_state}


def _verify_text_file(path: AnyPath, kind: str, report: VerifyReport) -> Any:
    """Read a text file of `kind`; a problem where it does not read. What it holds, or None."""
    report.files += 1
    try:
        return _TEXT_READERS[kind](path)
    except DamagedDataError as damage:
        report.problems.append(Problem(str(path), damage.kind, damage.message))
    except OSError as e:
        report.problems.append(Problem(str(path), "unreadable", e.strerror or str(e)))
    return None


def verify_partition(partition: Partition, report: VerifyReport,
                     progress: ByteProgress | None = None) -> PartitionExtent | None:
    """Check a partition directory's files; what its log holds, None when it has no segment."""
    checked = len(report.problems)
    extent = _verify_partition(partition, report, progress)
    _recovery_notes(partition, report, checked)
    return extent


def _recovery_notes(partition: Partition, report: VerifyReport, checked: int) -> None:
    """Damage where Kafka's recovery ends the log (a broker killed, a copy of a running one's disk: a torn tail,
    preallocated zeros) is a note, not a problem: the broker's restart truncates it with a warning
    (`kafkalog.log.served_log`). The problems found since `checked` in what recovery cuts or deletes move there."""
    state = partition_log_dir_state(partition.path)
    if state is None:
        return
    bounds = served_bounds(partition.path, state)
    _rebuilt_index_notes(bounds, report, checked)
    cut = bounds.truncated_from
    if cut is None:
        return
    segment = str(cut.segment)
    gone = {str(p) for p in cut.deleted_segments}

    def truncated(p: Problem) -> bool:
        if p.file == segment:
            return p.position is not None and p.position >= cut.position
        # The later segments recovery deletes, with their files.
        return any(p.file.startswith(g[: -len(file_names.LOG_SUFFIX)] + ".") for g in gone)

    moved = [p for p in report.problems[checked:] if truncated(p)]
    if not moved:
        return
    report.problems[checked:] = [p for p in report.problems[checked:] if not truncated(p)]
    deleted = f"; and deletes {len(gone)} later segment(s): {', '.join(sorted(gone))}" if gone else ""
    report.notes.append(f"{segment}: byte {cut.position}: Kafka's recovery ends the log here, at offset {cut.offset} "
                        f"(no clean shutdown: {cut.reason}); a restarted broker truncates the rest with a warning"
                        f"{deleted}. What kafkalog finds there ({len(moved)}) is this note, not a problem")


def _rebuilt_index_notes(bounds: ServedBounds, report: VerifyReport, checked: int) -> None:
    """What is wrong in the indexes of a segment whose indexes Kafka's start-up rebuilds (`ServedBounds.
    rebuilt_indexes`: a corrupt transaction index, a missing offset index, a segment recovered after an unclean
    shutdown) is a note, not a problem: the log served is read from the segment. The problems found since
    `checked` in those index files move there, a note per index file."""
    for log, why in sorted(bounds.rebuilt_indexes.items()):
        stem = log[: -len(file_names.LOG_SUFFIX)]
        for index in (stem + suffix for suffix in _SEGMENT_INDEX_SUFFIXES):
            moved = [p for p in report.problems[checked:] if p.file == index]
            if not moved:
                continue
            report.problems[checked:] = [p for p in report.problems[checked:] if p.file != index]
            kinds = ", ".join(sorted({p.kind for p in moved}))
            report.notes.append(f"{index}: Kafka's start-up rebuilds this index ({why}); the log it serves is read "
                                f"from {Path(log).name}, not through it. What kafkalog finds in it ({len(moved)}: "
                                f"{kinds}) is this note, not a problem")


def _verify_partition(partition: Partition, report: VerifyReport,
                      progress: ByteProgress | None = None) -> PartitionExtent | None:
    report.partitions += 1
    for leftover in partition.leftovers:
        report.notes.append(f"{leftover.path}: leftover .{leftover.kind} file")
    _verify_kafka07_segments(partition.kafka07_segments, report)
    previous: tuple[SegmentFiles, _LogSummary] | None = None
    log_end: int | None = None
    unindexed: dict[tuple[int, int], SegmentFiles] = {}
    for segment in partition.segments:
        if segment.log is None:
            report.problems.append(Problem(str(segment.files()[0]), "missing_log",
                                           f"no {segment.base_offset:020d}.log for this index file"))
        summary = verify_segment(segment, report, progress)
        if summary is not None and summary.aborts:
            unindexed.update(dict.fromkeys(summary.aborts - _indexed_aborts(segment), segment))
        if segment.log is not None:
            last = summary.last_offset if summary is not None else None
            log_end = last + 1 if last is not None else segment.base_offset
        if summary is not None and summary.first_offset is not None:
            if previous is not None and previous[1].last_offset is not None \
                    and previous[1].last_offset >= segment.base_offset:
                report.problems.append(Problem(str(previous[0].log), "segments_overlap",
                                               f"last offset {previous[1].last_offset} is not below the next "
                                               f"segment's base offset {segment.base_offset}"))
            previous = (segment, summary)
    if unindexed:
        _verify_aborts_indexed(partition, unindexed, report)
    for _offset, snapshot_path in sorted(partition.snapshots.items()):
        report.files += 1
        for damage in read_snapshot(snapshot_path).damage:
            report.problems.append(Problem(str(snapshot_path), damage.kind, damage.message,
                                           position=damage.position))
    for snapshot in kraft_snapshots(partition.path):
        _verify_record_file(snapshot, report, progress)
    if partition.leader_epoch_checkpoint is not None:
        _verify_checkpoint(partition.leader_epoch_checkpoint, report)
    topic_id = None
    if partition.partition_metadata is not None:
        metadata = _verify_text_file(partition.partition_metadata, TOPIC_ID, report)
        topic_id = metadata.topic_id if metadata is not None else None
    if partition.quorum_state is not None:
        _verify_text_file(partition.quorum_state, QUORUM, report)
    logs = partition.log_segments
    if not logs or log_end is None:
        return None
    return PartitionExtent(partition.path, logs[0].base_offset, log_end, topic_id)


def _indexed_aborts(segment: SegmentFiles) -> set[tuple[int, int]]:
    """(producer id, marker offset) of each entry of the segment's `.txnindex` (none without one)."""
    if segment.txnindex is None:
        return set()
    return {(t.producer_id, t.last_offset) for t in read_txn_index(segment.txnindex).entries}


def _verify_aborts_indexed(partition: Partition, unindexed: dict[tuple[int, int], SegmentFiles],
                           report: VerifyReport) -> None:
    """An aborted transaction with records whose ABORT marker's segment's `.txnindex` does not list it: a broker
    serves its records to read_committed consumers. A fetch's aborted transactions come from the transaction indexes
    alone (`UnifiedLog.collectAbortedTransactions`; the consumer skips only the producers listed), and Kafka's
    start-up rebuilds no missing `.txnindex`, nor one whose last entry is partial, only one that fails
    `TransactionIndex.sanityCheck` (then this problem becomes verify's note on the rebuilt index). A marker with no
    records before it (the log cleaner removed them) hides nothing."""
    try:
        aborted = scan_transactions(batch for _, batch in partition.batches()).aborted
    except (KafkalogError, OSError):
        return  # (the damage is named where the log was read)
    for txn in aborted:
        segment = unindexed.get((txn.producer_id, txn.last_offset))
        if segment is None or txn.first_offset == txn.last_offset:
            continue
        assert segment.log is not None  # (its marker was read from it)
        index = segment.txnindex or segment.log.with_suffix(file_names.TXN_INDEX_SUFFIX)
        what = "does not list it" if segment.txnindex is not None else "does not exist"
        report.problems.append(Problem(str(index), "abort_not_indexed",
                                       f"producer {txn.producer_id}'s transaction from offset {txn.first_offset}, "
                                       f"aborted at offset {txn.last_offset}: this transaction index {what}, so a "
                                       "broker serves its records to read_committed consumers (kafkalog's "
                                       "read_committed drops them, as the ABORT marker says)"))


def _verify_kafka07_segments(paths: list[AnyPath], report: VerifyReport) -> None:
    """A Kafka 0.7 partition's segments, each checked, and checked to meet as 0.7's `Log.validateSegments`
    requires at start-up: a segment's name (its byte offset) + its size is the next one's name."""
    for i, path in enumerate(paths):
        _verify_kafka07(path, report)
        if i + 1 < len(paths):
            start, end = file_names.base_offset_of(path) or 0, file_names.base_offset_of(paths[i + 1]) or 0
            size = path.stat().st_size
            if start + size != end:
                report.problems.append(Problem(str(path), "segments_do_not_meet",
                                               f"it starts at byte offset {start} and holds {size} bytes, the next "
                                               f"segment starts at {end} (0.7 does not start: \"The following "
                                               "segments don't validate\")"))


def _verify_kafka07(path: AnyPath, report: VerifyReport) -> None:
    """A Kafka 0.7 segment: every message's CRC, its structure, its tail (`kafkalog.log.kafka_07_segment`)."""
    report.segments += 1
    ending: list[DamagedDataError] = []
    for entry in kafka_07_segment.read_entries(path, name=str(path), damage=ending):
        report.batches += 1
        report.records += len(entry.messages)
        for d in entry.damage:
            report.problems.append(Problem(str(path), d.kind, d.message, position=d.position))
    for d in ending:
        report.problems.append(Problem(str(path), d.kind, d.message, position=d.position))


def verify_segment(files: SegmentFiles | _SegmentSources, report: VerifyReport,
                   progress: ByteProgress | None = None) -> _LogSummary | None:
    segment = _SegmentSources.of(files) if isinstance(files, SegmentFiles) else files
    report.segments += 1
    # The offset index, read once: before the log where the log is read in ranges on threads (cut at its entries),
    # and checked after it.
    index = _index_for_cuts(segment, report)
    with index.opened if index is not None else contextlib.nullcontext():
        cuts = _cuts(segment, index)
        summary = _verify_log(segment, report, progress, cuts) if segment.log is not None else None
        if segment.index is not None:
            _verify_offset_index(segment, summary, report, index)
    if segment.timeindex is not None:
        _verify_time_index(segment, summary, report)
    if segment.txnindex is not None:
        _verify_txn_index(segment, summary, report)
    return summary


def _verify_log(segment: _SegmentSources, report: VerifyReport, progress: ByteProgress | None = None,
                cuts: list[int] | None = None) -> _LogSummary:
    """The log's batches checked, a run at a time; read in ranges on threads from `cuts` (two or more, from
    `_cuts`), else by one reader."""
    assert segment.log is not None  # (verify_segment reads a log only where there is one)
    name = segment.log_name or _name(segment.log)
    report.files += 1
    positions, last_offsets, max_timestamps = [], [], []
    aborts: set[tuple[int, int]] = set()
    first = last = None
    damage: list[DamagedDataError] = []
    size = 0
    # A run of batches at a time, as columns: only the batches with a problem are looked at one by one.
    for run in _runs_of(segment, report, cuts or [0]):
        if isinstance(run, SegmentReader):  # a reader done: its damage, in file order after the last's
            damage += run.damage
            size = run.size
            continue
        n = len(run.position)
        if not n:
            continue
        if progress is not None:
            progress.update(int(run.end_position[-1]), name)
        report.batches += n
        report.records += int(run.records.sum())
        if first is None:
            first = int(run.base_offset[0])
            if first < segment.base_offset:
                report.problems.append(Problem(name, "offset_below_base",
                                               f"first batch's base offset {first} is below the "
                                               f"segment's base offset {segment.base_offset}",
                                               position=int(run.position[0])))
        # Offsets that go backwards: the run's first batch against the run before, the others within the run.
        base_offset, last_offset = run.base_offset, run.last_offset
        wrong = (np.flatnonzero(base_offset[1:] <= last_offset[:-1]) + 1).tolist()
        if last is not None and base_offset[0] <= last:
            wrong.insert(0, 0)
        for i in wrong:
            previous = last if i == 0 else last_offset[i - 1]
            report.problems.append(Problem(name, "log_offsets_not_increasing",
                                           f"batch base offset {base_offset[i]} is not above the previous "
                                           f"batch's last offset {previous}", position=int(run.position[i])))
        last = int(last_offset[-1])
        positions.append(run.position)
        last_offsets.append(run.last_offset)
        max_timestamps.append(run.max_timestamp)
        aborts.update(run.aborts)
    for d in damage:
        report.problems.append(Problem(name, d.kind, d.message, position=d.position))
    if progress is not None:
        progress.file_done(size)

    def joined(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)

    return _LogSummary(size, joined(positions), joined(last_offsets), joined(max_timestamps), aborts, first, last)


def _runs_of(segment: _SegmentSources, report: VerifyReport,
             cuts: list[int]) -> Iterator[BatchColumns | SegmentReader]:
    """The log's runs of batches as columns, each reader after its runs: a large segment's byte ranges (from
    `cuts`) on `report.threads` threads (`kafkalog.log.segment_ranges`), as one reader from the start gives them."""
    log = segment.log
    assert log is not None  # (verify_segment reads a log only where there is one)
    if len(cuts) > 1 and isinstance(log, Path):
        yield from read_in_ranges(log, cuts, _scan, report.threads, decoder=report.decoder)
        return
    with SegmentReader(log, name=segment.log_name, decoder=report.decoder) as reader:
        yield from reader.scan_columns()
    yield reader


#: Batches a range's thread joins into one item for the consumer, at most (memory and progress: the one reader
#: that reads on where a range ran past its cut may read the rest of the segment).
_JOINED_BATCHES = 1 << 16


def _scan(reader: SegmentReader) -> Iterator[tuple[BatchColumns, int]]:
    """A range's runs, joined into items of up to `_JOINED_BATCHES` batches on its thread: the consumer, a third
    thread, takes the GIL for each item it is handed (waking up, then checking it), so it is handed a few large
    ones, not a run at a time."""
    runs: list[BatchColumns] = []
    batches = 0
    for run in reader.scan_columns():
        runs.append(run)
        batches += len(run.position)
        if batches >= _JOINED_BATCHES:
            yield _joined(runs), 64 * batches
            runs, batches = [], 0
    if runs:
        yield _joined(runs), 64 * batches


def _joined(runs: list[BatchColumns]) -> BatchColumns:
    """Runs of batches as one, in file order."""
    if len(runs) == 1:
        return runs[0]
    def joined(column: str) -> np.ndarray:
        return np.concatenate([getattr(r, column) for r in runs])

    return BatchColumns(joined("position"), joined("end_position"), joined("base_offset"), joined("last_offset"),
                        joined("max_timestamp"), joined("records"), [a for r in runs for a in r.aborts],
                        [d for r in runs for d in r.damage])


@dataclass
class _ReadIndex:
    """An offset index opened and read (its entries by column) before the log, to cut the log at its entries;
    checked after the log from the same columns (`_verify_offset_index`)."""

    opened: OffsetIndex
    slots: np.ndarray
    log_size: int


def _index_for_cuts(segment: _SegmentSources, report: VerifyReport) -> _ReadIndex | None:
    """The offset index, read, where the log is a large file on a disk (past two ranges) with its offset index
    beside it and there are threads to share it; else None (and where the index does not read: its check after
    the log says why)."""
    log, path = segment.log, segment.index
    if report.threads < 2 or not isinstance(log, Path) or not isinstance(path, Path) \
            or path != log.with_suffix(file_names.INDEX_SUFFIX):
        return None
    try:
        size = os.path.getsize(log)
    except OSError:
        return None  # (reading the log says what is wrong)
    if size <= 2 * RANGE_BYTES:
        return None
    try:
        index = OffsetIndex(path, base_offset=segment.base_offset)
    except (KafkalogError, OSError):
        return None
    try:
        return _ReadIndex(index, _entry_columns(index, report), size)
    except (KafkalogError, OSError):
        index.close()
        return None


def _cuts(segment: _SegmentSources, index: _ReadIndex | None) -> list[int]:
    """Where the log's ranges start: [0] (read whole, by one reader) without an index read for cuts; else at its
    trustworthy entries (`kafkalog.dataset.layout`'s), every `RANGE_BYTES` (a multiple of the scanner's chunk: a
    range's chunks are read into its pooled buffers, not fresh memory), as `layout.index_cuts` cuts."""
    if index is None:
        return [0]
    trusted = layout.trusted_offset_entries(index.slots, segment.base_offset, index.log_size)
    return range_starts(trusted.positions, 0, index.log_size, RANGE_BYTES)


def _entry_columns(index: OffsetIndex | TimeIndex, report: VerifyReport) -> np.ndarray:
    """The index's entries (its slots up to the end marker) by column: through the compiled engine, or the Kaitai
    parser for a small input."""
    if report.decoder is not Decoder.FAST:
        return index.slot_table(len(index))
    from kafkalog.fast import index as fast_index  # the fast path, only for an input large enough (start-up)

    return fast_index.entry_columns(index)


def _slot_problems(index: OffsetIndex | TimeIndex, name: str, report: VerifyReport, entry_name: str,
                   slots: np.ndarray | None = None) -> np.ndarray:
    """The index's entries (its slot columns up to the end marker, read unless given), after the problems of its
    slots."""
    report.files += 1
    slots = _entry_columns(index, report) if slots is None else slots
    count = len(index)
    report.index_entries += count
    if index.trailing_bytes:
        report.problems.append(Problem(name, "size_not_multiple_of_entry",
                                       f"{index.file_size} bytes is not a multiple of the {index.entry_size}-byte "
                                       f"{entry_name} entry", position=index.slots * index.entry_size))
    # Slots after the end marker should all be zero (preallocated); anything else was lost by the rule. (Checked on
    # their bytes: a slot's fields are all of its bytes, and a preallocated index is mostly such slots.)
    n = index.first_nonzero_slot(count)
    if n is not None:
        report.problems.append(Problem(name, "entries_after_end",
                                       f"slot {n} is not zero, but slot {count} (relative offset 0) ends the index "
                                       "as kafka-dump-log.sh reads it", entry=n))
    return slots


def _after(values: np.ndarray, wrong: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Whether each entry and the one before it are `wrong(entry, previous)` (never for the first)."""
    flags = np.zeros(len(values), dtype=bool)
    flags[1:] = wrong(values[1:], values[:-1])
    return flags


def _entries_and_previous(index: OffsetIndex | TimeIndex, slots: np.ndarray,
                          flagged: list[int]) -> tuple[dict[int, Any], dict[int, Any]]:
    """The entries `flagged` (by number), and the entry before each of them but the first."""
    after_first = [n for n in flagged if n > 0]
    return (dict(zip(flagged, index.entries_of(slots[:, flagged]), strict=True)),
            dict(zip(after_first, index.entries_of(slots[:, [n - 1 for n in after_first]]), strict=True)))


def _flagged(*conditions: np.ndarray) -> list[int]:
    """Entries that meet any of the conditions: the only ones whose problems are worded one by one."""
    return np.flatnonzero(np.logical_or.reduce(conditions)).tolist() if conditions else []


def _verify_offset_index(segment: _SegmentSources, log: _LogSummary | None, report: VerifyReport,
                         read: _ReadIndex | None = None) -> None:
    """The offset index's checks; from its entries `read` before the log, where they were (left open)."""
    assert segment.index is not None  # (verify_segment checks an index only where there is one)
    name = _name(segment.index)
    with contextlib.nullcontext(read.opened) if read is not None \
            else OffsetIndex(segment.index, base_offset=segment.base_offset) as index:
        slots = _slot_problems(index, name, report, "offset index", None if read is None else read.slots)
        offsets = segment.base_offset + slots[0]
        positions = slots[1]
        conditions = [offsets < segment.base_offset, _after(offsets, lambda a, b: a <= b)]
        if log is not None and len(log.positions):
            at = np.minimum(np.searchsorted(log.positions, positions), len(log.positions) - 1)
            found = log.positions[at] == positions
            conditions += [~found, found & (log.last_offsets[at] != offsets)]
        elif log is not None:  # no batches: no entry points at one
            conditions.append(np.ones(len(positions), dtype=bool))
        flagged = _flagged(*conditions)
        entries, previous_of = _entries_and_previous(index, slots, flagged)
        # where each flagged entry's append ends at the latest: the next entry's position
        next_positions = {n: int(positions[n + 1]) for n in flagged if n + 1 < len(positions)}
    if not flagged:
        return
    starts = {} if log is None else dict(zip(log.positions.tolist(), log.last_offsets.tolist(), strict=True))
    for n in flagged:
        entry, previous = entries[n], previous_of.get(n)
        if entry.offset < segment.base_offset:
            report.problems.append(Problem(name, "offset_below_base",
                                           f"offset {entry.offset} is below the base offset {segment.base_offset}",
                                           entry=n))
        if previous is not None and entry.offset <= previous.offset:
            report.problems.append(Problem(name, "offset_not_increasing",
                                           f"offset {entry.offset} is not above entry {n - 1}'s {previous.offset}",
                                           entry=n))
        if log is None:
            continue
        if entry.position >= log.size or entry.position < 0:
            report.problems.append(Problem(name, "position_past_end_of_log",
                                           f"position {entry.position} is past the end of the {log.size}-byte log",
                                           entry=n))
        elif entry.position not in starts:
            report.problems.append(Problem(name, "no_batch_at_position",
                                           f"no batch starts at position {entry.position} (offset {entry.offset})",
                                           entry=n))
        elif starts[entry.position] != entry.offset:
            end = next_positions.get(n, log.size)
            if starts[entry.position] < entry.offset and _ends_a_legacy_append(segment, entry.position, end,
                                                                              entry.offset):
                report.notes.append(f"{name}: entry {n}: offset {entry.offset} at position {entry.position}, where "
                                    f"a message with offset {starts[entry.position]} starts: the last offset of "
                                    "the append of v0/v1 messages that starts there, as older brokers (1.1, 2.8: "
                                    "LogSegment.append) indexed an append; lookups through it find the right "
                                    "messages, though Kafka's --verify-index-only prints it among its mismatches")
            else:
                report.problems.append(Problem(name, "offset_mismatch",
                                               f"offset {entry.offset}, but the batch at position {entry.position} "
                                               f"ends at offset {starts[entry.position]}", entry=n))


def _ends_a_legacy_append(segment: _SegmentSources, start: int, end: int, offset: int) -> bool:
    """Whether the entries of the log from `start` to at most `end` (the next index entry's position) are v0/v1
    messages, one of which ends at `offset`: an append an older broker indexed at its last offset and first
    position (`LogSegment.append`'s `offsetIndex.append(largestOffset, physicalPosition)`, Kafka 1.1 and 2.8).
    The only bytes read are those up to that message."""
    assert segment.log is not None  # (an entry is compared with batches only where there is a log)
    with SegmentReader(segment.log, name=segment.log_name, start=start, end=end, decode_records=False,
                       decoder=Decoder.OBJECT) as reader:
        for batch in reader:
            if batch.magic >= 2 or batch.last_offset > offset:
                return False
            if batch.last_offset == offset:
                return True
    return False


def _verify_time_index(segment: _SegmentSources, log: _LogSummary | None, report: VerifyReport) -> None:
    assert segment.timeindex is not None  # (verify_segment checks an index only where there is one)
    name = _name(segment.timeindex)
    with TimeIndex(segment.timeindex, base_offset=segment.base_offset) as index:
        slots = _slot_problems(index, name, report, "time index")
        _time_index_sanity(index, name, report)
        timestamps = slots[0]
        offsets = segment.base_offset + slots[1]
        conditions = [offsets < segment.base_offset, _after(timestamps, lambda a, b: a <= b),
                      _after(offsets, lambda a, b: a < b)]
        if log is not None:
            if len(log.last_offsets) and not _after(log.last_offsets, lambda a, b: a < b).any():
                # (searchsorted as bisect_left, on offsets in order)
                at = np.minimum(np.searchsorted(log.last_offsets, offsets), len(log.last_offsets) - 1)
                conditions += [offsets > log.last_offsets[-1], log.last_offsets[at] != offsets,
                               log.max_timestamps[at] != timestamps]
            else:  # no batches, or offsets that go backwards: each entry is looked up one by one
                conditions.append(np.ones(len(offsets), dtype=bool))
        flagged = _flagged(*conditions)
        entries, previous_of = _entries_and_previous(index, slots, flagged)
    if not flagged:
        return
    last_offsets = [] if log is None else log.last_offsets.tolist()
    for n in flagged:
        entry, previous = entries[n], previous_of.get(n)
        if entry.offset < segment.base_offset:
            report.problems.append(Problem(name, "offset_below_base",
                                           f"offset {entry.offset} is below the base offset {segment.base_offset}",
                                           entry=n))
        if previous is not None:
            if entry.timestamp <= previous.timestamp:
                report.problems.append(Problem(name, "timestamp_not_increasing",
                                               f"timestamp {entry.timestamp} is not above entry {n - 1}'s "
                                               f"{previous.timestamp}", entry=n))
            if entry.offset < previous.offset:
                report.problems.append(Problem(name, "offset_not_increasing",
                                               f"offset {entry.offset} is below entry {n - 1}'s {previous.offset}",
                                               entry=n))
        if log is None:
            continue
        k = bisect.bisect_left(last_offsets, entry.offset)
        if log.last_offset is None or entry.offset > log.last_offset:
            report.problems.append(Problem(name, "offset_past_end_of_log",
                                           f"offset {entry.offset} is past the log's last offset {log.last_offset}",
                                           entry=n))
        elif k >= len(last_offsets) or last_offsets[k] != entry.offset:
            report.problems.append(Problem(name, "offset_not_found",
                                           f"no batch ends at offset {entry.offset}", entry=n))
        elif log.max_timestamps[k] != entry.timestamp:
            report.problems.append(Problem(name, "timestamp_mismatch",
                                           f"timestamp {entry.timestamp}, but the batch ending at offset "
                                           f"{entry.offset} has max timestamp {log.max_timestamps[k]}", entry=n))


#: The KRaft metadata log's partition directory, as a path names it.
_METADATA_LOG_DIR = "__cluster_metadata-0"


def _time_index_sanity(index: TimeIndex, name: str, report: VerifyReport) -> None:
    """`TimeIndex.sanityCheck` as kafka-dump-log.sh --index-sanity-check runs it: over every slot of the
    file, so the last slot of a time index a killed broker left preallocated (zeros) has timestamp 0."""
    if not index.slots:
        return
    first, last = index.slot(0)[0], index.slot(index.slots - 1)[0]  # (field 0: the timestamp)
    if last < first:
        # A note, not a problem: a running broker's active segment has such an index, and Kafka rebuilds it
        # when it recovers from an unclean shutdown.
        # Kafka 4.4.0 leaves the metadata log's active segment's indexes so even when it stops cleanly.
        who = ("a broker that was running or did not shut down cleanly, or Kafka 4.4, which leaves the metadata "
               "log's so when it stops" if _METADATA_LOG_DIR in name
               else "a broker that was running or did not shut down cleanly")
        report.notes.append(f"{name}: preallocated time index (left by {who}): its last slot's timestamp {last} is "
                            f"below the first entry's {first}, which Kafka's --index-sanity-check calls corrupt")


def _verify_txn_index(segment: _SegmentSources, log: _LogSummary | None, report: VerifyReport) -> None:
    source = segment.txnindex
    assert source is not None  # (verify_segment checks an index only where there is one)
    name = _name(source)
    report.files += 1
    if isinstance(source, _NamedBytes):  # (behind a URI or in Aiven's objects: read whole)
        read = decode_txn_index(source.getvalue(), name)
    else:
        assert isinstance(source, (Path, UriPath))  # (a partition directory behind a URI: its files are UriPaths)
        read = read_txn_index(source)
    for damage in read.damage:
        report.problems.append(Problem(name, damage.kind, damage.message, position=damage.position))
    previous = None
    for n, txn in enumerate(read.entries):
        report.index_entries += 1
        if txn.last_offset < segment.base_offset:
            report.problems.append(Problem(name, "last_offset_below_base",
                                           f"last offset {txn.last_offset} is below the segment's base offset "
                                           f"{segment.base_offset}", entry=n))
        if previous is not None and txn.last_offset <= previous.last_offset:
            report.problems.append(Problem(name, "offset_not_increasing",
                                           f"last offset {txn.last_offset} is not above entry {n - 1}'s "
                                           f"{previous.last_offset}", entry=n))
        if txn.first_offset > txn.last_offset:
            report.problems.append(Problem(name, "first_offset_after_last",
                                           f"first offset {txn.first_offset} is after last offset {txn.last_offset}",
                                           entry=n))
        previous = txn
        if log is not None and (txn.producer_id, txn.last_offset) not in log.aborts:
            report.problems.append(Problem(name, "marker_not_found",
                                           f"no ABORT marker of producer {txn.producer_id} at offset "
                                           f"{txn.last_offset} in the segment", entry=n))


def _verify_checkpoint(path: AnyPath, report: VerifyReport) -> None:
    report.files += 1
    try:
        checkpoint = read_leader_epoch_checkpoint(path)
    except DamagedDataError as damage:
        report.problems.append(Problem(str(path), "corrupt_structure", damage.message))
        return
    for n in range(1, len(checkpoint.entries)):
        prev, entry = checkpoint.entries[n - 1], checkpoint.entries[n]
        if entry.epoch <= prev.epoch or entry.start_offset < prev.start_offset:
            report.problems.append(Problem(str(path), "epochs_out_of_order",
                                           f"epoch {entry.epoch} at {entry.start_offset} follows epoch {prev.epoch} "
                                           f"at {prev.start_offset}", entry=n))
