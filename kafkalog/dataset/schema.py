"""The DataFrame schema of kafkalog's Spark reader, in Spark and in Arrow terms.

`RAW_ARROW_SCHEMA` is what the decoder (`kafkalog.dataset.decode`) produces: the
same columns, except that `timestamp` is still Kafka's int64 milliseconds; the
data source filters on it and then turns it into a Spark timestamp
(`ARROW_SCHEMA`), with Kafka's -1 (no timestamp) and values outside Spark's
timestamp range (years 1-9999) as null.
"""
from __future__ import annotations

import functools

import pyarrow as pa

from kafkalog.fast.columns import SCHEMA as DECODER_SCHEMA

#: (name, Spark SQL type, Arrow type of the decoder's output, description)
COLUMNS: list[tuple[str, str, pa.DataType, str]] = [
    ("topic", "string", pa.string(), "topic, from the `topic-N` directory name; null outside such a directory"),
    ("partition", "int", pa.int32(), "partition, from the `topic-N` directory name; null outside such a directory"),
    ("offset", "bigint", pa.int64(), "record offset"),
    ("timestamp", "timestamp", pa.int64(),
     "record timestamp (UTC); null for Kafka's -1 (no timestamp) and outside years 1-9999"),
    ("timestamp_type", "string", pa.string(), "CreateTime, LogAppendTime or NoTimestampType (magic 0)"),
    ("key", "binary", pa.binary(), "record key; null for a null key"),
    ("value", "binary", pa.binary(), "record value; null for a null value (tombstone)"),
    ("headers", "array<struct<key:string,value:binary>>",
     pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])),
     "record headers in order (duplicates kept); empty for magic 0/1"),
    ("magic", "int", pa.int32(), "format of the batch: 0, 1 or 2"),
    ("compression", "string", pa.string(), "batch codec: none, gzip, snappy, lz4, zstd"),
    ("producer_id", "bigint", pa.int64(), "batch producer id; -1 when none (as Kafka reports it)"),
    ("producer_epoch", "int", pa.int32(), "batch producer epoch; -1 when none"),
    ("sequence", "int", pa.int32(), "record sequence number; -1 when none"),
    ("is_transactional", "boolean", pa.bool_(), "batch is part of a transaction"),
    ("is_control", "boolean", pa.bool_(), "batch is a control batch (transaction markers, KRaft records)"),
    ("control_type", "string", pa.string(),
     "COMMIT, ABORT, LEADER_CHANGE, ... for control records; null for data records"),
    ("partition_leader_epoch", "int", pa.int32(), "batch partition leader epoch; -1 for magic 0/1"),
    ("segment", "string", pa.string(), "segment file the row came from (absolute path, or the URI for scheme paths)"),
    ("batch_position", "bigint", pa.int64(), "byte position of the row's batch (or of the damage) in the segment"),
    ("damage", "string", pa.string(), "PERMISSIVE mode: what is wrong, on a row of its own; null for records"),
]

COLUMN_NAMES = [c[0] for c in COLUMNS]

#: The schema as a Spark DDL string (what `DataSource.schema()` returns).
SCHEMA_DDL = ", ".join(f"`{name}` {sql}" for name, sql, _, _ in COLUMNS)

#: The decoder's output (`kafkalog.dataset.decode.read_segment`): `timestamp` as Kafka's int64 milliseconds.
RAW_ARROW_SCHEMA = DECODER_SCHEMA
assert pa.schema([(name, arrow_type) for name, _, arrow_type, _ in COLUMNS]) == RAW_ARROW_SCHEMA

#: What leaves the data source: `timestamp` as a UTC microsecond timestamp, as Spark's TimestampType.
ARROW_TIMESTAMP = pa.timestamp("us", tz="UTC")
ARROW_SCHEMA = RAW_ARROW_SCHEMA.set(COLUMN_NAMES.index("timestamp"), pa.field("timestamp", ARROW_TIMESTAMP))

#: Columns of a record struct in the UDFs' results: the record-level columns (no topic, partition, segment).
UDF_COLUMNS = [c for c in COLUMNS if c[0] not in ("topic", "partition", "segment")]
UDF_RECORD_DDL = "struct<" + ", ".join(f"`{name}`:{sql}" for name, sql, _, _ in UDF_COLUMNS) + ">"
UDF_RESULT_DDL = f"array<{UDF_RECORD_DDL}>"

# --- The DataFrame of ``format("kafkalog")``: Spark's Kafka source's columns first -----------------

#: Spark's Kafka source (`KafkaRecordToRowConverter.scala`): names, types and order.
KAFKA_COLUMNS: list[tuple[str, str, pa.DataType, str]] = [
    ("key", "binary", pa.binary(), "record key; null for a null key"),
    ("value", "binary", pa.binary(), "record value; null for a null value (tombstone)"),
    ("topic", "string", pa.string(), "topic, from the `topic-N` directory name; null outside such a directory"),
    ("partition", "int", pa.int32(), "partition, from the `topic-N` directory name; null outside such a directory"),
    ("offset", "bigint", pa.int64(), "record offset"),
    ("timestamp", "timestamp", pa.timestamp("us", tz="UTC"),
     "record timestamp (UTC), as Kafka's source gives it: Kafka's -1 (magic 0) is 1969-12-31 23:59:59.999"),
    ("timestampType", "int", pa.int32(), "0 CreateTime, 1 LogAppendTime, -1 none (magic 0), Kafka's TimestampType ids"),
]
#: With includeHeaders=true, as in Kafka's source: null when a record has no headers.
HEADERS_COLUMN = ("headers", "array<struct<key:string,value:binary>>",
                  pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])),
                  "record headers in order (duplicates kept); null when there are none (includeHeaders=true)")
#: With includeKafkalogColumns=true (or mode=PERMISSIVE): what a Kafka consumer does not show.
KAFKALOG_COLUMNS = [c for c in COLUMNS if c[0] not in {n for n, *_ in KAFKA_COLUMNS} | {"timestamp_type", "headers"}]

#: With includeBelowLogStart=true: records no consumer is served any more, still on disk (`kafkalog.log.served_log`).
BELOW_LOG_START_COLUMN = ("below_log_start", "boolean", pa.bool_(),
                          "the record lies below its partition's log start offset (deleteRecords, retention): "
                          "on disk, never served (includeBelowLogStart=true)")

#: Kafka's TimestampType ids (`org.apache.kafka.common.record.TimestampType`).
TIMESTAMP_TYPE_IDS = {"NoTimestampType": -1, "CreateTime": 0, "LogAppendTime": 1}


def output_columns(include_headers: bool, kafkalog_columns: bool,
                   below_log_start: bool = False) -> list[tuple[str, str, pa.DataType, str]]:
    """The data source's columns for these options."""
    headers = [HEADERS_COLUMN] if include_headers else []
    below = [BELOW_LOG_START_COLUMN] if below_log_start else []
    return KAFKA_COLUMNS + headers + (KAFKALOG_COLUMNS if kafkalog_columns else []) + below


def output_ddl(include_headers: bool, kafkalog_columns: bool, below_log_start: bool = False) -> str:
    return ", ".join(f"`{name}` {sql}"
                     for name, sql, _, _ in output_columns(include_headers, kafkalog_columns, below_log_start))


@functools.cache  # (a few combinations, asked per Arrow batch: a pa.Schema cannot change)
def output_arrow_schema(include_headers: bool, kafkalog_columns: bool, below_log_start: bool = False) -> pa.Schema:
    return pa.schema([(name, t) for name, _, t, _ in output_columns(include_headers, kafkalog_columns,
                                                                     below_log_start)])
