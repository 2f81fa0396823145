"""Consumer groups: each group's last committed offsets from the source's `__consumer_offsets`, translated through
the offset map and committed to the target with the AdminClient (`alter_consumer_group_offsets`).

Both group protocols commit offsets as OffsetCommitKey records (key versions 0 and 1); a classic group's metadata is
a GroupMetadataKey record, a consumer group's (KIP-848) a ConsumerGroupMetadataKey record. The last record of a key
wins, as the coordinator loads them. A tombstone (null value) deletes an offset, and a group's metadata tombstone
deletes the group (Kafka writes both when a group is deleted): neither is restored. Transactional offset commits
count only once committed (read as read_committed).

A committed offset N is "the next record to read": it maps to the target offset of the first restored record at
or after N; past the last restored record, to the target partition's end.
"""
from __future__ import annotations

import bisect
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkalog.dataset.reader import plan_read, read_arrow
from kafkalog.errors import TargetRefusedError
from kafkalog.restore.offset_map import read_map

OFFSETS_TOPIC = "__consumer_offsets"
GROUP_METADATA_KEYS = {"GroupMetadataKey", "ConsumerGroupMetadataKey"}


@dataclass(frozen=True)
class Committed:
    """A group's committed offset for one source partition."""

    group: str
    topic: str
    partition: int
    offset: int
    metadata: str | None = None


def committed_offsets(sources: list[str], read_options: dict[str, str],
                      threads: int | None = None) -> list[Committed]:
    """The last committed offsets of every live group in the sources' `__consumer_offsets` partitions."""
    options = {k: v for k, v in read_options.items() if k in ("remoteRoot", "remotePrivateKey")}
    options.update({"subscribe": OFFSETS_TOPIC, "decode": "true", "isolation.level": "read_committed"})
    if not plan_read(sources, options).ranges:
        return []
    reader = read_arrow(sources, threads=threads, **options)
    offsets: dict[tuple[str, str, int], Committed] = {}
    for batch in reader:
        for key_text, value_text in zip(batch.column("key_decoded").to_pylist(),
                                        batch.column("value_decoded").to_pylist(), strict=True):
            if key_text is None:
                continue
            key = json.loads(key_text)
            kind, data = key.get("type"), key.get("data") or {}
            if kind == "OffsetCommitKey":
                slot = (data["group"], data["topic"], int(data["partition"]))
                if value_text is None:
                    offsets.pop(slot, None)
                    continue
                value = json.loads(value_text).get("data") or {}
                offsets[slot] = Committed(*slot, int(value["offset"]), value.get("metadata"))
            elif kind in GROUP_METADATA_KEYS and value_text is None:
                group = data.get("group", data.get("groupId"))
                for slot in [s for s in offsets if s[0] == group]:
                    del offsets[slot]
    return sorted(offsets.values(), key=lambda c: (c.group, c.topic, c.partition))


@dataclass(frozen=True)
class Translated:
    group: str
    target_topic: str
    target_partition: int
    target_offset: int
    source: Committed


def translate(committed: list[Committed], map_dir: Path, topic_map: dict[str, str],
              ends: dict[tuple[str, int], int]) -> tuple[list[Translated], list[Committed]]:
    """Each committed offset through the map; those of partitions not restored come back as the second list."""
    out, skipped = [], []
    cache: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for c in committed:
        target_topic = topic_map.get(c.topic, c.topic)
        end = ends.get((target_topic, c.partition))
        if end is None:
            skipped.append(c)
            continue
        if (c.topic, c.partition) not in cache:
            rows = read_map(map_dir, c.topic, c.partition)
            cache[(c.topic, c.partition)] = (rows.column("source_offset").to_pylist(),
                                             rows.column("target_offset").to_pylist())
        sources, targets = cache[(c.topic, c.partition)]
        i = bisect.bisect_left(sources, c.offset)
        out.append(Translated(c.group, target_topic, c.partition, targets[i] if i < len(targets) else end, c))
    return out, skipped


def commit(admin: Any, translated: list[Translated], timeout: float = 60.0) -> dict[str, int]:
    """Commit each group's translated offsets on the target; partitions committed by group."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    by_group: dict[str, list[Translated]] = {}
    for t in translated:
        by_group.setdefault(t.group, []).append(t)
    done = {}
    for group, items in sorted(by_group.items()):
        partitions = [TopicPartition(t.target_topic, t.target_partition, t.target_offset, metadata=t.source.metadata)
                      if t.source.metadata else TopicPartition(t.target_topic, t.target_partition, t.target_offset)
                      for t in items]
        deadline = time.monotonic() + timeout
        while True:
            # A target just started, or whose __consumer_offsets was just created, answers "coordinator load in
            # progress" (or "not coordinator") for a while: retriable, asked again until `timeout`.
            futures = admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group, partitions)],
                                                         request_timeout=timeout)
            try:
                result = futures[group].result()
                errors = [tp for tp in result.topic_partitions if tp.error is not None]
            except KafkaException as e:
                err = e.args[0]
                if (err.retriable() or err.code() in (14, 15, 16)) and time.monotonic() < deadline:
                    time.sleep(0.5)
                    continue
                raise TargetRefusedError(f"consumer group {group}: the target refused its offsets: "
                                         f"{err.str() if hasattr(err, 'str') else err}") from None
            if errors and all(tp.error.retriable() or tp.error.code() in (14, 15, 16) for tp in errors) \
                    and time.monotonic() < deadline:
                time.sleep(0.5)
                continue
            for tp in errors:
                raise TargetRefusedError(f"consumer group {group}: {tp.topic}-{tp.partition}: the target refused "
                                         f"offset {tp.offset}: {tp.error.str()}")
            break
        done[group] = len(partitions)
    return done
