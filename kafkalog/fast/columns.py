"""The Arrow columns of a segment's records (`SCHEMA`), and how a decoded `Batch` or a damage becomes rows.

Shared by the fast-path modules; `batch_rows` turns the object path's `Batch` into the same rows.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from kafkalog.errors import DamagedDataError
from kafkalog.fast import arrays
from kafkalog.model import Batch

HEADERS_TYPE = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))

#: The columns of the decoder's batches (`kafkalog.dataset.decode.read_segment`).
SCHEMA = pa.schema([
    ("topic", pa.string()),
    ("partition", pa.int32()),
    ("offset", pa.int64()),
    ("timestamp", pa.int64()),
    ("timestamp_type", pa.string()),
    ("key", pa.binary()),
    ("value", pa.binary()),
    ("headers", HEADERS_TYPE),
    ("magic", pa.int32()),
    ("compression", pa.string()),
    ("producer_id", pa.int64()),
    ("producer_epoch", pa.int32()),
    ("sequence", pa.int32()),
    ("is_transactional", pa.bool_()),
    ("is_control", pa.bool_()),
    ("control_type", pa.string()),
    ("partition_leader_epoch", pa.int32()),
    ("segment", pa.string()),
    ("batch_position", pa.int64()),
    ("damage", pa.string()),
])


#: The columns a `Record` is made from (`kafkalog.log.record_list`).
RECORD_SCHEMA = pa.schema([SCHEMA.field(name) for name in
                           ("offset", "timestamp", "sequence", "key", "value", "headers", "control_type")])


def damage_text(damage: DamagedDataError) -> str:
    """The `damage` column: the kind of damage and what is wrong (file and position are columns of their own)."""
    return f"{type(damage).__name__}: {damage.message}"


def batch_rows(batch: Batch, topic: str | None, partition: int | None, segment: str | None) -> pa.Table:
    """The records of a decoded batch as rows."""
    recs = batch.records
    n = len(recs)
    c: dict[str, list] = {
        "offset": [r.offset for r in recs],
        "timestamp": [r.timestamp for r in recs],
        "key": [r.key for r in recs],
        "value": [r.value for r in recs],
        "headers": [[(h.key, h.value) for h in r.headers] for r in recs],
        "sequence": [r.sequence for r in recs],
        "control_type": [r.control_type for r in recs],
    }
    for column, value in (
        ("topic", topic), ("partition", partition), ("timestamp_type", batch.timestamp_type),
        ("magic", batch.magic), ("compression", batch.compression), ("producer_id", batch.producer_id),
        ("producer_epoch", batch.producer_epoch), ("is_transactional", batch.is_transactional),
        ("is_control", batch.is_control), ("partition_leader_epoch", batch.partition_leader_epoch),
        ("segment", segment), ("batch_position", batch.position), ("damage", None),
    ):
        c[column] = [value] * n
    return pa.Table.from_arrays([pa.array(c[f.name], type=f.type) for f in SCHEMA], schema=SCHEMA)


def damage_rows(damages: list[DamagedDataError], segment: str | None) -> pa.Table:
    """One row per damage, with only `segment`, `batch_position` and `damage` set."""
    n = len(damages)
    c: dict[str, list[Any]] = {name: [None] * n for name in SCHEMA.names}
    c["segment"] = [segment if segment is not None else d.path for d in damages]
    c["batch_position"] = [d.position for d in damages]
    c["damage"] = [damage_text(d) for d in damages]
    return pa.Table.from_pydict(c, schema=SCHEMA)


#: Sets of constant columns a `Repeated` holds at most (a segment's walks have a few; each set spans a walk's most
#: rows, a few MiB).
_HELD_BATCHES = 8


class Repeated:
    """Columns of a value that is the same on many rows (the topic, a batch's fields), made once and sliced."""

    def __init__(self):
        self._arrays: dict[tuple[pa.DataType, object], pa.Array] = {}
        self._names: dict[int, tuple[pa.Array, list]] = {}  # (by the names' id: each array is kept with its list)
        self._batches: dict[tuple, pa.RecordBatch] = {}
        self._exported: dict[tuple, Any] = {}  # (`engine.Constants`: a compiled class, no stubs)

    def batch(self, key: tuple, n: int, build: Callable[[tuple, int], dict[str, pa.Array]], least: int = 4096
              ) -> pa.RecordBatch:
        """Columns of n rows or more whose values `key` says, made by `build(key, m)` with m >= n rows (at least
        `least`: a walk's most) once for the key: its first n rows are the ones (one slice for all of a walk's
        constant columns)."""
        made = self._batches.get(key)
        if made is None or made.num_rows < n:
            if len(self._batches) >= _HELD_BATCHES:
                self._batches.clear()  # (many different values: each walk's are made anew, as without this)
            m = max(n, 2 * made.num_rows if made is not None else least)
            made = self._batches[key] = pa.RecordBatch.from_pydict(build(key, m))
        return made

    def exported(self, key: tuple, batch: pa.RecordBatch, export: Callable[[pa.RecordBatch], Any]) -> Any:
        """`export(batch)` (`kafkalog.fast.compiled.constants`: a `batch` of this key's constant columns exported to
        the engine), once per batch made: the walks of the byte ranges of a segment, on a read's threads, share it
        (exported once a range, it was 1-2% of a read's CPU with the GIL held)."""
        made = self._exported.get(key)
        if made is None or made.batch is not batch:
            if len(self._exported) >= _HELD_BATCHES:
                self._exported.clear()  # (many different values: as `batch`'s)
            made = self._exported[key] = export(batch)
        return made

    def column(self, value, type_: pa.DataType, n: int) -> pa.Array:
        """`value` (None for null) on n rows."""
        key = (type_, value)
        made = self._arrays.get(key)
        if made is None or len(made) < n:
            m = max(n, 2 * len(made) if made is not None else 4096)
            if value is None:
                made = pa.nulls(m, type_)
            elif type_ == pa.string():
                made = repeat_string(value, m)
            elif pa.types.is_boolean(type_):
                made = arrays.from_numpy(np.full(m, value, dtype=np.bool_), type_)
            else:
                # (made in the column's own type where the value fits it: not made wider first and copied narrower,
                # in fresh memory; one that does not is cast as before)
                dtype = np.dtype(type_.to_pandas_dtype())
                fits = dtype.kind in "iu" and np.iinfo(dtype).min <= value <= np.iinfo(dtype).max
                made = arrays.from_numpy(np.full(m, value, dtype=dtype) if fits else np.full(m, value), type_)
            self._arrays[key] = made
        return made.slice(0, n)

    def per_batch(self, values: np.ndarray, counts: np.ndarray, n: int, type_: pa.DataType,
                  names: pa.Array | None = None, uniform: bool | None = None) -> pa.Array:
        """Each batch's value (`values[i]`, a code into `names` for strings) on its `counts[i]` rows, n in all;
        `uniform`, whether every batch has the same value, when the caller knows."""
        if uniform if uniform is not None else (values == values[0]).all():
            value = values[0].item()
            return self.column(self._name(names, value) if names is not None else value, type_, n)
        rows = np.repeat(values, counts)
        if names is not None:
            return names.take(arrays.from_numpy(rows.astype(np.int8)))
        return arrays.from_numpy(rows, type_)


    def _name(self, names: pa.Array, code: int) -> str | None:
        """`names[code]` as a Python string, without a pyarrow scalar per call (a few calls per group)."""
        held = self._names.get(id(names))
        if held is None or held[0] is not names:
            held = self._names[id(names)] = (names, names.to_pylist())
        return held[1][code]


#: The most bytes of a string column's values (its offsets are int32).
_MAX_STRING_BYTES = (1 << 31) - 1


def repeat_string(value: str | None, n: int) -> pa.Array:
    """`value` n times (null n times for None), without a Python list of n items."""
    if value is None:
        return pa.nulls(n, pa.string())
    data = value.encode("utf-8")
    if n * len(data) > _MAX_STRING_BYTES:
        raise ValueError(f"{n} rows of a {len(data)}-byte string do not fit a string column")  # a caller's bug
    offsets = np.arange(0, (n + 1) * len(data), len(data), dtype=np.int32) if data else np.zeros(n + 1, np.int32)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data * n)])


_BINARY = pa.binary()


def binary_arrays(buf: np.ndarray, a_pos: np.ndarray, a_size: np.ndarray, b_pos: np.ndarray, b_size: np.ndarray,
                  a_type: pa.DataType = _BINARY) -> tuple[pa.Array, pa.Array, int]:
    """Two binary arrays (a may be string) of buf[pos:pos + size], null where size < 0, made in one pass; and
    the first row whose string is not valid UTF-8, or -1 (copied by the compiled engine, without the GIL)."""
    from kafkalog.fast import compiled  # noqa: PLC0415  (the engine: not loaded by the modules that want SCHEMA)

    a_offsets, a_data, a_nulls, b_offsets, b_data, b_nulls, bad = compiled.gather_pair(
        buf, a_pos, a_size, b_pos, b_size, a_type == pa.string())
    return (_binary_array(a_type, a_size, a_nulls, a_offsets, a_data),
            _binary_array(pa.binary(), b_size, b_nulls, b_offsets, b_data), bad)


def _binary_array(type_: pa.DataType, size: np.ndarray, nulls: int, offsets: np.ndarray, data: np.ndarray) -> pa.Array:
    bitmap = pa.py_buffer(np.packbits(size >= 0, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(type_, len(size), [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=nulls)
