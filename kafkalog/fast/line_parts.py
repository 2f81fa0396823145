"""What `kafkalog dump`'s compiled line writers (`kafkalog.fast.lines`, Cython, built at install) read: the record
columns of a run as numpy arrays (`RecordColumns`), and whether the writers were compiled (`AVAILABLE`).

The Python sides of the writers (`kafkalog.fast.json_lines`, `text_lines`, `kafka_lines`, `batch_lines`) gather
the columns here and make the compiled module's writer of a run (`BlockWriter`), which writes a block of rows a call.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pyarrow as pa

try:
    from kafkalog.fast import lines as compiled  # type: ignore[attr-defined]  # (a compiled module: no stubs)
except ImportError:  # an install that did not compile it (a source tree never installed): dump prints record by record
    compiled = None

#: Whether the compiled line writers were built.
AVAILABLE = compiled is not None

EMPTY = np.empty(0, dtype=np.uint8)


class BlockWriter(Protocol):
    """A run's lines a block at a time (the compiled `lines.Writer`, made once a run: its columns gathered once;
    `lines.next_block(writer, bytes, most rows)` writes its blocks one after the other)."""

    def __call__(self, first: int, rows: int, budget: int, batch: int) -> tuple[np.ndarray, np.ndarray, int, int]:
        """(first row, most rows, bytes, first batch) -> (the lines of the rows from the first, at most that many, up
        to the row that brings them to that many bytes, each batch's line (`BatchLines`) from the first batch on
        before its records'; where each record's line starts, rows written + 1 positions (the rest of the array is
        not written); rows written; the first batch whose line is not written yet)."""


@dataclass(frozen=True)
class BatchLines:
    """A run's batch lines, as the record writers put them among the records': batch i's line is
    `text[starts[i]:starts[i + 1]]`, before the line of row `rows[i]` (of the run's table; never decreasing)."""

    text: np.ndarray
    starts: np.ndarray
    rows: np.ndarray


def one_array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(column, pa.Array):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def ints(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """An integer column as int64, read from its Arrow data buffer (`to_numpy` would import pandas: start-up).
    Null rows hold whatever the buffer holds: no line is printed from them."""
    array = one_array(column)
    n = len(array)
    data = array.buffers()[1]
    if data is None:
        return np.zeros(n, dtype=np.int64)
    width = array.type.bit_width // 8
    values = np.frombuffer(data, dtype=np.dtype(f"<i{width}"), count=n, offset=array.offset * width)
    return values if width == 8 else values.astype(np.int64)


class Bytes:
    """A binary or string array's offsets into its data buffer, the buffer, and its validity bitmap (empty
    when every row is valid) with the bit of its first row."""

    def __init__(self, array: pa.Array):
        n = len(array)
        validity, offsets, data = array.buffers()[:3]
        self.offsets = np.frombuffer(offsets, dtype=np.int32, count=n + 1, offset=array.offset * 4)
        self.data = np.frombuffer(data, dtype=np.uint8) if data is not None else EMPTY
        self.bitmap = np.frombuffer(validity, dtype=np.uint8) if validity is not None and array.null_count else EMPTY
        self.bit = array.offset
        self.total = int(self.offsets[-1] - self.offsets[0])
        self.rows = n


@dataclass
class RecordColumns:
    """A run's record columns (`kafkalog.fast.columns.SCHEMA`'s offset, timestamp, sequence, key, value
    and headers) as the line writers read them."""

    rows: int
    offset: np.ndarray
    timestamp: np.ndarray
    sequence: np.ndarray
    key: Bytes
    value: Bytes
    #: Where each row's headers start in `header_key` and `header_value` (rows + 1 positions).
    header_starts: np.ndarray
    header_key: Bytes
    header_value: Bytes

    @classmethod
    def of(cls, table: pa.Table | pa.RecordBatch) -> RecordColumns:
        n = table.num_rows
        lists = one_array(table.column("headers"))
        starts = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=n + 1, offset=lists.offset * 4)
        return cls(n, ints(table.column("offset")), ints(table.column("timestamp")), ints(table.column("sequence")),
                   Bytes(one_array(table.column("key"))), Bytes(one_array(table.column("value"))), starts,
                   Bytes(lists.values.field("key")), Bytes(lists.values.field("value")))

    @property
    def headers(self) -> int:
        return int(self.header_starts[-1] - self.header_starts[0])


def chunks(table: pa.Table) -> list[pa.RecordBatch]:
    """A table's rows as record batches, each column's chunks cut alike (views: the chunks are not combined, which
    would copy every key and value)."""
    return [b for b in table.to_batches() if b.num_rows]


def record_chunks(table: pa.Table) -> list[RecordColumns]:
    """`RecordColumns` of each of a table's `chunks`, in order."""
    return [RecordColumns.of(b) for b in chunks(table)]


def starts_of(rows: int) -> np.ndarray:
    """Where each of `rows` lines starts, and where the last ends: filled by the writers."""
    return np.zeros(rows + 1, dtype=np.int64)


def text_of(text: object) -> np.ndarray:
    """The bytes of a writer's `Block` as a numpy array (a view: no copy)."""
    return np.frombuffer(text, dtype=np.uint8)  # type: ignore[call-overload]  # (a buffer)
