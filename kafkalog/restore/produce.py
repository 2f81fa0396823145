"""Producing a topic's records with confluent-kafka (librdkafka), idempotent, each to its source partition, and
turning the delivery reports into the offset map.

Each source partition is a `Lane`: its records go in offset order to the same partition of the target topic. The
delivery reports of a partition come back in produce order, so a lane matches them to its source offsets first in,
first out. The first refused record stops the restore: the records produced before it are still flushed, their
reports written to the map, and a `TargetRefusedError` names the refused record's source topic, partition and
offset.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from kafkalog.errors import TargetRefusedError
from kafkalog.progress import CountProgress
from kafkalog.restore.offset_map import MapWriter
from kafkalog.restore.source import Records

#: Seconds between map parts written while producing (besides every FLUSH_ROWS rows).
FLUSH_SECONDS = 2.0
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
    """One source partition on its way to one target partition."""

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
    pending: deque[tuple[int, int]] = field(default_factory=deque)  # (place, source offset)
    produced: int = 0
    delivered: int = 0
    #: Delivery reports whose offset was not start + place: another client wrote to the target partition.
    foreign: int = 0


@dataclass
class Refusal:
    lane: Lane
    offset: int
    reason: str


class Producing:
    """A producer and its lanes: records in, delivery reports into the map."""

    def __init__(self, config: dict[str, Any], writer: MapWriter, add_headers: bool,
                 progress: CountProgress | None = None):
        from confluent_kafka import Producer

        self.lanes: dict[tuple[str, int], Lane] = {}
        self.writer = writer
        self.add_headers = add_headers
        self.refusal: Refusal | None = None
        self.progress = progress
        self.delivered = 0
        self._label = ""
        self._flushed_at = time.monotonic()
        self.producer = Producer({**config, "on_delivery": self._report})

    def lane(self, lane: Lane) -> None:
        self.lanes[(lane.target_topic, lane.target_partition)] = lane

    def _report(self, err: Any, msg: Any) -> None:
        lane = self.lanes[(msg.topic(), msg.partition())]
        place, offset = lane.pending.popleft()
        if err is not None:
            if self.refusal is None:
                self.refusal = Refusal(lane, offset, f"{err.name()}: {err.str()}")
            return
        target_offset = msg.offset()
        if target_offset != lane.start + place:
            lane.foreign += 1
        lane.delivered += 1
        self.delivered += 1
        self.writer.add(lane.source_topic, lane.source_partition, offset, lane.target_topic, lane.target_partition,
                        target_offset)

    def _tick(self, timeout: float = 0.0) -> None:
        self.producer.poll(timeout)
        now = time.monotonic()
        if self.writer.pending >= 200_000 or now - self._flushed_at > FLUSH_SECONDS:
            self.writer.flush()
            self._flushed_at = now
        if self.progress is not None:
            self.progress.update(self.delivered, self._label)

    def send(self, lanes: dict[int, Lane], records: Records) -> None:
        """Produce a batch of one source topic's records; those already delivered are mapped, not produced."""
        produce = self.producer.produce
        for i, partition in enumerate(records.partitions):
            if self.refusal is not None:
                return
            lane = lanes[partition]
            place = lane.place
            lane.place += 1
            offset = records.offsets[i]
            if place < lane.skip:
                if place >= lane.mapped:  # delivered by an earlier run that did not live to write its report
                    self.writer.add(lane.source_topic, lane.source_partition, offset, lane.target_topic,
                                    lane.target_partition, lane.start + place)
                continue
            self._label = f"restore {lane.source_topic}-{partition}"
            headers = records.headers[i]
            if self.add_headers:
                headers = [*(headers or []), *original_headers(offset, records.timestamps[i], partition)]
            # LogAppendTime records (and those without a timestamp) take the target's time: 0 is librdkafka's "now".
            given = records.timestamps[i]
            stamp = 0 if records.log_append_time[i] or given is None else given
            # (a null header value is Kafka's own: librdkafka takes None, whatever its stubs say)
            while True:
                try:
                    lane.pending.append((place, offset))
                    produce(lane.target_topic, value=records.values[i], key=records.keys[i],
                            partition=lane.target_partition, timestamp=stamp,
                            headers=headers or None)  # type: ignore[arg-type]
                    lane.produced += 1
                    break
                except BufferError:  # librdkafka's queue is full: serve delivery reports, then try again
                    lane.pending.pop()
                    self._tick(0.05)
                except Exception as e:  # noqa: BLE001  (librdkafka refused the record itself: reported at it)
                    lane.pending.pop()
                    reason = e.args[0].str() if e.args and hasattr(e.args[0], "str") else str(e)
                    self.refusal = Refusal(lane, offset, reason)
                    return
        self._tick()

    def finish(self) -> None:
        """Wait for every delivery report, then write the map's last part."""
        while len(self.producer) > 0:
            self.producer.flush(1.0)
            if self.progress is not None:
                self.progress.update(self.delivered, self._label, force=True)
        self.writer.flush()

    def raise_refusal(self, restored: int) -> None:
        if self.refusal is None:
            return
        r = self.refusal
        raise TargetRefusedError(
            f"source {r.lane.source_topic}-{r.lane.source_partition} offset {r.offset}: the target refused it "
            f"(to {r.lane.target_topic}-{r.lane.target_partition}): {r.reason}. Restored before it: "
            f"{restored} record(s), in the offset map {self.writer.directory}")
