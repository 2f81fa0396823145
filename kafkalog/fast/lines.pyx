# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, infer_types=True
# cython: initializedcheck=False, nonecheck=False
"""`kafkalog dump`'s line writers, compiled ahead of time by Cython (issue 33): each call writes the lines of a
run of records, a block of a batch's rows or a run's batch headers, without the GIL, into a growing buffer that
Python receives without a copy (`Block`, a buffer numpy wraps).

The writers read the columns the fast path already decoded (the records' Arrow columns, the batches' header
columns of `kafka_record_batch.ksy`); they decode no field of a spec. What they write, and their twins, which
stay the reference:

* `json_records`: `--format json`'s record lines (`kafkalog.dump.records.record_json` through `dumps`:
  Python's `json.dumps` in ASCII, keys and values in base64);
* `text_records`: text record lines (`kafkalog.dump.records.record_text`: Python's `repr` of the bytes decoded
  with "backslashreplace", cut unless asked whole; which characters `repr` leaves as they are is CPython's own
  `Py_UNICODE_ISPRINTABLE`, the function `str.isprintable` calls);
* `kafka_records` and `kafka_legacy_records`: `--format kafka`'s record lines of v2 batches and of legacy
  messages (`kafkalog.dump.kafka_dump_log.record_line`: DumpLogSegments' lines, keys and values decoded as
  Java's `new String(bytes, UTF_8)` decodes them, `kafkalog.javatext`);
* `batch_lines`: each batch's line by a format's template (`kafkalog.fast.batch_lines`).

Python sides: `kafkalog.fast.json_lines`, `text_lines`, `kafka_lines`, `batch_lines` (they gather the columns).
"""
from libc.stdint cimport INT64_MAX, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.string cimport memcpy, strcmp, strlen

import numpy as np


cdef extern from "Python.h":
    # What `str.isprintable` and `repr` ask of each character: a lookup in CPython's own tables (no state).
    bint Py_UNICODE_ISPRINTABLE(Py_UCS4 ch) nogil


# -- the growing buffer, handed to Python without a copy (shared with the engine) --------------------------------

cdef enum:
    GROW_FIRST = 65536  # bytes: a run's lines start at 64 KiB
    BLOCK_SLACK = 65536  # bytes a block's buffer takes beyond its budget at first: the last line or two

include "buffers.pxi"


# What a buffer holds, for the pool (`buffers.pxi`): a buffer takes back a block last used for the same, whose pages
# already hold as much.
cdef enum:
    TAG_RECORD_LINES = 1


cdef Block _finish(Grow* g, bint ok, int tag=0):
    if not ok:
        free(g.data)
        g.data = NULL
        raise MemoryError("kafkalog dump: no memory left for the lines of a run of records")
    return _take(g, tag)


# -- the columns ---------------------------------------------------------------------------------------------------

# A binary or string Arrow array: its offsets, data, validity bitmap (NULL: every row valid) and first bit.
cdef struct Column:
    const int32_t* off
    const uint8_t* data
    const uint8_t* bitmap
    int64_t bit


# A record batch's columns (`_records`).
cdef struct Records:
    int64_t rows
    const int64_t* offset
    const int64_t* timestamp
    const int32_t* sequence
    Column key
    Column value
    const int32_t* header_starts  # each row's first header in header_key and header_value (rows + 1)
    Column header_key
    Column header_value


include "arrow_c.pxi"


#: Offsets of an array of no rows whose offsets buffer was left out (the interface allows it).
cdef int32_t _NO_OFFSETS[1]
_NO_OFFSETS[0] = 0


cdef Column _bytes(const ArrowSchema* s, const ArrowArray* a, int64_t row, str what) except *:
    """A binary or string array's rows from `row` on (`row` and its own offset: a view)."""
    cdef Column c
    if (strcmp(s.format, b"z") != 0 and strcmp(s.format, b"u") != 0) or a.n_buffers < 3:
        raise ValueError(f"kafkalog dump: the {what} column is not binary or a string (Arrow format "
                         f"{s.format.decode('ascii', 'replace')})")
    row += a.offset
    c.off = <const int32_t*>a.buffers[1] + row if a.buffers[1] != NULL else _NO_OFFSETS
    c.data = <const uint8_t*>a.buffers[2]
    c.bitmap = <const uint8_t*>a.buffers[0] if a.null_count != 0 else NULL
    c.bit = row
    return c


cdef const void* _fixed(const ArrowSchema* s, const ArrowArray* a, const char* fmt, int width, str what) except NULL:
    """An integer array's values from its first row (`fmt`: `l` int64, `i` int32)."""
    if strcmp(s.format, fmt) != 0 or a.n_buffers < 2 or a.buffers[1] == NULL:
        raise ValueError(f"kafkalog dump: the {what} column is not of Arrow format {fmt.decode('ascii')}")
    return <const uint8_t*>a.buffers[1] + a.offset * width


cdef int64_t _child(const ArrowSchema* s, str name) except -1:
    cdef int64_t i
    cdef bytes b = name.encode("ascii")
    for i in range(s.n_children):
        if s.children[i].name != NULL and strcmp(s.children[i].name, b) == 0:
            return i
    raise ValueError(f"kafkalog dump: a run's table has no {name} column")


cdef Records _records(object chunk, list keep, Column* control) except *:
    """A record batch's columns (`kafkalog.fast.columns.SCHEMA`'s offset, timestamp, sequence, key, value and headers;
    and its control_type into `control` unless NULL), read in place; the capsules that hold them go into `keep`."""
    cdef Records r
    cdef const ArrowSchema* s
    cdef const ArrowArray* a
    cdef const ArrowSchema* hs
    cdef const ArrowArray* ha
    cdef const ArrowSchema* item_s
    cdef const ArrowArray* item_a
    cdef int64_t i
    capsules = chunk.__arrow_c_array__()
    keep.append(capsules)
    s = <const ArrowSchema*>PyCapsule_GetPointer(capsules[0], b"arrow_schema")
    a = <const ArrowArray*>PyCapsule_GetPointer(capsules[1], b"arrow_array")
    if strcmp(s.format, b"+s") != 0 or a.n_children != s.n_children:
        raise ValueError("kafkalog dump: a run's table is not a record batch")
    r.rows = a.length
    i = _child(s, "offset")
    r.offset = <const int64_t*>_fixed(s.children[i], a.children[i], b"l", 8, "offset")
    i = _child(s, "timestamp")
    r.timestamp = <const int64_t*>_fixed(s.children[i], a.children[i], b"l", 8, "timestamp")
    i = _child(s, "sequence")
    r.sequence = <const int32_t*>_fixed(s.children[i], a.children[i], b"i", 4, "sequence")
    i = _child(s, "key")
    r.key = _bytes(s.children[i], a.children[i], 0, "key")
    i = _child(s, "value")
    r.value = _bytes(s.children[i], a.children[i], 0, "value")
    if control != NULL:
        i = _child(s, "control_type")
        control[0] = _bytes(s.children[i], a.children[i], 0, "control_type")
    # headers: a list of structs of (key, value); the lists' offsets index the structs' rows
    i = _child(s, "headers")
    hs, ha = s.children[i], a.children[i]
    if strcmp(hs.format, b"+l") != 0 or ha.n_children != 1 or hs.children[0].n_children != 2 \
            or strcmp(hs.children[0].format, b"+s") != 0:
        raise ValueError("kafkalog dump: the headers column is not a list of (key, value) structs")
    r.header_starts = <const int32_t*>ha.buffers[1] + ha.offset if ha.buffers[1] != NULL else _NO_OFFSETS
    item_s, item_a = hs.children[0], ha.children[0]
    r.header_key = _bytes(item_s.children[_child(item_s, "key")], item_a.children[_child(item_s, "key")],
                          item_a.offset, "header key")
    r.header_value = _bytes(item_s.children[_child(item_s, "value")], item_a.children[_child(item_s, "value")],
                            item_a.offset, "header value")
    return r


cdef inline bint _valid(const Column* c, int64_t r) noexcept nogil:
    cdef int64_t i
    if c.bitmap == NULL:
        return True
    i = c.bit + r
    return (c.bitmap[i >> 3] >> (i & 7)) & 1


cdef inline int64_t _len(const Column* c, int64_t r) noexcept nogil:
    return c.off[r + 1] - c.off[r]


cdef inline int64_t _span(const Column* c, int64_t a, int64_t b) noexcept nogil:
    """Bytes of rows a..b-1."""
    return c.off[b] - c.off[a]


# A run's batch lines, written among its records' lines: each batch's before the first of its records.
cdef struct Batches:
    const uint8_t* text  # the batch lines (`batch_lines`)
    const int64_t* starts  # where each batch's line starts in `text` (n + 1)
    const int64_t* rows  # the row (of all the chunks' rows) each batch's records start at: never decreasing
    int64_t n
    int64_t next  # the first batch whose line is not written yet
    int64_t row  # rows of the chunks before the part being written: a part's row r is row + r


cdef inline bint _batch_lines(Grow* g, Batches* B, int64_t row) noexcept nogil:
    """The lines of the batches not written yet whose records start at `row` or before (none without batches)."""
    cdef int64_t a, b
    if B == NULL:
        return True
    while B.next < B.n and B.rows[B.next] <= row:
        a, b = B.starts[B.next], B.starts[B.next + 1]
        if not _put_bytes(g, B.text + a, b - a):
            return False
        B.next += 1
    return True


# -- parts of a line -----------------------------------------------------------------------------------------------

cdef const char* _HEX = b"0123456789abcdef"
cdef const char* _B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: Each 12 bits' two base64 characters, as they lie in memory: two lookups for 3 bytes, not four.
cdef uint16_t _B64_PAIRS[4096]


cdef void _fill_b64_pairs() noexcept:
    cdef int v
    cdef uint8_t pair[2]
    for v in range(4096):
        pair[0] = <uint8_t>_B64[v >> 6]
        pair[1] = <uint8_t>_B64[v & 63]
        memcpy(&_B64_PAIRS[v], pair, 2)


_fill_b64_pairs()


cdef inline int64_t _put(uint8_t* o, int64_t p, const char* s) noexcept nogil:
    """A literal (the C compiler folds its length)."""
    cdef size_t n = strlen(s)
    memcpy(o + p, s, n)
    return p + <int64_t>n


cdef inline int64_t _put_n(uint8_t* o, int64_t p, const uint8_t* s, int64_t n) noexcept nogil:
    if n > 0:
        memcpy(o + p, s, <size_t>n)
    return p + n


#: "00" to "99": an integer's digits written two at a time (half the divisions).
cdef const char* _PAIRS = (b"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                           b"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                           b"8081828384858687888990919293949596979899")


cdef inline int _decimal_digits(uint64_t u) noexcept nogil:
    cdef int n = 1
    while u >= 10000:
        u //= 10000
        n += 4
    if u >= 1000:
        return n + 3
    if u >= 100:
        return n + 2
    if u >= 10:
        return n + 1
    return n


cdef inline int64_t _int(uint8_t* o, int64_t p, int64_t v) noexcept nogil:
    """A decimal integer (int64, its minimum included)."""
    cdef uint64_t u
    cdef int64_t q
    cdef uint32_t k
    if v < 0:
        o[p] = 45  # '-'
        p += 1
        u = <uint64_t>0 - <uint64_t>v
    else:
        u = <uint64_t>v
    q = p + _decimal_digits(u)  # the end: digits are written from the last
    p = q
    while u >= 100:
        k = <uint32_t>(u % 100) * 2
        u //= 100
        q -= 2
        o[q] = <uint8_t>_PAIRS[k]
        o[q + 1] = <uint8_t>_PAIRS[k + 1]
    if u >= 10:
        k = <uint32_t>u * 2
        o[q - 2] = <uint8_t>_PAIRS[k]
        o[q - 1] = <uint8_t>_PAIRS[k + 1]
    else:
        o[q - 1] = <uint8_t>(48 + u)
    return p


cdef inline int64_t _hex(uint8_t* o, int64_t p, uint32_t c, int digits, uint8_t letter) noexcept nogil:
    """A backslash, `letter` (x, u or U) and c in `digits` lowercase hex digits."""
    cdef int i
    o[p] = 92
    o[p + 1] = letter
    for i in range(digits):
        o[p + 2 + i] = <uint8_t>_HEX[(c >> (4 * (digits - 1 - i))) & 15]
    return p + 2 + digits


cdef inline int64_t _code_point(const uint8_t* d, int64_t i, int64_t end, uint32_t* cp) noexcept nogil:
    """The character at d[i] as Python's UTF-8 decoder reads it: its length in bytes (> 0) with its code point in
    `cp`, or, where the bytes are not UTF-8, minus the length of the maximal invalid subpart, which Python's error
    handlers replace ("replace": one U+FFFD; "backslashreplace": each byte as \\xNN)."""
    cdef uint32_t b = d[i]
    cdef uint32_t lo = 0x80, hi = 0xBF, x, c
    cdef int64_t n, good = 0
    if b < 0x80:
        cp[0] = b
        return 1
    if 0xC2 <= b <= 0xDF:
        n = 1
    elif b == 0xE0:
        n = 2
        lo = 0xA0
    elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
        n = 2
    elif b == 0xED:
        n = 2
        hi = 0x9F
    elif b == 0xF0:
        n = 3
        lo = 0x90
    elif 0xF1 <= b <= 0xF3:
        n = 3
    elif b == 0xF4:
        n = 3
        hi = 0x8F
    else:
        return -1
    c = b & (0x1F if n == 1 else 0x0F if n == 2 else 0x07)
    while good < n and i + 1 + good < end:
        x = d[i + 1 + good]
        if (good == 0 and (x < lo or x > hi)) or (good > 0 and (x < 0x80 or x > 0xBF)):
            break
        c = (c << 6) | (x & 0x3F)
        good += 1
    if good == n:
        cp[0] = c
        return 1 + n
    return -(1 + good)


cdef inline bint _continues(uint8_t b) noexcept nogil:
    return b & 0xC0 == 0x80


cdef int64_t _java_malformed_length(const uint8_t* d, int64_t i, int64_t end) noexcept nogil:
    """How many bytes from d[i], where a malformed sequence starts, Java's `new String(bytes, UTF_8)` replaces
    with one U+FFFD: `kafkalog.javatext.malformed_length` (the rules, and why), compiled."""
    cdef uint8_t b1 = d[i], b2, b3
    if 0xE0 <= b1 <= 0xEF:
        if i + 2 < end:
            b2 = d[i + 1]
            b3 = d[i + 2]
            if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or not _continues(b2):
                return 1
            return 2 if not _continues(b3) else 3
        if i + 1 < end and ((b1 == 0xE0 and d[i + 1] & 0xE0 == 0x80) or not _continues(d[i + 1])):
            return 1
        return end - i
    if 0xF0 <= b1 <= 0xF7:
        if i + 3 < end:
            b2 = d[i + 1]
            b3 = d[i + 2]
            if b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80) \
                    or not _continues(b2):
                return 1
            return 2 if not _continues(b3) else 3
        if b1 > 0xF4:
            return 1
        if i + 1 < end:
            b2 = d[i + 1]
            if (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80) or not _continues(b2):
                return 1
        if i + 2 < end and not _continues(d[i + 2]):
            return 2
        return end - i
    return 1


cdef inline int64_t _utf8(uint8_t* o, int64_t p, uint32_t c) noexcept nogil:
    """Code point c in UTF-8."""
    if c < 0x80:
        o[p] = <uint8_t>c
        return p + 1
    if c < 0x800:
        o[p] = <uint8_t>(0xC0 | (c >> 6))
        o[p + 1] = <uint8_t>(0x80 | (c & 0x3F))
        return p + 2
    if c < 0x10000:
        o[p] = <uint8_t>(0xE0 | (c >> 12))
        o[p + 1] = <uint8_t>(0x80 | ((c >> 6) & 0x3F))
        o[p + 2] = <uint8_t>(0x80 | (c & 0x3F))
        return p + 3
    o[p] = <uint8_t>(0xF0 | (c >> 18))
    o[p + 1] = <uint8_t>(0x80 | ((c >> 12) & 0x3F))
    o[p + 2] = <uint8_t>(0x80 | ((c >> 6) & 0x3F))
    o[p + 3] = <uint8_t>(0x80 | (c & 0x3F))
    return p + 4


cdef inline bint _printable_ascii8(uint64_t x) noexcept nogil:
    """Whether each of 8 bytes is printable ASCII (0x20..0x7E): no byte below 0x20, none above 0x7E (the
    word-at-a-time tests of "Bit Twiddling Hacks", `hasless` and `hasmore`)."""
    cdef uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL
    return ((x - ones * 0x20) & ~x & highs) == 0 and ((x + ones * (127 - 0x7E)) | x) & highs == 0


cdef int64_t _java_text(uint8_t* o, int64_t p, const uint8_t* d, int64_t i, int64_t end) noexcept nogil:
    """d[i:end] decoded as Java's `new String(bytes, UTF_8)` decodes it (`kafkalog.javatext.java_utf8`), control
    characters escaped as `kafkalog.dump.records.escape` does; at most 4 bytes a byte."""
    cdef uint8_t b
    cdef uint32_t c = 0
    cdef int64_t n
    cdef uint64_t x
    while i < end:
        if i + 8 <= end:  # printable ASCII, most text: 8 bytes at a time, as they are
            memcpy(&x, d + i, 8)
            if _printable_ascii8(x):
                memcpy(o + p, &x, 8)
                p += 8
                i += 8
                continue
        b = d[i]
        if 0x20 <= b < 0x7F:  # printable ASCII, most text: as it is, without decoding
            o[p] = b
            p += 1
            i += 1
            continue
        n = _code_point(d, i, end, &c)
        if n < 0:
            c = 0xFFFD
            n = _java_malformed_length(d, i, end)
        i += n
        if c < 0x20 or 0x7F <= c < 0xA0:
            if c == 10 or c == 13 or c == 9:
                o[p] = 92
                o[p + 1] = 110 if c == 10 else 114 if c == 13 else 116
                p += 2
            else:
                p = _hex(o, p, c, 2, 120)
        else:
            p = _utf8(o, p, c)
    return p


def java_text(const uint8_t[::1] data):
    """`data` as `--format kafka` prints a key, value or header key: Java's decoding, control characters escaped
    (UTF-8 bytes). For the tests, which hold it to Java's own decoder."""
    cdef Grow g = Grow(NULL, 0, 0)
    cdef int64_t n = data.shape[0]
    cdef bint ok
    with nogil:
        ok = _reserve(&g, 4 * n + 1)
        if ok:
            g.size = _java_text(g.data, 0, &data[0] if n else NULL, 0, n)
    return bytes(_finish(&g, ok))


# -- --format json -------------------------------------------------------------------------------------------------

cdef extern from *:
    """
    #include <stdint.h>
    static inline uint64_t kafkalog_big_endian(uint64_t w) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return w;
    #elif defined(__GNUC__) || defined(__clang__)
        return __builtin_bswap64(w);
    #else
        uint64_t r = 0; int k;
        for (k = 0; k < 8; k++) { r = (r << 8) | (w & 0xFF); w >>= 8; }
        return r;
    #endif
    }
    """
    # A word read from memory as big-endian (its first byte the most significant).
    uint64_t _big_endian "kafkalog_big_endian" (uint64_t w) nogil


cdef inline int64_t _b64_size(int64_t n) noexcept nogil:
    """Base64 of n bytes, in quotes."""
    return 4 * ((n + 2) // 3) + 2


cdef int64_t _b64(uint8_t* o, int64_t p, const uint8_t* d, int64_t a, int64_t b) noexcept nogil:
    """d[a:b] as standard base64 with padding, in quotes."""
    cdef uint32_t x
    cdef uint64_t w
    cdef int64_t i = a
    o[p] = 34
    p += 1
    while i + 8 <= b:  # 6 bytes a step, read as one big-endian word (8 bytes there to read)
        memcpy(&w, d + i, 8)
        w = _big_endian(w)
        memcpy(o + p, &_B64_PAIRS[(w >> 52) & 0xFFF], 2)
        memcpy(o + p + 2, &_B64_PAIRS[(w >> 40) & 0xFFF], 2)
        memcpy(o + p + 4, &_B64_PAIRS[(w >> 28) & 0xFFF], 2)
        memcpy(o + p + 6, &_B64_PAIRS[(w >> 16) & 0xFFF], 2)
        p += 8
        i += 6
    while i + 3 <= b:
        x = (<uint32_t>d[i] << 16) | (<uint32_t>d[i + 1] << 8) | <uint32_t>d[i + 2]
        memcpy(o + p, &_B64_PAIRS[x >> 12], 2)
        memcpy(o + p + 2, &_B64_PAIRS[x & 0xFFF], 2)
        p += 4
        i += 3
    if b - i == 1:
        x = <uint32_t>d[i] << 16
        o[p] = <uint8_t>_B64[x >> 18]
        o[p + 1] = <uint8_t>_B64[(x >> 12) & 63]
        o[p + 2] = 61
        o[p + 3] = 61
        p += 4
    elif b - i == 2:
        x = (<uint32_t>d[i] << 16) | (<uint32_t>d[i + 1] << 8)
        o[p] = <uint8_t>_B64[x >> 18]
        o[p + 1] = <uint8_t>_B64[(x >> 12) & 63]
        o[p + 2] = <uint8_t>_B64[(x >> 6) & 63]
        o[p + 3] = 61
        p += 4
    o[p] = 34
    return p + 1


cdef int64_t _json_string(uint8_t* o, int64_t p, const uint8_t* d, int64_t a, int64_t b) noexcept nogil:
    """UTF-8 text d[a:b] as a JSON string in ASCII, escaped as Python's json.dumps(ensure_ascii=True); at most 6
    bytes a byte (a control character), and the quotes."""
    cdef uint32_t c = 0
    cdef int64_t n
    cdef int64_t i = a
    o[p] = 34
    p += 1
    while i < b:
        n = _code_point(d, i, b, &c)  # (Arrow strings are UTF-8: a character; if not, as numba's twin did)
        if n < 0:
            n = -n
            c = 0
        i += n
        if c == 34 or c == 92:  # '"' and '\'
            o[p] = 92
            o[p + 1] = <uint8_t>c
            p += 2
        elif 0x20 <= c <= 0x7E:
            o[p] = <uint8_t>c
            p += 1
        elif c == 8 or c == 9 or c == 10 or c == 12 or c == 13:
            o[p] = 92
            o[p + 1] = 98 if c == 8 else 116 if c == 9 else 110 if c == 10 else 102 if c == 12 else 114
            p += 2
        elif c < 0x10000:
            p = _hex(o, p, c, 4, 117)
        else:
            c -= 0x10000
            p = _hex(o, p, 0xD800 | ((c >> 10) & 0x3FF), 4, 117)
            p = _hex(o, p, 0xDC00 | (c & 0x3FF), 4, 117)
    o[p] = 34
    return p + 1


cdef int64_t _json(Grow* g, const Records* R, const Column* control, int64_t* starts, int64_t budget,
                   Batches* B) noexcept nogil:
    cdef int64_t r, h, h0, h1, p, most
    cdef uint8_t* o
    for r in range(R.rows):
        if g.size >= budget:
            break
        if not _batch_lines(g, B, B.row + r if B != NULL else 0):
            return -1
        h0, h1 = R.header_starts[r], R.header_starts[r + 1]
        # The most this line takes: 20 characters an integer, base64 (4 per 3 bytes, padding, quotes), 6 per
        # byte of a string (a control character as \u00XX), the nulls, brackets and commas.
        most = (200 + _b64_size(_len(&R.key, r)) + _b64_size(_len(&R.value, r)) + 6 * _len(control, r)
                + 16 * (h1 - h0) + 6 * _span(&R.header_key, h0, h1) + 2 * _span(&R.header_value, h0, h1))
        if not _reserve(g, most):
            return -1
        o = g.data
        p = g.size
        starts[r] = p
        p = _put(o, p, b'{"type":"record","offset":')
        p = _int(o, p, R.offset[r])
        p = _put(o, p, b',"timestamp":')
        p = _int(o, p, R.timestamp[r])
        p = _put(o, p, b',"sequence":')
        p = _int(o, p, R.sequence[r])
        p = _put(o, p, b',"key":')
        if _valid(&R.key, r):
            p = _b64(o, p, R.key.data, R.key.off[r], R.key.off[r + 1])
        else:
            p = _put(o, p, b"null")
        p = _put(o, p, b',"value":')
        if _valid(&R.value, r):
            p = _b64(o, p, R.value.data, R.value.off[r], R.value.off[r + 1])
        else:
            p = _put(o, p, b"null")
        p = _put(o, p, b',"headers":[')
        for h in range(h0, h1):
            if h > h0:
                o[p] = 44  # ','
                p += 1
            o[p] = 91  # '['
            p = _json_string(o, p + 1, R.header_key.data, R.header_key.off[h], R.header_key.off[h + 1])
            o[p] = 44
            p += 1
            if _valid(&R.header_value, h):
                p = _b64(o, p, R.header_value.data, R.header_value.off[h], R.header_value.off[h + 1])
            else:
                p = _put(o, p, b"null")
            o[p] = 93  # ']'
            p += 1
        p = _put(o, p, b'],"control_type":')
        if _valid(control, r):
            p = _json_string(o, p, control.data, control.off[r], control.off[r + 1])
        else:
            p = _put(o, p, b"null")
        p = _put(o, p, b"}\n")
        g.size = p
    else:
        r = R.rows
    starts[r] = g.size
    return r


# -- text ----------------------------------------------------------------------------------------------------------

cdef int64_t _preview(uint8_t* o, int64_t p, const uint8_t* d, int64_t a, int64_t b, int64_t limit) noexcept nogil:
    """repr(d[a:b][:limit].decode("utf-8", "backslashreplace")), and "…" when it was cut; at most 5 bytes a byte
    (a byte that is not UTF-8: \\\\xNN), the quotes and the mark."""
    cdef int64_t end = b if limit < 0 or b - a <= limit else a + limit
    cdef bint single = False, dq = False
    cdef uint8_t quote
    cdef uint32_t c, cp = 0
    cdef int64_t i, j, n
    cdef uint64_t x, ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL, y, z
    for i in range(a, end):
        single |= d[i] == 39
        dq |= d[i] == 34
    quote = 34 if single and not dq else 39
    o[p] = quote
    p += 1
    i = a
    while i < end:
        if i + 8 <= end:  # printable ASCII without the quote or a backslash: 8 bytes at a time, as they are
            memcpy(&x, d + i, 8)
            y = x ^ (ones * quote)
            z = x ^ (ones * 92)
            if _printable_ascii8(x) and ((y - ones) & ~y & highs) == 0 and ((z - ones) & ~z & highs) == 0:
                memcpy(o + p, &x, 8)
                p += 8
                i += 8
                continue
        c = d[i]
        if c < 0x80:
            if c == quote or c == 92:
                o[p] = 92
                o[p + 1] = <uint8_t>c
                p += 2
            elif c == 9 or c == 10 or c == 13:
                o[p] = 92
                o[p + 1] = 116 if c == 9 else 110 if c == 10 else 114
                p += 2
            elif c < 0x20 or c == 0x7F:
                p = _hex(o, p, c, 2, 120)
            else:
                o[p] = <uint8_t>c
                p += 1
            i += 1
            continue
        n = _code_point(d, i, end, &cp)
        if n > 0:
            if Py_UNICODE_ISPRINTABLE(cp):
                p = _utf8(o, p, cp)
            elif cp <= 0xFF:
                p = _hex(o, p, cp, 2, 120)
            elif cp <= 0xFFFF:
                p = _hex(o, p, cp, 4, 117)
            else:
                p = _hex(o, p, cp, 8, 85)
        else:
            # backslashreplace writes each byte of the bad sequence as \xNN; repr doubles the backslash
            n = -n
            for j in range(i, i + n):
                o[p] = 92
                p = _hex(o, p + 1, d[j], 2, 120)
        i += n
    o[p] = quote
    p += 1
    if end < b:
        p = _put(o, p, b"\xe2\x80\xa6")  # '…'
    return p


cdef int64_t _text(Grow* g, const Records* R, int64_t limit, int64_t h_limit, int64_t* starts,
                   int64_t budget, Batches* B) noexcept nogil:
    cdef int64_t r, h, h0, h1, p, most
    cdef uint8_t* o
    for r in range(R.rows):
        if g.size >= budget:
            break
        if not _batch_lines(g, B, B.row + r if B != NULL else 0):
            return -1
        h0, h1 = R.header_starts[r], R.header_starts[r + 1]
        # 20 characters an integer, 5 a byte of a key or value (a byte that is not UTF-8), 4 a byte of a header
        # key (a control character), quotes, cut marks and separators.
        most = (160 + 5 * (_len(&R.key, r) + _len(&R.value, r) + _span(&R.header_value, h0, h1))
                + 4 * _span(&R.header_key, h0, h1) + 16 * (h1 - h0))
        if not _reserve(g, most):
            return -1
        o = g.data
        p = g.size
        starts[r] = p
        p = _put(o, p, b"| offset: ")
        p = _int(o, p, R.offset[r])
        p = _put(o, p, b" timestamp: ")
        p = _int(o, p, R.timestamp[r])
        if R.sequence[r] != -1:
            p = _put(o, p, b" sequence: ")
            p = _int(o, p, R.sequence[r])
        p = _put(o, p, b" key: ")
        if _valid(&R.key, r):
            p = _preview(o, p, R.key.data, R.key.off[r], R.key.off[r + 1], limit)
        else:
            p = _put(o, p, b"null")
        p = _put(o, p, b" value: ")
        if _valid(&R.value, r):
            p = _preview(o, p, R.value.data, R.value.off[r], R.value.off[r + 1], limit)
        else:
            p = _put(o, p, b"null")
        if h1 > h0:
            p = _put(o, p, b" headers: ")
            for h in range(h0, h1):
                if h > h0:
                    o[p] = 44  # ','
                    o[p + 1] = 32
                    p += 2
                p = _java_text(o, p, R.header_key.data, R.header_key.off[h], R.header_key.off[h + 1])
                o[p] = 61  # '='
                p += 1
                if _valid(&R.header_value, h):
                    p = _preview(o, p, R.header_value.data, R.header_value.off[h], R.header_value.off[h + 1],
                                 h_limit)
                else:
                    p = _put(o, p, b"null")
        o[p] = 10
        g.size = p + 1
    else:
        r = R.rows
    starts[r] = g.size
    return r


# -- --format kafka ------------------------------------------------------------------------------------------------

cdef inline int64_t _kafka_start(uint8_t* o, int64_t p, int64_t offset, const uint8_t* ts_type, int64_t ts_len,
                                 int64_t timestamp, int64_t key_size, int64_t value_size) noexcept nogil:
    """What every record line starts with: `| offset: O <type>: T keySize: K valueSize: V`."""
    p = _put(o, p, b"| offset: ")
    p = _int(o, p, offset)
    o[p] = 32
    p = _put_n(o, p + 1, ts_type, ts_len)
    o[p] = 58  # ':'
    o[p + 1] = 32
    p = _int(o, p + 2, timestamp)
    p = _put(o, p, b" keySize: ")
    p = _int(o, p, key_size)
    p = _put(o, p, b" valueSize: ")
    return _int(o, p, value_size)


cdef int64_t _kafka(Grow* g, const Records* R, const uint8_t* ts_type, int64_t ts_len, int64_t* starts,
                    int64_t budget, Batches* B) noexcept nogil:
    cdef int64_t r, h, h0, h1, p, most
    cdef bint has_key, has_value
    cdef uint8_t* o
    for r in range(R.rows):
        if g.size >= budget:
            break
        if not _batch_lines(g, B, B.row + r if B != NULL else 0):
            return -1
        h0, h1 = R.header_starts[r], R.header_starts[r + 1]
        # 20 characters an integer, 4 bytes a byte of text (an escape), the timestamp type's name, the commas.
        most = (256 + ts_len + 4 * (_len(&R.key, r) + _len(&R.value, r) + _span(&R.header_key, h0, h1))
                + (h1 - h0))
        if not _reserve(g, most):
            return -1
        o = g.data
        p = g.size
        starts[r] = p
        has_key = _valid(&R.key, r)
        has_value = _valid(&R.value, r)
        p = _kafka_start(o, p, R.offset[r], ts_type, ts_len, R.timestamp[r], _len(&R.key, r) if has_key else -1,
                         _len(&R.value, r) if has_value else -1)
        p = _put(o, p, b" sequence: ")
        p = _int(o, p, R.sequence[r])
        p = _put(o, p, b" headerKeys: [")
        for h in range(h0, h1):
            if h > h0:
                o[p] = 44  # ','
                p += 1
            p = _java_text(o, p, R.header_key.data, R.header_key.off[h], R.header_key.off[h + 1])
        if has_key:
            p = _put(o, p, b"] key: ")
            p = _java_text(o, p, R.key.data, R.key.off[r], R.key.off[r + 1])
        else:
            p = _put(o, p, b"]")
        if has_value:
            p = _put(o, p, b" payload: ")
            p = _java_text(o, p, R.value.data, R.value.off[r], R.value.off[r + 1])
        o[p] = 10
        g.size = p + 1
    else:
        r = R.rows
    starts[r] = g.size
    return r


cdef bint _kafka_legacy(Grow* g, const Records* R, const uint8_t* ts_type, int64_t ts_len, const int64_t* crc,
                        const uint8_t* valid, bint brace) noexcept nogil:
    cdef int64_t r, p
    cdef bint has_key, has_value
    cdef uint8_t* o
    for r in range(R.rows):
        if not _reserve(g, 240 + ts_len + 4 * (_len(&R.key, r) + _len(&R.value, r))):
            return False
        o = g.data
        p = g.size
        has_key = _valid(&R.key, r)
        has_value = _valid(&R.value, r)
        p = _kafka_start(o, p, R.offset[r], ts_type, ts_len, R.timestamp[r], _len(&R.key, r) if has_key else -1,
                         _len(&R.value, r) if has_value else -1)
        p = _put(o, p, b" isValid: ")
        if valid[r]:
            p = _put(o, p, b"true")
        else:
            p = _put(o, p, b"false")
        p = _put(o, p, b" crc: ")
        p = _int(o, p, crc[r])
        if brace:
            o[p] = 125  # '}'
            p += 1
        if has_key:
            p = _put(o, p, b" key: ")
            p = _java_text(o, p, R.key.data, R.key.off[r], R.key.off[r + 1])
        if has_value:
            p = _put(o, p, b" payload: ")
            p = _java_text(o, p, R.value.data, R.value.off[r], R.value.off[r + 1])
        o[p] = 10
        g.size = p + 1
    return True


# -- a table's chunks, a block of rows at a time --------------------------------------------------------------------

cdef enum Format:
    JSON
    TEXT
    KAFKA
    KAFKA_LEGACY


# What a format's writer needs beside the columns.
cdef struct Job:
    Format fmt
    int64_t limit  # text: bytes of a key or value shown (-1: whole)
    int64_t header_limit  # text: bytes of a header value shown
    const uint8_t* ts_type  # kafka: the timestamp type's name
    int64_t ts_len
    const int64_t* crc  # kafka, legacy messages: each record's message's checksum and whether it held (0 or 1)
    const uint8_t* valid
    bint brace  # kafka, legacy messages: Kafka 3's stray brace


cdef inline Column _column_from(Column c, int64_t row) noexcept nogil:
    """The rows of `c` from `row` on (a view: the data and bitmap are the same)."""
    c.off = c.off + row
    c.bit = c.bit + row
    return c


cdef inline Records _rows_from(Records r, int64_t row, int64_t rows) noexcept nogil:
    """`rows` rows of `r` from `row` on (a view: the headers' starts still index the same header columns)."""
    r.offset = r.offset + row
    r.timestamp = r.timestamp + row
    r.sequence = r.sequence + row
    r.key = _column_from(r.key, row)
    r.value = _column_from(r.value, row)
    r.header_starts = r.header_starts + row
    r.rows = rows
    return r


cdef int64_t _rows_into(Grow* g, const Job* job, const Records* R, const Column* C, Py_ssize_t m, int64_t first,
                        int64_t want, int64_t* starts, int64_t budget, Batches* B) noexcept nogil:
    """The lines of `want` rows of the chunks `R` (`C`: their control_type columns, for JSON) from row `first` on (of
    all the chunks' rows, each chunk's after the last's), stopping after the row that brings `g` to `budget` bytes;
    where each line starts into `starts` (rows written + 1); with `B`, each batch's line before its first record's
    (and, once every row is written, those of the batches left: batches of no records). The rows written, or -1 (no
    memory)."""
    cdef int64_t rows = 0, row = 0, written = 0, lo, n
    cdef Py_ssize_t k
    cdef Records part
    cdef Column control
    for k in range(m):
        rows += R[k].rows
    for k in range(m):
        # this chunk's rows from the first one asked for, as many as are still wanted
        lo = max(first - row, 0)
        n = min(R[k].rows - lo, want - written)
        row += R[k].rows
        if n <= 0:
            if written == want:
                break
            continue
        part = _rows_from(R[k], lo, n)
        if B != NULL:
            B.row = row - R[k].rows + lo
        if job.fmt == JSON:
            control = _column_from(C[k], lo)
            n = _json(g, &part, &control, &starts[written], budget, B)
        elif job.fmt == TEXT:
            n = _text(g, &part, job.limit, job.header_limit, &starts[written], budget, B)
        else:
            n = _kafka(g, &part, job.ts_type, job.ts_len, &starts[written], budget, B)
        if n < 0:
            return -1
        written += n
        if written == want or g.size >= budget:
            break
    if written == 0:
        starts[0] = 0
    if B != NULL and first + written == rows:  # (every row written: the batches of none after them)
        if not _batch_lines(g, B, INT64_MAX):
            return -1
    return written


cdef class Writer:
    """A run's record lines a block at a time (`kafkalog.fast.line_parts.BlockWriter`), in one format, with its batch
    lines among them (`line_parts.BatchLines`) or not: its chunks' columns are gathered once, when it is made
    (`json_writer`, `text_writer`, `kafka_writer`), and each block is one call that writes without the GIL.

    Called with (first row, most rows, bytes, first batch), it gives (the lines as a numpy array, where each line
    starts, rows written, the next batch); `next_block(writer, bytes, most rows)` gives the run's next block of lines
    as a `Block`, from where the last ended, or None once every line is written."""

    cdef Records* R
    cdef Column* C
    cdef Py_ssize_t m
    cdef int64_t rows  # of all the chunks
    cdef Job job
    cdef Batches lines
    cdef Batches* B  # &lines, or NULL: no batch lines
    cdef int64_t* scratch  # where each line of `next_block`'s block starts (not handed out)
    cdef int64_t scratch_rows
    cdef int64_t row  # where `next_block` goes on from: the first row not written, and the first batch
    cdef int64_t batch
    cdef object keep  # what the pointers point into: the chunks' arrays, the batch lines, the timestamp type's name

    def __cinit__(self):
        self.R = NULL
        self.C = NULL
        self.B = NULL
        self.scratch = NULL

    def __dealloc__(self):
        free(self.R)
        free(self.C)
        free(self.scratch)

    def __call__(self, int64_t first, int64_t rows, int64_t budget, int64_t batch):
        starts = np.empty(max(rows, 0) + 1, dtype=np.int64)
        cdef int64_t[::1] s = starts
        block, size, written, batch = self._block(first, &s[0], rows, budget, batch)
        return np.frombuffer(block, dtype=np.uint8, count=size), starts, written, batch

    cdef tuple _block(self, int64_t first, int64_t* starts, int64_t want, int64_t budget, int64_t batch):
        """(a `Block` holding the lines at its start, their bytes, rows written, the next batch). A block of a budget
        spans the room it reserved (a run's last block too, whose lines are short), so that it goes back to the pool
        with the pages a next block writes (the pool keeps a block's pages up to its size), not to be faulted in again
        by every run's first block; what is past the lines is not to be read."""
        cdef Grow g = Grow(NULL, 0, 0)
        cdef int64_t written = 0, size
        cdef bint ok = True
        if first < 0 or first > self.rows or want < 0:
            raise ValueError("starts: one position a row and one more, from a row of the chunks")
        if self.B != NULL and not 0 <= batch <= self.lines.n:
            raise ValueError("batch lines: a batch of them")
        want = min(want, self.rows - first)
        if budget < 1:
            budget = INT64_MAX
        if self.B != NULL:
            self.lines.next = batch
        with nogil:
            if budget < INT64_MAX:  # (a block's lines: its buffer taken once, not grown by copies)
                ok = _grow(&g, budget + BLOCK_SLACK, TAG_RECORD_LINES)
            if ok:
                written = _rows_into(&g, &self.job, self.R, self.C, self.m, first, want, starts, budget, self.B)
                ok = written >= 0
        size = g.size
        if budget < INT64_MAX:
            g.size = max(g.size, min(budget + BLOCK_SLACK, g.cap))
        return _finish(&g, ok, TAG_RECORD_LINES), size, written, (self.lines.next if self.B != NULL else 0)


def next_block(Writer w, int64_t budget, int64_t rows):
    """A run's lines from where `w`'s last block ended (its first row and batch at first): at most `rows` records'
    lines, up to the row that brings them to `budget` bytes, with the batch lines among them, as a view of the `Block`
    they were written in (its start: see `Writer._block`); None once every line is written. (A module function, not a method, so that a benchmark wrapping the module's functions sees
    it: `benchmarks/threads.py` counts their time as GIL-free.)"""
    cdef int64_t* grown
    if w.row >= w.rows and (w.B == NULL or w.batch >= w.lines.n):
        return None
    rows = max(min(rows, w.rows - w.row), 0)
    if rows + 1 > w.scratch_rows:
        grown = <int64_t*>realloc(w.scratch, (rows + 1) * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError("kafkalog dump: no memory left for the lines of a run of records")
        w.scratch, w.scratch_rows = grown, rows + 1
    block, size, written, batch = w._block(w.row, w.scratch, rows, budget, w.batch)
    if not written and batch == w.batch:
        raise AssertionError("a block of no lines")  # (never: a block writes a row or the batches left)
    w.row += written
    w.batch = batch
    return memoryview(block)[:size]


cdef Writer _writer(list chunks, Job job, object batches):
    """A `Writer` of `chunks` (Arrow record batches of `kafkalog.fast.columns.SCHEMA`'s record columns, a table's in
    order), with `batches` (`line_parts.BatchLines`) or None."""
    cdef Writer w = Writer.__new__(Writer)
    cdef Py_ssize_t k, m = len(chunks)
    cdef const uint8_t[::1] batch_text
    cdef const int64_t[::1] batch_starts, batch_rows
    cdef list keep = []
    w.keep = (keep, batches)
    w.job = job
    w.m = m
    w.R = <Records*>malloc(max(m, 1) * sizeof(Records))
    w.C = <Column*>malloc(max(m, 1) * sizeof(Column))
    if w.R == NULL or w.C == NULL:
        raise MemoryError()
    w.rows = 0
    for k in range(m):
        w.R[k] = _records(chunks[k], keep, &w.C[k] if job.fmt == JSON else NULL)
        w.rows += w.R[k].rows
    if batches is not None:
        batch_text, batch_starts, batch_rows = batches.text, batches.starts, batches.rows
        w.lines.n = batch_rows.shape[0]
        if batch_starts.shape[0] < w.lines.n + 1 or (w.lines.n and batch_starts[w.lines.n] > batch_text.shape[0]):
            raise ValueError("batch lines: where each starts and one more")
        w.lines.text = &batch_text[0] if batch_text.shape[0] else NULL
        w.lines.starts = &batch_starts[0]
        w.lines.rows = &batch_rows[0] if w.lines.n else NULL
        w.lines.next = 0
        w.lines.row = 0
        w.B = &w.lines
    return w


def json_writer(list chunks, batches=None):
    """A `Writer` of the JSON lines of `chunks` (Arrow record batches of `kafkalog.fast.columns.SCHEMA`'s columns, a
    table's in order: `line_parts.chunks`), in ASCII, each ending in a newline; with `batches`
    (`line_parts.BatchLines`), the batches' lines among them, each before its batch's records."""
    cdef Job job
    job.fmt = JSON
    return _writer(chunks, job, batches)


def text_writer(list chunks, int64_t limit, int64_t header_limit, batches=None):
    """A `Writer` of the text lines of `chunks` (as `json_writer` takes them; of data records), keys and values cut at
    `limit` bytes and header values at `header_limit` (-1: whole), as UTF-8 (`batches` as `json_writer` takes
    them)."""
    cdef Job job
    job.fmt = TEXT
    job.limit = limit
    job.header_limit = header_limit
    return _writer(chunks, job, batches)


def kafka_writer(list chunks, bytes timestamp_type, batches=None):
    """A `Writer` of `--format kafka`'s lines of `chunks` (as `json_writer` takes them; of v2 data batches whose
    timestamps are `timestamp_type`), as UTF-8 (`batches` as `json_writer` takes them)."""
    cdef Job job
    cdef Writer w
    job.fmt = KAFKA
    job.ts_type = <const uint8_t*><const char*>timestamp_type
    job.ts_len = len(timestamp_type)
    w = _writer(chunks, job, batches)
    w.keep = (w.keep, timestamp_type)
    return w


def _whole(Writer w, int64_t[::1] starts):
    """Every line of a writer's chunks in one `Block`, without a bound; where each starts into `starts`."""
    if starts is None or starts.shape[0] < w.rows + 1:
        raise ValueError("starts: one position a row and one more")
    return w._block(0, &starts[0], w.rows, 0, 0)[0]  # (no budget: the block is its lines)


def json_records(list chunks, int64_t[::1] starts):
    """The JSON line of every row of `chunks` (as `json_writer`) in one `Block`; where each starts into `starts`."""
    return _whole(json_writer(chunks), starts)


def text_records(list chunks, int64_t limit, int64_t header_limit, int64_t[::1] starts):
    """The text line of every row of `chunks` (as `text_writer`) in one `Block`; where each starts into `starts`."""
    return _whole(text_writer(chunks, limit, header_limit), starts)


def kafka_records(list chunks, bytes timestamp_type, int64_t[::1] starts):
    """`--format kafka`'s line of every row of `chunks` (as `kafka_writer`) in one `Block`; where each starts into
    `starts`."""
    return _whole(kafka_writer(chunks, timestamp_type), starts)


def kafka_legacy_records(list chunks, bytes timestamp_type, const int64_t[::1] crc, const uint8_t[::1] valid,
                         bint brace):
    """`--format kafka`'s lines of a magic 0 or 1 entry's records (`chunks` as `json_writer` takes them), each with its
    message's `crc` and `valid` (0 or 1) and, for Kafka 3's tool, its stray brace, as UTF-8 in a `Block`."""
    cdef Job job
    cdef Writer w
    cdef Grow g = Grow(NULL, 0, 0)
    cdef int64_t row = 0
    cdef Py_ssize_t k
    cdef bint ok = True
    job.fmt = KAFKA_LEGACY
    job.ts_type = <const uint8_t*><const char*>timestamp_type
    job.ts_len = len(timestamp_type)
    w = _writer(chunks, job, None)
    if crc.shape[0] < w.rows or valid.shape[0] < w.rows:
        raise ValueError("a checksum and a validity a row")
    if w.rows == 0:
        return _finish(&g, True)
    with nogil:
        for k in range(w.m):
            ok = _kafka_legacy(&g, &w.R[k], job.ts_type, job.ts_len, &crc[0] + row, &valid[0] + row, brace)
            row += w.R[k].rows
            if not ok:
                break
    return _finish(&g, ok)


# -- batch lines ---------------------------------------------------------------------------------------------------

# What a template's step writes after its literal (`kafkalog.fast.batch_lines`' LITERAL, DECIMAL, BOOLEAN, NAME).
cdef enum:
    _DECIMAL = 1
    _BOOLEAN = 2
    _NAME = 3


def batch_lines(const int64_t[:, ::1] steps, const uint8_t[::1] literals, const int64_t[::1] name_starts,
                const uint8_t[::1] names, const int64_t[:, ::1] values, int64_t most, int64_t[::1] starts):
    """Each batch's line (a column of `values`, the batch fields' rows) by a template's steps (rows: literal start
    and length in `literals`, kind, field row, first name, condition's field row or -1, its value), as a `Block`;
    where each line starts into `starts` (batches + 1). `most`: the most bytes one line takes."""
    cdef int64_t n = values.shape[1]
    cdef int64_t i, j, when, kind, name, p
    cdef uint8_t* o
    cdef uint8_t* fitted
    cdef Block block
    if steps.shape[1] < 7 or starts.shape[0] < n + 1:
        raise ValueError("a template's steps and one start a batch and one more")
    # (malloc's, not the pool's: a run's batch lines are a few hundred KiB at most, and the pool's blocks are the
    # record lines', whose pages hold a whole block; lent to Python as a block the pool does not take back)
    o = <uint8_t*>malloc(n * most + 1)
    if o == NULL:
        raise MemoryError("kafkalog dump: no memory left for the batch lines of a run")
    with nogil:
        p = 0
        for i in range(n):
            starts[i] = p
            for j in range(steps.shape[0]):
                when = steps[j, 5]
                if when >= 0 and values[when, i] != steps[j, 6]:
                    continue
                p = _put_n(o, p, &literals[0] + steps[j, 0], steps[j, 1])
                kind = steps[j, 2]
                if kind == _DECIMAL:
                    p = _int(o, p, values[steps[j, 3], i])
                elif kind == _BOOLEAN:
                    if values[steps[j, 3], i] != 0:
                        p = _put(o, p, b"true")
                    else:
                        p = _put(o, p, b"false")
                elif kind == _NAME:
                    name = steps[j, 4] + values[steps[j, 3], i]
                    p = _put_n(o, p, &names[0] + name_starts[name], name_starts[name + 1] - name_starts[name])
        starts[n] = p
    fitted = <uint8_t*>realloc(o, max(p, 1))
    block = Block.__new__(Block)
    block.data = fitted if fitted != NULL else o
    block.size = p
    block.cap = 0  # (freed when let go)
    return block


# -- batch fields --------------------------------------------------------------------------------------------------

# The header columns `batch_fields` reads, in the order of `kafkalog.fast.batch_lines.HEADER_COLUMNS`.
cdef enum:
    H_BASE_OFFSET, H_LAST_OFFSET_DELTA, H_NUM_RECORDS, H_COMPRESSION, H_CRC, H_TIMESTAMP_TYPE, H_MAX_TIMESTAMP, \
        H_PRODUCER_ID, H_PRODUCER_EPOCH, H_BASE_SEQUENCE, H_PARTITION_LEADER_EPOCH, H_IS_TRANSACTIONAL, H_IS_CONTROL, \
        H_BASE_TIMESTAMP, H_HAS_DELETE_HORIZON, H_COLUMNS

# The rows `batch_fields` writes, in the order of `kafkalog.fast.batch_lines.FIELDS`.
cdef enum:
    F_POSITION, F_SIZE, F_MAGIC, F_BASE_OFFSET, F_LAST_OFFSET, F_COUNT, F_COMPRESSION, F_CRC, F_CRC_VALID, \
        F_TIMESTAMP_TYPE, F_MAX_TIMESTAMP, F_PRODUCER_ID, F_PRODUCER_EPOCH, F_BASE_SEQUENCE, F_LAST_SEQUENCE, \
        F_PARTITION_LEADER_EPOCH, F_IS_TRANSACTIONAL, F_IS_CONTROL, F_DELETE_HORIZON_MS, F_HAS_DELETE_HORIZON, F_ROWS


cdef inline int64_t _s32(int64_t n) noexcept nogil:
    """`javaint.s32`: an int64 holding any sum of two int32s, wrapped as Java's int."""
    return <int64_t><int32_t><uint32_t><uint64_t>n  # (its low 32 bits, as two's complement)


cdef inline int64_t _increment_sequence(int64_t sequence, int64_t increment) noexcept nogil:
    """`javaint.increment_sequence` (`DefaultRecordBatch.incrementSequence`): sequences wrap from 2^31-1 to 0."""
    if sequence > _s32(0x7FFFFFFF - increment):
        return _s32(increment - _s32(0x7FFFFFFF - sequence) - 1)
    return _s32(sequence + increment)


def batch_fields(const int64_t[:, ::1] header, const int64_t[::1] columns, const int64_t[::1] position,
                 const int64_t[::1] size, const int64_t[::1] magic, int64_t codecs, int64_t[:, ::1] out):
    """The batch fields of a run's batches (`kafkalog.fast.batch_lines.FIELDS`' rows of `out`, a column a batch) from
    their header columns (`header`'s columns `columns`, in `batch_lines.HEADER_COLUMNS`' order) and entries; False
    (and `out` not all written) when a batch is not one the templates print: not v2, or a codec id past `codecs`."""
    cdef Py_ssize_t n = position.shape[0], i, c
    cdef int64_t sequence, delta
    cdef const int64_t* h
    cdef bint printable = True
    if columns.shape[0] != H_COLUMNS or out.shape[0] != F_ROWS or out.shape[1] != n or header.shape[0] != n \
            or size.shape[0] != n or magic.shape[0] != n:
        raise ValueError("batch fields: a header, an entry and a column of fields a batch")
    for c in range(H_COLUMNS):
        if not 0 <= columns[c] < header.shape[1]:
            raise ValueError("batch fields: a header column past the header's")
    with nogil:
        for i in range(n):
            h = &header[i, 0]
            if magic[i] != 2 or not 0 <= h[columns[H_COMPRESSION]] < codecs:
                printable = False
                break
            out[F_POSITION, i] = position[i]
            out[F_SIZE, i] = size[i]
            out[F_MAGIC, i] = magic[i]
            out[F_BASE_OFFSET, i] = h[columns[H_BASE_OFFSET]]
            delta = h[columns[H_LAST_OFFSET_DELTA]]
            # (Java's long arithmetic: wraps)
            out[F_LAST_OFFSET, i] = <int64_t>(<uint64_t>h[columns[H_BASE_OFFSET]] + <uint64_t>delta)
            out[F_COUNT, i] = h[columns[H_NUM_RECORDS]]
            out[F_COMPRESSION, i] = h[columns[H_COMPRESSION]]
            out[F_CRC, i] = h[columns[H_CRC]]
            out[F_CRC_VALID, i] = 1  # (a plain batch's checksum held)
            out[F_TIMESTAMP_TYPE, i] = h[columns[H_TIMESTAMP_TYPE]] != 0
            out[F_MAX_TIMESTAMP, i] = h[columns[H_MAX_TIMESTAMP]]
            out[F_PRODUCER_ID, i] = h[columns[H_PRODUCER_ID]]
            out[F_PRODUCER_EPOCH, i] = h[columns[H_PRODUCER_EPOCH]]
            sequence = h[columns[H_BASE_SEQUENCE]]
            out[F_BASE_SEQUENCE, i] = sequence
            out[F_LAST_SEQUENCE, i] = _increment_sequence(sequence, delta) if sequence != -1 else -1
            out[F_PARTITION_LEADER_EPOCH, i] = h[columns[H_PARTITION_LEADER_EPOCH]]
            out[F_IS_TRANSACTIONAL, i] = h[columns[H_IS_TRANSACTIONAL]] != 0
            out[F_IS_CONTROL, i] = h[columns[H_IS_CONTROL]] != 0
            out[F_DELETE_HORIZON_MS, i] = h[columns[H_BASE_TIMESTAMP]]
            out[F_HAS_DELETE_HORIZON, i] = h[columns[H_HAS_DELETE_HORIZON]] != 0
    return printable
