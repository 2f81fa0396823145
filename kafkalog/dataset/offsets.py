"""Offsets of a partition directory, as Kafka's source asks a broker for them, but from the files.

- earliest: the base offset of the first segment (Kafka's log start offset, unless
  DeleteRecords moved it inside that segment);
- latest: one past the last offset of the last whole batch of the last segment
  (a batch still being written is not there yet);
- for a timestamp: the first offset whose record timestamp is >= it, Kafka's
  `offsetsForTimes` (`LogSegment.findOffsetByTimestamp`: time index, then a scan of
  the batches whose max timestamp reaches it);

and `resolve`, which turns the offset options and pushed filters into the
offsets a partition is read between.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafkalog.dataset import fs, layout
from kafkalog.dataset.options import EARLIEST, LATEST, ByPartition, ReadOptions, partition_value
from kafkalog.errors import DataLossError, UsageError
from kafkalog.log.segment import SegmentReader

if TYPE_CHECKING:  # (the served log's rules: loaded where a partition directory is read, by dataset.served)
    from kafkalog.log.served_log import ServedBounds

log = logging.getLogger("kafkalog.dataset")


@dataclass(frozen=True)
class Bounds:
    """What to read of one partition: offsets [start, end) and, from pushed filters, a least timestamp."""

    start: int | None = None
    end: int | None = None
    #: ms: only rows with timestamp >= this can pass (lets the time index move the start)
    min_timestamp: int | None = None
    #: The partition's log start offset where its broker's state is known (`kafkalog.log.served_log`): with
    #: includeBelowLogStart, the rows below it are marked.
    log_start_offset: int | None = None

    @property
    def empty(self) -> bool:
        return self.start is not None and self.end is not None and self.start >= self.end


#: The whole partition.
UNBOUNDED = Bounds()


def earliest_offset(segments) -> int | None:
    return segments[0].base_offset if segments else None


def latest_offset(segments) -> tuple[int, int] | None:
    """(next offset, byte end of the last whole batch) of a partition's last segment; None without segments."""
    if not segments:
        return None
    seg = segments[-1]
    start = 0
    if seg.base_offset is not None:
        index = layout.offset_index_columns(seg.location, seg.base_offset, seg.size, seg.private_keys)
        if len(index):
            start = int(index.positions[-1])
    nxt, end = seg.base_offset if seg.base_offset is not None else 0, start
    for batch in _batches(seg.location, start, seg.size, decode=False, private_keys=seg.private_keys):
        if batch.damage:
            break
        nxt, end = batch.last_offset + 1, batch.position + batch.size
    return nxt, end


def batch_end_position(seg, offset: int) -> int | None:
    """The byte position just after the batch holding `offset` in segment `seg`, None if not found."""
    start = _floor_position(seg, offset)
    for batch in _batches(seg.location, start, seg.size, decode=False, private_keys=seg.private_keys):
        if batch.last_offset >= offset:
            return batch.position + batch.size
    return None


def offset_for_timestamp(segments, timestamp: int) -> int | None:
    """The first offset whose record timestamp is >= `timestamp` (ms), None when no record has one."""
    for seg in segments:
        start = 0
        if seg.base_offset is not None:
            # Time index entries are (largest timestamp so far, its offset): nothing up to the
            # offset of the last entry below `timestamp` can qualify.
            times = layout.read_time_index(seg.location, seg.base_offset, seg.private_keys)
            below = [t for t in times if t.timestamp < timestamp]
            if below:
                start = _floor_position(seg, below[-1].offset + 1)
        for batch in _batches(seg.location, start, seg.size, decode=False, private_keys=seg.private_keys):
            if batch.magic >= 2 and batch.max_timestamp < timestamp:
                continue
            for full in _batches(seg.location, batch.position, batch.position + 1, decode=True,
                                 private_keys=seg.private_keys):
                for record in full.records:
                    if record.timestamp >= timestamp:
                        return record.offset
    return None


def _floor_position(seg, offset: int) -> int:
    """Where the offset index says to start reading for `offset`: its last entry at or below it, else 0."""
    index = layout.offset_index_columns(seg.location, seg.base_offset, seg.size, seg.private_keys)
    i = index.floor(offset)
    return int(index.positions[i]) if i >= 0 else 0


def _batches(location: str, start: int, end: int, decode: bool, private_keys: str | None = None):
    with fs.open_binary(location, private_keys) as f:
        yield from SegmentReader(f, name=location, start=start, end=end, decode_records=decode)


def check_named_partitions(options: ReadOptions, present: set[tuple[str | None, int | None]]) -> None:
    """Offsets or timestamps given for a topic-partition that is not under the path are an error (a typo)."""
    for name, spec in (("startingOffsets", options.starting_offsets), ("endingOffsets", options.ending_offsets),
                       ("startingOffsetsByTimestamp", options.starting_timestamps),
                       ("endingOffsetsByTimestamp", options.ending_timestamps)):
        if isinstance(spec, ByPartition):
            missing = sorted(f"{t}-{p}" for t, parts in spec.values.items() for p in parts if (t, p) not in present)
            if missing:
                raise UsageError(f"option {name} names {', '.join(missing)}, not found under the path")


def resolve(options: ReadOptions, pushed, topic, partition, segments, served: ServedBounds | None = None) -> Bounds:
    """The offsets to read of one partition (its segments in offset order); with `served`, the log its broker
    would serve: earliest is its log start offset (unless includeBelowLogStart), and a read_committed read ends
    at its last stable offset (unless readPastOpenTransactions)."""
    below = served is not None and options.include_below_log_start
    earliest = earliest_offset(segments)
    if served is not None and not below:
        earliest = served.log_start_offset
    start = end = None
    ts = partition_value(options.starting_timestamps, topic, partition)
    if ts is not None:
        start = offset_for_timestamp(segments, ts)
        if start is None:
            if options.starting_timestamp_strategy == "error":
                raise UsageError(f"{topic}-{partition}: no record has a timestamp >= {ts} (startingTimestamp); "
                                 f"startingOffsetsByTimestampStrategy=latest reads nothing instead")
            return Bounds(0, 0)
    else:
        wanted = partition_value(options.starting_offsets, topic, partition)
        if wanted is not None and wanted != EARLIEST:
            start = wanted
            if earliest is not None and start < earliest:
                where = "below the log start offset" if served is not None and not below else "no longer in the files"
                report_data_loss(options, f"{topic}-{partition}: offsets [{start}, {earliest}) are {where}; "
                                          f"they start at {earliest}")
    ts = partition_value(options.ending_timestamps, topic, partition)
    if ts is not None:
        end = offset_for_timestamp(segments, ts)  # none found: to the latest, as Kafka's source
    else:
        wanted = partition_value(options.ending_offsets, topic, partition)
        if wanted is not None and wanted != LATEST:
            end = wanted
    if served is not None:
        if not below and served.log_start_offset > (earliest_offset(segments) or 0):
            start = served.log_start_offset if start is None else max(start, served.log_start_offset)
        if options.read_committed and not options.read_past_open_transactions \
                and served.last_stable_offset < served.recovered_end_offset:
            end = served.last_stable_offset if end is None else min(end, served.last_stable_offset)
    lo, hi = pushed.offset_bounds()
    if lo is not None:
        start = lo if start is None else max(start, lo)
    if hi is not None:
        end = hi if end is None else min(end, hi)
    return Bounds(start, end, pushed.timestamp_bounds_ms()[0],
                  served.log_start_offset if served is not None else None)


def report_data_loss(options: ReadOptions, message: str) -> None:
    if options.fail_on_data_loss:
        raise DataLossError(f"{message}. Some data may have been lost (retention or a partial copy). "
                            f"Set failOnDataLoss=false to read what is there.")
    log.warning("%s; skipped (failOnDataLoss=false)", message)


def last_stable_offset(segments, begin: int, end: int) -> int:
    """The first offset of the earliest transaction still open at `end`, scanning batch headers from `begin`
    (a read_committed consumer reads no further: Kafka's last stable offset); `end` when none is open.

    A transaction open at `begin` started at or after it, since the previous micro-batch stopped here too.
    """
    open_since: dict[int, int] = {}
    for seg in segments:
        if seg.next_base_offset is not None and seg.next_base_offset <= begin:
            continue
        if seg.base_offset >= end:
            break
        start = _floor_position(seg, begin)
        for batch in _batches(seg.location, start, seg.size, decode=False, private_keys=seg.private_keys):
            if batch.damage or batch.base_offset >= end:
                break
            if batch.last_offset < begin or not batch.is_transactional:
                continue
            if batch.is_control:
                open_since.pop(batch.producer_id, None)
            else:
                open_since.setdefault(batch.producer_id, batch.base_offset)
    return min(open_since.values(), default=end)
