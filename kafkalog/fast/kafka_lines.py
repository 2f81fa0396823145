"""`kafkalog dump --format kafka`'s record lines of v2 data batches, written a run at a time by a compiled loop.

Twin: `kafkalog.dump.kafka_dump_log.record_line`, which writes one record at a time in Python and
stays the reference (and writes every other line: legacy messages with their checksums, control
records, decoded internal topics). The lines here are the same text, as UTF-8 bytes: DumpLogSegments'
``| offset: ... keySize: ... valueSize: ... sequence: ... headerKeys: [...] key: ... payload: ...``,
keys and values decoded as UTF-8 with U+FFFD for what is not (Python's "replace", which is Java's), and
control characters escaped as `kafkalog.dump.records.escape` does.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pyarrow as pa

from kafkalog.fast import jit
from kafkalog.fast.json_lines import Bytes, ints, one_array, put, put_int

jit.configure()

_OFFSET = np.frombuffer(b"| offset: ", dtype=np.uint8)
_KEY_SIZE = np.frombuffer(b" keySize: ", dtype=np.uint8)
_VALUE_SIZE = np.frombuffer(b" valueSize: ", dtype=np.uint8)
_SEQUENCE = np.frombuffer(b" sequence: ", dtype=np.uint8)
_HEADER_KEYS = np.frombuffer(b" headerKeys: [", dtype=np.uint8)
_KEY = np.frombuffer(b"] key: ", dtype=np.uint8)
_NO_KEY = np.frombuffer(b"]", dtype=np.uint8)
_PAYLOAD = np.frombuffer(b" payload: ", dtype=np.uint8)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_FIXED = sum(len(p) for p in (_OFFSET, _KEY_SIZE, _VALUE_SIZE, _SEQUENCE, _HEADER_KEYS, _KEY, _PAYLOAD)) + 4


def record_lines(table: pa.Table, timestamp_type: str) -> tuple[np.ndarray, np.ndarray]:
    """The line of every row of `table` (rows of v2 data batches whose timestamps are `timestamp_type`:
    columns offset, timestamp, sequence, key, value and headers of `kafkalog.fast.columns.SCHEMA`) as
    UTF-8, each ending in a newline, and where each line starts (n + 1 positions)."""
    n = table.num_rows
    starts = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return np.empty(0, dtype=np.uint8), starts
    offset = ints(table.column("offset"))
    timestamp = ints(table.column("timestamp"))
    sequence = ints(table.column("sequence"))
    ts_type = np.frombuffer(timestamp_type.encode("ascii"), dtype=np.uint8)
    key = Bytes(one_array(table.column("key")))
    value = Bytes(one_array(table.column("value")))
    lists = one_array(table.column("headers"))
    list_offsets = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=n + 1, offset=lists.offset * 4)
    h_key = Bytes(lists.values.field("key"))
    headers = int(list_offsets[-1] - list_offsets[0])
    # Worst case: 20 characters an integer, 4 bytes a byte of text (an escape), the timestamp type's name.
    size = n * (_FIXED + 5 * 20 + len(ts_type)) + 4 * (key.total + value.total + h_key.total) + headers
    out = np.empty(size, dtype=np.uint8)
    _write(out, starts, offset, timestamp, sequence, ts_type, key.offsets, key.data,
           key.bitmap, key.bit, value.offsets, value.data, value.bitmap, value.bit, list_offsets, h_key.offsets,
           h_key.data)
    return out[:starts[n]], starts


@nb.njit(cache=True, nogil=True, inline="always")
def put_escaped(out, p, c):
    """Code point c as UTF-8, control characters as `kafkalog.dump.records.escape` writes them."""
    if c < 0x20 or 0x7F <= c < 0xA0:
        out[p] = 92  # '\'
        if c == 10 or c == 13 or c == 9:
            out[p + 1] = 110 if c == 10 else 114 if c == 13 else 116
            return p + 2
        out[p + 1] = 120  # 'x'
        out[p + 2] = _HEX[c >> 4]
        out[p + 3] = _HEX[c & 15]
        return p + 4
    if c < 0x80:
        out[p] = c
        return p + 1
    if c < 0x800:
        out[p] = 0xC0 | (c >> 6)
        out[p + 1] = 0x80 | (c & 0x3F)
        return p + 2
    if c < 0x10000:
        out[p] = 0xE0 | (c >> 12)
        out[p + 1] = 0x80 | ((c >> 6) & 0x3F)
        out[p + 2] = 0x80 | (c & 0x3F)
        return p + 3
    out[p] = 0xF0 | (c >> 18)
    out[p + 1] = 0x80 | ((c >> 12) & 0x3F)
    out[p + 2] = 0x80 | ((c >> 6) & 0x3F)
    out[p + 3] = 0x80 | (c & 0x3F)
    return p + 4


@nb.njit(cache=True, nogil=True, inline="always")
def escaped_text(out, p, data, i, end):
    """data[i:end] decoded as UTF-8 with U+FFFD for each maximal invalid subpart (Python's "replace"),
    escaped."""
    while i < end:
        b = np.uint32(data[i])
        if b < 0x80:
            p = put_escaped(out, p, b)
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= b <= 0xDF:
            n = 1
        elif b == 0xE0:
            n, lo = 2, 0xA0
        elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
            n = 2
        elif b == 0xED:
            n, hi = 2, 0x9F
        elif b == 0xF0:
            n, lo = 3, 0x90
        elif 0xF1 <= b <= 0xF3:
            n = 3
        elif b == 0xF4:
            n, hi = 3, 0x8F
        else:
            n = 0
        good = 0  # continuation bytes that fit
        c = b & (0x1F if n == 1 else 0x0F if n == 2 else 0x07)
        while good < n and i + 1 + good < end:
            x = np.uint32(data[i + 1 + good])
            if good == 0 and (x < lo or x > hi) or good > 0 and (x < 0x80 or x > 0xBF):
                break
            c = (c << 6) | (x & 0x3F)
            good += 1
        if n > 0 and good == n:
            p = put_escaped(out, p, c)
        else:
            p = put_escaped(out, p, np.uint32(0xFFFD))
        i += 1 + good
    return p


@nb.njit(cache=True, nogil=True, inline="always")
def is_valid(bitmap, bit, r):
    if len(bitmap) == 0:
        return True
    i = bit + r
    return (bitmap[i >> 3] >> (i & 7)) & 1 == 1


@nb.njit(cache=True, nogil=True)
def _write(out, starts, offset, timestamp, sequence, ts_type, k_off, k_data, k_map, k_bit, v_off, v_data,
           v_map, v_bit, list_off, hk_off, hk_data):
    p = 0
    for r in range(len(offset)):
        starts[r] = p
        p = put(out, p, _OFFSET)
        p = put_int(out, p, offset[r])
        out[p] = 32
        p += 1
        p = put(out, p, ts_type)
        out[p] = 58  # ':'
        out[p + 1] = 32
        p = put_int(out, p + 2, timestamp[r])
        has_key = is_valid(k_map, k_bit, r)
        has_value = is_valid(v_map, v_bit, r)
        p = put(out, p, _KEY_SIZE)
        p = put_int(out, p, k_off[r + 1] - k_off[r] if has_key else -1)
        p = put(out, p, _VALUE_SIZE)
        p = put_int(out, p, v_off[r + 1] - v_off[r] if has_value else -1)
        p = put(out, p, _SEQUENCE)
        p = put_int(out, p, sequence[r])
        p = put(out, p, _HEADER_KEYS)
        for h in range(list_off[r], list_off[r + 1]):
            if h > list_off[r]:
                out[p] = 44  # ','
                p += 1
            p = escaped_text(out, p, hk_data, hk_off[h], hk_off[h + 1])
        if has_key:
            p = put(out, p, _KEY)
            p = escaped_text(out, p, k_data, k_off[r], k_off[r + 1])
        else:
            p = put(out, p, _NO_KEY)
        if has_value:
            p = put(out, p, _PAYLOAD)
            p = escaped_text(out, p, v_data, v_off[r], v_off[r + 1])
        out[p] = 10
        p += 1
    starts[len(offset)] = p
