"""What `kafkalog dump`'s compiled line writers share (`kafkalog.fast.json_lines`, `text_lines`,
`kafka_lines`): the record columns of a run as numpy arrays, and compiled writers of text (constants,
decimal integers, UTF-8 read as Python's decoder reads it or as Java's replaces what is not UTF-8, and
written back).
"""
from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import pyarrow as pa

from kafkalog.fast import jit

jit.configure()

EMPTY = np.empty(0, dtype=np.uint8)
HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


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
        self.data = np.frombuffer(data, dtype=np.uint8) if data is not None else EMPTY
        self.bitmap = np.frombuffer(validity, dtype=np.uint8) if validity is not None and array.null_count else EMPTY
        self.bit = array.offset
        self.total = int(self.offsets[-1] - self.offsets[0])
        self.rows = n


@dataclass
class RecordColumns:
    """A run's record columns (`kafkalog.fast.columns.SCHEMA`'s offset, timestamp, sequence, key, value
    and headers) as the line writers read them."""

    rows: int
    offset: np.ndarray
    timestamp: np.ndarray
    sequence: np.ndarray
    key: Bytes
    value: Bytes
    #: Where each row's headers start in `header_key` and `header_value` (rows + 1 positions).
    header_starts: np.ndarray
    header_key: Bytes
    header_value: Bytes

    @classmethod
    def of(cls, table: pa.Table) -> RecordColumns:
        n = table.num_rows
        lists = one_array(table.column("headers"))
        starts = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=n + 1, offset=lists.offset * 4)
        return cls(n, ints(table.column("offset")), ints(table.column("timestamp")), ints(table.column("sequence")),
                   Bytes(one_array(table.column("key"))), Bytes(one_array(table.column("value"))), starts,
                   Bytes(lists.values.field("key")), Bytes(lists.values.field("value")))

    @property
    def headers(self) -> int:
        return int(self.header_starts[-1] - self.header_starts[0])


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
def put_hex(out, p, c, digits, letter):
    """A backslash, `letter` (x, u or U) and c in `digits` lowercase hex digits."""
    out[p] = 92
    out[p + 1] = letter
    for i in range(digits):
        out[p + 2 + i] = HEX[(c >> (4 * (digits - 1 - i))) & 15]
    return p + 2 + digits


@nb.njit(cache=True, nogil=True, inline="always")
def is_valid(bitmap, bit, r):
    if len(bitmap) == 0:
        return True
    i = bit + r
    return (bitmap[i >> 3] >> (i & 7)) & 1 == 1


@nb.njit(cache=True, nogil=True, inline="always")
def next_code_point(data, i, end):
    """The character at data[i] as Python's UTF-8 decoder reads it: (code point, bytes, True), or, where the
    bytes are not UTF-8, (0, the length of the maximal invalid subpart, False), which Python's error
    handlers replace ("replace": one U+FFFD; "backslashreplace": each byte as \\xNN)."""
    b = np.uint32(data[i])
    if b < 0x80:
        return b, 1, True
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
        return np.uint32(0), 1, False
    good = 0  # continuation bytes that fit
    c = b & (0x1F if n == 1 else 0x0F if n == 2 else 0x07)
    while good < n and i + 1 + good < end:
        x = np.uint32(data[i + 1 + good])
        if (good == 0 and (x < lo or x > hi)) or (good > 0 and (x < 0x80 or x > 0xBF)):
            break
        c = (c << 6) | (x & 0x3F)
        good += 1
    if good == n:
        return c, 1 + n, True
    return np.uint32(0), 1 + good, False


@nb.njit(cache=True, nogil=True)
def java_malformed_length(data, i, end):
    """How many bytes from data[i], where a malformed sequence starts, Java's `new String(bytes, UTF_8)`
    replaces with one U+FFFD: `kafkalog.javatext.malformed_length` (the rules, and why), compiled."""
    b1 = data[i]
    if 0xE0 <= b1 <= 0xEF:
        if i + 2 < end:
            b2, b3 = data[i + 1], data[i + 2]
            if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or b2 & 0xC0 != 0x80:
                return 1
            return 2 if b3 & 0xC0 != 0x80 else 3
        if i + 1 < end and ((b1 == 0xE0 and data[i + 1] & 0xE0 == 0x80) or data[i + 1] & 0xC0 != 0x80):
            return 1
        return end - i
    if 0xF0 <= b1 <= 0xF7:
        if i + 3 < end:
            b2, b3 = data[i + 1], data[i + 2]
            if b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80) \
                    or b2 & 0xC0 != 0x80:
                return 1
            return 2 if b3 & 0xC0 != 0x80 else 3
        if b1 > 0xF4:
            return 1
        if i + 1 < end:
            b2 = data[i + 1]
            if (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80) or b2 & 0xC0 != 0x80:
                return 1
        if i + 2 < end and data[i + 2] & 0xC0 != 0x80:
            return 2
        return end - i
    return 1


@nb.njit(cache=True, nogil=True, inline="always")
def put_utf8(out, p, c):
    """Code point c in UTF-8."""
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
def put_escaped_text(out, p, data, i, end):
    """data[i:end] decoded as Java's `new String(bytes, UTF_8)` decodes it (`kafkalog.javatext.java_utf8`),
    control characters escaped as `kafkalog.dump.records.escape` does."""
    while i < end:
        b = data[i]
        if 0x20 <= b < 0x7F:  # printable ASCII, most text: as it is, without decoding
            out[p] = b
            p += 1
            i += 1
            continue
        c, n, ok = next_code_point(data, i, end)
        if not ok:
            c = np.uint32(0xFFFD)
            n = java_malformed_length(data, i, end)
        i += n
        if c < 0x20 or 0x7F <= c < 0xA0:
            if c == 10 or c == 13 or c == 9:
                out[p] = 92
                out[p + 1] = 110 if c == 10 else 114 if c == 13 else 116
                p += 2
            else:
                p = put_hex(out, p, c, 2, 120)
        else:
            p = put_utf8(out, p, c)
    return p
