"""The topics a restore writes to: each source topic's partition count and configs, and the target's topics
checked (fewer partitions is an error, before anything is written) or created.

Configs come from the source's metadata log (`__cluster_metadata-0`: its latest KRaft snapshot, then the log after
it), replayed by `kafkalog.cluster.metadata` as Kafka's MetadataImage replays it. Without a metadata log (ZooKeeper
clusters keep configs in ZooKeeper, and a partition directory alone has none) a topic gets the partitions seen in the
files and the target's defaults.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from kafkalog.cluster.metadata import METADATA_DIR, MetadataFile, read_metadata
from kafkalog.dataset import fs
from kafkalog.errors import TargetRefusedError
from kafkalog.location import Location
from kafkalog.restore.options import SCHEMAS_TOPIC

#: Topic configs not carried: they need the target's brokers set up for them (tiered storage), name the source's
#: brokers (replication throttles) or were removed in Kafka 4.0 (a 4.x target refuses them).
NOT_CARRIED = frozenset({
    "remote.storage.enable", "local.retention.ms", "local.retention.bytes", "remote.log.copy.disable",
    "remote.log.delete.on.disable", "leader.replication.throttled.replicas",
    "follower.replication.throttled.replicas", "message.format.version", "message.downconversion.enable",
})


@dataclass
class SourceTopic:
    """A source topic as the target should have it."""

    name: str
    partitions: int
    configs: dict[str, str] = field(default_factory=dict)
    #: The configs the metadata log held that are not carried (NOT_CARRIED).
    dropped: dict[str, str] = field(default_factory=dict)
    from_metadata: bool = False


def metadata_dirs(sources: list[str]) -> list[str]:
    """The `__cluster_metadata-0` directories of the sources (a log directory holding one, or it named), local
    or behind a URI (file://, s3://...), as locations; globs expanded as the reader expands them."""
    found = []
    for s in sources:
        for entry in fs.expand(s):
            if not entry.is_dir:
                continue
            if entry.name == METADATA_DIR:
                found.append(entry.location)
                continue
            inside = fs.info(entry.location.rstrip("/") + "/" + METADATA_DIR)
            if inside is not None and inside.is_dir:
                found.append(inside.location)
    return found


def metadata_topics(directory: str) -> dict[str, SourceTopic]:
    """The topics the metadata log at `directory` (a path or a URI) describes, as `kafkalog.cluster.metadata`
    replays it (its latest snapshot that reads, then the records after it)."""
    if Location(directory).is_uri:
        files = [MetadataFile(f.name, f.location, functools.partial(fs.open_object, f.location))
                 for f in fs.listdir(directory) if not f.is_dir]
        md = read_metadata(directory, files)
    else:
        md = read_metadata(directory)
    partitions: dict[str, int] = {}
    for topic_id, _ in md.partitions:
        name = md.topics.get(topic_id)
        if name is not None:
            partitions[name] = partitions.get(name, 0) + 1
    out = {}
    for name in md.topics.values():
        configs = md.topic_configs.get(name, {})
        out[name] = SourceTopic(name, partitions.get(name, 0),
                                {k: v for k, v in configs.items() if k not in NOT_CARRIED},
                                {k: v for k, v in configs.items() if k in NOT_CARRIED}, True)
    return out


def source_topics(sources: list[str], seen: dict[str, set[int]]) -> dict[str, SourceTopic]:
    """Each topic to restore with its partition count (the metadata's, or past the highest seen) and configs."""
    described: dict[str, SourceTopic] = {}
    for d in metadata_dirs(sources):
        described.update(metadata_topics(d))
    out = {}
    for topic, partitions in seen.items():
        meta = described.get(topic)
        count = max(max(partitions) + 1, meta.partitions if meta else 0)
        out[topic] = (SourceTopic(topic, count, dict(meta.configs), dict(meta.dropped), True) if meta
                      else SourceTopic(topic, count))
        if topic == SCHEMAS_TOPIC:
            # A registry refuses to start on a `_schemas` that is not compacted (Confluent's KafkaStore
            # `verifySchemaTopic`: "Expected cleanup.policy to be 'compact'"); without a metadata log saying how
            # it was, it is created compacted, as the registry would have created it.
            out[topic].configs.setdefault("cleanup.policy", "compact")
    return out


def prepare_targets(admin: Any, wanted: dict[str, SourceTopic], timeout: float = 60.0) -> list[str]:
    """Check the target's topics and create the missing ones (target name -> source topic); the names created.

    Raises `TargetRefusedError` when a topic exists with fewer partitions, or the target refuses to describe or
    create one, before any record is written.
    """
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import NewTopic

    try:
        metadata = admin.list_topics(timeout=timeout)
    except KafkaException as e:
        raise TargetRefusedError(f"the target cluster: cannot list its topics: {_reason(e)}") from None
    missing = []
    for target, topic in wanted.items():
        existing = metadata.topics.get(target)
        if existing is not None and existing.error is None:
            if len(existing.partitions) < topic.partitions:
                raise TargetRefusedError(
                    f"target topic {target} has {len(existing.partitions)} partition(s); the source topic "
                    f"{topic.name} has {topic.partitions}: nothing written (add partitions, or map it elsewhere "
                    "with --topic-map)")
            continue
        if existing is not None and existing.error is not None and existing.error.code() not in (3,):
            raise TargetRefusedError(f"target topic {target}: {existing.error.str()}")
        missing.append(NewTopic(target, num_partitions=topic.partitions, config=dict(topic.configs)))
    if not missing:
        return []
    futures = admin.create_topics(missing, operation_timeout=timeout, request_timeout=timeout)
    created = []
    for name, future in futures.items():
        try:
            future.result()
            created.append(name)
        except KafkaException as e:
            if e.args[0].code() == 36:  # TOPIC_ALREADY_EXISTS: another client (or a retry) made it
                continue
            raise TargetRefusedError(f"target topic {name}: cannot create it with "
                                     f"{wanted[name].partitions} partition(s) and configs "
                                     f"{wanted[name].configs}: {_reason(e)}") from None
    return sorted(created)


def _reason(e: Exception) -> str:
    err = e.args[0] if e.args else e
    return err.str() if hasattr(err, "str") else str(err)
