"""What `kafkalog dump`'s compiled line writers (`kafkalog.fast.lines`, Cython, built at install) read: a run's table as
Arrow record batches (`chunks`, whose columns the writers read in place through Arrow's C data interface), its batch
lines (`BatchLines`), and whether the writers were compiled (`AVAILABLE`).

The Python sides of the writers (`kafkalog.fast.json_lines`, `text_lines`, `kafka_lines`, `batch_lines`) cut a run's
table here and make the compiled module's writer of a run (`BlockWriter`), which writes a block of rows a call.
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
    `lines.next_block(writer, bytes, most rows)` writes its blocks one after the other, each a view)."""

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


def chunks(table: pa.Table) -> list[pa.RecordBatch]:
    """A table's rows as record batches, each column's chunks cut alike (views: the chunks are not combined, which
    would copy every key and value)."""
    return [b for b in table.to_batches() if b.num_rows]


def starts_of(rows: int) -> np.ndarray:
    """Where each of `rows` lines starts, and where the last ends: filled by the writers."""
    return np.zeros(rows + 1, dtype=np.int64)


def text_of(text: object) -> np.ndarray:
    """The bytes of a writer's `Block` as a numpy array (a view: no copy)."""
    return np.frombuffer(text, dtype=np.uint8)  # type: ignore[call-overload]  # (a buffer)
