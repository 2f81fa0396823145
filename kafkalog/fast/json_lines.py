"""`kafkalog dump --format json`'s record lines, written for a whole run or a block of its rows at once by the
compiled writer (`kafkalog.fast.lines.json_records`, without the GIL).

Twin: `kafkalog.dump.records.record_json` with `dumps`, which writes one record at a time through
Python's `json` module and stays the reference: the lines here are the same bytes (ASCII, with
Python's `\\u` escapes and separators), which the tests check on every fixture. The records come as
the fast path's Arrow columns (`kafkalog.log.record_list.TableRecords.table`), never as objects.
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


def record_lines(table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The JSON line of every row of `table` (columns offset, timestamp, sequence, key, value, headers and
    control_type of `kafkalog.fast.columns.SCHEMA`) as ASCII bytes, each ending in a newline, and where each
    line starts (n + 1 positions: row i is text[starts[i]:starts[i + 1]])."""
    starts = starts_of(table.num_rows)
    if not table.num_rows:
        return EMPTY, starts
    return text_of(compiled.json_records(chunks(table), starts)), starts


def record_blocks(table: pa.Table, batches: BatchLines | None = None) -> BlockWriter:
    """`record_lines` of `table` a block of rows at a time (`line_parts.BlockWriter`), with the `batches`' lines
    among them: its columns gathered once."""
    return compiled.json_writer(chunks(table), batches)
