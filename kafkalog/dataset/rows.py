"""The rows of a planned range in the Kafka source's shape: what read_arrow, Spark's queries and the UDFs share.

The decoder's Arrow batches (`kafkalog.dataset.decode`) are filtered with Arrow compute (offsets,
control records, read_committed, pushed filters) and shaped into the DataFrame's columns
(`kafkalog.dataset.schema`).
"""
from __future__ import annotations

import ast
import functools
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from kafkalog.dataset import cluster, decode, plan
from kafkalog.dataset.filters import NO_FILTERS, Pushed
from kafkalog.dataset.offsets import UNBOUNDED, Bounds
from kafkalog.dataset.options import DamageMode, ReadOptions
from kafkalog.dataset.schema import (
    ARROW_SCHEMA,
    ARROW_TIMESTAMP,
    RAW_ARROW_SCHEMA,
    TIMESTAMP_TYPE_IDS,
    output_arrow_schema,
)
from kafkalog.errors import OffsetGapError, UsageError
from kafkalog.fast import arrays, compiled
from kafkalog.fast.columns import Repeated, damage_rows

if TYPE_CHECKING:  # (the registry's decoders are imported by a read that decodes values: start-up)
    from kafkalog.dataset.registry_values import RegistryColumns

# Spark's TimestampType: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z
MIN_TIMESTAMP_MS = -62135596800000
MAX_TIMESTAMP_MS = 253402300799999

log = logging.getLogger("kafkalog.dataset")

#: Rows decoded and shaped together before they are cut into `rowsPerBatch` Arrow batches: the shaping's
#: calls are per Arrow batch, and each lets the other threads' GIL waits in.
SHAPED_ROWS = 65536


def path_option(options: dict[str, str]) -> str | list[str]:
    """The path(s) a Spark read names: ``load(PATH)`` or ``option("path", ...)`` pass one path, ``load([A, B])`` passes
    Spark's ``paths`` option (a JSON array of strings), as `read_arrow` takes a list. A ``path`` option holding a list
    (``option("path", [A, B])``, which PySpark passes as the list's Python text, or a JSON array) reads as that list.
    With both (``spark.sql.legacy.pathOptionBehavior.enabled``), ``path`` comes first, as Spark's file sources take
    them."""
    lowered = {k.lower(): v for k, v in options.items()}
    paths: list[str] = []
    if lowered.get("path"):
        listed = _listed(lowered["path"])
        paths += [lowered["path"]] if listed is None else listed
    if lowered.get("paths"):
        listed = _listed(lowered["paths"])
        if listed is None:
            raise UsageError(f"option paths must be a JSON array of paths or URIs (as load([A, B]) passes it), "
                             f"got {lowered['paths']!r}")
        paths += listed
    if not paths:
        raise UsageError('kafkalog needs a path: spark.read.format("kafkalog").load(PATH) or load([PATH, ...])')
    return paths[0] if len(paths) == 1 else paths


def _listed(text: str) -> list[str] | None:
    """`text` as a non-empty list of path strings (a JSON array, or a Python list's text), or None if it is not
    one: a path or a glob (``[0-9]`` is a glob's class, never a list of strings)."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        return None
    return value


def read_range(rng: plan.SegmentRange, options: ReadOptions, pushed: Pushed = NO_FILTERS,
               registry: RegistryColumns | None = None, repeated: Repeated | None = None
               ) -> Iterator[pa.RecordBatch]:
    """The rows of one planned range, options and pushed filters applied, in the DataFrame's shape;
    with `registry`, registry-framed keys and values decoded (`kafkalog.dataset.registry_values`);
    `repeated`: as `read_range_shaped`'s."""
    for shaped in read_range_shaped(rng, options, pushed, registry, repeated):
        yield from shaped
        del shaped  # (not held while the next ones are decoded)


def read_range_shaped(rng: plan.SegmentRange, options: ReadOptions, pushed: Pushed = NO_FILTERS,
                      registry: RegistryColumns | None = None, repeated: Repeated | None = None
                      ) -> Iterator[list[pa.RecordBatch]]:
    """`read_range`'s Arrow batches, those shaped together (at most `SHAPED_ROWS` rows, or `rowsPerBatch`) in one
    list (slices of one record batch): what a thread hands over at once (`kafkalog.dataset.reader`), one hand-off
    for several Arrow batches.
    `repeated`: the constant columns the read's other ranges of the same segment made (None: made anew)."""
    markers = None
    if options.read_committed:
        markers = decode.scan_transaction_markers([(rng.segment.location, rng.start, rng.end)], list(rng.lookahead),
                                                  options.remote_private_key)
    seg = rng.segment
    # failOnDataLoss=false: decode everything, then drop damaged batches with a warning.
    decode_options = decode.DecodeOptions(
        validate_checksums=options.validate_checksums,
        mode=DamageMode.PERMISSIVE if options.warn_dropped else options.mode,
        rows_per_batch=max(options.rows_per_batch, SHAPED_ROWS), stop_offset=rng.bounds.end,
        private_keys=options.remote_private_key)
    if rng.gap is not None:  # offsets missing from a tiered partition's history, in PERMISSIVE mode
        raws = iter(damage_rows([OffsetGapError(rng.gap, path=seg.location, position=0)], seg.location).to_batches())
    else:
        raws = decode.decode_segment_range(seg.location, start=rng.start, end=rng.end, segment=seg.location,
                                           topic=seg.topic, partition=seg.partition, options=decode_options,
                                           repeated=repeated)
    if options.warn_dropped:
        raws = skip_damaged_batches(raws)
    for raw in raws:
        keep = _keep_mask(raw, options, markers, rng.bounds)
        if keep is not None:
            raw = raw.filter(keep)
        out = to_output(raw, options, rng.bounds.log_start_offset)
        if options.read_replicas:  # every replica of several brokers' disks: whose each row is
            out = cluster.with_broker(out, seg.location)
        if options.decode:
            # (imported here: the internal topics' decoders, which a read without decode=true never loads)
            from kafkalog.dataset import internal_topics  # noqa: PLC0415

            key, value = internal_topics.decoded_columns(raw)
            out = pa.RecordBatch.from_arrays([*out.columns, key, value],
                                             names=[*out.schema.names, "key_decoded", "value_decoded"])
        if registry is not None:
            out = registry.add(out, raw)
        mask = pushed.mask(out)
        if mask is not None:
            out = out.filter(mask)
        if out.num_rows:
            yield [out.slice(start, options.rows_per_batch) for start in range(0, out.num_rows, options.rows_per_batch)]
        del raw, out  # (not held while the next ones are decoded)


def to_output(raw: pa.RecordBatch, options: ReadOptions, log_start_offset: int | None = None) -> pa.RecordBatch:
    """Decoder rows in the DataFrame's shape: Kafka's source's columns, then kafkalog's; with
    includeBelowLogStart, whether each row lies below `log_start_offset` (never, where it is not known)."""
    layout = _output_layout(options.include_headers, options.kafkalog_columns, options.include_below_log_start)
    ms = raw.column(_RAW_INDEX["timestamp"])
    if compiled.BUILT and ms.null_count == 0 and raw.num_rows:  # the usual Arrow batch: one engine call
        columns = _kafka_columns(ms, raw.column(_RAW_INDEX["timestamp_type"]),
                                 raw.column(_RAW_INDEX["headers"]) if options.include_headers else None)
    else:
        columns = {
            "timestamp": kafka_timestamp(ms),
            "timestampType": timestamp_type_ids(raw.column(_RAW_INDEX["timestamp_type"])),
        }
        if options.include_headers:
            columns["headers"] = null_if_empty(raw.column(_RAW_INDEX["headers"]))
    if options.include_below_log_start:
        import pyarrow.compute as pc  # (start-up: only for the reads that ask for this column)

        below = pc.less(raw.column("offset"), log_start_offset) if log_start_offset is not None \
            else arrays.from_numpy(np.zeros(raw.num_rows, dtype=np.bool_))
        columns["below_log_start"] = pc.fill_null(below, arrays.scalar(False, pa.bool_()))
    # The decoder's columns taken as they are, by index (no Python object made for each), and the shaped ones set in.
    out = raw.select(layout.taken)
    for name, (i, out_field) in layout.shaped.items():
        out = out.set_column(i, out_field, columns[name])
    return out


@dataclass(frozen=True)
class _Layout:
    """How the DataFrame's columns for a set of options are made from the decoder's."""

    #: For each output column, the decoder column it is (0, a stand-in, for a shaped one).
    taken: list[int]
    #: The shaped columns: name -> (index, field) in the output.
    shaped: dict[str, tuple[int, pa.Field]]


@functools.lru_cache(maxsize=16)  # (made once per set of options, not per Arrow batch)
def _output_layout(include_headers: bool, kafkalog_columns: bool, below_log_start: bool) -> _Layout:
    schema = output_arrow_schema(include_headers, kafkalog_columns, below_log_start)
    shaped = {"timestamp", "timestampType", "headers", "below_log_start"}
    return _Layout([0 if name in shaped else _RAW_INDEX[name] for name in schema.names],
                   {name: (i, schema.field(i)) for i, name in enumerate(schema.names) if name in shaped})


#: Each decoder column's index in `RAW_ARROW_SCHEMA` (a column taken by its index, not looked up by its name).
_RAW_INDEX = {name: i for i, name in enumerate(RAW_ARROW_SCHEMA.names)}
#: `kafka_columns`' header offsets where there are no headers to shape.
_NO_OFFSETS = np.empty(0, dtype=np.int32)
_INT32 = pa.int32()


def _kafka_columns(ms: pa.Array, names: pa.StringArray, headers: pa.ListArray | None) -> dict[str, pa.Array]:
    """`kafka_timestamp`, `timestamp_type_ids` and (with `headers`) `null_if_empty` of an Arrow batch whose
    timestamps are all set, in one pass of the engine without the GIL: the same columns."""
    n = len(ms)
    # (each array's buffers asked for once: every ask makes a Python object for each of its buffers)
    list_buffers = [] if headers is None else headers.buffers()
    names_buffers = names.buffers()
    header_offsets = _NO_OFFSETS if headers is None else np.frombuffer(list_buffers[1], dtype=np.int32)
    us, ts_bitmap, ts_nulls, ids, header_bitmap, header_nulls = compiled.kafka_columns(
        arrays.to_numpy(ms), MIN_TIMESTAMP_MS, MAX_TIMESTAMP_MS, 1000,
        np.frombuffer(names_buffers[1], dtype=np.int32), names.offset, _TIMESTAMP_TYPE_IDS,
        header_offsets, 0 if headers is None else headers.offset)
    names_nulls = names.null_count
    columns = {
        "timestamp": pa.Array.from_buffers(ARROW_TIMESTAMP, n, [pa.py_buffer(ts_bitmap) if ts_nulls else None,
                                                                pa.py_buffer(us)], null_count=ts_nulls),
        # (aligned with the names' validity bitmap, which has their offset)
        "timestampType": pa.Array.from_buffers(_INT32, n, [names_buffers[0] if names_nulls else None,
                                                           pa.py_buffer(ids)],
                                               null_count=names_nulls, offset=names.offset),
    }
    if headers is not None:
        # Null where a record has no headers (a null list is empty too, and stays null): the same lists, not copied.
        columns["headers"] = headers if not header_nulls else pa.Array.from_buffers(
            headers.type, n, [pa.py_buffer(header_bitmap), list_buffers[1]], null_count=header_nulls,
            offset=headers.offset, children=[headers.values])
    return columns


#: The decoder's `timestamp_type` names (`schema.TIMESTAMP_TYPE_IDS`: Kafka's `TimestampType` ids) by their length in
#: bytes, which differs for each; any other length is -2 (none is written).
_TIMESTAMP_TYPE_IDS = np.full(max(len(name) for name in TIMESTAMP_TYPE_IDS) + 1, -2, dtype=np.int32)
for _name, _id in TIMESTAMP_TYPE_IDS.items():
    _TIMESTAMP_TYPE_IDS[len(_name)] = _id
assert len({len(name) for name in TIMESTAMP_TYPE_IDS}) == len(TIMESTAMP_TYPE_IDS), "the names' lengths differ"


def timestamp_type_ids(names: pa.StringArray) -> pa.Array:
    """The decoder's `timestamp_type` names as Kafka's source's `timestampType` ids (int32; null stays null),
    told apart by their lengths in one numpy pass rather than by looking each string up."""
    n = len(names)
    bitmap, offsets_buffer = names.buffers()[:2]
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[names.offset:names.offset + n + 1]
    ids = np.empty(names.offset + n, dtype=np.int32)  # (aligned with the validity bitmap, which has the offset)
    if compiled.BUILT:  # (in one pass without the GIL: this is per Arrow batch)
        compiled.ids_by_length(offsets, _TIMESTAMP_TYPE_IDS, ids[names.offset:])
    else:
        ids[names.offset:] = _TIMESTAMP_TYPE_IDS[np.minimum(np.diff(offsets), len(_TIMESTAMP_TYPE_IDS) - 1)]
    bitmap = bitmap if names.null_count else None
    return pa.Array.from_buffers(pa.int32(), n, [bitmap, pa.py_buffer(ids)], null_count=names.null_count,
                                 offset=names.offset)


def null_if_empty(headers: pa.ListArray) -> pa.ListArray:
    """Headers as Kafka's source gives them: null for a record without any (the same lists, not copied)."""
    offsets = arrays.to_numpy(headers.offsets)
    empty = offsets[1:] == offsets[:-1]  # (a null list is empty too, and stays null)
    if not empty.any():
        return headers
    first = int(offsets[0])
    values = headers.values.slice(first, int(offsets[-1]) - first)
    return pa.ListArray.from_arrays(arrays.from_numpy(offsets - first), values, type=headers.type,
                                    mask=arrays.from_numpy(empty))


def kafka_timestamp(ms: pa.Array) -> pa.Array:
    """Kafka milliseconds -> UTC microseconds as Kafka's source gives them (-1 stays -1 ms);
    null outside Spark's range."""
    if ms.null_count == 0:
        values = arrays.to_numpy(ms)
        if compiled.BUILT:  # the usual Arrow batch, in one pass without the GIL
            us, bitmap, nulls = compiled.scaled_in_range(values, MIN_TIMESTAMP_MS, MAX_TIMESTAMP_MS, 1000)
            return pa.Array.from_buffers(ARROW_TIMESTAMP, len(us), [pa.py_buffer(bitmap) if nulls else None,
                                                                    pa.py_buffer(us)], null_count=nulls)
        # (in a few numpy passes where the engine was not built)
        valid = (values >= MIN_TIMESTAMP_MS) & (values <= MAX_TIMESTAMP_MS)
        return arrays.from_numpy(np.where(valid, values, 0) * 1000, pa.int64(), valid).view(ARROW_TIMESTAMP)
    import pyarrow.compute as pc  # (start-up: only for an Arrow batch with damage rows)

    valid = pc.and_(pc.greater_equal(ms, MIN_TIMESTAMP_MS), pc.less_equal(ms, MAX_TIMESTAMP_MS))
    return pc.multiply(pc.if_else(valid, ms, arrays.scalar(None, pa.int64())), 1000).cast(ARROW_TIMESTAMP)


def skip_damaged_batches(raws: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """PERMISSIVE rows -> the rows DROPMALFORMED keeps, logging each damage as a warning.

    A damage row follows the records of its batch (same `batch_position`); the rows of the
    last position of each chunk are held back until the next chunk shows whether damage follows.
    """
    import pyarrow.compute as pc  # (start-up: loaded by the reads that use it)

    carry: pa.RecordBatch | None = None
    for raw in raws:
        if carry is not None:
            raw = pa.Table.from_batches([carry, raw]).combine_chunks().to_batches()[0]
            carry = None
        damage = pc.is_valid(raw.column("damage"))
        positions = raw.column("batch_position")
        if pc.any(damage).as_py():
            for row in raw.filter(damage).select(["segment", "batch_position", "damage"]).to_pylist():
                log.warning("%s: byte %s: %s; skipped (failOnDataLoss=false)",
                            row["segment"], row["batch_position"], row["damage"])
            bad = pc.unique(positions.filter(damage))
            raw = raw.filter(pc.invert(pc.fill_null(pc.is_in(positions, value_set=bad), False)))
            positions = raw.column("batch_position")
        if not raw.num_rows:
            continue
        pos = positions.to_numpy(zero_copy_only=False)
        differs = np.nonzero(pos != pos[-1])[0]
        cut = int(differs[-1]) + 1 if len(differs) else 0
        if cut:
            yield raw.slice(0, cut)
        carry = raw.slice(cut)
    if carry is not None and carry.num_rows:
        yield carry


def finish(raw: pa.RecordBatch, options: ReadOptions, markers: dict | None = None,
           bounds: Bounds = UNBOUNDED) -> pa.RecordBatch:
    """kafkalog's own shape (the UDFs'): row options applied, `timestamp` a Spark timestamp, null for -1."""
    keep = _keep_mask(raw, options, markers, bounds)
    if keep is not None:
        raw = raw.filter(keep)
    return pa.RecordBatch.from_arrays(
        [to_spark_timestamp(col) if name == "timestamp" else col
         for name, col in zip(raw.schema.names, raw.columns, strict=True)],
        schema=ARROW_SCHEMA)


def to_spark_timestamp(ms: pa.Array) -> pa.Array:
    """Kafka milliseconds -> UTC microseconds; null for -1 (no timestamp) and outside Spark's range."""
    import pyarrow.compute as pc  # (start-up: loaded by the reads that use it)

    valid = pc.and_(pc.and_(pc.not_equal(ms, -1), pc.greater_equal(ms, MIN_TIMESTAMP_MS)),
                    pc.less_equal(ms, MAX_TIMESTAMP_MS))
    kept = pc.if_else(valid, ms, arrays.scalar(None, pa.int64()))
    return pc.multiply(kept, 1000).cast(ARROW_TIMESTAMP)


def _keep_mask(raw: pa.RecordBatch, options: ReadOptions, markers: dict | None, bounds: Bounds) -> pa.Array | None:
    """Which rows to keep, or None for all of them (the usual Arrow batch: then nothing is copied)."""
    conditions = []
    if bounds.start is not None or bounds.end is not None:
        import pyarrow.compute as pc  # (start-up: only for the reads that need a mask)

        offset = raw.column(_RAW_INDEX["offset"])
        lowest, highest = pc.min_max(offset).values()
        if bounds.start is not None and (lowest.as_py() is None or lowest.as_py() < bounds.start):
            conditions.append(pc.greater_equal(offset, bounds.start))
        if bounds.end is not None and (highest.as_py() is None or highest.as_py() >= bounds.end):
            conditions.append(pc.less(offset, bounds.end))
    is_control = raw.column(_RAW_INDEX["is_control"])  # (by index: a name is looked up among every column's)
    if (not options.include_control_records or options.read_committed) and is_control.true_count:
        # A read_committed consumer never sees control records, whatever includeControlRecords says.
        import pyarrow.compute as pc

        conditions.append(pc.invert(is_control))
    if options.read_committed:
        conditions.append(arrays.from_numpy(~_aborted(raw, markers or {})))
    if not conditions:
        return None
    import pyarrow.compute as pc

    keep = conditions[0]
    for c in conditions[1:]:
        keep = pc.and_kleene(keep, c)
    # Damage rows have no offset or timestamp; they always stay (no record is silently lost).
    return pc.or_(pc.is_valid(raw.column("damage")), pc.fill_null(keep, arrays.scalar(False, pa.bool_())))


def _aborted(raw: pa.RecordBatch, markers: dict[int, list[tuple[int, str]]]) -> np.ndarray:
    """Rows of transactional data whose producer's next marker is ABORT, or that no marker decides."""
    import pyarrow.compute as pc  # (start-up: loaded by the reads that use it)

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
