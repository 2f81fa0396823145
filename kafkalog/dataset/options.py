"""Reader options: names, defaults and validation (option names are case-insensitive, as in Spark).

The names and meanings follow Spark's Kafka source (`connector/kafka-0-10-sql`,
`KafkaSourceProvider.scala`) so that a job written for ``format("kafka")`` runs
on ``format("kafkalog")``; kafkalog's own options come after them. Offsets are
resolved per topic-partition by `kafkalog.dataset.offsets` at planning time.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kafkalog.errors import UsageError


class DamageMode(StrEnum):
    """What a read does with damaged data, as Spark's file sources' `mode` (the one home of the three)."""

    #: Each damage a row of its own (only `segment`, `batch_position` and `damage` set); what decodes is kept.
    PERMISSIVE = "PERMISSIVE"
    #: Damaged batches left out.
    DROPMALFORMED = "DROPMALFORMED"
    #: The first damage raised, as a `DamagedDataError` naming the file and byte position.
    FAILFAST = "FAILFAST"


READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"
DEFAULT_MAX_PARTITION_BYTES = 128 * 1024 * 1024
DEFAULT_ROWS_PER_BATCH = 10_000
#: Kafka's special offsets in startingOffsets/endingOffsets JSON (KafkaOffsetRangeLimit.scala).
EARLIEST, LATEST = -2, -1

#: option name (as documented) -> one-line description, for the docs and error messages
OPTIONS = {
    # Spark's Kafka source
    "subscribe": "comma-separated topics to read (default: every topic under the path)",
    "subscribePattern": "regular expression: read the topics whose whole name matches",
    "assign": 'JSON {"topic":[0,1]}: read only these topic-partitions',
    "startingOffsets": 'earliest (default), or JSON {"topic":{"0":23,"1":-2}} (-2 earliest); '
                       'a plain number for every partition',
    "endingOffsets": 'latest (default), or JSON {"topic":{"0":50,"1":-1}} (-1 latest), exclusive; '
                     'a plain number for every partition',
    "startingTimestamp": "ms: start each partition at the first offset whose timestamp >= this "
                         "(Kafka's offsetsForTimes)",
    "endingTimestamp": "ms: end each partition before the first offset whose timestamp >= this",
    "startingOffsetsByTimestamp": 'JSON {"topic":{"0":ms}}: startingTimestamp per partition',
    "endingOffsetsByTimestamp": 'JSON {"topic":{"0":ms}}: endingTimestamp per partition',
    "startingOffsetsByTimestampStrategy": "error (default) or latest: when no offset matches a starting timestamp",
    "includeHeaders": "true/false (default false): add the `headers` column",
    "failOnDataLoss": "true (default): damage, or offsets no longer in the files, fail the query; "
                      "false: skipped with a warning",
    "minPartitions": "split segments at index positions until there are at least this many tasks",
    "maxOffsetsPerTrigger": "streaming: at most this many offsets per micro-batch, shared over partitions by lag",
    "kafka.isolation.level": "read_uncommitted (default) or read_committed, as isolation.level",
    # kafkalog's own
    "isolation.level": "read_uncommitted (default) or read_committed: drop records of aborted transactions",
    "includeKafkalogColumns": "true/false (default false): add kafkalog's columns "
                              "(magic, producer fields, segment, ...)",
    "includeControlRecords": "true/false (default false): also return control records "
                             "(transaction markers, KRaft records)",
    "validateChecksums": "true (default) / false: a batch whose CRC does not match is damage",
    "mode": "PERMISSIVE, DROPMALFORMED or FAILFAST: overrides failOnDataLoss; PERMISSIVE gives damage rows",
    "maxPartitionBytes": "split segments larger than this into byte ranges (default 134217728 = 128 MiB)",
    "rowsPerBatch": "rows per Arrow batch handed to Spark (default 10000)",
    "decode": "true/false (default false): add key_decoded and value_decoded, internal-topic records as JSON",
    "remoteRoot": "a tiered-storage root (Kafka's LocalTieredStorage dir or Aiven's bucket, a path or URI): "
                  "its remote segments are read before the local ones of the same partitions, each segment once",
    "remotePrivateKey": "[ID=]PEM file(s), comma-separated: the RSA private key(s) that unwrap the data keys of "
                        "encrypted Aiven remote segments",
    "valueFormat": "registry: add value_decoded (JSON text), value_schema (id, subject, version, format) "
                   "and value_error, values framed for a schema registry decoded with the schemas of the "
                   "`_schemas` topic",
    "keyFormat": "registry: the same for keys (key_decoded, key_schema, key_error)",
    "valueSubject": "SUBJECT: add value_typed, typed from that subject's latest Avro or Protobuf schema "
                    "(as spark-avro and spark-protobuf type them); values written with older versions are read "
                    "through Avro's schema resolution",
    "keySubject": "SUBJECT: the same for keys (key_typed)",
    "schemaRegistry": "where the schemas come from: a `_schemas` partition directory, a log directory holding one, a "
                      "registry's GET /schemas?deleted=true answer saved as JSON, a Karapace v1 backup, "
                      "or a directory of <id>.avsc/.proto/.json files "
                      "(default: the `_schemas-0` of the log directory read)",
    "includeBelowLogStart": "true/false (default false): also return the records below a partition's log start offset "
                           "(deleted by deleteRecords or retention but still on disk), marked true in the "
                           "`below_log_start` column; startingOffsets earliest is then the first offset on disk",
    "readPastOpenTransactions": "true/false (default false): with read_committed, read past the last stable offset: "
                                "the records of transactions still open are dropped and those after them returned",
    "readReplicas": "true/false (default false): given several brokers' log directories of one cluster, read "
                    "every replica's log as its broker loads it, each row marked with its broker (the `broker` "
                    "column: the node id of the disk it was read from), instead of each partition once, as the "
                    "cluster restarted on those disks would serve it; the partition directories Kafka renamed "
                    "(-delete, -future, -stray) too, for salvage, marked in the `renamed` column",
    "validateJsonSchema": "true/false (default false): check JSON Schema values against their schema; a mismatch is "
                          "their value_error",
}

#: Options of Spark's Kafka source that only tune a consumer talking to a broker: accepted, no effect.
IGNORED = ["kafka.*", "groupIdPrefix", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
           "fetchOffset.retryIntervalMs", "maxRecordsPerPartition", "minOffsetsPerTrigger", "maxTriggerDelay"]
_IGNORED = {name.lower() for name in IGNORED if not name.endswith("*")}

@dataclass(frozen=True)
class Earliest:
    """startingOffsets=earliest: each partition from its first offset."""


@dataclass(frozen=True)
class Latest:
    """endingOffsets=latest (or a stream's startingOffsets=latest): each partition to its last offset."""


@dataclass(frozen=True)
class EveryPartition:
    """A plain number: the same offset (or timestamp, ms) for every partition."""

    value: int


@dataclass(frozen=True)
class ByPartition:
    """Kafka's JSON form {"topicA":{"0":23,"1":-1}}: a value for each partition named (-2 earliest, -1 latest)."""

    values: dict[str, dict[int, int]]


#: Where a read starts or ends: startingOffsets, endingOffsets.
OffsetLimit = Earliest | Latest | EveryPartition | ByPartition
#: startingTimestamp (every partition) or startingOffsetsByTimestamp (by partition), and the ending ones.
TimestampLimit = EveryPartition | ByPartition


def partition_value(limit: OffsetLimit | None, topic: str | None, partition: int | None) -> int | None:
    """A partition's number in `limit`; None for earliest, latest, no limit or a partition not named."""
    if isinstance(limit, EveryPartition):
        return limit.value
    if isinstance(limit, ByPartition):
        return limit.values.get(topic, {}).get(partition) if topic is not None and partition is not None else None
    return None


@dataclass(frozen=True)
class ReadOptions:
    include_control_records: bool = False
    isolation_level: str = READ_UNCOMMITTED
    topics: frozenset[str] | None = None
    topic_pattern: str | None = None
    assign: frozenset[tuple[str, int]] | None = None
    starting_offsets: OffsetLimit = Earliest()
    ending_offsets: OffsetLimit = Latest()
    #: The timestamp options, ms; they take precedence over the offsets.
    starting_timestamps: TimestampLimit | None = None
    ending_timestamps: TimestampLimit | None = None
    starting_timestamp_strategy: str = "error"
    include_headers: bool = False
    include_kafkalog_columns: bool = False
    #: Offsets asked for that are no longer in the files: a `DataLossError`, or a warning when false.
    fail_on_data_loss: bool = True
    #: `mode` when given, else FAILFAST, or DROPMALFORMED with failOnDataLoss=false.
    mode: DamageMode = DamageMode.FAILFAST
    #: failOnDataLoss=false without `mode`: each damaged batch dropped is logged as a warning.
    warn_dropped: bool = False
    min_partitions: int | None = None
    max_offsets_per_trigger: int | None = None
    validate_checksums: bool = True
    max_partition_bytes: int = DEFAULT_MAX_PARTITION_BYTES
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH
    decode: bool = False  # internal topics (kafkalog.dataset.internal_topics)
    remote_root: str | None = None
    remote_private_key: str | None = None  # kafkalog.remote.aiven_keys: loaded where ranges are read
    # Schema-registry values (kafkalog.dataset.registry_values)
    key_format: str | None = None
    value_format: str | None = None
    key_subject: str | None = None
    value_subject: str | None = None
    schema_registry: str | None = None
    validate_json_schema: bool = False
    #: Records below a partition's log start offset returned too, marked (kafkalog.log.served_log).
    include_below_log_start: bool = False
    #: read_committed: past the last stable offset, open transactions' records dropped.
    read_past_open_transactions: bool = False
    #: Several brokers' disks: every replica read, not each partition once as the cluster serves it (dataset.cluster).
    read_replicas: bool = False

    @property
    def registry(self) -> bool:
        """Whether the read decodes registry-framed keys or values."""
        return bool(self.key_format or self.value_format or self.key_subject or self.value_subject)

    @property
    def read_committed(self) -> bool:
        return self.isolation_level == READ_COMMITTED

    @property
    def kafkalog_columns(self) -> bool:
        # Damage rows are only readable with the `damage` column.
        return self.include_kafkalog_columns or self.mode is DamageMode.PERMISSIVE

    def wants(self, topic: str | None, partition: int | None) -> bool:
        """Whether subscribe / subscribePattern / assign select this topic-partition."""
        if self.topics is not None and topic not in self.topics:
            return False
        if self.topic_pattern is not None and (topic is None or not re.fullmatch(self.topic_pattern, topic)):
            return False
        return not (self.assign is not None and (topic, partition) not in self.assign)


def _bool(name: str, value: str) -> bool:
    v = str(value).strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    raise UsageError(f"option {name}: expected true or false, got {value!r}")


def _int(name: str, value: str, minimum: int | None = None) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise UsageError(f"option {name}: expected an integer, got {value!r}") from None
    if minimum is not None and n < minimum:
        raise UsageError(f"option {name}: must be at least {minimum}, got {n}")
    return n


def _per_partition_json(name: str, value: str) -> dict[str, dict[int, int]]:
    """Kafka's JSON form {"topicA":{"0":23,"1":-1}} (JsonUtils.partitionOffsets)."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not all(isinstance(v, dict) for v in parsed.values()):
        raise UsageError(f'option {name}: expected JSON like {{"topicA":{{"0":23,"1":-1}}}}, got {value!r}')
    out: dict[str, dict[int, int]] = {}
    for topic, parts in parsed.items():
        for p, n in parts.items():
            if not isinstance(n, int) or isinstance(n, bool):
                raise UsageError(f"option {name}: {topic}/{p}: expected an integer, got {n!r}")
            out.setdefault(topic, {})[_int(f"{name} partition of {topic}", p, minimum=0)] = n
    return out


def _offsets(name: str, value: str, default: OffsetLimit) -> OffsetLimit:
    v = str(value).strip()
    if v.lower() == "earliest":
        return Earliest()
    if v.lower() == "latest":
        return Latest()
    if re.fullmatch(r"-?\d+", v):
        return EveryPartition(int(v))
    per_partition = _per_partition_json(name, v)
    return ByPartition(per_partition) if per_partition else default


def _timestamps(name: str, value: str, per_partition: bool) -> TimestampLimit:
    if per_partition:
        return ByPartition(_per_partition_json(name, value))
    return EveryPartition(_int(name, value))


def parse_options(options: Mapping[str, str], *, streaming: bool = False) -> ReadOptions:
    """Validate Spark reader options; unknown names are an error (a typo would silently read everything)."""
    known = {name.lower(): name for name in OPTIONS}
    given: dict[str, str] = {}
    for key, value in options.items():
        low = key.lower()
        if low in ("path", "paths") or low in _IGNORED or (low.startswith("kafka.") and low != "kafka.isolation.level"):
            continue
        if low not in known:
            raise UsageError(f"unknown option {key!r}; kafkalog reads: {', '.join(OPTIONS)} "
                             f"(and accepts, without effect: {', '.join(IGNORED)})")
        given[known[low]] = value
    kw: dict[str, Any] = {}  # ReadOptions' fields by name, each checked as it is parsed
    for name, attr in (("includeControlRecords", "include_control_records"), ("includeHeaders", "include_headers"),
                       ("includeKafkalogColumns", "include_kafkalog_columns"), ("failOnDataLoss", "fail_on_data_loss"),
                       ("validateChecksums", "validate_checksums"),
                       ("includeBelowLogStart", "include_below_log_start"),
                       ("readPastOpenTransactions", "read_past_open_transactions"),
                       ("readReplicas", "read_replicas")):
        if name in given:
            kw[attr] = _bool(name, given[name])
    levels = {given[n] for n in ("isolation.level", "kafka.isolation.level") if n in given}
    if levels:
        level = {str(v).strip().lower() for v in levels}
        if len(level) > 1 or next(iter(level)) not in (READ_UNCOMMITTED, READ_COMMITTED):
            raise UsageError("option isolation.level: expected read_uncommitted or read_committed, "
                             f"got {sorted(levels)}")
        kw["isolation_level"] = level.pop()
    _topic_options(given, kw)
    _offset_options(given, kw, streaming)
    if "mode" in given:
        try:
            kw["mode"] = DamageMode(str(given["mode"]).strip().upper())
        except ValueError:
            raise UsageError(
                f"option mode: expected PERMISSIVE, DROPMALFORMED or FAILFAST, got {given['mode']!r}") from None
    elif not kw.get("fail_on_data_loss", True):
        kw["mode"], kw["warn_dropped"] = DamageMode.DROPMALFORMED, True
    if "decode" in given:
        kw["decode"] = _bool("decode", given["decode"])
    if "remoteRoot" in given:
        kw["remote_root"] = str(given["remoteRoot"]).strip() or None
    if "remotePrivateKey" in given:
        kw["remote_private_key"] = str(given["remotePrivateKey"]).strip() or None
    for name, attr in (("keyFormat", "key_format"), ("valueFormat", "value_format")):
        if name in given:
            fmt = str(given[name]).strip().lower()
            if fmt not in ("registry", "binary", ""):
                raise UsageError(f"option {name}: expected registry (or binary, the default), got {given[name]!r}")
            kw[attr] = "registry" if fmt == "registry" else None
    for name, attr in (("keySubject", "key_subject"), ("valueSubject", "value_subject"),
                       ("schemaRegistry", "schema_registry")):
        if name in given:
            kw[attr] = str(given[name]).strip() or None
    if "validateJsonSchema" in given:
        kw["validate_json_schema"] = _bool("validateJsonSchema", given["validateJsonSchema"])
    for name, attr in (("maxPartitionBytes", "max_partition_bytes"), ("rowsPerBatch", "rows_per_batch"),
                       ("minPartitions", "min_partitions"), ("maxOffsetsPerTrigger", "max_offsets_per_trigger")):
        if name in given:
            kw[attr] = _int(name, given[name], minimum=1)
    return ReadOptions(**kw)


def _topic_options(given: dict[str, str], kw: dict[str, Any]) -> None:
    chosen = [n for n in ("subscribe", "subscribePattern", "assign") if n in given]
    if len(chosen) > 1:
        raise UsageError(f"only one of subscribe, subscribePattern and assign can be given, got {', '.join(chosen)}")
    if "subscribe" in given:
        topics = frozenset(t.strip() for t in given["subscribe"].split(",") if t.strip())
        if not topics:
            raise UsageError(f"option subscribe: no topics in {given['subscribe']!r}")
        kw["topics"] = topics
    if "subscribePattern" in given:
        try:
            re.compile(given["subscribePattern"].strip())
        except re.error as e:
            raise UsageError(f"option subscribePattern: {e}") from None
        kw["topic_pattern"] = given["subscribePattern"].strip()
    if "assign" in given:
        try:
            parsed = json.loads(given["assign"])
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict) or not all(isinstance(v, list) for v in parsed.values()):
            raise UsageError(f'option assign: expected JSON like {{"topicA":[0,1]}}, got {given["assign"]!r}')
        kw["assign"] = frozenset((t, int(p)) for t, ps in parsed.items() for p in ps)


def _offset_options(given: dict[str, str], kw: dict[str, Any], streaming: bool) -> None:
    if "startingOffsets" in given:
        start = _offsets("startingOffsets", given["startingOffsets"], Earliest())
        if not streaming and (isinstance(start, Latest) or _has(start, LATEST)):
            raise UsageError("option startingOffsets: latest (-1) is not a valid start for a batch query, "
                             "as in Kafka's source")
        kw["starting_offsets"] = start
    elif streaming:
        kw["starting_offsets"] = Latest()  # Kafka's streaming default
    if "endingOffsets" in given:
        if streaming:
            raise UsageError("option endingOffsets is not valid in streaming queries, as in Kafka's source")
        end = _offsets("endingOffsets", given["endingOffsets"], Latest())
        if isinstance(end, Earliest) or _has(end, EARLIEST):
            raise UsageError("option endingOffsets: earliest (-2) is not a valid end for a batch query, "
                             "as in Kafka's source")
        kw["ending_offsets"] = end
    # Kafka's precedence (KafkaSourceProvider.getKafkaOffsetRangeLimit): global timestamp, then per
    # partition timestamps, then offsets.
    for side, glob, per in (("starting", "startingTimestamp", "startingOffsetsByTimestamp"),
                            ("ending", "endingTimestamp", "endingOffsetsByTimestamp")):
        if streaming and side == "ending" and (glob in given or per in given):
            raise UsageError(f"option {glob if glob in given else per} is not valid in streaming queries")
        if glob in given:
            kw[f"{side}_timestamps"] = _timestamps(glob, given[glob], False)
        elif per in given:
            kw[f"{side}_timestamps"] = _timestamps(per, given[per], True)
    if "startingOffsetsByTimestampStrategy" in given:
        strategy = given["startingOffsetsByTimestampStrategy"].strip().lower()
        if strategy not in ("error", "latest"):
            raise UsageError(f"option startingOffsetsByTimestampStrategy: expected error or latest, got {strategy!r}")
        kw["starting_timestamp_strategy"] = strategy


def _has(limit: OffsetLimit, special: int) -> bool:
    if isinstance(limit, EveryPartition):
        return limit.value == special
    return isinstance(limit, ByPartition) and any(special in parts.values() for parts in limit.values.values())
