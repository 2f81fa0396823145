"""``spark.readStream.format("kafkalog")``: tail partition directories as a broker or a backup job writes them.

Offsets are Kafka's, per topic-partition, in the shape of Spark's Kafka source:
``{"orders": {"0": 1234}}``, the next offset to read. A partition inside a broker's log directory streams the log
that broker serves, as a batch read does (`kafkalog.dataset.served`): its earliest offset is the log start
offset (the first segment's base offset with includeBelowLogStart), its latest the log end offset after Kafka's
recovery (a torn tail, a batch still being written, preallocated zeros end it there), and with read_committed
its last stable offset. Several brokers' disks of one cluster stream each partition from the replica the
cluster restarted on them would serve (`kafkalog.dataset.cluster`), found again each trigger. Elsewhere (a
partition directory copied alone) the files are read as they are. Each micro-batch:

- `latestOffset`: for each partition, its latest offset as above (outside a log directory: one past the last
  whole batch of its last segment, `kafkalog.dataset.offsets.latest_offset`, and with read_committed the first
  offset of a transaction still open). `maxOffsetsPerTrigger` shares a limit over partitions by how far behind
  each is, as Kafka's source does (`KafkaMicroBatchStream.rateLimit`).
- `partitions`: the byte ranges holding [start, end) (`kafkalog.dataset.plan` with
  `exact_end`, so nothing past the end is read); segments rolled since are found by
  listing the directory again. Offsets below a partition's log start offset (deleted by
  retention or deleteRecords) are data loss: they fail the query, or with failOnDataLoss=false are
  skipped with a warning.
- `read`: `read_range`, as the DataFrame reader (`kafkalog.spark.datasource`) reads a range.

A partition's served bounds are kept from one trigger to the next and found again (recovery's scan of the
segments after the recovery point included) only where its files or its log directory's checkpoints changed,
and then recovery's walk of a segment that only grew goes on from where the last one stopped
(`kafkalog.dataset.served.TailedLogs`). New partitions start at their earliest offset. Spark keeps the offsets
in its checkpoint, so a restarted query goes on where it stopped, reading nothing twice.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition

from kafkalog.dataset import offsets, plan, served
from kafkalog.dataset.options import EARLIEST, LATEST, ByPartition, Earliest, Latest, parse_options, partition_value
from kafkalog.dataset.registry_values import RegistryColumns
from kafkalog.dataset.rows import path_option, read_range
from kafkalog.errors import UsageError
from kafkalog.log.served_log import ServedBounds
from kafkalog.uri_path import requests_once

try:  # PySpark 4.2+: read limits and Trigger.AvailableNow for Python sources
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, SupportsTriggerAvailableNow
    _READ_LIMITS = True
except ImportError:  # pragma: no cover - older PySpark
    _READ_LIMITS = False

    class SupportsTriggerAvailableNow:  # type: ignore[no-redef]
        pass

TopicPartition = tuple[str, int]


def _nested(flat: dict[TopicPartition, int]) -> dict:
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(flat.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return out


def _flat(nested: dict | None) -> dict[TopicPartition, int]:
    return {(t, int(p)): int(o) for t, parts in (nested or {}).items() for p, o in parts.items()}


@dataclass
class _Tailed:
    """A partition as a trigger finds it: its segments (as its broker serves them, inside a log directory) and
    its served bounds (None outside a log directory)."""

    segments: list[plan.Segment]
    bounds: ServedBounds | None


class KafkaLogStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, options: dict[str, str]):
        self.path = path_option(options)
        self.options = parse_options(options, streaming=True)
        for name, given in (("readReplicas", self.options.read_replicas),
                            ("readPastOpenTransactions", self.options.read_past_open_transactions)):
            if given:
                raise UsageError(f"option {name} is for batch reads: a stream reads each partition's one served log, "
                                 "as a consumer does")
        self.logs = served.TailedLogs(remote_storage=self.options.remote_root is not None)
        # Schemas registered while the query runs are read again by the next query, not by this one.
        self.registry = RegistryColumns.for_read(self.path, self.options) if self.options.registry else None
        #: Trigger.AvailableNow: the latest offsets when the query started; never read past them.
        self.target: dict[TopicPartition, int] | None = None

    def _partitions(self) -> dict[TopicPartition, _Tailed]:
        with requests_once():  # (each listing and file asked once a call; the next call sees what changed)
            return self._find_partitions()

    def _find_partitions(self) -> dict[TopicPartition, _Tailed]:
        found = {}
        self.logs.next_trigger()
        named = plan.named_files([self.path] if isinstance(self.path, str) else list(self.path))
        # With remoteRoot, a tiered partition's remote segments come first: its history starts there.
        for group in plan.by_partition(plan.wanted_segments(self.path, self.options, logs=self.logs),
                                       across=self.options.remote_root is not None):
            seg = group[0]
            if seg.topic is None or seg.partition is None:
                raise UsageError(f"streaming reads partition directories named topic-N; {seg.location} is not in one")
            group, bounds = plan.served_group(group, self.options, self.logs, named)
            found[(seg.topic, seg.partition)] = _Tailed([s for s in group if s.base_offset is not None], bounds)
        return found

    def _earliest(self, part: _Tailed) -> int:
        """Where the partition's log starts: its log start offset inside a log directory (its first segment's base
        offset with includeBelowLogStart), its first segment's base offset elsewhere."""
        if part.bounds is not None and not (self.options.include_below_log_start and part.segments):
            return part.bounds.log_start_offset
        return offsets.earliest_offset(part.segments) or 0

    def _latest(self, parts: dict[TopicPartition, _Tailed]) -> dict[TopicPartition, int]:
        out = {}
        for tp, part in parts.items():
            if part.bounds is not None:
                out[tp] = part.bounds.recovered_end_offset
                continue
            latest = offsets.latest_offset(part.segments)
            out[tp] = latest[0] if latest else 0
        if self.target is not None:
            out = {tp: min(o, self.target.get(tp, o)) for tp, o in out.items() if tp in self.target}
        return out

    def initialOffset(self) -> dict:
        parts = self._partitions()
        latest = self._latest(parts)
        start: dict[TopicPartition, int] = {}
        o = self.options
        for tp, part in parts.items():
            earliest = self._earliest(part)
            ts = partition_value(o.starting_timestamps, *tp)
            if ts is not None:
                found = offsets.offset_for_timestamp(part.segments, ts)
                if found is None and o.starting_timestamp_strategy == "error":
                    raise UsageError(f"{tp[0]}-{tp[1]}: no record has a timestamp >= {ts} (startingTimestamp)")
                start[tp] = latest[tp] if found is None else max(found, earliest)
                continue
            wanted = partition_value(o.starting_offsets, *tp)
            if isinstance(o.starting_offsets, Earliest) or wanted == EARLIEST:
                start[tp] = earliest
            elif isinstance(o.starting_offsets, Latest) or wanted in (LATEST, None):
                start[tp] = latest[tp]
            else:
                start[tp] = wanted
        return _nested(start)

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = None
        self.target = self._latest(self._partitions())

    def getDefaultReadLimit(self):
        if not _READ_LIMITS:
            return None
        if self.options.max_offsets_per_trigger:
            return ReadMaxRows(self.options.max_offsets_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict | None = None, limit=None) -> dict:
        parts = self._partitions()
        latest = self._latest(parts)
        begin = _flat(start)
        for tp, part in parts.items():
            if tp not in begin:
                begin[tp] = self._earliest(part)  # a new partition: from its start
        max_rows = getattr(limit, "max_rows", None)
        if limit is None and self.options.max_offsets_per_trigger:
            max_rows = self.options.max_offsets_per_trigger  # PySpark without read limits
        end = dict(latest)
        if self.options.read_committed:
            # As a read_committed consumer: stop before transactions still open (the last stable offset),
            # so that their records are read once their marker is there.
            end = {tp: _last_stable_offset(parts[tp], begin[tp], o) for tp, o in end.items()}
        if max_rows is not None and start is not None:
            end = _rate_limit(begin, end, max_rows)  # (end: with read_committed, the last stable offset)
        # Never move a partition backwards (e.g. its files were replaced by older ones).
        return _nested({tp: max(o, begin.get(tp, o)) if start is not None else o for tp, o in end.items()})

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        begin, stop = _flat(start), _flat(end)
        present = self._partitions()
        wanted = {tp: (begin.get(tp, self._earliest(present[tp])), e) for tp, e in stop.items() if tp in present}
        gone = sorted(tp for tp in stop if tp not in present and begin.get(tp, 0) < stop[tp])
        if gone:
            offsets.report_data_loss(self.options, "partition(s) " + ", ".join(f"{t}-{p}" for t, p in gone)
                                     + " no longer under the path")
        wanted = {tp: se for tp, se in wanted.items() if se[0] < se[1]}
        if not wanted:
            return []
        opts = dataclasses.replace(
            self.options, assign=frozenset(wanted), topics=None, topic_pattern=None,
            starting_offsets=ByPartition(_by_topic({tp: s for tp, (s, _) in wanted.items()})),
            ending_offsets=ByPartition(_by_topic({tp: e for tp, (_, e) in wanted.items()})),
            starting_timestamps=None, ending_timestamps=None, min_partitions=None)
        with requests_once():
            return [InputPartition(r) for r in plan.plan(self.path, opts, exact_end=True, logs=self.logs)]

    def read(self, partition: InputPartition):
        yield from read_range(partition.value, self.options, registry=self.registry)

    def commit(self, end: dict) -> None:
        """Nothing to do: the files are only read."""


def _last_stable_offset(part: _Tailed, begin: int, end: int) -> int:
    """Where a read_committed consumer's read ends, at most `end`: the served log's last stable offset inside a log
    directory; elsewhere the first offset of a transaction still open, found from `begin`."""
    if part.bounds is not None:
        return min(part.bounds.last_stable_offset, end)
    return offsets.last_stable_offset(part.segments, begin, end)


def _by_topic(flat: dict[TopicPartition, int]) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for (topic, partition), offset in flat.items():
        out.setdefault(topic, {})[partition] = offset
    return out


def _rate_limit(begin: dict[TopicPartition, int], latest: dict[TopicPartition, int], limit: int) -> dict:
    """Share `limit` offsets over partitions in proportion to how far behind each is (Kafka's rateLimit)."""
    lag = {tp: max(0, latest[tp] - begin.get(tp, latest[tp])) for tp in latest}
    total = sum(lag.values())
    if total <= limit:
        return dict(latest)
    out = {}
    for tp, size in lag.items():
        share = limit * size / total
        # As Kafka's source: don't starve small partitions completely.
        step = math.ceil(share) if share < 1 else math.floor(share)
        out[tp] = min(latest[tp], begin.get(tp, latest[tp]) + step)
    return out
