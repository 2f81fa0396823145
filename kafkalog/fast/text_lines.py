"""`kafkalog dump`'s text record lines of data batches, written a run at a time by a compiled loop.

Twin: `kafkalog.dump.records.record_text`, which writes one record at a time in Python and stays the
reference (and writes control records). The lines here are the same text, as UTF-8 bytes:
``| offset: ... timestamp: ... [sequence: ...] key: ... value: ... [headers: k=v, ...]``, where a key,
value or header value is Python's `repr` of its bytes decoded as UTF-8 with "backslashreplace", cut at
40 bytes (20 for a header value) unless the whole is asked for, and a header key is escaped as
`kafkalog.dump.records.escape` does. `repr` leaves the characters Python calls printable as they are;
which they are comes from `str.isprintable` itself, a table made once per process and only when a
line holds a byte outside ASCII.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pyarrow as pa

from kafkalog.fast import jit
from kafkalog.fast.json_lines import Bytes, ints, one_array, put, put_int
from kafkalog.fast.kafka_lines import escaped_text, is_valid

jit.configure()

_OFFSET = np.frombuffer(b"| offset: ", dtype=np.uint8)
_TIMESTAMP = np.frombuffer(b" timestamp: ", dtype=np.uint8)
_SEQUENCE = np.frombuffer(b" sequence: ", dtype=np.uint8)
_KEY = np.frombuffer(b" key: ", dtype=np.uint8)
_VALUE = np.frombuffer(b" value: ", dtype=np.uint8)
_HEADERS = np.frombuffer(b" headers: ", dtype=np.uint8)
_NULL = np.frombuffer(b"null", dtype=np.uint8)
_MORE = np.frombuffer("…".encode(), dtype=np.uint8)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_FIXED = sum(len(p) for p in (_OFFSET, _TIMESTAMP, _SEQUENCE, _KEY, _VALUE, _HEADERS)) + 2 * (2 + len(_MORE)) + 1
#: Which code points `str.isprintable` calls printable; made on first need (`_printable`).
_PRINTABLE: np.ndarray | None = None
_ASCII_ONLY = np.zeros(0, dtype=np.bool_)

KEY_LIMIT, HEADER_LIMIT = 40, 20


def record_lines(table: pa.Table, full: bool) -> tuple[np.ndarray, np.ndarray]:
    """The line of every row of `table` (rows of data batches: columns offset, timestamp, sequence, key,
    value and headers of `kafkalog.fast.columns.SCHEMA`) as UTF-8, each ending in a newline, and where
    each line starts (n + 1 positions). `full`: keys and values whole, not cut."""
    n = table.num_rows
    starts = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return np.empty(0, dtype=np.uint8), starts
    offset = ints(table.column("offset"))
    timestamp = ints(table.column("timestamp"))
    sequence = ints(table.column("sequence"))
    key = Bytes(one_array(table.column("key")))
    value = Bytes(one_array(table.column("value")))
    lists = one_array(table.column("headers"))
    list_offsets = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=n + 1, offset=lists.offset * 4)
    h_key = Bytes(lists.values.field("key"))
    h_value = Bytes(lists.values.field("value"))
    headers = int(list_offsets[-1] - list_offsets[0])
    ascii_only = not any((b.data[b.offsets[0]:b.offsets[-1]] >= 0x80).any() for b in (key, value, h_key, h_value))
    printable = _ASCII_ONLY if ascii_only else _printable()
    # Worst case: 20 characters an integer, 10 for a byte (\\U0010ffff of a 4-byte character: 2.5 a byte;
    # a byte that is not UTF-8: 5), quotes and the cut mark.
    size = (n * (_FIXED + 3 * 20) + 5 * (key.total + value.total + h_value.total) + 4 * h_key.total
            + headers * (6 + len(_MORE)))
    out = np.empty(size, dtype=np.uint8)
    limit, h_limit = (-1, -1) if full else (KEY_LIMIT, HEADER_LIMIT)
    _write(out, starts, offset, timestamp, sequence, key.offsets, key.data, key.bitmap, key.bit, value.offsets,
           value.data, value.bitmap, value.bit, list_offsets, h_key.offsets, h_key.data, h_value.offsets,
           h_value.data, h_value.bitmap, h_value.bit, limit, h_limit, printable)
    return out[:starts[n]], starts


def _printable() -> np.ndarray:
    global _PRINTABLE
    if _PRINTABLE is None:
        _PRINTABLE = np.fromiter((chr(c).isprintable() for c in range(0x110000)), dtype=np.bool_, count=0x110000)
    return _PRINTABLE


@nb.njit(cache=True, nogil=True, inline="always")
def _hex_escape(out, p, c, digits, letter):
    """A backslash, `letter` (x, u or U) and c in `digits` lowercase hex digits."""
    out[p] = 92
    out[p + 1] = letter
    for i in range(digits):
        out[p + 2 + i] = _HEX[(c >> (4 * (digits - 1 - i))) & 15]
    return p + 2 + digits


@nb.njit(cache=True, nogil=True, inline="always")
def _utf8(out, p, c):
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
def _preview(out, p, data, a, b, limit, printable):
    """repr(data[a:b][:limit].decode("utf-8", "backslashreplace")), and "…" when it was cut."""
    end = b if limit < 0 or b - a <= limit else a + limit
    single = False
    double = False
    for i in range(a, end):
        single |= data[i] == 39
        double |= data[i] == 34
    quote = 34 if single and not double else 39
    out[p] = quote
    p += 1
    i = a
    while i < end:
        c = np.uint32(data[i])
        if c < 0x80:
            if c == quote or c == 92:
                out[p] = 92
                out[p + 1] = c
                p += 2
            elif c == 9 or c == 10 or c == 13:
                out[p] = 92
                out[p + 1] = 116 if c == 9 else 110 if c == 10 else 114
                p += 2
            elif c < 0x20 or c == 0x7F:
                p = _hex_escape(out, p, c, 2, 120)
            else:
                out[p] = c
                p += 1
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            n = 1
        elif c == 0xE0:
            n, lo = 2, 0xA0
        elif 0xE1 <= c <= 0xEC or c == 0xEE or c == 0xEF:
            n = 2
        elif c == 0xED:
            n, hi = 2, 0x9F
        elif c == 0xF0:
            n, lo = 3, 0x90
        elif 0xF1 <= c <= 0xF3:
            n = 3
        elif c == 0xF4:
            n, hi = 3, 0x8F
        else:
            n = 0
        good = 0
        cp = c & (0x1F if n == 1 else 0x0F if n == 2 else 0x07)
        while good < n and i + 1 + good < end:
            x = np.uint32(data[i + 1 + good])
            if good == 0 and (x < lo or x > hi) or good > 0 and (x < 0x80 or x > 0xBF):
                break
            cp = (cp << 6) | (x & 0x3F)
            good += 1
        if n > 0 and good == n:
            if printable[cp]:
                p = _utf8(out, p, cp)
            elif cp <= 0xFF:
                p = _hex_escape(out, p, cp, 2, 120)
            elif cp <= 0xFFFF:
                p = _hex_escape(out, p, cp, 4, 117)
            else:
                p = _hex_escape(out, p, cp, 8, 85)
            i += 1 + good
        else:
            # backslashreplace writes each byte of the bad sequence as \xNN; repr doubles the backslash
            for j in range(i, i + 1 + good):
                out[p] = 92
                p = _hex_escape(out, p + 1, np.uint32(data[j]), 2, 120)
            i += 1 + good
    out[p] = quote
    p += 1
    if end < b:
        p = put(out, p, _MORE)
    return p


@nb.njit(cache=True, nogil=True)
def _write(out, starts, offset, timestamp, sequence, k_off, k_data, k_map, k_bit, v_off, v_data, v_map, v_bit,
           list_off, hk_off, hk_data, hv_off, hv_data, hv_map, hv_bit, limit, h_limit, printable):
    p = 0
    for r in range(len(offset)):
        starts[r] = p
        p = put(out, p, _OFFSET)
        p = put_int(out, p, offset[r])
        p = put(out, p, _TIMESTAMP)
        p = put_int(out, p, timestamp[r])
        if sequence[r] != -1:
            p = put(out, p, _SEQUENCE)
            p = put_int(out, p, sequence[r])
        p = put(out, p, _KEY)
        if is_valid(k_map, k_bit, r):
            p = _preview(out, p, k_data, k_off[r], k_off[r + 1], limit, printable)
        else:
            p = put(out, p, _NULL)
        p = put(out, p, _VALUE)
        if is_valid(v_map, v_bit, r):
            p = _preview(out, p, v_data, v_off[r], v_off[r + 1], limit, printable)
        else:
            p = put(out, p, _NULL)
        if list_off[r + 1] > list_off[r]:
            p = put(out, p, _HEADERS)
            for h in range(list_off[r], list_off[r + 1]):
                if h > list_off[r]:
                    out[p] = 44  # ','
                    out[p + 1] = 32
                    p += 2
                p = escaped_text(out, p, hk_data, hk_off[h], hk_off[h + 1])
                out[p] = 61  # '='
                p += 1
                if is_valid(hv_map, hv_bit, h):
                    p = _preview(out, p, hv_data, hv_off[h], hv_off[h + 1], h_limit, printable)
                else:
                    p = put(out, p, _NULL)
        out[p] = 10
        p += 1
    starts[len(offset)] = p
