"""What a restore is asked to do: `RestoreOptions`, and the producer's configuration as librdkafka's tools take it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kafkalog.errors import UsageError

#: Kafka's internal topics: never produced as records (groups come from __consumer_offsets, translated).
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__cluster_metadata",
                             "__remote_log_metadata", "__share_group_state"})
#: A schema registry's topic: restored first, as it is, so that the schema ids in values stay valid.
SCHEMAS_TOPIC = "_schemas"

#: The producer's defaults (each overridden by -X or the properties file, except idempotence, which a
#: restore needs: it keeps each partition's order through retries without duplicates).
PRODUCER_DEFAULTS = {
    "linger.ms": "20",
    "batch.num.messages": "10000",
    "batch.size": "1000000",
    "queue.buffering.max.messages": "500000",
    "queue.buffering.max.kbytes": "1048576",
    # Large records are the target's to refuse (max.message.bytes), at the record, not librdkafka's 1 MB default.
    "message.max.bytes": "100000000",
}
#: What a restore needs of its producer: idempotence keeps each partition's order through retries without
#: duplicates; the gapless guarantee (librdkafka's, for idempotent producers) stops the producer at a refused batch
#: rather than letting the batches in flight behind it be sent again past it (librdkafka would otherwise bump the
#: epoch and deliver them: the refused record missing before them on the target).
FORCED = {"enable.idempotence": "true", "acks": "all", "enable.gapless.guarantee": "true"}


@dataclass(frozen=True)
class RestoreOptions:
    """One restore: what to read, where to produce it and where its offset map lives."""

    #: Log directories, partition directories, tiered roots' local sides, URIs, or Parquet from `kafkalog ingest`.
    sources: list[str]
    #: The target cluster, as `bootstrap.servers`.
    bootstrap_server: str
    #: The offset map's directory: Parquet parts and the state a second run resumes from.
    offset_map: Path
    #: librdkafka properties for the producer and the admin client (-X, properties files).
    config: dict[str, str] = field(default_factory=dict)
    #: source topic -> target topic (--topic-map); topics not named keep their name.
    topic_map: dict[str, str] = field(default_factory=dict)
    #: The reader's options (`kafkalog.read_arrow`'s), e.g. subscribe, remoteRoot, startingOffsets.
    read_options: dict[str, str] = field(default_factory=dict)
    #: Add osodevops/kafka-backup's x-original-offset, x-original-timestamp and x-source-partition headers.
    original_headers: bool = False
    #: Commit the consumer groups of the source's __consumer_offsets, translated through the map.
    groups: bool = True
    threads: int | None = None

    def target_topic(self, topic: str) -> str:
        return self.topic_map.get(topic, topic)


def producer_settings(bootstrap_server: str, config: dict[str, str]) -> dict[str, str]:
    """The producer's configuration: the defaults, the user's properties over them, then what a restore needs."""
    return {**PRODUCER_DEFAULTS, **config, "bootstrap.servers": bootstrap_server, **FORCED}


def parse_pairs(pairs: Sequence[str], what: str) -> dict[str, str]:
    """KEY=VALUE arguments as a dict (the last one of a key wins)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{what} expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def read_properties(path: str) -> dict[str, str]:
    """A Java-style properties file as librdkafka's tools read one (`-F`): `key=value` lines, `#` comments."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{path}: cannot read the properties file: {e.strerror or e}") from None
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        key, sep, value = line.partition("=")
        if not sep:
            key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise UsageError(f"{path}: line {number}: expected key=value, got {line!r}")
        out[key.strip()] = value.strip()
    return out


def producer_config(files: Sequence[str], pairs: Sequence[str]) -> dict[str, str]:
    """The client configuration: the properties files in order, then -X pairs (the last wins)."""
    config: dict[str, str] = {}
    for f in files:
        config.update(read_properties(f))
    config.update(parse_pairs(pairs, "-X"))
    for key, value in FORCED.items():
        if key in config and config[key].lower() != value:
            raise UsageError(f"-X {key}={config[key]}: a restore needs {key}={value} (ordered, no duplicates, no gaps)")
    return config


def topic_map(pairs: Sequence[str]) -> dict[str, str]:
    """--topic-map SRC=DST pairs; two sources into one target are refused (their offsets would interleave)."""
    mapped = parse_pairs(pairs, "--topic-map")
    seen: dict[str, str] = {}
    for src, dst in mapped.items():
        if not dst:
            raise UsageError(f"--topic-map {src}=: the target topic is empty")
        if dst in seen:
            raise UsageError(f"--topic-map: {seen[dst]} and {src} both go to {dst}")
        seen[dst] = src
    return mapped
