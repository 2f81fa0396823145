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

jit.configure()

_B64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_EMPTY = np.empty(0, dtype=np.uint8)

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
        return _EMPTY, starts
    offset = ints(table.column("offset"))
    timestamp = ints(table.column("timestamp"))
    sequence = ints(table.column("sequence"))
    key = Bytes(one_array(table.column("key")))
    value = Bytes(one_array(table.column("value")))
    control = Bytes(one_array(table.column("control_type")))
    lists = one_array(table.column("headers"))
    list_offsets = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=n + 1, offset=lists.offset * 4)
    flat = lists.values
    h_key = Bytes(flat.field("key"))
    h_value = Bytes(flat.field("value"))
    headers = int(list_offsets[-1] - list_offsets[0])
    # Worst case: 20 characters an integer, base64's 4 per 3 bytes (and padding), 12 per 4-byte character
    # of a header key (6 per control character), the quotes and nulls.
    size = (n * (_FIXED + 3 * 20 + 12) + _b64_size(key) + _b64_size(value) + 6 * control.total
            + headers * 16 + 6 * h_key.total + _b64_size(h_value))
    out = np.empty(size, dtype=np.uint8)
    used = _write(out, starts, offset, timestamp, sequence, key.offsets, key.data, key.bitmap, key.bit,
                  value.offsets, value.data, value.bitmap, value.bit, control.offsets, control.data,
                  control.bitmap, control.bit, list_offsets, h_key.offsets, h_key.data, h_value.offsets,
                  h_value.data, h_value.bitmap, h_value.bit)
    return out[:used], starts


def one_array(column: pa.ChunkedArray) -> pa.Array:
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def ints(column: pa.ChunkedArray) -> np.ndarray:
    array = one_array(column)
    if array.null_count:  # rows no line is printed for (nothing is read from them): any number will do
        array = array.fill_null(0)
    return array.to_numpy().astype(np.int64, copy=False)


class Bytes:
    """A binary or string array's offsets into its data buffer, the buffer, and its validity bitmap (empty
    when every row is valid) with the bit of its first row."""

    def __init__(self, array: pa.Array):
        n = len(array)
        validity, offsets, data = array.buffers()[:3]
        self.offsets = np.frombuffer(offsets, dtype=np.int32, count=n + 1, offset=array.offset * 4)
        self.data = np.frombuffer(data, dtype=np.uint8) if data is not None else _EMPTY
        self.bitmap = np.frombuffer(validity, dtype=np.uint8) if validity is not None and array.null_count else _EMPTY
        self.bit = array.offset
        self.total = int(self.offsets[-1] - self.offsets[0])
        self.rows = n


def _b64_size(b: Bytes) -> int:
    return 4 * (b.total // 3) + 4 * b.rows


@nb.njit(cache=True, nogil=True, inline="always")
def put(out, p, part):
    for i in range(len(part)):
        out[p + i] = part[i]
    return p + len(part)


@nb.njit(cache=True, nogil=True, inline="always")
def put_int(out, p, v):
    """A decimal integer (int64, its minimum included)."""
    if v < 0:
        out[p] = 45  # '-'
        p += 1
        u = np.uint64(-(v + 1)) + np.uint64(1)
    else:
        u = np.uint64(v)
    digits = 1
    t = u
    while t >= 10:
        t //= np.uint64(10)
        digits += 1
    for i in range(digits - 1, -1, -1):
        out[p + i] = 48 + np.uint8(u % np.uint64(10))
        u //= np.uint64(10)
    return p + digits


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
def _u4(out, p, c):
    out[p] = 92  # '\'
    out[p + 1] = 117  # 'u'
    out[p + 2] = _HEX[(c >> 12) & 15]
    out[p + 3] = _HEX[(c >> 8) & 15]
    out[p + 4] = _HEX[(c >> 4) & 15]
    out[p + 5] = _HEX[c & 15]
    return p + 6


@nb.njit(cache=True, nogil=True, inline="always")
def _string(out, p, data, a, b):
    """UTF-8 text data[a:b] as a JSON string in ASCII, escaped as Python's json.dumps(ensure_ascii=True)."""
    out[p] = 34
    p += 1
    i = a
    while i < b:
        c = np.uint32(data[i])
        if c < 0x80:
            i += 1
        elif c < 0xE0:
            c = ((c & 0x1F) << 6) | (np.uint32(data[i + 1]) & 0x3F)
            i += 2
        elif c < 0xF0:
            c = ((c & 0x0F) << 12) | ((np.uint32(data[i + 1]) & 0x3F) << 6) | (np.uint32(data[i + 2]) & 0x3F)
            i += 3
        else:
            c = (((c & 0x07) << 18) | ((np.uint32(data[i + 1]) & 0x3F) << 12)
                 | ((np.uint32(data[i + 2]) & 0x3F) << 6) | (np.uint32(data[i + 3]) & 0x3F))
            i += 4
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
            p = _u4(out, p, c)
        else:
            c -= 0x10000
            p = _u4(out, p, 0xD800 | ((c >> 10) & 0x3FF))
            p = _u4(out, p, 0xDC00 | (c & 0x3FF))
    out[p] = 34
    return p + 1


@nb.njit(cache=True, nogil=True, inline="always")
def _valid(bitmap, bit, r):
    if len(bitmap) == 0:
        return True
    i = bit + r
    return (bitmap[i >> 3] >> (i & 7)) & 1 == 1


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
        if _valid(k_map, k_bit, r):
            p = _b64(out, p, k_data, k_off[r], k_off[r + 1])
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _VALUE)
        if _valid(v_map, v_bit, r):
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
            if _valid(hv_map, hv_bit, h):
                p = _b64(out, p, hv_data, hv_off[h], hv_off[h + 1])
            else:
                p = put(out, p, _NULL)
            out[p] = 93  # ']'
            p += 1
        p = put(out, p, _CONTROL)
        if _valid(c_map, c_bit, r):
            p = _string(out, p, c_data, c_off[r], c_off[r + 1])
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _CLOSE)
    starts[len(offset)] = p
    return p
