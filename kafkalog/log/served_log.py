"""A partition's log as its broker's start-up loads it: the offsets Kafka would serve from one disk.

    state = read_log_dir_state("/var/lib/kafka/data")
    bounds = served_bounds("/var/lib/kafka/data/orders-0", state)
    bounds.log_start_offset, bounds.recovered_end_offset, bounds.high_watermark, bounds.last_stable_offset

The facts are Kafka's (`LogLoader.load` and `recoverLog`, `LogSegment.recover`, `UnifiedLog`):

- The log start offset is the larger of the `log-start-offset-checkpoint` and the first segment's base
  offset (with remote storage, the checkpoint alone: the remote segments hold what lies below the local ones).
  Records below it stay on disk until their segment goes; no consumer is served them.
- Without the clean shutdown marker (`.kafka_cleanshutdown`: a broker killed, or a copy of a running
  one's disk), the segments from the one holding the `recovery-point-offset-checkpoint` onward are
  recovered, in order: each is read batch by batch (`FileLogInputStream.nextBatch`, then
  `RecordBatch.ensureValid`: the entry's size, that the entry is whole, its CRC) and cut where the first
  invalid batch starts; after the first segment cut, every later segment is deleted. So a torn tail or
  preallocated zeros (`log.preallocate=true`) end the log, silently (a warning in the broker's log).
  Segments below the recovery point are not read at start-up: damage there stays damage (a consumer
  fetching it gets a `CorruptRecordException`). A missing checkpoint recovers everything.
- With the marker, nothing is recovered: the log ends after the last segment's last whole batch.
- A segment without its offset index, or whose transaction index fails `TransactionIndex.sanityCheck` (an
  aborted transaction's last offset below the segment's base offset: a `CorruptIndexException`), is recovered
  on its own and its indexes rebuilt (`LogLoader.loadSegmentFiles`), whatever the shutdown; the segments after
  it stay. The offset and time indexes are not checked at start-up (`LogSegment.sanityCheck`: the segments
  recovery reads get theirs rebuilt anyway; the others are used as they are).
- The high watermark is the `replication-offset-checkpoint`'s (0 when it has none), clamped between the
  log start offset and the log end offset (`UnifiedLog.updateHighWatermark`).
- The last stable offset is the first offset of the earliest transaction still open at the log end
  (`ProducerStateManager.firstUnstableOffset`, rebuilt from the latest producer snapshot at or below the
  log end, then the batches after it), at least the log start offset; the log end when none is open.

A directory read without the log directory's state (a partition directory copied alone, a segment named on
its own) reads as its files are: see `kafkalog.dataset.plan`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkalog.errors import DamagedDataError, KafkalogError
from kafkalog.formats.index import OffsetIndex
from kafkalog.formats.producer_snapshot import read_snapshot
from kafkalog.formats.txn_index import read_txn_index
from kafkalog.log.partition import Partition
from kafkalog.log.segment import SegmentReader
from kafkalog.log.segment_files import SegmentFiles
from kafkalog.model import Decoder
from kafkalog.uri_path import AnyPath

if TYPE_CHECKING:
    from kafkalog.log.log_dir import LogDirState


@dataclass(frozen=True)
class Truncation:
    """Where Kafka's recovery ends a partition's log: the first invalid batch of a segment it recovers."""

    #: The segment cut: Kafka keeps its bytes [0, position).
    segment: AnyPath
    position: int
    #: The first offset not served: the recovered log end offset.
    offset: int
    #: What recovery found at `position`, in kafkalog's words (a partial entry, zero bytes, a CRC mismatch).
    reason: str
    #: The later segments recovery deletes whole.
    deleted_segments: tuple[AnyPath, ...] = ()


@dataclass(frozen=True)
class ServedBounds:
    """The offsets of one partition's log as its broker's start-up loads it from this disk.

    Attributes
    ----------
    topic, partition : str and int, or None
        From the partition directory's name.
    log_start_offset : int
        The first offset served: max(log-start-offset-checkpoint, first segment's base offset).
    recovered_end_offset : int
        The log end offset after recovery: one past the last offset served.
    high_watermark : int
        The checkpointed high watermark clamped to [log_start_offset, recovered_end_offset].
    last_stable_offset : int
        Where a read_committed consumer's read ends: the first offset of the earliest open transaction,
        else `recovered_end_offset`.
    recovery_point : int
        The recovery-point-offset-checkpoint's offset (0 without one).
    clean_shutdown : bool
        Whether the log directory holds `.kafka_cleanshutdown` (then nothing is recovered).
    truncated_from : Truncation or None
        Where recovery cuts the log, and the segments it deletes; None when it cuts nothing.
    segment_ends : dict of str to int
        For each segment (its ``.log`` path) Kafka keeps, the bytes it keeps; deleted segments are absent.
    checkpointed_high_watermark, checkpointed_log_start_offset : int or None
        The checkpoints' own values, None where a checkpoint has no line for the partition.
    first_unstable_offset : int or None
        The first offset of the earliest transaction open at the log end, None when none is.
    rebuilt_indexes : dict of str to str
        For each segment kept (its ``.log`` path) whose indexes Kafka's start-up rebuilds from the segment: why
        (no offset index, a transaction index that fails Kafka's sanity check, recovered after an unclean
        shutdown). What those index files hold does not matter to the log served.
    walks : dict of str to RecoveryWalk
        For each segment recovery read (its ``.log`` path), where its walk stopped: what a later finding of
        the same partition resumes from where the segment only grew (`served_bounds`'s `previous`).
    scanned_bytes : int
        The bytes of the batches this finding read to walk the segments and to find the open transactions (a
        finding that resumed reads what was appended since, and one batch per resumed segment to check it).
    """

    topic: str | None
    partition: int | None
    log_start_offset: int
    recovered_end_offset: int
    high_watermark: int
    last_stable_offset: int
    recovery_point: int
    clean_shutdown: bool
    truncated_from: Truncation | None = None
    segment_ends: dict[str, int] = field(default_factory=dict)
    checkpointed_high_watermark: int | None = None
    checkpointed_log_start_offset: int | None = None
    first_unstable_offset: int | None = None
    rebuilt_indexes: dict[str, str] = field(default_factory=dict)
    # (how the bounds were found, not what they are: left out of comparisons)
    walks: dict[str, RecoveryWalk] = field(default_factory=dict, repr=False, compare=False)
    scanned_bytes: int = field(default=0, compare=False)
    #: Where the search for open transactions stopped, to resume it as the walks are.
    producer_scan: _ProducerScan | None = field(default=None, repr=False, compare=False)


#: Why Kafka rebuilds a segment's indexes at start-up (`ServedBounds.rebuilt_indexes`).
NO_OFFSET_INDEX = "no offset index"
RECOVERED = "recovered after an unclean shutdown, from the recovery point on"


@dataclass(frozen=True)
class RecoveryWalk:
    """One segment as `LogSegment.recover` leaves it: the bytes it keeps and the next offset after them, and
    the last valid batch (its position, size and CRC), by which a later walk checks that the bytes it resumes
    after are those it walked (`served_bounds`'s `previous`)."""

    valid_bytes: int
    next_offset: int
    reason: str | None  # why it stopped before the end of the file; None when whole
    last_batch: tuple[int, int, int] | None = None
    #: The bytes of the batches this walk read and checked (and of the one batch checked to resume an earlier walk).
    scanned_bytes: int = 0
    #: Where this walk began: 0, or the previous walk's valid bytes when it resumed one.
    resumed_from: int = 0


@dataclass(frozen=True)
class _ProducerScan:
    """Where `_first_unstable_offset`'s scan stopped: the producer snapshot it began from, the last segment it
    read and the byte after the last batch it read there, and the transactions open at that point."""

    snapshot: int | None
    segment: str
    position: int
    open_since: dict[int, int]


def served_bounds(partition_dir: str | os.PathLike, log_dir_state: LogDirState, *,
                  remote_storage: bool = False, previous: ServedBounds | None = None) -> ServedBounds:
    """The log of `partition_dir` as its broker's start-up would load it, given its log directory's state.

    Parameters
    ----------
    partition_dir : str or os.PathLike
        A partition directory (``<topic>-<partition>``) of the log directory `log_dir_state` was read from.
    log_dir_state : kafkalog.log.log_dir.LogDirState
        The log directory's checkpoints and clean shutdown marker (`kafkalog.log.log_dir.read_log_dir_state`).
    remote_storage : bool, default False
        The topic is tiered (remote.storage.enable): the log start offset is the checkpoint's alone, since
        the remote segments hold the offsets below the first local segment.
    previous : ServedBounds, optional
        An earlier finding of the same partition directory (a stream's, at its previous trigger): a segment
        it walked that only grew since (the same file, at least as long, its last valid batch's bytes
        unchanged: same position, size and CRC, the CRC valid) is walked on from where that walk stopped,
        and the search for open transactions goes on from where it stopped; anything else is read again.

    Returns
    -------
    ServedBounds
        The offsets served, and where recovery cuts the log.

    Raises
    ------
    NotADirectoryError
        `partition_dir` is not a directory.
    OSError
        A segment cannot be read.
    """
    part = Partition(partition_dir)
    key = (part.topic or "", part.partition if part.partition is not None else -1)
    checkpointed_start = log_dir_state.log_start_offsets.get(key)
    checkpointed_hw = log_dir_state.high_watermarks.get(key)
    recovery_point = log_dir_state.recovery_points.get(key, 0)
    clean = log_dir_state.clean_shutdown
    segments = part.log_segments
    start_checkpoint = checkpointed_start if checkpointed_start is not None else 0
    ends: dict[str, int] = {}
    truncation: Truncation | None = None
    log_end: int | None = None
    rebuilt: dict[str, str] = {}
    before = previous.walks if previous is not None else {}
    recovered: dict[int, RecoveryWalk] = {}
    if segments:
        for seg in segments:  # loadSegmentFiles: a missing offset index or a corrupt transaction index
            why = _rebuild_reason(seg)
            if why is not None:
                recovered[seg.base_offset] = _recover(seg, before.get(str(seg.log)))
                rebuilt[str(seg.log)] = why
        unflushed = [] if clean else _from_floor(segments, recovery_point)
        for n, seg in enumerate(unflushed):
            got = recovered.get(seg.base_offset) or _recover(seg, before.get(str(seg.log)))
            recovered[seg.base_offset] = got
            rebuilt.setdefault(str(seg.log), RECOVERED)
            if got.reason is not None:
                deleted = tuple(s.log for s in unflushed[n + 1:] if s.log is not None)
                assert seg.log is not None  # (log_segments)
                truncation = Truncation(seg.log, got.valid_bytes, got.next_offset, got.reason, deleted)
                segments = segments[:segments.index(seg) + 1]
                break
        for seg in segments:
            assert seg.log is not None
            ends[str(seg.log)] = recovered[seg.base_offset].valid_bytes if seg.base_offset in recovered \
                else seg.log_size
        last = segments[-1]
        log_end = recovered[last.base_offset].next_offset if last.base_offset in recovered else _next_offset(last)
        if log_end < start_checkpoint:
            # deleteSegmentsIfLogStartGreaterThanLogEnd: every segment goes, the log starts empty at the checkpoint.
            ends = {}
            log_end = None
    if log_end is None:
        log_start = end = start_checkpoint
    else:
        end = log_end
        log_start = start_checkpoint if remote_storage else max(start_checkpoint, segments[0].base_offset)
    hw = min(max(checkpointed_hw if checkpointed_hw is not None else 0, log_start), end)
    walks = {str(seg.log): recovered[seg.base_offset] for seg in segments if seg.base_offset in recovered}
    scanned = sum(w.scanned_bytes for w in walks.values())
    unstable, scan = None, None
    if ends:
        resumable = _resumable_scan(previous.producer_scan if previous is not None else None, walks)
        unstable, scan, scan_bytes = _first_unstable_offset(part, segments, ends, log_start, end, resumable)
        scanned += scan_bytes
    lso = end if unstable is None else min(max(unstable, log_start), end)
    return ServedBounds(part.topic, part.partition, log_start, end, hw, lso, recovery_point, clean, truncation,
                        ends, checkpointed_hw, checkpointed_start, unstable,
                        {log: why for log, why in rebuilt.items() if log in ends}, walks, scanned, scan)


def _rebuild_reason(seg: SegmentFiles) -> str | None:
    """Why `LogLoader.loadSegmentFiles` recovers a segment on its own and rebuilds its indexes, whatever the
    shutdown (`LogSegment.sanityCheck`): its offset index is missing (`NoSuchFileException`), or an aborted
    transaction of its transaction index ends below the segment's base offset (`TransactionIndex.sanityCheck`'s
    `CorruptIndexException`; a partial entry at the end is not read, as Kafka's reader does not)."""
    if seg.index is None:
        return NO_OFFSET_INDEX
    if seg.txnindex is None:
        return None
    try:
        entries = read_txn_index(seg.txnindex).entries
    except (KafkalogError, OSError):
        return None  # (not a CorruptIndexException: verify names it)
    for n, txn in enumerate(entries):
        if txn.last_offset < seg.base_offset:
            return (f"{seg.txnindex.name}: entry {n}: the last offset {txn.last_offset} of an aborted transaction is "
                    f"below the base offset {seg.base_offset} (Kafka's CorruptIndexException)")
    return None


def _from_floor(segments: list[SegmentFiles], offset: int) -> list[SegmentFiles]:
    """The segments holding offsets from `offset` on: the floor segment and all after it (`LogSegments.values`)."""
    floor = 0
    for n, seg in enumerate(segments):
        if seg.base_offset <= offset:
            floor = n
    return segments[floor:]


def _recover(seg: SegmentFiles, before: RecoveryWalk | None = None) -> RecoveryWalk:
    """`LogSegment.recover`: the batches from the start while each is whole and valid (size, CRC); from where
    `before` (an earlier walk of the same file) stopped when the file only grew since."""
    assert seg.log is not None
    begin, checked = (before.valid_bytes, _checked_bytes(seg, before)) if before is not None else (0, 0)
    if checked == 0:
        begin = 0
    if begin:
        assert before is not None
        valid, nxt, last = before.valid_bytes, before.next_offset, before.last_batch
    else:
        valid, nxt, last = 0, seg.base_offset, None
    with SegmentReader(seg.log, start=begin, decode_records=False, decoder=_decoder(seg.log_size - begin)) as reader:
        for batch in reader:
            if reader.damage and not batch.damage:  # an entry before this batch that is no valid batch: stop there
                break
            if batch.damage or not batch.crc_valid:
                return RecoveryWalk(valid, nxt, _reason(batch.damage, batch.position, "its CRC does not match"), last,
                                    checked + valid - begin, begin)
            valid, nxt, last = batch.position + batch.size, batch.last_offset + 1, (batch.position, batch.size,
                                                                                     batch.crc)
        walked = checked + valid - begin
        if reader.damage:  # damage to the entry structure (a partial entry, a size that cannot be, zeros)
            return RecoveryWalk(valid, nxt, _reason(reader.damage, valid, "an invalid entry"), last, walked, begin)
        if valid < reader.size:
            return RecoveryWalk(valid, nxt, f"{reader.size - valid} bytes after the last whole batch", last, walked,
                                begin)
    return RecoveryWalk(valid, nxt, None, last, walked, begin)


def _checked_bytes(seg: SegmentFiles, before: RecoveryWalk) -> int:
    """The bytes read to check that `seg` holds, up to where the walk `before` stopped, the bytes it walked: its
    last valid batch is where it was, the same size, with the same CRC (and that CRC valid), and the file is at
    least as long. 0 when it does not (or `before` walked nothing): the segment is walked from its start."""
    if before.last_batch is None or seg.log_size < before.valid_bytes:
        return 0
    position, size, crc = before.last_batch
    if position + size != before.valid_bytes:
        return 0
    with SegmentReader(seg.log or "", start=position, end=position + 1, decode_records=False,
                       decoder=Decoder.OBJECT) as reader:
        batch = next(iter(reader), None)
        same = (batch is not None and not batch.damage and batch.crc_valid and not reader.damage
                and (batch.position, batch.size, batch.crc) == (position, size, crc)
                and batch.last_offset + 1 == before.next_offset)
    return size if same else 0


#: Bytes of headers to scan from which the compiled kernels read them; below, the object path (as cli.py's).
FAST_PATH_MIN_BYTES = 4 * 1024 * 1024


def _decoder(size: int) -> Decoder:
    return Decoder.FAST if size >= FAST_PATH_MIN_BYTES else Decoder.AUTO


def _reason(damage: list[DamagedDataError], position: int, default: str) -> str:
    return damage[0].message if damage else f"byte {position}: {default}"


def _next_offset(seg: SegmentFiles) -> int:
    """`LogSegment.readNextOffset` of a segment not recovered: the next offset after its last whole batch,
    read from its offset index's last entry (from the start when the index is missing or points nowhere)."""
    nxt = seg.base_offset
    for begin in _index_positions(seg, None):
        nxt, whole = seg.base_offset, True
        with SegmentReader(seg.log or "", start=begin, decode_records=False,
                           decoder=_decoder(seg.log_size - begin)) as reader:
            for n, batch in enumerate(reader):
                if batch.damage:
                    whole = n > 0
                    break
                nxt = batch.last_offset + 1
            else:
                whole = not (reader.damage and reader.damage[0].position == begin)
        if whole:
            return nxt
    return nxt


def _index_positions(seg: SegmentFiles, offset: int | None) -> list[int]:
    """Where to start reading `seg` for `offset` (None: its last entry): the offset index's entry, then 0 in case
    the index is wrong (an index can lie; a position that is no batch's start shows as damage there)."""
    start = 0
    if seg.index is not None:
        try:
            with OffsetIndex(seg.index, base_offset=seg.base_offset) as index:
                entry = index.last_entry() if offset is None else index.lookup(offset)
            if entry is not None and 0 < entry.position < seg.log_size:
                start = entry.position
        except (KafkalogError, OSError):
            start = 0
    return list(dict.fromkeys((start, 0)))


def _resumable_scan(scan: _ProducerScan | None, walks: dict[str, RecoveryWalk]) -> _ProducerScan | None:
    """An earlier search for open transactions that can go on: the segment it stopped in was walked on this time
    from at or past where the search stopped (its bytes up to there checked unchanged)."""
    if scan is None:
        return None
    walk = walks.get(scan.segment)
    return scan if walk is not None and walk.resumed_from >= scan.position > 0 else None


def _first_unstable_offset(part: Partition, segments: list[SegmentFiles], ends: dict[str, int], log_start: int,
                           end: int, resume: _ProducerScan | None = None
                           ) -> tuple[int | None, _ProducerScan | None, int]:
    """The first offset of the earliest transaction open at `end`: the latest producer snapshot at or below
    `end` (and not below `log_start`), then the batch headers after it (`UnifiedLog.rebuildProducerState`);
    with where the scan stopped and the bytes it read. `resume`: an earlier scan to go on from, if it began
    from the same snapshot."""
    open_since: dict[int, int] = {}
    begin = log_start
    chosen: int | None = None
    for offset in sorted((o for o in part.snapshots if log_start <= o <= end), reverse=True):
        snapshot = read_snapshot(part.snapshots[offset])
        if snapshot.damage:
            continue  # Kafka deletes a snapshot that does not read and takes the one before
        open_since = {e.producer_id: e.current_txn_first_offset for e in snapshot.producer_entries
                      if e.current_txn_first_offset >= 0}
        begin, chosen = offset, offset
        break
    todo = _from_floor(segments, begin)
    first_start: int | None = None
    if resume is not None and resume.snapshot == chosen and (chosen is not None or begin == log_start):
        at = [str(s.log) for s in todo].index(resume.segment) if resume.segment in {str(s.log) for s in todo} else -1
        if at >= 0:
            todo, open_since, first_start = todo[at:], dict(resume.open_since), resume.position
    scanned = 0
    last: tuple[str, int] | None = None
    for n, seg in enumerate(todo):
        assert seg.log is not None
        stop = ends.get(str(seg.log), 0)
        # The first segment from its offset index's entry for `begin` (not all of a large active segment's bytes);
        # from its start when that entry is no batch's start.
        starts = ([first_start] if first_start is not None else _index_positions(seg, begin)) if n == 0 else [0]
        for start in starts:
            found = dict(open_since)
            position = start
            with SegmentReader(seg.log, start=start, end=stop, decode_records=False,
                               decoder=_decoder(stop - start)) as reader:
                for batch in reader:
                    if batch.damage or batch.base_offset >= end:
                        break
                    position = batch.position + batch.size
                    if batch.last_offset < begin or not batch.is_transactional:
                        continue
                    if batch.is_control:
                        found.pop(batch.producer_id, None)
                    else:
                        found.setdefault(batch.producer_id, batch.base_offset)
                misplaced = start > 0 and reader.damage and reader.damage[0].position == start
            scanned += position - start
            if not misplaced:
                break
        if misplaced and first_start is not None and n == 0:  # (checked bytes, so not expected): start afresh
            unstable, scan, more = _first_unstable_offset(part, segments, ends, log_start, end)
            return unstable, scan, scanned + more
        open_since = found
        last = (str(seg.log), position)
    scan = _ProducerScan(chosen, last[0], last[1], dict(open_since)) if last is not None else None
    return min(open_since.values(), default=None), scan, scanned
