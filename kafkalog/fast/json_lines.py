"""`kafkalog dump --format json`'s record lines, written for a whole batch at once by a compiled loop.

Twin: `kafkalog.dump.records.record_json` with `dumps`, which writes one record at a time through
Python's `json` module and stays the reference: the lines here are the same bytes (ASCII, with
Python's `\\u` escapes and separators), which the tests check on every fixture. The records come as
the fast path's Arrow columns (`kafkalog.log.record_list.TableRecords.table`), never as objects.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pyarrow as pa

from kafkalog.fast import jit
from kafkalog.fast.line_parts import (
    EMPTY,
    Bytes,
    RecordColumns,
    is_valid,
    next_code_point,
    one_array,
    put,
    put_hex,
    put_int,
)

jit.configure()

_B64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)

# The constant parts of a line, as Python's json.dumps(..., separators=(",", ":")) writes them.
_OPEN = np.frombuffer(b'{"type":"record","offset":', dtype=np.uint8)
_TIMESTAMP = np.frombuffer(b',"timestamp":', dtype=np.uint8)
_SEQUENCE = np.frombuffer(b',"sequence":', dtype=np.uint8)
_KEY = np.frombuffer(b',"key":', dtype=np.uint8)
_VALUE = np.frombuffer(b',"value":', dtype=np.uint8)
_HEADERS = np.frombuffer(b',"headers":[', dtype=np.uint8)
_CONTROL = np.frombuffer(b'],"control_type":', dtype=np.uint8)
_NULL = np.frombuffer(b"null", dtype=np.uint8)
_CLOSE = np.frombuffer(b"}\n", dtype=np.uint8)
_FIXED = sum(len(p) for p in (_OPEN, _TIMESTAMP, _SEQUENCE, _KEY, _VALUE, _HEADERS, _CONTROL, _CLOSE))


def record_lines(table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The JSON line of every row of `table` (columns offset, timestamp, sequence, key, value, headers and
    control_type of `kafkalog.fast.columns.SCHEMA`) as ASCII bytes, each ending in a newline, and where each
    line starts (n + 1 positions: row i is text[starts[i]:starts[i + 1]])."""
    n = table.num_rows
    starts = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return EMPTY, starts
    c = RecordColumns.of(table)
    control = Bytes(one_array(table.column("control_type")))
    # Worst case: 20 characters an integer, base64's 4 per 3 bytes (and padding), 12 per 4-byte character
    # of a header key (6 per control character), the quotes and nulls.
    size = (n * (_FIXED + 3 * 20 + 12) + _b64_size(c.key) + _b64_size(c.value) + 6 * control.total
            + c.headers * 16 + 6 * c.header_key.total + _b64_size(c.header_value))
    out = np.empty(size, dtype=np.uint8)
    used = _write(out, starts, c.offset, c.timestamp, c.sequence, c.key.offsets, c.key.data, c.key.bitmap, c.key.bit,
                  c.value.offsets, c.value.data, c.value.bitmap, c.value.bit, control.offsets, control.data,
                  control.bitmap, control.bit, c.header_starts, c.header_key.offsets, c.header_key.data,
                  c.header_value.offsets, c.header_value.data, c.header_value.bitmap, c.header_value.bit)
    return out[:used], starts


def _b64_size(b: Bytes) -> int:
    return 4 * (b.total // 3) + 4 * b.rows


@nb.njit(cache=True, nogil=True, inline="always")
def _b64(out, p, data, a, b):
    """data[a:b] as standard base64 with padding, in quotes."""
    out[p] = 34
    p += 1
    i = a
    while i + 3 <= b:
        x = (np.uint32(data[i]) << 16) | (np.uint32(data[i + 1]) << 8) | np.uint32(data[i + 2])
        out[p] = _B64[x >> 18]
        out[p + 1] = _B64[(x >> 12) & 63]
        out[p + 2] = _B64[(x >> 6) & 63]
        out[p + 3] = _B64[x & 63]
        p += 4
        i += 3
    rest = b - i
    if rest == 1:
        x = np.uint32(data[i]) << 16
        out[p] = _B64[x >> 18]
        out[p + 1] = _B64[(x >> 12) & 63]
        out[p + 2] = 61
        out[p + 3] = 61
        p += 4
    elif rest == 2:
        x = (np.uint32(data[i]) << 16) | (np.uint32(data[i + 1]) << 8)
        out[p] = _B64[x >> 18]
        out[p + 1] = _B64[(x >> 12) & 63]
        out[p + 2] = _B64[(x >> 6) & 63]
        out[p + 3] = 61
        p += 4
    out[p] = 34
    return p + 1


@nb.njit(cache=True, nogil=True, inline="always")
def _string(out, p, data, a, b):
    """UTF-8 text data[a:b] as a JSON string in ASCII, escaped as Python's json.dumps(ensure_ascii=True)."""
    out[p] = 34
    p += 1
    i = a
    while i < b:
        c, n, _ok = next_code_point(data, i, b)  # (Arrow strings are UTF-8: ok)
        i += n
        if c == 34 or c == 92:  # '"' and '\'
            out[p] = 92
            out[p + 1] = c
            p += 2
        elif 0x20 <= c <= 0x7E:
            out[p] = c
            p += 1
        elif c == 8 or c == 9 or c == 10 or c == 12 or c == 13:
            out[p] = 92
            out[p + 1] = (98 if c == 8 else 116 if c == 9 else 110 if c == 10 else 102 if c == 12 else 114)
            p += 2
        elif c < 0x10000:
            p = put_hex(out, p, c, 4, 117)
        else:
            c -= 0x10000
            p = put_hex(out, p, 0xD800 | ((c >> 10) & 0x3FF), 4, 117)
            p = put_hex(out, p, 0xDC00 | (c & 0x3FF), 4, 117)
    out[p] = 34
    return p + 1


@nb.njit(cache=True, nogil=True)
def _write(out, starts, offset, timestamp, sequence, k_off, k_data, k_map, k_bit, v_off, v_data, v_map, v_bit,
           c_off, c_data, c_map, c_bit, list_off, hk_off, hk_data, hv_off, hv_data, hv_map, hv_bit):
    p = 0
    for r in range(len(offset)):
        starts[r] = p
        p = put(out, p, _OPEN)
        p = put_int(out, p, offset[r])
        p = put(out, p, _TIMESTAMP)
        p = put_int(out, p, timestamp[r])
        p = put(out, p, _SEQUENCE)
        p = put_int(out, p, sequence[r])
        p = put(out, p, _KEY)
        if is_valid(k_map, k_bit, r):
            p = _b64(out, p, k_data, k_off[r], k_off[r + 1])
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _VALUE)
        if is_valid(v_map, v_bit, r):
            p = _b64(out, p, v_data, v_off[r], v_off[r + 1])
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _HEADERS)
        for h in range(list_off[r], list_off[r + 1]):
            if h > list_off[r]:
                out[p] = 44  # ','
                p += 1
            out[p] = 91  # '['
            p = _string(out, p + 1, hk_data, hk_off[h], hk_off[h + 1])
            out[p] = 44
            p += 1
            if is_valid(hv_map, hv_bit, h):
                p = _b64(out, p, hv_data, hv_off[h], hv_off[h + 1])
            else:
                p = put(out, p, _NULL)
            out[p] = 93  # ']'
            p += 1
        p = put(out, p, _CONTROL)
        if is_valid(c_map, c_bit, r):
            p = _string(out, p, c_data, c_off[r], c_off[r + 1])
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _CLOSE)
    starts[len(offset)] = p
    return p
