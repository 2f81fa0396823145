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
from kafkalog.fast.line_parts import (
    RecordColumns,
    is_valid,
    next_code_point,
    put,
    put_escaped_text,
    put_hex,
    put_int,
    put_utf8,
)

jit.configure()

_OFFSET = np.frombuffer(b"| offset: ", dtype=np.uint8)
_TIMESTAMP = np.frombuffer(b" timestamp: ", dtype=np.uint8)
_SEQUENCE = np.frombuffer(b" sequence: ", dtype=np.uint8)
_KEY = np.frombuffer(b" key: ", dtype=np.uint8)
_VALUE = np.frombuffer(b" value: ", dtype=np.uint8)
_HEADERS = np.frombuffer(b" headers: ", dtype=np.uint8)
_NULL = np.frombuffer(b"null", dtype=np.uint8)
_MORE = np.frombuffer("…".encode(), dtype=np.uint8)
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
    c = RecordColumns.of(table)
    ascii_only = not any((b.data[b.offsets[0]:b.offsets[-1]] >= 0x80).any()
                         for b in (c.key, c.value, c.header_value))
    printable = _ASCII_ONLY if ascii_only else _printable()
    # Worst case: 20 characters an integer, 10 for a byte (\U0010ffff of a 4-byte character: 2.5 a byte;
    # a byte that is not UTF-8: 5), quotes and the cut mark.
    size = (n * (_FIXED + 3 * 20) + 5 * (c.key.total + c.value.total + c.header_value.total)
            + 4 * c.header_key.total + c.headers * (6 + len(_MORE)))
    out = np.empty(size, dtype=np.uint8)
    limit, h_limit = (-1, -1) if full else (KEY_LIMIT, HEADER_LIMIT)
    _write(out, starts, c.offset, c.timestamp, c.sequence, c.key.offsets, c.key.data, c.key.bitmap, c.key.bit,
           c.value.offsets, c.value.data, c.value.bitmap, c.value.bit, c.header_starts, c.header_key.offsets,
           c.header_key.data, c.header_value.offsets, c.header_value.data, c.header_value.bitmap,
           c.header_value.bit, limit, h_limit, printable)
    return out[:starts[n]], starts


def _printable() -> np.ndarray:
    global _PRINTABLE
    if _PRINTABLE is None:
        _PRINTABLE = np.fromiter((chr(c).isprintable() for c in range(0x110000)), dtype=np.bool_, count=0x110000)
    return _PRINTABLE


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
                p = put_hex(out, p, c, 2, 120)
            else:
                out[p] = c
                p += 1
            i += 1
            continue
        cp, n, ok = next_code_point(data, i, end)
        if ok:
            if printable[cp]:
                p = put_utf8(out, p, cp)
            elif cp <= 0xFF:
                p = put_hex(out, p, cp, 2, 120)
            elif cp <= 0xFFFF:
                p = put_hex(out, p, cp, 4, 117)
            else:
                p = put_hex(out, p, cp, 8, 85)
        else:
            # backslashreplace writes each byte of the bad sequence as \xNN; repr doubles the backslash
            for j in range(i, i + n):
                out[p] = 92
                p = put_hex(out, p + 1, np.uint32(data[j]), 2, 120)
        i += n
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
                p = put_escaped_text(out, p, hk_data, hk_off[h], hk_off[h + 1])
                out[p] = 61  # '='
                p += 1
                if is_valid(hv_map, hv_bit, h):
                    p = _preview(out, p, hv_data, hv_off[h], hv_off[h + 1], h_limit, printable)
                else:
                    p = put(out, p, _NULL)
        out[p] = 10
        p += 1
    starts[len(offset)] = p
