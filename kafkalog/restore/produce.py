"""Producing a topic's records with confluent-kafka (librdkafka), idempotent, each to its source partition, and
turning the delivery reports into the offset map.

Each source partition is a `Lane`: its records go in offset order to the same partition of the target topic, a run
(`source.Records`) at a time, in a loop that does nothing else. The delivery reports of a partition come back in
produce order, so the n-th report of a lane is the n-th record it produced: the report only counts and checks the
target offset, and the map's rows are made a run of places at a time from the source offsets kept in Arrow. The
first refused record stops the restore: the records produced before it are still flushed, their reports written to
the map, and a `TargetRefusedError` names the refused record's source topic, partition and offset.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from kafkalog.errors import TargetRefusedError
from kafkalog.progress import CountProgress
from kafkalog.restore.offset_map import FLUSH_ROWS, MapWriter
from kafkalog.restore.source import Records

#: Seconds between map parts written while producing (besides every FLUSH_ROWS rows).
FLUSH_SECONDS = 2.0
#: Records produced between two polls of the delivery reports (as librdkafka's examples do).
POLL_EVERY = 10000
#: librdkafka's RD_KAFKA_RESP_ERR__PURGE_QUEUE: a record `purge(in_queue=True)` dropped before it was sent.
_PURGE_QUEUE = -152
#: librdkafka's RD_KAFKA_RESP_ERR__FATAL: what produce() answers once the producer is stopped by a fatal error.
_FATAL = -150
#: Seconds of one poll or flush call: under confluent-kafka's 200 ms chunk (see `Producing._serve`).
SERVE_SLICE = 0.1
#: What to do with a partition that has a gap (a refused record before records delivered after it).
RESTORE_ELSEWHERE = ("once the refusal's cause is fixed, restore {topic} into a new topic (--topic-map {topic}=NEW) "
                     "with a new --offset-map directory")
_ORIGINAL_OFFSET, _ORIGINAL_TIMESTAMP, _SOURCE_PARTITION = "x-original-offset", "x-original-timestamp", \
    "x-source-partition"


def original_headers(offset: int, timestamp: int | None, partition: int) -> list[tuple[str, bytes]]:
    """osodevops/kafka-backup's headers (restore/helpers.rs `inject_offset_headers`): the source offset and
    timestamp as little-endian i64, the source partition as little-endian i32."""
    # Written, not read: header values in osodevops/kafka-backup's own layout (no Kafka structure, no spec).
    stamp = -1 if timestamp is None else timestamp
    return [(_ORIGINAL_OFFSET, offset.to_bytes(8, "little", signed=True)),
            (_ORIGINAL_TIMESTAMP, stamp.to_bytes(8, "little", signed=True)),
            (_SOURCE_PARTITION, partition.to_bytes(4, "little", signed=True))]


@dataclass
class Lane:
    """One source partition on its way to one target partition.

    Records are counted by their place in the partition's committed records. The map is written a run of places
    at a time: the source offsets are kept (in Arrow) from reading to mapping, and the target offsets are
    `start + place` unless a delivery report said otherwise (`moved`).
    """

    source_topic: str
    source_partition: int
    target_topic: str
    target_partition: int
    #: The target's end offset before this restore's first record (state.json).
    start: int
    #: Records of the sequence already delivered (by an earlier run): not produced again.
    skip: int
    #: Rows the map already holds for this partition (a prefix of the sequence).
    mapped: int
    #: Place of the next record read in the partition's committed records.
    place: int = 0
    produced: int = 0
    delivered: int = 0
    #: Delivery reports whose offset was not start + place: another client wrote to the target partition.
    foreign: int = 0
    #: Place of the next delivery report: reports come in produce order, and the first place produced is `skip`.
    reported: int = -1
    #: Place of the first record the target refused (or librdkafka gave up on), and why.
    refused: tuple[int, str] | None = None
    #: Whether that record was given up by librdkafka (a negative error code, e.g. _MSG_TIMED_OUT: the target
    #: was unreachable for message.timeout.ms) rather than refused by the target.
    undelivered: bool = False
    #: The map holds this partition's rows of the places below this one.
    mapped_upto: int = -1
    #: (first place, source offsets) of the runs read and not mapped yet.
    chunks: deque[tuple[int, pa.Array]] = field(default_factory=deque)
    #: place -> target offset, for the delivered records not at start + place.
    moved: dict[int, int] = field(default_factory=dict)
    #: (place, target offset) of the records delivered past the refused one (they were in flight when it was
    #: refused): the target partition misses the refused record before them.
    past_refusal: list[tuple[int, int]] = field(default_factory=list)
    #: Records dropped from librdkafka's queue after a refusal (never sent).
    purged: int = 0
    #: Where a refusal is told (the producing's list).
    refusals: list[Lane] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.reported < 0:
            self.reported = self.skip
        if self.mapped_upto < 0:
            self.mapped_upto = self.mapped

    def report(self, err: Any, msg: Any) -> None:
        """librdkafka's delivery report of this lane's next record produced (called from poll and flush)."""
        if err is not None and err.code() == _PURGE_QUEUE:
            # Dropped from the queue after a refusal: the lane's last records produced, whose reports come at once,
            # before those of the records still in flight. Not counted in the places those take, in order.
            self.purged += 1
            return
        place = self.reported
        self.reported = place + 1
        if err is not None:
            if self.refused is None:
                self.refused = (place, f"{err.name()}: {err.str()}")
                self.undelivered = err.code() < 0
                self.refusals.append(self)
            return
        self.delivered += 1
        offset = msg.offset()
        if self.refused is not None:
            self.past_refusal.append((place, offset))
            return
        if offset != self.start + place:
            self.foreign += 1
            self.moved[place] = offset

    def gap(self) -> Gap | None:
        """The refused record and the records delivered after it anyway, once the delivery reports are in."""
        if self.refused is None or not self.past_refusal:
            return None
        after = [(self.source_offset(place), offset) for place, offset in self.past_refusal]
        return Gap(self.source_topic, self.source_partition, self.target_topic, self.target_partition,
                   self.source_offset(self.refused[0]), [(s, t) for s, t in after if s is not None])

    def source_offset(self, place: int) -> int | None:
        for first, offsets in self.chunks:
            if first <= place < first + len(offsets):
                return int(offsets[place - first].as_py())
        return None

    def map_rows(self, writer: MapWriter) -> None:
        """The rows of the places known delivered and not mapped yet, to the writer.

        A place below `skip` was delivered by an earlier run (read since); a place at or past it once its delivery
        report came. Past a refused record nothing is mapped: the map stays a prefix of the sequence.
        """
        end = min(self.place, self.reported)
        if self.refused is not None:
            end = min(end, self.refused[0])
        pieces = []
        while self.chunks:
            first, offsets = self.chunks[0]
            last = first + len(offsets)
            if last <= self.mapped_upto:
                self.chunks.popleft()
                continue
            lo, hi = max(self.mapped_upto, first), min(end, last)
            if hi <= lo:
                break
            pieces.append(offsets.slice(lo - first, hi - lo))
            if last > end:
                break
            self.chunks.popleft()
        if not pieces:
            return
        begin = self.mapped_upto
        end = begin + sum(len(p) for p in pieces)
        targets = np.arange(self.start + begin, self.start + end, dtype=np.int64)
        for place in [p for p in self.moved if p < end]:
            targets[place - begin] = self.moved.pop(place)
        writer.add(self.source_topic, self.source_partition, pa.concat_arrays(pieces), self.target_topic,
                   self.target_partition, targets)
        self.mapped_upto = end


def offset_ranges(offsets: list[int]) -> str:
    """Offsets as runs, `3-5, 9`, in their order."""
    out: list[str] = []
    first = last = None
    for o in [*offsets, None]:
        if last is not None and o == last + 1:
            last = o
            continue
        if first is not None:
            out.append(str(first) if first == last else f"{first}-{last}")
        first = last = o
    return ", ".join(out)


@dataclass
class Gap:
    """A target partition that misses a refused record before records delivered after it (in flight when it was
    refused): resuming it in place would leave the refused record out for good."""

    source_topic: str
    source_partition: int
    target_topic: str
    target_partition: int
    #: The refused record's source offset (None: not known).
    refused: int | None
    #: (source offset, target offset) of each record delivered after it.
    after: list[tuple[int, int]]

    def describe(self) -> str:
        """Which records are on the target past the refused one, exactly."""
        return (f"{len(self.after)} record(s) after it were delivered anyway (they were in flight): source offsets "
                f"{offset_ranges([s for s, _ in self.after])} at target offsets "
                f"{offset_ranges([t for _, t in self.after])} of {self.target_topic}-{self.target_partition}")

    def to_json(self) -> dict[str, Any]:
        return {"source_topic": self.source_topic, "source_partition": self.source_partition,
                "target_topic": self.target_topic, "target_partition": self.target_partition,
                "refused": self.refused, "after": [list(pair) for pair in self.after]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Gap:
        return cls(str(data["source_topic"]), int(data["source_partition"]), str(data["target_topic"]),
                   int(data["target_partition"]), None if data.get("refused") is None else int(data["refused"]),
                   [(int(s), int(t)) for s, t in data.get("after", [])])


@dataclass
class Refusal:
    lane: Lane
    offset: int | None
    reason: str


class Producing:
    """A producer and its lanes: records in, delivery reports into the map."""

    def __init__(self, config: dict[str, Any], writer: MapWriter, add_headers: bool,
                 progress: CountProgress | None = None):
        from confluent_kafka import Producer

        self.lanes: list[Lane] = []
        self.refusals: list[Lane] = []
        self.writer = writer
        self.add_headers = add_headers
        self.progress = progress
        self._label = ""
        self._flushed_at = time.monotonic()
        self._since_flush = 0
        # Made first, so that the idempotent producer's id is asked for while the topics are prepared.
        #: librdkafka's fatal error (the gapless guarantee's stop at a refused batch), raised out of poll and flush.
        self.fatal: Any = None
        self.producer = Producer(config)

    def _serve(self, timeout: float, flush: bool = False) -> None:
        """Serve the delivery reports (poll, or flush) for up to `timeout`, in calls of at most SERVE_SLICE.

        librdkafka hands its fatal error (the gapless guarantee stopping the producer at a refused batch) to
        confluent-kafka's error callback, which sets it as the call's exception and has librdkafka return from the
        poll right after it. A call of 200 ms or more is served by confluent-kafka in chunks, and goes on to the next
        chunk with that exception still set: the delivery reports it serves then run our callback with an exception
        pending, which breaks it half-way (a report lost, the count of a lane off by one). A shorter call is one
        poll: it returns at the fatal error, raised here, and the reports after it come to the next call intact.
        """
        from confluent_kafka import KafkaException

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            step = max(0.0, min(SERVE_SLICE, left))
            try:
                if flush:
                    self.producer.flush(step)
                else:
                    self.producer.poll(step)
            except (KafkaException, SystemError) as e:
                if not self._fatal(e):
                    raise
                return
            if left <= SERVE_SLICE or (flush and len(self.producer) == 0):
                return

    def lane(self, lane: Lane) -> None:
        lane.refusals = self.refusals
        self.lanes.append(lane)

    @property
    def delivered(self) -> int:
        return sum(lane.delivered for lane in self.lanes)

    @property
    def refusal(self) -> Refusal | None:
        if not self.refusals:
            return None
        lane = self.refusals[0]
        assert lane.refused is not None
        place, reason = lane.refused
        return Refusal(lane, lane.source_offset(place), reason)

    def _map(self) -> None:
        for lane in self.lanes:
            lane.map_rows(self.writer)
        self.writer.flush()
        self._flushed_at = time.monotonic()
        self._since_flush = 0

    def _purge_after_refusal(self) -> None:
        """Once a record is refused, the records still queued (not sent) are dropped: none of them lands after the
        refused one, where a second run would count it delivered in the refused one's place.

        Asked again at every call until the producer is empty: after a fatal error librdkafka sends nothing more, and
        puts the batches that were in flight behind the refused one (refused by the broker as out of sequence) back
        in its queue, where they would otherwise wait for message.timeout.ms.
        """
        if self.stopped:
            self.producer.purge(in_queue=True, in_flight=False, blocking=True)

    def _tick(self, timeout: float = 0.0) -> None:
        self._serve(timeout)
        self._purge_after_refusal()
        if self._since_flush >= FLUSH_ROWS or time.monotonic() - self._flushed_at > FLUSH_SECONDS:
            self._map()
        if self.progress is not None:
            self.progress.update(self.delivered, self._label)

    def send(self, lane: Lane, run: Records) -> None:
        """Produce a run of one source partition's records; those an earlier run delivered are mapped, not
        produced again."""
        first, n = lane.place, len(run)
        lane.chunks.append((first, run.offsets))
        lane.place = first + n
        i = max(0, lane.skip - first)
        if i >= n or self.stopped:
            # Delivered by an earlier run: mapped as the runs go by, so that their offsets are not all kept.
            self._since_flush += n
            if self._since_flush >= FLUSH_ROWS:
                self._map()
            return
        self._label = f"restore {lane.source_topic}-{lane.source_partition}"
        headers = run.headers
        if self.add_headers:
            assert run.source_timestamps is not None
            headers = [[*(h or []), *original_headers(offset, stamp, lane.source_partition)] for h, offset, stamp
                       in zip(headers, run.offsets.to_pylist(), run.source_timestamps, strict=True)]
        produce = self.producer.produce
        topic, partition, report = lane.target_topic, lane.target_partition, lane.report
        keys, values, stamps = run.keys, run.values, run.timestamps
        # The first record of a run to a partition goes alone and is acknowledged before the rest: a broker takes any
        # sequence number from a producer it does not know yet, so were that first batch refused, the batches in
        # flight behind it would land past it. Once one is acknowledged, the broker refuses those out of sequence,
        # and the gapless guarantee (options.FORCED) keeps librdkafka from sending them again.
        alone = not lane.produced
        while i < n:
            stop = i + 1 if alone else min(i + POLL_EVERY, n)
            j = i
            try:
                # (a null header value is Kafka's own: librdkafka takes None, whatever its stubs say)
                for j in range(i, stop):
                    produce(topic, values[j], keys[j], partition, on_delivery=report, timestamp=stamps[j],
                            headers=headers[j])  # type: ignore[arg-type]
                j = stop
            except BufferError:  # librdkafka's queue is full: serve delivery reports, then go on from j
                self._tick(0.05)
            except Exception as e:  # noqa: BLE001  (librdkafka refused the record itself: reported at it)
                lane.produced += j - i
                if self._fatal(e):  # stopped at a record refused before this one: its report says which
                    return
                reason = e.args[0].str() if e.args and hasattr(e.args[0], "str") else str(e)
                lane.refused = (first + j, reason)
                self.refusals.append(lane)
                return
            lane.produced += j - i
            self._since_flush += j - i
            progressed, i = j > i, j
            if alone and progressed:
                alone = False
                self._acknowledged(lane)
            else:
                self._tick()
            if self.stopped:
                return

    def _acknowledged(self, lane: Lane) -> None:
        """Wait for the delivery report of the lane's first record produced."""
        while lane.reported == lane.skip and not lane.purged and not self.stopped:
            self._serve(0.5, flush=True)
        self._tick()

    @property
    def stopped(self) -> bool:
        """A record was refused, or the producer was stopped by a fatal error: nothing more is produced."""
        return bool(self.refusals) or self.fatal is not None

    def _fatal(self, e: BaseException) -> bool:
        """Whether `e` is (or was caused by) librdkafka's fatal error; kept as the producer's.

        produce() answers a producer already stopped with `_FATAL` (not marked fatal, and without the cause): kept
        until the fatal error itself, with its cause, comes out of the next poll.
        """
        from confluent_kafka import KafkaException

        cause = e if isinstance(e, KafkaException) else e.__cause__
        if not isinstance(cause, KafkaException) or not cause.args or not hasattr(cause.args[0], "fatal"):
            return False
        error = cause.args[0]
        if error.fatal():
            if self.fatal is None or self.fatal.code() == _FATAL:
                self.fatal = error
            return True
        if error.code() == _FATAL:
            if self.fatal is None:
                self.fatal = error
            return True
        return False

    def finish(self) -> None:
        """Wait for every delivery report, then write the map's last part."""
        while len(self.producer) > 0:
            self._purge_after_refusal()
            self._serve(0.5, flush=True)
            if self.progress is not None:
                self.progress.update(self.delivered, self._label, force=True)
        self._map()

    def raise_refusal(self, restored: int) -> None:
        r = self.refusal
        if r is None:
            if self.fatal is not None:
                raise TargetRefusedError(f"the producer stopped: {self.fatal.str()}. Restored before it: {restored} "
                                         f"record(s), in the offset map {self.writer.directory}")
            return
        where = f"offset {r.offset}" if r.offset is not None else "record"
        what = "was not delivered" if r.lane.undelivered else "the target refused it"
        again = "; the same command run again goes on from there" if r.lane.undelivered else ""
        gap = r.lane.gap()
        if gap is not None:
            again = (f"; {gap.describe()}: the target partition misses this one before them, and this offset map "
                     f"will not resume it; {RESTORE_ELSEWHERE.format(topic=r.lane.source_topic)}")
        raise TargetRefusedError(
            f"source {r.lane.source_topic}-{r.lane.source_partition} {where}: {what} "
            f"(to {r.lane.target_topic}-{r.lane.target_partition}): {r.reason}. Restored before it: "
            f"{restored} record(s), in the offset map {self.writer.directory}{again}")
