"""`kafkalog dump`'s text record lines of data batches, written a run at a time by the compiled writer
(`kafkalog.fast.lines.text_records`, without the GIL).

Twin: `kafkalog.dump.records.record_text`, which writes one record at a time in Python and stays the
reference (and writes control records). The lines here are the same text, as UTF-8 bytes:
``| offset: ... timestamp: ... [sequence: ...] key: ... value: ... [headers: k=v, ...]``, where a key,
value or header value is Python's `repr` of its bytes decoded as UTF-8 with "backslashreplace", cut at
40 bytes (20 for a header value) unless the whole is asked for, and a header key is escaped as
`kafkalog.dump.records.escape` does. `repr` leaves the characters Python calls printable as they are;
which they are, the writer asks CPython itself (`Py_UNICODE_ISPRINTABLE`, what `str.isprintable` calls).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from kafkalog.fast.line_parts import (
    EMPTY,
    BatchLines,
    BlockWriter,
    chunks,
    compiled,
    starts_of,
    text_of,
)

KEY_LIMIT, HEADER_LIMIT = 40, 20


def record_lines(table: pa.Table, full: bool) -> tuple[np.ndarray, np.ndarray]:
    """The line of every row of `table` (rows of data batches: columns offset, timestamp, sequence, key,
    value and headers of `kafkalog.fast.columns.SCHEMA`) as UTF-8, each ending in a newline, and where
    each line starts (n + 1 positions). `full`: keys and values whole, not cut."""
    starts = starts_of(table.num_rows)
    if not table.num_rows:
        return EMPTY, starts
    limit, header_limit = (-1, -1) if full else (KEY_LIMIT, HEADER_LIMIT)
    text = compiled.text_records(chunks(table), limit, header_limit, starts)
    return text_of(text), starts


def record_blocks(table: pa.Table, full: bool, batches: BatchLines | None = None) -> BlockWriter:
    """`record_lines` of `table` a block of rows at a time (`line_parts.BlockWriter`), with the `batches`' lines
    among them: its columns gathered once."""
    limit, header_limit = (-1, -1) if full else (KEY_LIMIT, HEADER_LIMIT)
    return compiled.text_writer(chunks(table), limit, header_limit, batches)
