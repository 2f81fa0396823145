"""Arrow arrays made from numpy arrays and Python strings by their buffers, without `pa.array`.

`pa.array` (and `pa.scalar`, `Array.to_numpy`) import pandas on their first call, whatever they are given:
100 MB and a quarter of a second in a process that reads a small file (issue 33). The fast path's columns are
numpy arrays already in Arrow's layout, so they are wrapped as they are.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


def from_numpy(values: np.ndarray, type_: pa.DataType | None = None, valid: np.ndarray | None = None) -> pa.Array:
    """A fixed-width column (integers, floats or booleans) of `values`, cast to `type_` (default: their dtype's);
    null where `valid` (booleans) is False."""
    type_ = type_ or pa.from_numpy_dtype(values.dtype)
    n = len(values)
    if pa.types.is_boolean(type_):
        data = pa.py_buffer(np.packbits(np.asarray(values, dtype=np.bool_), bitorder="little"))
    else:
        data = pa.py_buffer(np.ascontiguousarray(values, dtype=type_.to_pandas_dtype()))
    if valid is None or valid.all():
        return pa.Array.from_buffers(type_, n, [None, data])
    bitmap = pa.py_buffer(np.packbits(np.asarray(valid, dtype=np.bool_), bitorder="little"))
    return pa.Array.from_buffers(type_, n, [bitmap, data], null_count=n - int(np.count_nonzero(valid)))


def strings(values: Sequence[str], type_: pa.DataType | None = None) -> pa.Array:
    """A string (or, with `type_=pa.binary()`, binary) column of `values`, none null."""
    encoded = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(type_ or pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def to_numpy(values: pa.Array) -> np.ndarray:
    """The values of a fixed-width column without nulls (not booleans) as a numpy view, not copied."""
    dtype = np.dtype(values.type.to_pandas_dtype())
    return np.frombuffer(values.buffers()[1], dtype=dtype)[values.offset:values.offset + len(values)]


def scalar(value: int | bool | None, type_: pa.DataType) -> pa.Scalar:
    """An Arrow scalar for a compute function's argument: a Python number there goes through `pa.scalar`."""
    if value is None:
        return pa.nulls(1, type_)[0]
    return from_numpy(np.array([value]), type_)[0]
