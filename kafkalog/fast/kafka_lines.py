"""`kafkalog dump --format kafka`'s record lines of v2 data batches and legacy messages, written by the compiled
writers (`kafkalog.fast.lines.kafka_records` and `kafka_legacy_records`, without the GIL).

Twin: `kafkalog.dump.kafka_dump_log.record_line`, which writes one record at a time in Python and
stays the reference (and writes every other line: control records, decoded internal topics). v2 lines
are written a run at a time (`record_lines`), a legacy entry's with each message's checksum
(`legacy_record_lines`). The lines here are the same text, as UTF-8 bytes: DumpLogSegments'
``| offset: ... keySize: ... valueSize: ... sequence: ... headerKeys: [...] key: ... payload: ...``,
keys and values decoded as Java's `new String(bytes, UTF_8)` decodes them (`kafkalog.javatext`), and
control characters escaped as `kafkalog.dump.records.escape` does.
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


def record_lines(table: pa.Table, timestamp_type: str) -> tuple[np.ndarray, np.ndarray]:
    """The line of every row of `table` (rows of v2 data batches whose timestamps are `timestamp_type`:
    columns offset, timestamp, sequence, key, value and headers of `kafkalog.fast.columns.SCHEMA`) as
    UTF-8, each ending in a newline, and where each line starts (n + 1 positions)."""
    starts = starts_of(table.num_rows)
    if not table.num_rows:
        return EMPTY, starts
    text = compiled.kafka_records(chunks(table), timestamp_type.encode("ascii"), starts)
    return text_of(text), starts


def record_blocks(table: pa.Table, timestamp_type: str, batches: BatchLines | None = None) -> BlockWriter:
    """`record_lines` of `table` a block of rows at a time (`line_parts.BlockWriter`), with the `batches`' lines
    among them: its columns gathered once."""
    return compiled.kafka_writer(chunks(table), timestamp_type.encode("ascii"), batches)


def legacy_record_lines(table: pa.Table, timestamp_type: str, crc: np.ndarray, valid: np.ndarray, brace: bool
                        ) -> np.ndarray:
    """The lines of the records of a magic 0 or 1 entry (rows of `table`: offset, timestamp, key and value),
    each with its message's (crc, isValid) and, for Kafka 3's tool, its stray brace (`brace`), as UTF-8."""
    if not table.num_rows:
        return EMPTY
    text = compiled.kafka_legacy_records(chunks(table), timestamp_type.encode("ascii"),
                                         np.ascontiguousarray(crc, dtype=np.int64),
                                         np.ascontiguousarray(valid, dtype=np.bool_).view(np.uint8), brace)
    return text_of(text)
