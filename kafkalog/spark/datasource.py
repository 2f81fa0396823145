"""The ``kafkalog`` Spark data source (PySpark's Python Data Source API, Spark 4).

    import kafkalog.spark
    kafkalog.spark.register(spark)
    df = spark.read.format("kafkalog").load("/var/lib/kafka/data/orders-0")

Planning (`partitions`) lists the segments and cuts them into byte ranges
(`kafkalog.spark.plan`); each task decodes its range through the one decoding
seam (`kafkalog.spark.decode`) and this module applies the row-level options
with Arrow compute: offsets, timestamps, control records, read_committed.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from kafkalog import internal_topics_arrow
from kafkalog.errors import UsageError
from kafkalog.spark import decode, plan
from kafkalog.spark.options import ReadOptions, parse_options
from kafkalog.spark.schema import ARROW_SCHEMA, ARROW_TIMESTAMP, SCHEMA_DDL

# Spark's TimestampType: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z
MIN_TIMESTAMP_MS = -62135596800000
MAX_TIMESTAMP_MS = 253402300799999


class KafkaLogDataSource(DataSource):
    """``spark.read.format("kafkalog")``: Kafka segment files as a DataFrame."""

    @classmethod
    def name(cls) -> str:
        return "kafkalog"

    def schema(self) -> str:
        decoded = parse_options(dict(self.options)).decode
        return SCHEMA_DDL + (internal_topics_arrow.DECODED_DDL if decoded else "")

    def reader(self, schema) -> "KafkaLogReader":
        return KafkaLogReader(dict(self.options))


class KafkaLogReader(DataSourceReader):
    def __init__(self, options: dict[str, str]):
        lowered = {k.lower(): v for k, v in options.items()}
        self.path = lowered.get("path")
        if not self.path:
            raise UsageError('kafkalog needs a path: spark.read.format("kafkalog").load(PATH)')
        self.options = parse_options(options)

    def partitions(self) -> list[InputPartition]:
        ranges = plan.plan(self.path, self.options)
        if not ranges:
            return [InputPartition(None)]
        return [InputPartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        rng = partition.value
        if rng is None:
            return
        yield from read_range(rng, self.options)


def read_range(rng: plan.SegmentRange, options: ReadOptions) -> Iterator[pa.RecordBatch]:
    """The rows of one planned range, options applied, as `ARROW_SCHEMA` batches."""
    markers = None
    if options.read_committed:
        markers = decode.scan_transaction_markers([(rng.segment.location, rng.start, rng.end)], list(rng.lookahead))
    seg = rng.segment
    decode_options = decode.DecodeOptions(
        validate_checksums=options.validate_checksums, mode=options.mode,
        rows_per_batch=options.rows_per_batch, stop_offset=options.ending_offset)
    for raw in decode.decode_segment_range(seg.location, start=rng.start, end=rng.end, segment=seg.location,
                                           topic=seg.topic, partition=seg.partition, options=decode_options):
        out = finish(raw, options, markers)
        if out.num_rows:
            yield internal_topics_arrow.with_decoded(out) if options.decode else out


def finish(raw: pa.RecordBatch, options: ReadOptions, markers: dict | None = None) -> pa.RecordBatch:
    """Apply the row options to a decoded batch and turn `timestamp` into a Spark timestamp."""
    keep = _keep_mask(raw, options, markers)
    if keep is not None:
        raw = raw.filter(keep)
    return pa.RecordBatch.from_arrays(
        [to_spark_timestamp(col) if name == "timestamp" else col for name, col in zip(raw.schema.names, raw.columns)],
        schema=ARROW_SCHEMA)


def to_spark_timestamp(ms: pa.Array) -> pa.Array:
    """Kafka milliseconds -> UTC microseconds; null for -1 (no timestamp) and outside Spark's range."""
    valid = pc.and_(pc.and_(pc.not_equal(ms, -1), pc.greater_equal(ms, MIN_TIMESTAMP_MS)),
                    pc.less_equal(ms, MAX_TIMESTAMP_MS))
    kept = pc.if_else(valid, ms, pa.scalar(None, pa.int64()))
    return pc.multiply(kept, 1000).cast(ARROW_TIMESTAMP)


def _keep_mask(raw: pa.RecordBatch, options: ReadOptions, markers: dict | None) -> pa.Array | None:
    conditions = []
    offset = raw.column("offset")
    ts = raw.column("timestamp")
    if options.starting_offset is not None:
        conditions.append(pc.greater_equal(offset, options.starting_offset))
    if options.ending_offset is not None:
        conditions.append(pc.less(offset, options.ending_offset))
    if options.starting_timestamp is not None:
        conditions.append(pc.greater_equal(ts, options.starting_timestamp))
    if options.ending_timestamp is not None:
        conditions.append(pc.less(ts, options.ending_timestamp))
    if not options.include_control_records or options.read_committed:
        # A read_committed consumer never sees control records, whatever includeControlRecords says.
        conditions.append(pc.invert(raw.column("is_control")))
    if options.read_committed:
        conditions.append(pa.array(~_aborted(raw, markers or {})))
    if not conditions:
        return None
    keep = conditions[0]
    for c in conditions[1:]:
        keep = pc.and_kleene(keep, c)
    # Damage rows have no offset or timestamp; they always stay (no record is silently lost).
    return pc.or_(pc.is_valid(raw.column("damage")), pc.fill_null(keep, False))


def _aborted(raw: pa.RecordBatch, markers: dict[int, list[tuple[int, str]]]) -> np.ndarray:
    """Rows of transactional data whose producer's next marker is ABORT, or that no marker decides."""
    n = raw.num_rows
    aborted = np.zeros(n, dtype=bool)
    txn = pc.fill_null(pc.and_(raw.column("is_transactional"), pc.invert(raw.column("is_control"))), False)
    txn = txn.to_numpy(zero_copy_only=False)
    if not txn.any():
        return aborted
    pids = pc.fill_null(raw.column("producer_id"), -1).to_numpy()
    offsets = pc.fill_null(raw.column("offset"), -1).to_numpy()
    for pid in np.unique(pids[txn]):
        rows = txn & (pids == pid)
        found = markers.get(int(pid), [])
        decided_abort = np.ones(int(rows.sum()), dtype=bool)  # no marker: never committed
        if found:
            marker_offsets = np.array([o for o, _ in found], dtype=np.int64)
            is_abort = np.array([t == decode.ABORT for _, t in found], dtype=bool)
            nxt = np.searchsorted(marker_offsets, offsets[rows], side="right")  # first marker after the record
            has = nxt < len(found)
            decided_abort[has] = is_abort[nxt[has]]
        aborted[rows] = decided_abort
    return aborted
