"""`kafkalog dump --format kafka`'s record lines of v2 data batches and legacy messages, written by a compiled loop.

Twin: `kafkalog.dump.kafka_dump_log.record_line`, which writes one record at a time in Python and
stays the reference (and writes every other line: control records, decoded internal topics). v2 lines
are written a run at a time (`record_lines`), a legacy entry's with each message's checksum
(`legacy_record_lines`). The lines here are the same text, as UTF-8 bytes: DumpLogSegments'
``| offset: ... keySize: ... valueSize: ... sequence: ... headerKeys: [...] key: ... payload: ...``,
keys and values decoded as Java's `new String(bytes, UTF_8)` decodes them (`kafkalog.javatext`), and
control characters escaped as `kafkalog.dump.records.escape` does.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pyarrow as pa

from kafkalog.fast import jit
from kafkalog.fast.line_parts import RecordColumns, is_valid, put, put_escaped_text, put_int

jit.configure()

_OFFSET = np.frombuffer(b"| offset: ", dtype=np.uint8)
_KEY_SIZE = np.frombuffer(b" keySize: ", dtype=np.uint8)
_VALUE_SIZE = np.frombuffer(b" valueSize: ", dtype=np.uint8)
_SEQUENCE = np.frombuffer(b" sequence: ", dtype=np.uint8)
_HEADER_KEYS = np.frombuffer(b" headerKeys: [", dtype=np.uint8)
_KEY = np.frombuffer(b"] key: ", dtype=np.uint8)
_NO_KEY = np.frombuffer(b"]", dtype=np.uint8)
_PAYLOAD = np.frombuffer(b" payload: ", dtype=np.uint8)
_IS_VALID = np.frombuffer(b" isValid: ", dtype=np.uint8)
_CRC = np.frombuffer(b" crc: ", dtype=np.uint8)
_TRUE = np.frombuffer(b"true", dtype=np.uint8)
_FALSE = np.frombuffer(b"false", dtype=np.uint8)
_LEGACY_KEY = np.frombuffer(b" key: ", dtype=np.uint8)
_FIXED = sum(len(p) for p in (_OFFSET, _KEY_SIZE, _VALUE_SIZE, _SEQUENCE, _HEADER_KEYS, _KEY, _PAYLOAD)) + 4


def record_lines(table: pa.Table, timestamp_type: str) -> tuple[np.ndarray, np.ndarray]:
    """The line of every row of `table` (rows of v2 data batches whose timestamps are `timestamp_type`:
    columns offset, timestamp, sequence, key, value and headers of `kafkalog.fast.columns.SCHEMA`) as
    UTF-8, each ending in a newline, and where each line starts (n + 1 positions)."""
    n = table.num_rows
    starts = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return np.empty(0, dtype=np.uint8), starts
    c = RecordColumns.of(table)
    ts_type = np.frombuffer(timestamp_type.encode("ascii"), dtype=np.uint8)
    # Worst case: 20 characters an integer, 4 bytes a byte of text (an escape), the timestamp type's name.
    size = (n * (_FIXED + 5 * 20 + len(ts_type)) + 4 * (c.key.total + c.value.total + c.header_key.total)
            + c.headers)
    out = np.empty(size, dtype=np.uint8)
    _write(out, starts, c.offset, c.timestamp, c.sequence, ts_type, c.key.offsets, c.key.data, c.key.bitmap,
           c.key.bit, c.value.offsets, c.value.data, c.value.bitmap, c.value.bit, c.header_starts,
           c.header_key.offsets, c.header_key.data)
    return out[:starts[n]], starts


@nb.njit(cache=True, nogil=True, inline="always")
def _put_start(out, p, offset, ts_type, timestamp, key_size, value_size):
    """What every record line starts with: `| offset: O <type>: T keySize: K valueSize: V`."""
    p = put(out, p, _OFFSET)
    p = put_int(out, p, offset)
    out[p] = 32
    p += 1
    p = put(out, p, ts_type)
    out[p] = 58  # ':'
    out[p + 1] = 32
    p = put_int(out, p + 2, timestamp)
    p = put(out, p, _KEY_SIZE)
    p = put_int(out, p, key_size)
    p = put(out, p, _VALUE_SIZE)
    return put_int(out, p, value_size)


@nb.njit(cache=True, nogil=True)
def _write(out, starts, offset, timestamp, sequence, ts_type, k_off, k_data, k_map, k_bit, v_off, v_data,
           v_map, v_bit, list_off, hk_off, hk_data):
    p = 0
    for r in range(len(offset)):
        starts[r] = p
        has_key = is_valid(k_map, k_bit, r)
        has_value = is_valid(v_map, v_bit, r)
        p = _put_start(out, p, offset[r], ts_type, timestamp[r], k_off[r + 1] - k_off[r] if has_key else -1,
                       v_off[r + 1] - v_off[r] if has_value else -1)
        p = put(out, p, _SEQUENCE)
        p = put_int(out, p, sequence[r])
        p = put(out, p, _HEADER_KEYS)
        for h in range(list_off[r], list_off[r + 1]):
            if h > list_off[r]:
                out[p] = 44  # ','
                p += 1
            p = put_escaped_text(out, p, hk_data, hk_off[h], hk_off[h + 1])
        if has_key:
            p = put(out, p, _KEY)
            p = put_escaped_text(out, p, k_data, k_off[r], k_off[r + 1])
        else:
            p = put(out, p, _NO_KEY)
        if has_value:
            p = put(out, p, _PAYLOAD)
            p = put_escaped_text(out, p, v_data, v_off[r], v_off[r + 1])
        out[p] = 10
        p += 1
    starts[len(offset)] = p


def legacy_record_lines(table: pa.Table, timestamp_type: str, crc: np.ndarray, valid: np.ndarray, brace: bool
                        ) -> np.ndarray:
    """The lines of the records of a magic 0 or 1 entry (rows of `table`: offset, timestamp, key and value),
    each with its message's (crc, isValid) and, for Kafka 3's tool, its stray brace (`brace`), as UTF-8."""
    n = table.num_rows
    if n == 0:
        return np.empty(0, dtype=np.uint8)
    c = RecordColumns.of(table)
    ts_type = np.frombuffer(timestamp_type.encode("ascii"), dtype=np.uint8)
    size = n * (_FIXED + len(_IS_VALID) + len(_CRC) + 5 + 1 + 4 * 20 + len(ts_type)) + 4 * (c.key.total + c.value.total)
    out = np.empty(size, dtype=np.uint8)
    used = _write_legacy(out, c.offset, c.timestamp, ts_type, c.key.offsets, c.key.data, c.key.bitmap, c.key.bit,
                         c.value.offsets, c.value.data, c.value.bitmap, c.value.bit,
                         np.ascontiguousarray(crc, dtype=np.int64), np.ascontiguousarray(valid, dtype=np.bool_), brace)
    return out[:used]


@nb.njit(cache=True, nogil=True)
def _write_legacy(out, offset, timestamp, ts_type, k_off, k_data, k_map, k_bit, v_off, v_data, v_map, v_bit, crc,
                  valid, brace):
    p = 0
    for r in range(len(offset)):
        has_key = is_valid(k_map, k_bit, r)
        has_value = is_valid(v_map, v_bit, r)
        p = _put_start(out, p, offset[r], ts_type, timestamp[r], k_off[r + 1] - k_off[r] if has_key else -1,
                       v_off[r + 1] - v_off[r] if has_value else -1)
        p = put(out, p, _IS_VALID)
        p = put(out, p, _TRUE if valid[r] else _FALSE)
        p = put(out, p, _CRC)
        p = put_int(out, p, crc[r])
        if brace:
            out[p] = 125  # '}'
            p += 1
        if has_key:
            p = put(out, p, _LEGACY_KEY)
            p = put_escaped_text(out, p, k_data, k_off[r], k_off[r + 1])
        if has_value:
            p = put(out, p, _PAYLOAD)
            p = put_escaped_text(out, p, v_data, v_off[r], v_off[r + 1])
        out[p] = 10
        p += 1
    return p

