"""UDFs for segment or batch bytes already in a DataFrame (e.g. from Spark's ``binaryFile`` source).

    from kafkalog.spark.udfs import parse_segment_udf
    parse_segment = parse_segment_udf()
    files = spark.read.format("binaryFile").load("/data/orders-0/*.log")
    records = files.select("path", F.explode(parse_segment("content")).alias("r")).select("path", "r.*")

Each returns an array of record structs with the reader's record-level columns
(`kafkalog.dataset.schema.UDF_COLUMNS`: no topic, partition or segment, which the
bytes do not carry). Damage is reported as in PERMISSIVE mode: an element with
only `batch_position` and `damage` set. Null input gives null.
"""
from __future__ import annotations

import pyarrow as pa

from kafkalog.dataset import decode
from kafkalog.dataset.options import DamageMode, ReadOptions
from kafkalog.dataset.rows import finish
from kafkalog.dataset.schema import ARROW_SCHEMA, UDF_COLUMNS, UDF_RESULT_DDL
from kafkalog.formats.framing import LOG_OVERHEAD, entry_header

_STRUCT = pa.struct([ARROW_SCHEMA.field(name) for name, *_ in UDF_COLUMNS])


def parse_bytes(data: bytes, *, single_batch: bool = False, include_control_records: bool = False,
                validate_checksums: bool = True) -> pa.StructArray:
    """The records of a segment's (or, with `single_batch`, one batch's) bytes as a struct array."""

    options = ReadOptions(include_control_records=include_control_records, validate_checksums=validate_checksums,
                          mode=DamageMode.PERMISSIVE)
    decode_options = decode.DecodeOptions(validate_checksums=validate_checksums, mode=DamageMode.PERMISSIVE)
    arrow_batches = [finish(raw, options) for raw in
               decode.decode_segment_range(bytes(data), end=1 if single_batch else None, options=decode_options)]
    if single_batch and len(data) > 0:
        consumed = _first_entry_size(data)
        if consumed is not None and consumed < len(data):
            arrow_batches.append(_trailing_damage(consumed, len(data) - consumed))
    if not arrow_batches:
        return pa.array([], type=_STRUCT)
    table = pa.Table.from_batches(arrow_batches, schema=ARROW_SCHEMA).combine_chunks()
    return pa.StructArray.from_arrays([table.column(f.name).chunk(0) if table.num_rows else pa.array([], f.type)
                                       for f in _STRUCT], fields=list(_STRUCT))


def _first_entry_size(data: bytes) -> int | None:
    if len(data) < LOG_OVERHEAD:
        return None
    return LOG_OVERHEAD + entry_header(data).len_rest


def _trailing_damage(position: int, n: int) -> pa.RecordBatch:
    row: dict[str, list[object]] = {name: [None] for name in ARROW_SCHEMA.names}
    row["batch_position"] = [position]
    row["damage"] = [f"CorruptStructureError: {n} bytes follow the batch (parse_batch reads one batch)"]
    return pa.RecordBatch.from_pydict(row, schema=ARROW_SCHEMA)


def _parse_column(content: pa.Array, **kw) -> pa.Array:
    offsets = [0]
    parts = []
    valid = []
    for value in content.to_pylist():
        if value is None:
            valid.append(False)
            offsets.append(offsets[-1])
            continue
        structs = parse_bytes(value, **kw)
        parts.append(structs)
        valid.append(True)
        offsets.append(offsets[-1] + len(structs))
    values = pa.concat_arrays(parts) if parts else pa.array([], type=_STRUCT)
    mask = pa.array([not v for v in valid], type=pa.bool_())
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values, mask=mask)


def parse_segment_udf(*, include_control_records: bool = False, validate_checksums: bool = True):
    """A Spark UDF: segment bytes (binary) -> array of record structs."""
    from pyspark.sql.functions import arrow_udf

    # pyspark's stubs have no overload for arrow_udf(returnType), the decorator form its documentation shows
    @arrow_udf(UDF_RESULT_DDL)  # type: ignore[call-overload]
    def parse_segment(content: pa.Array) -> pa.Array:
        return _parse_column(content, include_control_records=include_control_records,
                             validate_checksums=validate_checksums)

    return parse_segment


def parse_batch_udf(*, include_control_records: bool = False, validate_checksums: bool = True):
    """A Spark UDF: the bytes of one batch (v2) or one message or wrapper (v0/v1) -> array of record structs."""
    from pyspark.sql.functions import arrow_udf

    # pyspark's stubs have no overload for arrow_udf(returnType), the decorator form its documentation shows
    @arrow_udf(UDF_RESULT_DDL)  # type: ignore[call-overload]
    def parse_batch(content: pa.Array) -> pa.Array:
        return _parse_column(content, single_batch=True, include_control_records=include_control_records,
                             validate_checksums=validate_checksums)

    return parse_batch
