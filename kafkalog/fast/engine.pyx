# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, infer_types=True
# cython: initializedcheck=False, nonecheck=False
"""The compiled engine: the fast path's loops (all but dump's line writers), compiled ahead of time by Cython.

Specs: `kafka_log.ksy`'s entry framing, `kafka_record_batch.ksy`, `kafka_record.ksy`, `kafka_varint.ksy`,
`kafka_control_record.ksy`, `kafka_message_set.ksy`, `kafka_offset_index.ksy` and `kafka_time_index.ksy`,
through the parsers `scripts/kernels.py` writes for Cython (`generated/kafka_kernels.pxi`, included here).
Compiled when the package is installed (setuptools, pyproject.toml's `ext-modules`): nothing is compiled,
generated or cached at run time. Twin: the generated Kaitai parsers (the object path).

What is written by hand here is glue: loops that call the generated parsers over many entries, records,
messages or slots, and the copies into Arrow's layout; each call runs without the GIL:

* `scan_entries`, `parse_batch_headers`, `parse_legacy_entries`: a chunk's entries, their v2 headers and
  their legacy messages (`kafkalog.fast.segment`);
* `walk_messages`: a wrapper's inner messages (`kafkalog.fast.message_set`);
* `parse_offset_index_slots`, `parse_time_index_slots`: every slot of an index (`kafkalog.fast.index`);
* `gather_pair`: two byte fields of the same rows into Arrow's layout (`kafkalog.fast.columns`);
* `crc32c_each`: the CRC-32C of many batches, by ISA-L's `crc32_iscsi`, which python-isal carries;
* `decompress_batches`: consecutive LZ4, zstd, snappy or gzip batches one after the other into a group's
  buffer, by the C functions python-lz4, zstandard and python-isal carry and export (`LZ4F_decompress`,
  `ZSTD_decompressStream`, ISA-L's `isal_inflate_stateless`: inflate.pxi) and by our own raw snappy decoder
  (snappy.pxi), with `kafkalog.fast.compression`'s rules for what it takes;
* `walk`: the records of a group's sections (resumable where a walk's rows are enough) with Kafka's offset,
  timestamp and sequence rules (`DefaultRecordBatch`), straight into Arrow's buffers: offsets, validity
  bitmaps and data of the keys, values and headers, and the control keys' types. Python wraps the finished
  buffers once per walk;
* `decode_group`: a whole group (headers, CRC-32C, decompression, the walk) in one call: the product path's call
  for the plain v2 batches of a chunk (`kafkalog.fast.record_batch.BatchWalker.plain_batches`), which wraps the
  finished buffers once per group; its contract is in its docstring. The usual group (`Group.usual`) is wrapped by
  `Group.record_batch` into its finished record batch, handed to Arrow in one call through Arrow's C data interface
  (with the constant columns, exported once: `Constants`, and the batch-level columns that differ between its
  batches, made per batch: `BATCH_COLUMNS`); any other, as a `Walked`.

The codecs' and the CRC's C functions are found by address in the packages' extension modules when this
module is imported; `AVAILABLE` is False where one is missing, `GZIP_AVAILABLE` where ISA-L's inflate is
missing or of a version whose layout inflate.pxi does not mirror.
"""
include "../../generated/kafka_kernels.pxi"

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy
from posix.unistd cimport pread

import ctypes
import importlib
import zlib

import numpy as np
import pyarrow as pa

# -- the C functions of the codec and checksum packages ----------------------------------------------------------

ctypedef uint32_t (*Crc32cFn)(const uint8_t*, int, uint32_t) noexcept nogil
ctypedef size_t (*Lz4fCreateFn)(void**, unsigned) noexcept nogil
ctypedef size_t (*Lz4fFreeFn)(void*) noexcept nogil
ctypedef size_t (*Lz4fDecompressFn)(void*, void*, size_t*, const void*, size_t*, const void*) noexcept nogil
ctypedef unsigned (*IsErrorFn)(size_t) noexcept nogil
ctypedef void* (*ZstdCreateFn)() noexcept nogil
ctypedef size_t (*ZstdFreeFn)(void*) noexcept nogil
ctypedef struct ZstdInBuffer:
    const void* src
    size_t size
    size_t pos
ctypedef struct ZstdOutBuffer:
    void* dst
    size_t size
    size_t pos
ctypedef size_t (*ZstdStreamFn)(void*, ZstdOutBuffer*, ZstdInBuffer*) noexcept nogil
ctypedef size_t (*ZstdResetFn)(void*, int) noexcept nogil
ctypedef size_t (*ZstdSetParameterFn)(void*, int, int) noexcept nogil

cdef Crc32cFn _crc32_iscsi = NULL
cdef Lz4fCreateFn _lz4f_create = NULL
cdef Lz4fFreeFn _lz4f_free = NULL
cdef Lz4fDecompressFn _lz4f_decompress = NULL
cdef IsErrorFn _lz4f_is_error = NULL
cdef ZstdCreateFn _zstd_create = NULL
cdef ZstdFreeFn _zstd_free = NULL
cdef ZstdStreamFn _zstd_stream = NULL
cdef ZstdResetFn _zstd_reset = NULL
cdef ZstdSetParameterFn _zstd_set_parameter = NULL
cdef IsErrorFn _zstd_is_error = NULL


def _addresses(module, names):
    """The addresses of C functions a Python extension module exports, or None."""
    try:
        library = ctypes.CDLL(importlib.import_module(module).__file__)
        return [ctypes.cast(getattr(library, name), ctypes.c_void_p).value for name in names]
    except (ImportError, OSError, AttributeError):
        return None


_crc = _addresses("isal.isal_zlib", ("crc32_iscsi",))
if _crc is not None:
    _crc32_iscsi = <Crc32cFn><uintptr_t>_crc[0]
_lz4 = _addresses("lz4.frame._frame", ("LZ4F_createDecompressionContext", "LZ4F_freeDecompressionContext",
                                       "LZ4F_decompress", "LZ4F_isError"))
if _lz4 is not None:
    _lz4f_create = <Lz4fCreateFn><uintptr_t>_lz4[0]
    _lz4f_free = <Lz4fFreeFn><uintptr_t>_lz4[1]
    _lz4f_decompress = <Lz4fDecompressFn><uintptr_t>_lz4[2]
    _lz4f_is_error = <IsErrorFn><uintptr_t>_lz4[3]
# (zstandard carries its C library, with its symbols exported, in the `_cffi` module beside `backend_c`.)
_zstd = _addresses("zstandard._cffi", ("ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_decompressStream", "ZSTD_isError",
                                      "ZSTD_DCtx_reset", "ZSTD_DCtx_setParameter"))
if _zstd is not None:
    _zstd_create = <ZstdCreateFn><uintptr_t>_zstd[0]
    _zstd_free = <ZstdFreeFn><uintptr_t>_zstd[1]
    _zstd_stream = <ZstdStreamFn><uintptr_t>_zstd[2]
    _zstd_is_error = <IsErrorFn><uintptr_t>_zstd[3]
    _zstd_reset = <ZstdResetFn><uintptr_t>_zstd[4]
    _zstd_set_parameter = <ZstdSetParameterFn><uintptr_t>_zstd[5]


include "inflate.pxi"
include "snappy.pxi"


def _isal_version():
    """The ISA-L version python-isal was built with, or None."""
    try:
        return importlib.import_module("isal").ISAL_VERSION
    except (ImportError, AttributeError):
        return None


def _gunzip_works():
    """Whether ISA-L's inflate, called by address, inflates a gzip member as zlib wrote it (a check, after the
    version's, that the layout is the one ISA-L was built with)."""
    cdef IsalInflateState* state = <IsalInflateState*>malloc(sizeof(IsalInflateState))
    cdef const uint8_t[::1] member
    cdef uint8_t[::1] out
    cdef int64_t got
    expected = b"kafkalog: a gzip member inflated by ISA-L " * 4
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = deflate.compress(expected) + deflate.flush()
    out_array = np.zeros(2 * len(expected), dtype=np.uint8)
    out = out_array
    if state == NULL:
        return False
    got = _gunzip_batch(state, &member[0], member.shape[0], &out[0], out.shape[0])
    free(state)
    return got == len(expected) and out_array[:got].tobytes() == expected


# (ISA-L's inflate, by address where python-isal bundles an ISA-L whose `struct inflate_state` is
# inflate.pxi's; gzip batches are otherwise left to `kafkalog.fast.compression`.)
_inflate = _addresses("isal.isal_zlib", ("isal_inflate_init", "isal_inflate_stateless"))
if _inflate is not None and _isal_version() in ISAL_VERSIONS:
    _isal_inflate_init = <IsalInflateInitFn><uintptr_t>_inflate[0]
    _isal_inflate_stateless = <IsalInflateStatelessFn><uintptr_t>_inflate[1]
    if not _gunzip_works():
        _isal_inflate_init, _isal_inflate_stateless = NULL, NULL

cdef enum:
    _GZIP = 1
    _SNAPPY = 2
    _LZ4 = 3
    _ZSTD = 4
#: Codec ids of `kafka_record_batch.ksy`'s compression enum that `decompress_batches` takes.
GZIP, SNAPPY, LZ4, ZSTD = _GZIP, _SNAPPY, _LZ4, _ZSTD
#: Whether every C function was found.
AVAILABLE = _crc is not None and _lz4 is not None and _zstd is not None
#: Whether gzip batches are inflated here (ISA-L found, of a version whose layout inflate.pxi mirrors).
GZIP_AVAILABLE = _isal_inflate_stateless != NULL
#: The codecs whose batches `decode_group` takes (none, and those `_decompress_run` decompresses here).
GROUP_CODECS = (0, _SNAPPY, _LZ4, _ZSTD) + ((_GZIP,) if GZIP_AVAILABLE else ())
XERIAL_MAGIC = _XERIAL[:8]


cdef inline bint _takes(int64_t codec) noexcept nogil:
    """Whether `_decompress_run` takes `codec`'s batches."""
    if codec == _LZ4:
        return _lz4f_decompress != NULL
    if codec == _ZSTD:
        return _zstd_stream != NULL
    return codec == _SNAPPY or (codec == _GZIP and _isal_inflate_stateless != NULL)

cdef enum:
    # A short call keeps the GIL. Releasing it wakes a thread waiting for it, and taking it back waits for that
    # thread's Python to reach its own release (longer, on a read's two threads, than a short call runs): a call
    # releases the GIL only for about 10 us of work or more, judged in the call by its input's size.
    _RELEASE_ROWS = 2048  # rows of a pass over columns (`kafka_columns`: about 6 ns a row)
    _RELEASE_ENTRIES = 128  # entries whose headers are read (`scan_entries`, `parse_batch_headers`: 70-170 ns each)
    _RELEASE_BYTES = 65536  # bytes checksummed (`crc32c_each`: ISA-L, several GB/s)
#: The sizes from which the short calls release the GIL (`benchmarks/threads.py` counts the calls below as held).
RELEASE_ROWS, RELEASE_ENTRIES, RELEASE_BYTES = _RELEASE_ROWS, _RELEASE_ENTRIES, _RELEASE_BYTES

# What stopped `walk`, and the damage codes beside the generated ERRORS: as `kafkalog.fast.walk_codes`.
cdef enum:
    _WALK_DONE = 0
    _WALK_FULL = 1
    _BODY_TRAILING = 1000
    _SECTION_TRAILING = 1001
    _OUT_OF_MEMORY = -1
    _INT32_MAX = 0x7FFFFFFF
WALK_DONE, WALK_FULL = _WALK_DONE, _WALK_FULL
#: Columns of a batch header's row (the generated `KAFKA_RECORD_BATCH__*`).
KAFKA_RECORD_BATCH_WIDTH = KAFKA_RECORD_BATCH__WIDTH
#: Control codes of `walk`'s `control` column beside a control record's type.
NOT_CONTROL, KEY_DOES_NOT_PARSE = -1, -2


# -- checksums and codecs ----------------------------------------------------------------------------------------

def crc32c_each(const uint8_t[::1] buf, const int64_t[::1] start, const int64_t[::1] length):
    """The CRC-32C of each slice ``buf[start[i]:start[i] + length[i]]`` (inside `buf`, lengths < 2 GiB), in one
    call without the GIL (from `RELEASE_BYTES` in all); `kafkalog.checksums.v2_crc`'s, many at a time."""
    cdef Py_ssize_t i, n = start.shape[0]
    cdef int64_t total = 0
    out = np.empty(n, dtype=np.uint32)
    cdef uint32_t[::1] o = out
    for i in range(n):
        if start[i] < 0 or length[i] < 0 or start[i] + length[i] > buf.shape[0]:
            raise ValueError("a slice is not inside the buffer")  # a caller's bug: the call would read past it
        total += length[i]
    if n == 0:
        return out
    cdef const uint8_t* base = &buf[0]
    if total >= _RELEASE_BYTES:
        with nogil:
            _crc32c_each(base, &start[0], &length[0], n, &o[0])
    else:
        _crc32c_each(base, &start[0], &length[0], n, &o[0])
    return out


cdef inline void _crc32c_each(const uint8_t* base, const int64_t* start, const int64_t* length, Py_ssize_t n,
                              uint32_t* out) noexcept nogil:
    """`crc32c_each`'s loop."""
    cdef Py_ssize_t i
    cdef uint32_t ones = 0xFFFFFFFF
    for i in range(n):
        out[i] = _crc32_iscsi(base + start[i], <int>length[i], ones) ^ ones


cdef enum:
    # kafkalog.entries' table columns and scan outcomes, and kafkalog.formats.framing's sizes (a test holds
    # them equal).
    _ENTRY_POS = 0
    _ENTRY_LENGTH = 1
    _ENTRY_MAGIC = 2
    _SCAN_END = 0
    _SCAN_STOP = 1
    _SCAN_FULL = 2
    _LOG_OVERHEAD = 12
    _HEADER_SIZE_UP_TO_MAGIC = 17
    _MIN_ENTRY_SIZE = 14
ENTRY_POS, ENTRY_LENGTH, ENTRY_MAGIC, SCAN_END, SCAN_STOP, SCAN_FULL = (
    _ENTRY_POS, _ENTRY_LENGTH, _ENTRY_MAGIC, _SCAN_END, _SCAN_STOP, _SCAN_FULL)
LOG_OVERHEAD, HEADER_SIZE_UP_TO_MAGIC, MIN_ENTRY_SIZE = _LOG_OVERHEAD, _HEADER_SIZE_UP_TO_MAGIC, _MIN_ENTRY_SIZE


def scan_entries(const uint8_t[::1] buf, int64_t pos, int64_t start_limit, int64_t max_entry, int64_t[:, ::1] out):
    """Entries that lie whole in buf[pos:], starting before `start_limit`, into `out` (position, size, magic), in one
    call without the GIL (where it may find `RELEASE_ENTRIES` or more): `kafkalog.entries.EntryScanner`'s chunk scan
    (`kafka_log.ksy`'s entry header, Kafka's `FileLogInputStream`). Stops at the first entry that is not whole in `buf`
    or whose size is below the minimum or above `max_entry`. Returns (entries, position reached, SCAN_END, SCAN_STOP or
    SCAN_FULL)."""
    cdef int64_t n = 0, end = buf.shape[0], rows = out.shape[0]
    cdef int why
    if out.shape[1] != 3:
        raise ValueError("the entry table has three columns")  # a caller's bug
    if pos < 0:
        raise ValueError("a negative position")  # a caller's bug
    if end == 0 or pos >= start_limit:
        return 0, pos, _SCAN_END if pos >= start_limit else _SCAN_STOP
    cdef const uint8_t* data = &buf[0]
    # (the entries it may find, at most: the table's rows, or the bytes left over the smallest entry)
    if min(rows, (end - pos) // (_LOG_OVERHEAD + _MIN_ENTRY_SIZE)) >= _RELEASE_ENTRIES:
        with nogil:
            why = _scan(data, end, &pos, start_limit, max_entry, out, &n)
    else:
        why = _scan(data, end, &pos, start_limit, max_entry, out, &n)
    return n, pos, why


cdef int _scan(const uint8_t* data, int64_t end, int64_t* at, int64_t start_limit, int64_t max_entry,
               int64_t[:, ::1] out, int64_t* found) noexcept nogil:
    """`scan_entries`' loop: from `at[0]`, moved past the entries found (`found[0]` of them, in `out`)."""
    cdef int64_t n = found[0], pos = at[0], length, rows = out.shape[0]
    cdef int why = _SCAN_END
    cdef int8_t magic
    while pos < start_limit:
        if n >= rows:
            why = _SCAN_FULL
            break
        if end - pos < _HEADER_SIZE_UP_TO_MAGIC:
            why = _SCAN_STOP
            break
        length = _int_be(data, pos + 8, 4)
        if length < _MIN_ENTRY_SIZE or length > max_entry or length > end - pos - _LOG_OVERHEAD:
            why = _SCAN_STOP
            break
        magic = <int8_t>data[pos + 16]
        out[n, _ENTRY_POS] = pos
        out[n, _ENTRY_LENGTH] = length
        out[n, _ENTRY_MAGIC] = magic
        n += 1
        pos += _LOG_OVERHEAD + length
    found[0], at[0] = n, pos
    return why


def hop_entries(int fd, int64_t pos, int64_t start_limit, int64_t file_end, int64_t max_entry, int64_t[:, ::1] out):
    """Entries of the file `fd` from `pos`, starting before `start_limit` and whole before `file_end`, found by their
    first 17 bytes alone (one `pread` each, without the GIL; the rest of each entry is not read): a planner's walk
    over large entries (`kafkalog.entries.EntryScanner.entry_windows`), where reading every byte costs more than a
    read per entry. Rows of `out`: file position, size (after the first 12 bytes), magic, offset field (a v2 batch's
    base offset, a legacy message's offset). Stops as `scan_entries` does (an entry not whole before `file_end`, a
    size below the minimum or above `max_entry`, a full table), and at a read that fails or comes short: the caller
    reads the file there to say why. Returns (entries, position reached, SCAN_END, SCAN_STOP or SCAN_FULL)."""
    cdef int64_t n = 0, length, rows = out.shape[0]
    cdef int why = _SCAN_END
    cdef uint8_t head[_HEADER_SIZE_UP_TO_MAGIC]
    if out.shape[1] != 4:
        raise ValueError("the hop table has four columns")  # a caller's bug
    if pos < 0:
        raise ValueError("a negative position")  # a caller's bug
    with nogil:
        while pos < start_limit:
            if n >= rows:
                why = _SCAN_FULL
                break
            if file_end - pos < _HEADER_SIZE_UP_TO_MAGIC or pread(fd, head, _HEADER_SIZE_UP_TO_MAGIC, pos) \
                    != _HEADER_SIZE_UP_TO_MAGIC:
                why = _SCAN_STOP
                break
            length = _int_be(head, 8, 4)
            if length < _MIN_ENTRY_SIZE or length > max_entry or length > file_end - pos - _LOG_OVERHEAD:
                why = _SCAN_STOP
                break
            out[n, 0] = pos
            out[n, 1] = length
            out[n, 2] = <int8_t>head[16]
            out[n, 3] = _int_be(head, 0, 8)
            n += 1
            pos += _LOG_OVERHEAD + length
    return n, pos, why


def parse_batch_headers(const uint8_t[::1] buf, const int64_t[::1] pos, const int64_t[::1] size,
                        int64_t[:, ::1] table, int64_t[::1] errors):
    """The v2 header (`kafka_record_batch.ksy`) of each entry `buf[pos[i]:pos[i] + size[i]]` into row i of `table`
    (`KAFKA_RECORD_BATCH__*` columns), its error code into `errors[i]`, in one call without the GIL (from
    `RELEASE_ENTRIES` entries)."""
    cdef Py_ssize_t i, n = pos.shape[0]
    if table.shape[0] < n or table.shape[1] != KAFKA_RECORD_BATCH__WIDTH or errors.shape[0] < n:
        raise ValueError("the table is smaller than the entries")  # a caller's bug
    for i in range(n):
        if pos[i] < 0 or size[i] < 0 or pos[i] + size[i] > buf.shape[0]:
            raise ValueError("an entry is not inside the buffer")  # a caller's bug: the call would read past it
    if n == 0:
        return
    cdef const uint8_t* base = &buf[0]
    if n >= _RELEASE_ENTRIES:
        with nogil:
            _parse_batch_headers(base, &pos[0], &size[0], n, &table[0, 0], &errors[0])
    else:
        _parse_batch_headers(base, &pos[0], &size[0], n, &table[0, 0], &errors[0])


cdef void _parse_batch_headers(const uint8_t* base, const int64_t* pos, const int64_t* size, Py_ssize_t n,
                               int64_t* table, int64_t* errors) noexcept nogil:
    """`parse_batch_headers`' loop: row i of `table` (`KAFKA_RECORD_BATCH__WIDTH` columns, C order)."""
    cdef Py_ssize_t i
    cdef int err
    cdef Table t
    cdef int64_t row[KAFKA_RECORD_BATCH__WIDTH]
    t.data, t.rows = row, 1
    for i in range(n):
        err, _ = parse_kafka_record_batch(base, pos[i], pos[i] + size[i], &t, 0)
        errors[i] = err
        memcpy(&table[i * KAFKA_RECORD_BATCH__WIDTH], row, KAFKA_RECORD_BATCH__WIDTH * 8)


def parse_legacy_entries(const uint8_t[::1] buf, const int64_t[:, ::1] entries, const int64_t[::1] rows,
                         int64_t[:, ::1] table, int64_t[::1] errors):
    """Each legacy entry `entries[rows[i]]` (rows of a `kafkalog.entries` table; `kafka_message_set.ksy`, type
    entry) into column i of the column-major `table` (`KAFKA_MESSAGE_SET__ENTRY__*` rows), its error code into
    `errors[i]`, in one call without the GIL."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int64_t e, p
    cdef int err
    cdef Table t
    if table.shape[0] != KAFKA_MESSAGE_SET__ENTRY__WIDTH or table.shape[1] < n or errors.shape[0] < n \
            or entries.shape[1] != 3:
        raise ValueError("the table is smaller than the entries")  # a caller's bug
    for i in range(n):
        e = rows[i]
        if not 0 <= e < entries.shape[0]:
            raise ValueError("a row is not in the entry table")  # a caller's bug
        p = entries[e, _ENTRY_POS]
        if p < 0 or entries[e, _ENTRY_LENGTH] < 0 or p + _LOG_OVERHEAD + entries[e, _ENTRY_LENGTH] > buf.shape[0]:
            raise ValueError("an entry is not inside the buffer")  # a caller's bug: the call would read past it
    if n == 0:
        return
    cdef const uint8_t* base = &buf[0]
    t.data, t.rows = &table[0, 0], table.shape[1]
    with nogil:
        for i in range(n):
            e = rows[i]
            p = entries[e, _ENTRY_POS]
            err, _ = parse_kafka_message_set__entry(base, p, p + _LOG_OVERHEAD + entries[e, _ENTRY_LENGTH], &t, i)
            errors[i] = err


def walk_messages(const uint8_t[::1] buf, int64_t pos, int64_t end, int64_t[:, ::1] table):
    """The entries of a wrapper's inner message set `buf[pos:end]` into the columns of `table` (column-major,
    `KAFKA_MESSAGE_SET__ENTRY__*` rows), as Kafka's `DataLogInputStream` reads them: until fewer than 8 bytes (not
    even an offset) are left; in one call without the GIL. Returns (entries, error code, position); error code 1
    means the table is full."""
    cdef int64_t n = 0, cap = table.shape[1], after
    cdef int err = 0
    cdef Table t
    if table.shape[0] != KAFKA_MESSAGE_SET__ENTRY__WIDTH:
        raise ValueError("the table is not a message table")  # a caller's bug
    if not 0 <= pos <= end <= buf.shape[0]:
        raise ValueError("the messages are not inside the buffer")  # a caller's bug: the walk would read past it
    if end - pos < 8:
        return 0, 0, pos
    if cap == 0:
        return 0, 1, pos
    cdef const uint8_t* data = &buf[0]
    t.data, t.rows = &table[0, 0], cap
    with nogil:
        while end - pos >= 8:
            if n >= cap:
                err = 1
                break
            err, after = parse_kafka_message_set__entry(data, pos, end, &t, n)
            if err != 0:
                break
            pos = after
            n += 1
    return n, err, pos


ctypedef (int, int64_t) (*SlotParser)(const uint8_t*, int64_t, int64_t, Table*, int64_t) noexcept nogil


cdef _parse_slots(const uint8_t[::1] buf, int64_t[:, ::1] table, int64_t slot_bytes, int64_t width,
                  SlotParser parse):
    """Every whole `slot_bytes`-byte slot of an index file, each by `parse` (the generated parser of its entry type),
    into the columns of `table` (column-major, `width` rows), in one call without the GIL."""
    cdef int64_t i, slots = buf.shape[0] // slot_bytes
    cdef Table t
    if table.shape[0] != width or table.shape[1] < slots:
        raise ValueError("the table is smaller than the slots")  # a caller's bug
    if slots == 0:
        return
    cdef const uint8_t* data = &buf[0]
    t.data, t.rows = &table[0, 0], table.shape[1]
    with nogil:
        for i in range(slots):
            parse(data, slot_bytes * i, slot_bytes * (i + 1), &t, i)


def parse_offset_index_slots(const uint8_t[::1] buf, int64_t[:, ::1] table):
    """Every whole 8-byte slot of an offset index (`kafka_offset_index.ksy`, type index_entry) into the columns of
    `table` (column-major, `KAFKA_OFFSET_INDEX__INDEX_ENTRY__*` rows), in one call without the GIL."""
    _parse_slots(buf, table, 8, KAFKA_OFFSET_INDEX__INDEX_ENTRY__WIDTH, parse_kafka_offset_index__index_entry)


def parse_time_index_slots(const uint8_t[::1] buf, int64_t[:, ::1] table):
    """Every whole 12-byte slot of a time index (`kafka_time_index.ksy`, type time_index_entry) into the columns of
    `table` (column-major, `KAFKA_TIME_INDEX__TIME_INDEX_ENTRY__*` rows), in one call without the GIL."""
    _parse_slots(buf, table, 12, KAFKA_TIME_INDEX__TIME_INDEX_ENTRY__WIDTH, parse_kafka_time_index__time_index_entry)


def gather_pair(const uint8_t[::1] buf, const int64_t[::1] a_pos, const int64_t[::1] a_size,
                const int64_t[::1] b_pos, const int64_t[::1] b_size, bint a_utf8):
    """Two byte fields of the same rows (a legacy message's key and value) in Arrow's layout, copied in one call
    without the GIL: for each, int32 `offsets` (rows + 1) and the `data` of `buf[pos[i]:pos[i] + size[i]]` one
    after the other (nothing where size < 0), and how many are null (size < 0). With `a_utf8`, also the first
    row whose field a is not valid UTF-8 (as Python's strict decoder reads it), else -1.
    Returns (a_offsets, a_data, a_nulls, b_offsets, b_data, b_nulls, bad)."""
    cdef Py_ssize_t i, n = a_pos.shape[0]
    cdef int64_t a_total = 0, b_total = 0, a_nulls = 0, b_nulls = 0, oa = 0, ob = 0, bad = -1
    if a_size.shape[0] != n or b_pos.shape[0] != n or b_size.shape[0] != n:
        raise ValueError("the fields' columns differ in length")  # a caller's bug
    for i in range(n):
        if a_size[i] < 0:
            a_nulls += 1
        elif a_pos[i] < 0 or a_pos[i] + a_size[i] > buf.shape[0]:
            raise ValueError("a field is not inside the buffer")  # a caller's bug: the copy would read past it
        else:
            a_total += a_size[i]
        if b_size[i] < 0:
            b_nulls += 1
        elif b_pos[i] < 0 or b_pos[i] + b_size[i] > buf.shape[0]:
            raise ValueError("a field is not inside the buffer")  # a caller's bug
        else:
            b_total += b_size[i]
    if a_total > _INT32_MAX or b_total > _INT32_MAX:
        raise ValueError("more bytes than Arrow's 32-bit offsets hold")  # a caller's bug: the rows go out in parts
    a_offsets_array = np.empty(n + 1, dtype=np.int32)
    b_offsets_array = np.empty(n + 1, dtype=np.int32)
    a_data_array = np.empty(a_total, dtype=np.uint8)
    b_data_array = np.empty(b_total, dtype=np.uint8)
    cdef int32_t[::1] a_offsets = a_offsets_array, b_offsets = b_offsets_array
    cdef uint8_t[::1] a_data = a_data_array, b_data = b_data_array
    cdef const uint8_t* src = &buf[0] if buf.shape[0] else NULL
    cdef uint8_t* a_out = &a_data[0] if a_total else NULL
    cdef uint8_t* b_out = &b_data[0] if b_total else NULL
    with nogil:
        for i in range(n):
            a_offsets[i] = <int32_t>oa
            b_offsets[i] = <int32_t>ob
            if a_size[i] > 0:
                memcpy(a_out + oa, src + a_pos[i], <size_t>a_size[i])
                if a_utf8 and bad < 0 and not _utf8(a_out, oa, oa + a_size[i]):
                    bad = i
                oa += a_size[i]
            if b_size[i] > 0:
                memcpy(b_out + ob, src + b_pos[i], <size_t>b_size[i])
                ob += b_size[i]
        a_offsets[n] = <int32_t>oa
        b_offsets[n] = <int32_t>ob
    return a_offsets_array, a_data_array, a_nulls, b_offsets_array, b_data_array, b_nulls, bad


def scaled_in_range(const int64_t[::1] values, int64_t low, int64_t high, int64_t scale):
    """``values[i] * scale`` where ``low <= values[i] <= high``, else 0, and the validity bitmap of the rows in range
    (Arrow's, least significant bit first), with how many are out of range: one pass without the GIL (from
    `RELEASE_ROWS`; the dataset layer's milliseconds into Spark's microseconds, per Arrow batch)."""
    cdef Py_ssize_t n = values.shape[0]
    out_array = np.empty(n, dtype=np.int64)
    bitmap_array = np.zeros((n + 7) >> 3, dtype=np.uint8)
    cdef int64_t[::1] out = out_array
    cdef uint8_t[::1] bitmap = bitmap_array
    cdef int64_t nulls = 0
    if n == 0:
        return out_array, bitmap_array, 0
    if n >= _RELEASE_ROWS:
        with nogil:
            nulls = _scaled(&values[0], n, low, high, scale, &out[0], &bitmap[0])
    else:
        nulls = _scaled(&values[0], n, low, high, scale, &out[0], &bitmap[0])
    return out_array, bitmap_array, nulls


cdef inline int64_t _scaled(const int64_t* values, Py_ssize_t n, int64_t low, int64_t high, int64_t scale,
                            int64_t* out, uint8_t* bitmap) noexcept nogil:
    """`scaled_in_range`'s pass (and `kafka_columns`' timestamps) into `out` and the zeroed `bitmap`: how many
    values are out of range. (A byte of the bitmap is made in a register and stored once: setting each bit in memory
    chained every row's store to the last's.)"""
    cdef Py_ssize_t i, j
    cdef int64_t v, valid = 0
    cdef uint8_t byte
    cdef bint inside
    for i in range(0, n, 8):
        byte = 0
        for j in range(min(8, n - i)):
            v = values[i + j]
            inside = low <= v <= high
            out[i + j] = v * scale if inside else 0
            byte |= <uint8_t>(inside << j)
        bitmap[i >> 3] = byte
        valid += _popcount8(byte)
    return n - valid


cdef inline int _popcount8(uint8_t byte) noexcept nogil:
    """The bits set in `byte`."""
    byte = byte - ((byte >> 1) & 0x55)
    byte = (byte & 0x33) + ((byte >> 2) & 0x33)
    return (byte + (byte >> 4)) & 0x0F


def repeat_each(const int64_t[::1] values, const int64_t[::1] counts, int64_t n):
    """``values[i]`` on ``counts[i]`` rows each, `n` rows in all (numpy's ``repeat``, without the GIL from
    `RELEASE_ROWS`: a batch-level column of a walk's rows, such as each row's batch position)."""
    cdef Py_ssize_t i, m = values.shape[0]
    cdef int64_t c, j, row = 0
    if counts.shape[0] != m:
        raise ValueError("values and counts differ in length")
    for i in range(m):
        if counts[i] < 0:
            raise ValueError("a negative count")
        row += counts[i]
    if row != n:
        raise ValueError("the counts do not add up to the rows")  # a caller's bug: the loop would write past them
    out_array = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_array
    if n == 0:
        return out_array
    if n >= _RELEASE_ROWS:
        with nogil:
            _repeat(&values[0], &counts[0], m, &out[0])
    else:
        _repeat(&values[0], &counts[0], m, &out[0])
    return out_array


cdef inline void _repeat(const int64_t* values, const int64_t* counts, Py_ssize_t m, int64_t* out) noexcept nogil:
    """`repeat_each`'s loop."""
    cdef Py_ssize_t i
    cdef int64_t c, j, row = 0
    for i in range(m):
        c = counts[i]
        for j in range(c):
            out[row + j] = values[i]
        row += c


def ids_by_length(const int32_t[::1] offsets, const int32_t[::1] ids, int32_t[::1] out):
    """``out[i] = ids[offsets[i + 1] - offsets[i]]`` (the last id for any longer length, and for a negative one),
    for each string of an Arrow string array's offsets, without the GIL (from `RELEASE_ROWS`)."""
    cdef Py_ssize_t n = out.shape[0], last = ids.shape[0] - 1
    if offsets.shape[0] < n + 1 or last < 0:
        raise ValueError("the offsets or the ids are too short")  # a caller's bug: the loop would read past them
    if n == 0:
        return
    if n >= _RELEASE_ROWS:
        with nogil:
            _ids_by_length(&offsets[0], n, &ids[0], last, &out[0])
    else:
        _ids_by_length(&offsets[0], n, &ids[0], last, &out[0])


cdef inline void _ids_by_length(const int32_t* offsets, Py_ssize_t n, const int32_t* ids, Py_ssize_t last,
                                int32_t* out) noexcept nogil:
    """`ids_by_length`'s pass (and `kafka_columns`' timestamp types)."""
    cdef Py_ssize_t i
    cdef int64_t length
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        out[i] = ids[length if 0 <= length < last else last]


cdef int64_t _lz4_frame(void* dctx, uint8_t* dst, int64_t cap, const uint8_t* src, int64_t left) noexcept nogil:
    """One LZ4 frame at `src` (`left` bytes) into `dst` (`cap` bytes): what it gives, or -1 when it is not taken
    (damage, no end mark, more than `cap`): `kafkalog.fast.compression`'s rule."""
    cdef int64_t produced = 0
    cdef size_t room, read, hint
    while True:
        room = <size_t>(cap - produced)
        read = <size_t>left
        hint = _lz4f_decompress(dctx, dst + produced, &room, src, &read, NULL)
        if _lz4f_is_error(hint):
            return -1
        produced += <int64_t>room
        src += read
        left -= <int64_t>read
        if hint == 0:
            return produced  # the end mark (what follows the frame is not read)
        if room == 0 and read == 0:  # no room left, or no input
            return -1


# Decompression contexts (LZ4F's and zstd's) kept from run to run: a read makes one a group (some 50 a 200 MB
# segment, thousands on a read of many small ones), each a fresh block of a zstd context's 95 KiB and its tables, or of
# LZ4F's buffers, taken, faulted in and given back. At most `_KEPT_CONTEXTS` of each codec are kept (a read's
# threads use one each at a time), for the process's life, as the pool of buffers is; taken and given back under a
# lock. An LZ4 context is kept only where its last frame ended (one left mid-frame would go on from it).
from cpython.pythread cimport PyThread_type_lock, PyThread_allocate_lock, PyThread_acquire_lock, \
    PyThread_release_lock, WAIT_LOCK

cdef enum:
    _KEPT_CONTEXTS = 16

cdef void* _kept_contexts[2][_KEPT_CONTEXTS]  # [0]: LZ4F's, [1]: zstd's
cdef int _kept_count[2]
_kept_count[:] = [0, 0]
cdef PyThread_type_lock _contexts_lock = PyThread_allocate_lock()
# What was done (`context_counts`): contexts made, taken from those kept, freed.
cdef int64_t _contexts_made = 0, _contexts_reused = 0, _contexts_freed = 0


cdef enum:
    # zstd.h's values: ZSTD_reset_session_only, ZSTD_d_stableOutBuffer (ZSTD_d_experimentalParam2).
    _ZSTD_RESET_SESSION_ONLY = 1
    _ZSTD_D_STABLE_OUT_BUFFER = 1001


cdef void* _context(int codec) noexcept nogil:
    """A decompression context of `codec` (LZ4 or zstd): one kept, else a new one; NULL where none is made."""
    global _contexts_made, _contexts_reused
    cdef int k = 0 if codec == _LZ4 else 1
    cdef void* ctx = NULL
    PyThread_acquire_lock(_contexts_lock, WAIT_LOCK)
    if _kept_count[k]:
        _kept_count[k] -= 1
        ctx = _kept_contexts[k][_kept_count[k]]
        _contexts_reused += 1
    PyThread_release_lock(_contexts_lock)
    if ctx != NULL:
        return ctx
    if codec == _LZ4:
        if _lz4f_is_error(_lz4f_create(&ctx, 100)):
            return NULL
    else:
        ctx = _zstd_create()
        # (decoded straight into the group's buffer: `_zstd_frames`; the parameter stays through session resets)
        if ctx != NULL and _zstd_is_error(_zstd_set_parameter(ctx, _ZSTD_D_STABLE_OUT_BUFFER, 1)):
            _zstd_free(ctx)
            return NULL
    if ctx != NULL:
        PyThread_acquire_lock(_contexts_lock, WAIT_LOCK)
        _contexts_made += 1
        PyThread_release_lock(_contexts_lock)
    return ctx


cdef void _context_done(int codec, void* ctx, bint reusable) noexcept nogil:
    """`ctx`, a context of `codec` that `_context` gave, kept for the next run where `reusable` and there is room;
    else freed."""
    global _contexts_freed
    cdef int k = 0 if codec == _LZ4 else 1
    if ctx == NULL:
        return
    PyThread_acquire_lock(_contexts_lock, WAIT_LOCK)
    if reusable and _kept_count[k] < _KEPT_CONTEXTS:
        _kept_contexts[k][_kept_count[k]] = ctx
        _kept_count[k] += 1
        ctx = NULL
    else:
        _contexts_freed += 1
    PyThread_release_lock(_contexts_lock)
    if ctx == NULL:
        return
    if codec == _LZ4:
        _lz4f_free(ctx)
    else:
        _zstd_free(ctx)


def context_counts():
    """The decompression contexts made, taken again from those kept and freed so far, and those kept now (a
    diagnostic, for tests and benchmarks)."""
    return {"made": _contexts_made, "reused": _contexts_reused, "freed": _contexts_freed,
            "kept": _kept_count[0] + _kept_count[1]}


cdef int64_t _zstd_frames(void* dctx, uint8_t* dst, int64_t cap, const uint8_t* src, int64_t size) noexcept nogil:
    """zstd frames one after the other into `dst` (at most `cap` bytes), as Kafka's zstd-jni stream and
    `kafkalog.compression` read them: by zstd's streaming decoder, which holds each block to its frame's largest
    block size and each window to zstd's default limit (its one-shot decoder holds a frame to neither, and takes
    a damaged frame that Kafka refuses). Decoded straight into `dst` (a stable output buffer: no window buffer,
    no copy). Their length; -1 where they do not all decompress whole within `cap`."""
    cdef ZstdInBuffer source
    cdef ZstdOutBuffer target
    cdef size_t ret, was_in, was_out
    if _zstd_is_error(_zstd_reset(dctx, _ZSTD_RESET_SESSION_ONLY)):
        return -1
    source.src, source.size, source.pos = src, <size_t>size, 0
    target.dst, target.size, target.pos = dst, <size_t>cap, 0
    while True:
        was_in, was_out = source.pos, target.pos
        ret = _zstd_stream(dctx, &target, &source)
        if _zstd_is_error(ret):
            return -1
        if source.pos == source.size:
            # Whole when the last frame ended with the input (a frame cut short is truncated).
            return <int64_t>target.pos if ret == 0 else -1
        if ret != 0 and source.pos == was_in and target.pos == was_out:
            return -1  # (no progress: the output is full)


cdef int64_t _decompress_run(int codec, const uint8_t* src, const int64_t* pos, const int64_t* size, int64_t n,
                            uint8_t* dst, int64_t dst_len, int64_t at, int64_t room, int64_t group_bytes,
                            int64_t* lengths) noexcept nogil:
    """Batches `src[pos[i]:pos[i] + size[i]]` of `codec` (LZ4, zstd, snappy, or gzip where `GZIP_AVAILABLE`) one
    after the other into `dst` from `at`: how many were taken (their lengths in `lengths`),
    `kafkalog.fast.compression`'s rules."""
    cdef int64_t taken = 0, got = 0, cap, i
    cdef void* dctx = NULL
    if not _takes(codec):
        return 0
    if codec == _LZ4 or codec == _ZSTD:
        dctx = _context(codec)
    elif codec == _GZIP:
        dctx = malloc(sizeof(IsalInflateState))
    if dctx == NULL and codec != _SNAPPY:
        return 0
    for i in range(n):
        cap = min(room, dst_len - at)
        if codec == _LZ4:
            got = _lz4_frame(dctx, dst + at, cap, src + pos[i], size[i])
        elif codec == _SNAPPY:
            got = _snappy_batch(src + pos[i], size[i], dst + at, cap)
        elif codec == _GZIP:
            got = _gunzip_batch(<IsalInflateState*>dctx, src + pos[i], size[i], dst + at, cap)
        elif size[i] <= 0:
            got = -1  # (`kafkalog.compression` says what an empty batch gives)
        else:
            got = _zstd_frames(dctx, dst + at, cap, src + pos[i], size[i])
        if got < 0:
            break  # (an LZ4 context left mid-frame is not used again)
        lengths[i] = got
        at += got
        taken += 1
        if at >= group_bytes:
            break
    if codec == _LZ4 or codec == _ZSTD:
        _context_done(codec, dctx, got >= 0)  # (an LZ4 frame not ended leaves its context mid-frame)
    else:
        free(dctx)
    return taken


def decompress_batches(int codec, const uint8_t[::1] buf, const int64_t[::1] pos, const int64_t[::1] size,
                       uint8_t[::1] out, int64_t at, int64_t room, int64_t group_bytes, int64_t[::1] lengths):
    """LZ4, zstd, snappy or gzip (where `GZIP_AVAILABLE`) batches `buf[pos[i]:pos[i] + size[i]]` one after the other
    into `out` from `at`, each in at most `room` bytes, until one is not taken or `group_bytes` are held, in one
    call without the GIL; how many were taken, their lengths in `lengths`. `kafkalog.fast.compression`'s
    loop."""
    cdef Py_ssize_t i, n = pos.shape[0]
    cdef int64_t taken
    for i in range(n):
        if pos[i] < 0 or size[i] < 0 or pos[i] + size[i] > buf.shape[0]:
            raise ValueError("a batch is not inside the buffer")  # a caller's bug: the call would read past it
    if not _takes(codec) or n == 0 or at < 0 or at >= out.shape[0] or lengths.shape[0] < n:
        return 0
    with nogil:
        taken = _decompress_run(codec, &buf[0], &pos[0], &size[0], n, &out[0], out.shape[0], at, room, group_bytes,
                                &lengths[0])
    return taken


# -- growing C buffers, handed to Python without a copy (shared with the line writers) ---------------------------

cdef enum:
    GROW_FIRST = 4096  # bytes: a walk's column buffer starts small (a group has many, most of them short)

include "buffers.pxi"


# -- the walk: records into Arrow's buffers ----------------------------------------------------------------------

cdef struct Out:
    int64_t rows
    Grow row_section  # int64: each row's section
    Grow offset  # int64
    Grow timestamp  # int64
    Grow sequence  # int32
    Grow control  # int32: the control record's type, NOT_CONTROL or KEY_DOES_NOT_PARSE
    Grow key_offsets  # int32, rows + 1
    Grow key_data
    Grow key_valid  # bitmap
    int64_t key_nulls
    Grow value_offsets
    Grow value_data
    Grow value_valid
    int64_t value_nulls
    Grow header_offsets  # int32, rows + 1: each row's first header
    int64_t header_rows
    Grow header_key_offsets
    Grow header_key_data
    int64_t bad_key  # the first header whose key is not UTF-8, or -1
    Grow header_value_offsets
    Grow header_value_data
    Grow header_value_valid
    int64_t header_value_nulls


cdef inline bint _utf8(const uint8_t* data, int64_t p, int64_t end) noexcept nogil:
    """Whether data[p:end] is valid UTF-8, as Python's strict decoder reads it."""
    cdef uint8_t b, c, lo, hi
    cdef int n, j
    while p < end:
        b = data[p]
        if b < 0x80:
            p += 1
            continue
        if 0xC2 <= b <= 0xDF:
            n, lo, hi = 1, 0x80, 0xBF
        elif b == 0xE0:
            n, lo, hi = 2, 0xA0, 0xBF
        elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
            n, lo, hi = 2, 0x80, 0xBF
        elif b == 0xED:
            n, lo, hi = 2, 0x80, 0x9F
        elif b == 0xF0:
            n, lo, hi = 3, 0x90, 0xBF
        elif 0xF1 <= b <= 0xF3:
            n, lo, hi = 3, 0x80, 0xBF
        elif b == 0xF4:
            n, lo, hi = 3, 0x80, 0x8F
        else:
            return False
        if p + n >= end:
            return False
        c = data[p + 1]
        if c < lo or c > hi:
            return False
        for j in range(2, n + 1):
            c = data[p + j]
            if c < 0x80 or c > 0xBF:
                return False
        p += n + 1
    return True


cdef inline int64_t _s32(int64_t x) noexcept nogil:
    """Java's int of a long: its low 32 bits, two's complement (gcc and clang truncate so)."""
    return <int32_t>x


# The walk's writers: no check of room per put (`_room` reserved, per section, what the section's bytes can give).

from libc.string cimport memset

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* unaligned loads and stores, as the compiler turns a fixed-size memcpy into one move */
    static inline uint64_t kafkalog_load64(const uint8_t* p) { uint64_t v; memcpy(&v, p, 8); return v; }
    static inline uint32_t kafkalog_load32(const uint8_t* p) { uint32_t v; memcpy(&v, p, 4); return v; }
    static inline void kafkalog_store64(uint8_t* p, uint64_t v) { memcpy(p, &v, 8); }
    static inline void kafkalog_store32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }
    """
    uint64_t _load64 "kafkalog_load64"(const uint8_t* p) noexcept nogil
    uint32_t _load32 "kafkalog_load32"(const uint8_t* p) noexcept nogil
    void _store64 "kafkalog_store64"(uint8_t* p, uint64_t v) noexcept nogil
    void _store32 "kafkalog_store32"(uint8_t* p, uint32_t v) noexcept nogil


cdef inline void _w64(Grow* g, int64_t v) noexcept nogil:
    (<int64_t*>(g.data + g.size))[0] = v
    g.size += 8


cdef inline void _w32(Grow* g, int64_t v) noexcept nogil:
    (<int32_t*>(g.data + g.size))[0] = <int32_t>v
    g.size += 4


cdef inline void _wbytes(Grow* g, const uint8_t* p, int64_t n) noexcept nogil:
    """n bytes from p (none where n <= 0). Most keys and headers are short: up to 16 bytes are copied here, by two
    loads that may overlap, each inside the field (no call, and not a byte past it read)."""
    cdef uint8_t* d = g.data + g.size
    if n <= 0:
        return
    if n > 16:
        memcpy(d, p, <size_t>n)
    elif n >= 8:
        _store64(d, _load64(p))
        _store64(d + n - 8, _load64(p + n - 8))
    elif n >= 4:
        _store32(d, _load32(p))
        _store32(d + n - 4, _load32(p + n - 4))
    else:
        d[0] = p[0]
        d[n - 1] = p[n - 1]
        d[n >> 1] = p[n >> 1]
    g.size += n


cdef inline void _wbit(Grow* g, int64_t i, bint valid, int64_t nulls) noexcept nogil:
    """Bit i of a validity bitmap (Arrow's, least significant bit first), `nulls` the nulls before row i. None
    is written until the first null (a column without one has no bitmap): then the bytes of the rows before it
    are written at once, all valid; after it, each byte is set whole (all valid) when reached, and a null
    clears its bit. (`_walked` clears the bits past the last row.)"""
    if nulls == 0:
        if valid:
            return
        memset(g.data, 0xFF, <size_t>((i >> 3) + 1))
        g.size = (i >> 3) + 1
    elif (i & 7) == 0:
        g.data[i >> 3] = 0xFF
        g.size += 1
    if not valid:
        g.data[i >> 3] &= <uint8_t>~(1 << (i & 7))


cdef inline bint _utf8_key(const uint8_t* data, int64_t p, int64_t end) noexcept nogil:
    """`_utf8`, with the ASCII bytes of a header key (most of them) passed over here, 8 at a time, and a short key (or
    the last bytes of a long one) by two loads that may overlap, as `_wbytes` copies them, each inside the key."""
    cdef int64_t n = end - p
    if n < 8:
        if n >= 4:
            if ((_load32(data + p) | _load32(data + end - 4)) & 0x80808080U) == 0:
                return True
        elif n <= 0 or ((data[p] | data[end - 1] | data[p + (n >> 1)]) & 0x80) == 0:
            return True
    else:
        while p + 8 <= end and (_load64(data + p) & 0x8080808080808080ULL) == 0:
            p += 8
        if p == end or (p + 8 > end and (_load64(data + end - 8) & 0x8080808080808080ULL) == 0):
            return True
    while p < end and data[p] < 0x80:
        p += 1
    return p == end or _utf8(data, p, end)


cdef struct Rules:
    # What a section's batch header gives each of its records (`_rules`): held by the walk, not read from the header
    # again for each record (a store into a buffer could change the header's cells, for all the C compiler knows).
    int64_t base_offset
    int64_t base_sequence
    int64_t base_timestamp
    int64_t max_timestamp
    bint log_append_time
    bint control


cdef inline Rules _rules(const int64_t* h) noexcept nogil:
    """The rules of the records of the batch whose header is `h` (a row of `KAFKA_RECORD_BATCH__*` columns)."""
    cdef Rules r
    r.base_offset = h[KAFKA_RECORD_BATCH__BASE_OFFSET]
    r.base_sequence = h[KAFKA_RECORD_BATCH__BASE_SEQUENCE]
    r.base_timestamp = h[KAFKA_RECORD_BATCH__BASE_TIMESTAMP]
    r.max_timestamp = h[KAFKA_RECORD_BATCH__MAX_TIMESTAMP]
    r.log_append_time = h[KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE] == 1
    r.control = h[KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] == 1
    return r


cdef inline void _add_row(const uint8_t* buf, Out* o, int64_t s, Rules h, Table* rec, Table* hdr,
                          Table* ctl, bint check) noexcept nogil:
    """One parsed record (row 0 of `rec`, its headers from row 0 of `hdr`) of section `s` (its batch's rules `h`)
    into the buffers (room reserved by `_room`), with Kafka's rules (`DefaultRecordBatch`/`DefaultRecord`:
    offset = base offset + delta, timestamp = base timestamp + delta or the max timestamp under LogAppendTime,
    sequence by `incrementSequence`), as `kafkalog.formats.record_batch` applies them.

    `check`: the record checked, not copied (`walk`'s check mode): its section, offset, control type and key
    slot only, the key's bytes for a control record alone (a key that does not parse is worded from them), the
    header keys' UTF-8 checked where they are."""
    cdef const int64_t* r = rec.data
    cdef int64_t delta = r[KAFKA_RECORD__BODY__OFFSET_DELTA]
    cdef int64_t base = h.base_sequence
    cdef int64_t seq, n, p, i, nh, kind
    cdef int err
    if h.control:
        p = r[KAFKA_RECORD__BODY__KEY__POS]
        n = r[KAFKA_RECORD__BODY__KEY__SIZE]
        err, _ = parse_kafka_control_record(buf, p, p + (n if n > 0 else 0), ctl, 0)
        kind = -2 if err != 0 else ctl.data[KAFKA_CONTROL_RECORD__TYPE]
    else:
        kind = -1
    _w64(&o.row_section, s)
    _w64(&o.offset, h.base_offset + delta)
    _w32(&o.control, kind)
    n = r[KAFKA_RECORD__BODY__KEY__SIZE]
    _wbit(&o.key_valid, o.rows, n >= 0, o.key_nulls)
    if n < 0:
        o.key_nulls += 1
    if check:
        if kind != -1:
            _wbytes(&o.key_data, buf + r[KAFKA_RECORD__BODY__KEY__POS], n)
        _w32(&o.key_offsets, o.key_data.size)
        for i in range(r[KAFKA_RECORD__BODY__HEADERS__COUNT]):
            p = hdr.data[KAFKA_RECORD__HEADER__KEY__POS * hdr.rows + i]
            n = hdr.data[KAFKA_RECORD__HEADER__KEY__SIZE * hdr.rows + i]
            if o.bad_key < 0 and not _utf8_key(buf, p, p + n):
                o.bad_key = o.header_rows
            o.header_rows += 1
        o.rows += 1
        return
    if base < 0:
        seq = -1
    elif base > _s32(0x7FFFFFFF - delta):
        seq = _s32(delta - _s32(0x7FFFFFFF - base) - 1)
    else:
        seq = _s32(base + delta)
    _w64(&o.timestamp, h.max_timestamp if h.log_append_time
         else h.base_timestamp + r[KAFKA_RECORD__BODY__TIMESTAMP_DELTA])
    _w32(&o.sequence, seq)
    _wbytes(&o.key_data, buf + r[KAFKA_RECORD__BODY__KEY__POS], n)
    _w32(&o.key_offsets, o.key_data.size)
    n = r[KAFKA_RECORD__BODY__VALUE__SIZE]
    _wbit(&o.value_valid, o.rows, n >= 0, o.value_nulls)
    if n < 0:
        o.value_nulls += 1
    _wbytes(&o.value_data, buf + r[KAFKA_RECORD__BODY__VALUE__POS], n)
    _w32(&o.value_offsets, o.value_data.size)
    nh = r[KAFKA_RECORD__BODY__HEADERS__COUNT]
    for i in range(nh):
        p = hdr.data[KAFKA_RECORD__HEADER__KEY__POS * hdr.rows + i]
        n = hdr.data[KAFKA_RECORD__HEADER__KEY__SIZE * hdr.rows + i]
        _wbytes(&o.header_key_data, buf + p, n)
        _w32(&o.header_key_offsets, o.header_key_data.size)
        if o.bad_key < 0 and not _utf8_key(buf, p, p + n):
            o.bad_key = o.header_rows
        p = hdr.data[KAFKA_RECORD__HEADER__VALUE__POS * hdr.rows + i]
        n = hdr.data[KAFKA_RECORD__HEADER__VALUE__SIZE * hdr.rows + i]
        _wbit(&o.header_value_valid, o.header_rows, n >= 0, o.header_value_nulls)
        if n < 0:
            o.header_value_nulls += 1
        _wbytes(&o.header_value_data, buf + p, n)
        _w32(&o.header_value_offsets, o.header_value_data.size)
        o.header_rows += 1
    _w32(&o.header_offsets, o.header_rows)
    o.rows += 1


cdef inline bint _bits(Grow* g, int64_t rows) noexcept nogil:
    """Room in a bitmap for `rows` rows in all (`_wbit` may write the bytes of the rows before a null at once)."""
    return _reserve(g, (rows >> 3) + 1 - g.size)


cdef bint _room(Out* o, int64_t nbytes, int64_t rows, bint check) noexcept nogil:
    """Room for what at most `rows` records in `nbytes` bytes of a section can add (a record takes at least 7
    bytes, a header 2; a key, value or header copy is at most those bytes): the writers check none (`check`: the
    buffers a check writes)."""
    rows = min(rows, nbytes // 7 + 1)
    cdef int64_t headers = nbytes // 2 + 1
    if not (_reserve(&o.row_section, 8 * rows) and _reserve(&o.offset, 8 * rows) and _reserve(&o.control, 4 * rows)
            and _reserve(&o.key_offsets, 4 * rows) and _bits(&o.key_valid, o.rows + rows)
            and _reserve(&o.key_data, nbytes)):
        return False
    if check:
        return True
    return (_reserve(&o.timestamp, 8 * rows) and _reserve(&o.sequence, 4 * rows)
            and _reserve(&o.value_offsets, 4 * rows) and _reserve(&o.header_offsets, 4 * rows)
            and _bits(&o.value_valid, o.rows + rows) and _reserve(&o.value_data, nbytes)
            and _reserve(&o.header_key_data, nbytes) and _reserve(&o.header_value_data, nbytes)
            and _reserve(&o.header_key_offsets, 4 * headers) and _reserve(&o.header_value_offsets, 4 * headers)
            and _bits(&o.header_value_valid, o.header_rows + headers))


cdef inline int64_t _record_bytes(Table* rec, Table* hdr) noexcept nogil:
    """The most bytes of any one data buffer a record adds (its key, value, header keys or header values)."""
    cdef int64_t most = max(rec.data[KAFKA_RECORD__BODY__KEY__SIZE], rec.data[KAFKA_RECORD__BODY__VALUE__SIZE])
    cdef int64_t keys = 0, values = 0, i
    for i in range(rec.data[KAFKA_RECORD__BODY__HEADERS__COUNT]):
        keys += hdr.data[KAFKA_RECORD__HEADER__KEY__SIZE * hdr.rows + i]
        values += max(hdr.data[KAFKA_RECORD__HEADER__VALUE__SIZE * hdr.rows + i], 0)
    return max(most, max(keys, values))


cdef inline int64_t _control_key_bytes(Table* rec, const int64_t* headers, int64_t s) noexcept nogil:
    """What a record adds to a check's buffers (`_add_row`'s `check`): its key's bytes in a control batch."""
    if headers[s * KAFKA_RECORD_BATCH__WIDTH + KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] != 1:
        return 0
    return rec.data[KAFKA_RECORD__BODY__KEY__SIZE]


cdef bint _grow_table(Table* t, int64_t width) noexcept nogil:
    """Room for twice the rows (the old rows are not kept: the record is parsed again)."""
    cdef int64_t rows = 2 * t.rows + 61
    cdef int64_t* data = <int64_t*>malloc(<size_t>(width * rows * 8))
    if data == NULL:
        return False
    free(t.data)
    t.data = data
    t.rows = rows
    return True


cdef extern from *:
    """
    #define kafkalog_prefetch(p) __builtin_prefetch((const void*)(p))
    """
    void _prefetch "kafkalog_prefetch"(const void* p) noexcept nogil

cdef enum:
    # How far ahead of a record the walk asks for each cache line of its section (a few records of a hundred bytes
    # or more): the byte after a record's value is the first of its line the walk reads (the value is copied after
    # the record parses), a wait for memory each record otherwise.
    _AHEAD = 512
    # The most bytes of a section the walk reserves room for at once (`_room`).
    _ROOM_STEP = 1 << 24


cdef int _walk(const uint8_t* buf, const int64_t* sec_pos, const int64_t* sec_end, const int64_t* sec_count,
               const int64_t* sec_partial, int64_t nsec, int64_t* state, const int64_t* headers,
               int64_t* sec_good, int64_t* sec_err, int64_t* sec_err_pos, int64_t* sec_trailing_at, Out* o,
               int64_t max_rows, Table* hdr, Table* ctl, bint check) noexcept nogil:
    """The records of sections state[0].. (`walk`'s state, stops and damage codes), each into `o` as it parses
    (`check`: checked, not copied: `_add_row`).

    Each section ends with `sec_good` (records that parsed) and `sec_err` (0, a generated error code,
    _BODY_TRAILING or _SECTION_TRAILING) at `sec_err_pos`. A section marked in `sec_partial` is what
    decompressed before damage: records with bytes after their last header do not stop it (the first one's
    index goes to `sec_trailing_at`), and bytes after the declared records are not looked at."""
    cdef int64_t s = state[0], pos = state[1], done = state[2], end, count, after
    cdef int err
    cdef bint failed, bounded
    cdef int64_t largest = 0, nbytes = sec_end[s] - pos if s < nsec else 0, i, ahead, room_end
    # The record's one-row table is the walk's own: its one row known to the C compiler, its cells are at fixed
    # places (in registers, where it can), and those the walk never reads are not stored at all (about 5% fewer
    # instructions a record than a table the walk is handed, whose cells any copy into a buffer may change).
    cdef int64_t cells[KAFKA_RECORD__WIDTH]
    cdef Table one
    cdef Table* rec = &one
    cdef Rules rules
    one.data, one.rows = cells, 1
    for i in range(s + 1, nsec):
        nbytes += sec_end[i] - sec_pos[i]
    if not _reserve_for(o, nbytes, max_rows, check):
        return _OUT_OF_MEMORY
    while s < nsec:
        end = sec_end[s]
        count = sec_count[s]
        failed = False
        room_end = pos
        # No record of the section can pass Arrow's 32-bit offsets when all its bytes fit beside the largest buffer.
        largest = max(max(o.key_data.size, o.value_data.size), max(o.header_key_data.size, o.header_value_data.size))
        bounded = end - pos <= _INT32_MAX - largest
        ahead = pos
        rules = _rules(headers + s * KAFKA_RECORD_BATCH__WIDTH)
        while done < count:
            if o.rows >= max_rows:
                state[0], state[1], state[2] = s, pos, done
                return _WALK_FULL
            while ahead < min(pos + _AHEAD, end):
                _prefetch(buf + ahead)
                ahead += 64
            while True:
                err, after, _ = parse_kafka_record(buf, pos, end, rec, 0, hdr, 0)
                if err != 1:
                    break
                if not _grow_table(hdr, KAFKA_RECORD__HEADER__WIDTH):
                    return _OUT_OF_MEMORY
            if err != 0:
                sec_err[s] = err
                if sec_trailing_at[s] < 0:  # (a partial section keeps where its first long record is)
                    sec_err_pos[s] = pos
                failed = True
                break
            if not bounded and o.rows and (
                    _record_bytes(rec, hdr) if not check else _control_key_bytes(rec, headers, s)) > _INT32_MAX - largest:
                # Arrow's 32-bit offsets: the rows so far go out first.
                state[0], state[1], state[2] = s, pos, done
                return _WALK_FULL
            if rec.data[KAFKA_RECORD__BODY__TRAILING__SIZE] != 0:
                if sec_partial[s] == 0:
                    sec_err[s] = _BODY_TRAILING
                    sec_err_pos[s] = pos
                    failed = True
                    break
                if sec_trailing_at[s] < 0:
                    sec_trailing_at[s] = done
                    sec_err_pos[s] = pos
            if after > room_end:
                # Room for the records up to room_end (the section's end, or _ROOM_STEP past this record: the
                # reservation of a huge section grows with what is walked, as the buffers fill).
                room_end = min(end, max(after, pos + _ROOM_STEP))
                if not _room(o, room_end - pos, min(count - done, max_rows - o.rows), check):
                    return _OUT_OF_MEMORY
            _add_row(buf, o, s, rules, rec, hdr, ctl, check)
            if not bounded:
                largest = max(max(o.key_data.size, o.value_data.size),
                              max(o.header_key_data.size, o.header_value_data.size))
            pos = after
            done += 1
        if not failed and pos != end and sec_partial[s] == 0:
            sec_err[s] = _SECTION_TRAILING
            sec_err_pos[s] = pos
        sec_good[s] = done
        s += 1
        done = 0
        if s < nsec:
            pos = sec_pos[s]
    state[0], state[1], state[2] = s, pos, 0
    return _WALK_DONE


cdef enum:
    _GROWS = 17


cdef void _grows(Out* o, Grow** g) noexcept nogil:
    """Every buffer of `o`."""
    g[0], g[1], g[2], g[3], g[4], g[5] = &o.row_section, &o.offset, &o.timestamp, &o.sequence, &o.control, &o.key_offsets
    g[6], g[7], g[8], g[9], g[10] = &o.key_data, &o.key_valid, &o.value_offsets, &o.value_data, &o.value_valid
    g[11], g[12], g[13], g[14] = &o.header_offsets, &o.header_key_offsets, &o.header_key_data, &o.header_value_offsets
    g[15], g[16] = &o.header_value_data, &o.header_value_valid


cdef inline int _tag(Out* o, Grow* g) noexcept nogil:
    """Which buffer of `o` `g` is, for the pool (`buffers.pxi`): a buffer reuses the memory one like it let go."""
    return <int>(<char*>g - <char*>o) + 1


cdef inline bint _reserve_as(Out* o, Grow* g, int64_t n) noexcept nogil:
    """`_reserve`, the buffer's kind told to the pool."""
    return g.size + n <= g.cap or _grow(g, g.size + n, _tag(o, g))


cdef Block _took(Out* o, Grow* g):
    return _take(g, _tag(o, g))


cdef bint _reserve_for(Out* o, int64_t nbytes, int64_t max_rows, bint check) noexcept nogil:
    """Room up front for what sections of `nbytes` bytes can give (a record takes at least 7 bytes, a header 2),
    so that the buffers are not copied as they grow: untouched pages of a reservation cost nothing. (`check`:
    the buffers a check writes, the control keys' bytes growing as they come.)"""
    nbytes = min(nbytes, 1 << 26)  # (past 64 MiB the buffers grow as they fill)
    cdef int64_t rows = min(max_rows, nbytes // 7 + 1), headers = nbytes // 2 + 1
    if check:
        return (_reserve_as(o, &o.row_section, 8 * rows) and _reserve_as(o, &o.offset, 8 * rows)
                and _reserve_as(o, &o.control, 4 * rows) and _reserve_as(o, &o.key_offsets, 4 * rows)
                and _reserve_as(o, &o.key_valid, rows // 8 + 1))
    return (_reserve_as(o, &o.row_section, 8 * rows) and _reserve_as(o, &o.offset, 8 * rows)
            and _reserve_as(o, &o.timestamp, 8 * rows) and _reserve_as(o, &o.sequence, 4 * rows)
            and _reserve_as(o, &o.control, 4 * rows) and _reserve_as(o, &o.key_offsets, 4 * rows)
            and _reserve_as(o, &o.value_offsets, 4 * rows) and _reserve_as(o, &o.header_offsets, 4 * rows)
            and _reserve_as(o, &o.key_valid, rows // 8 + 1) and _reserve_as(o, &o.value_valid, rows // 8 + 1)
            and _reserve_as(o, &o.key_data, nbytes) and _reserve_as(o, &o.value_data, nbytes)
            and _reserve_as(o, &o.header_key_data, nbytes) and _reserve_as(o, &o.header_value_data, nbytes)
            and _reserve_as(o, &o.header_key_offsets, 4 * headers)
            and _reserve_as(o, &o.header_value_offsets, 4 * headers)
            and _reserve_as(o, &o.header_value_valid, headers // 8 + 1))


cdef void _free_out(Out* o) noexcept nogil:
    cdef Grow* g[_GROWS]
    cdef int i
    _grows(o, g)
    for i in range(_GROWS):
        _release(g[i].data, g[i].cap, g[i].size, _tag(o, g[i]))
        g[i].data = NULL


cdef void _empty_out(Out* o) noexcept nogil:
    """An empty `Out`: no buffers, no rows."""
    cdef Grow* g[_GROWS]
    cdef int i
    o.rows = o.key_nulls = o.value_nulls = o.header_rows = o.header_value_nulls = 0
    o.bad_key = -1
    _grows(o, g)
    for i in range(_GROWS):
        g[i].data = NULL
        g[i].size = g[i].cap = 0


class Walked:
    """The rows of one `walk`: numpy columns and Arrow arrays, over buffers the walk wrote. A walk in check mode
    (`walk`'s `check`) leaves `timestamp`, `sequence`, `value`, `header_offsets`, `header_keys` and
    `header_values` None, and its `key` holds the keys of control records only (every other row's is empty)."""

    def __init__(self, rows, row_section, offset, timestamp, sequence, control, key, value, header_offsets,
                 header_keys, header_values, bad_key):
        self.rows = rows
        self.row_section = row_section  # int64
        self.offset = offset  # int64
        self.timestamp = timestamp  # int64
        self.sequence = sequence  # int32
        self.control = control  # int32: a control record's type, NOT_CONTROL or KEY_DOES_NOT_PARSE
        self.key = key  # pa.binary()
        self.value = value  # pa.binary()
        self.header_offsets = header_offsets  # pa int32 buffer of rows + 1
        self.header_keys = header_keys  # pa.string() (valid UTF-8 only when bad_key < 0)
        self.header_values = header_values  # pa.binary()
        self.bad_key = bad_key  # the first header whose key is not UTF-8, or -1


def _array(type_, n, nulls, valid, offsets, data):
    return pa.Array.from_buffers(type_, n, [pa.py_buffer(valid) if nulls else None, pa.py_buffer(offsets),
                                            pa.py_buffer(data)], null_count=nulls)


# What a walk writes: the buffers, and the one-record tables the generated parsers fill.
cdef struct Scratch:
    Out o
    Table hdr
    Table ctl
    int64_t ctl_data[KAFKA_CONTROL_RECORD__WIDTH]


cdef bint _open(Scratch* w) noexcept nogil:
    _empty_out(&w.o)
    w.ctl.data, w.ctl.rows = w.ctl_data, 1
    w.hdr.rows = 61
    w.hdr.data = <int64_t*>malloc(KAFKA_RECORD__HEADER__WIDTH * w.hdr.rows * 8)
    return (w.hdr.data != NULL and _put32(&w.o.key_offsets, 0) and _put32(&w.o.value_offsets, 0)
            and _put32(&w.o.header_offsets, 0) and _put32(&w.o.header_key_offsets, 0)
            and _put32(&w.o.header_value_offsets, 0))


cdef void _close(Scratch* w) noexcept nogil:
    free(w.hdr.data)
    w.hdr.data = NULL
    _free_out(&w.o)


cdef inline void _end_bits(Grow* g, int64_t rows, int64_t nulls) noexcept nogil:
    """The bits past the last row of a bitmap `_wbit` wrote cleared (Arrow leaves them free; they were 0)."""
    if nulls and rows & 7:
        g.data[rows >> 3] &= <uint8_t>((1 << (rows & 7)) - 1)


cdef _walked(Out* o, bint check=False):
    """The buffers of `o` handed to a `Walked` (`o` keeps none it wrote; `check`: those a check writes)."""
    n = o.rows
    _end_bits(&o.key_valid, n, o.key_nulls)
    _end_bits(&o.value_valid, n, o.value_nulls)
    _end_bits(&o.header_value_valid, o.header_rows, o.header_value_nulls)
    if check:
        return Walked(
            n,
            np.frombuffer(_took(o, &o.row_section), dtype=np.int64),
            np.frombuffer(_took(o, &o.offset), dtype=np.int64),
            None,
            None,
            np.frombuffer(_took(o, &o.control), dtype=np.int32),
            _array(pa.binary(), n, o.key_nulls, _took(o, &o.key_valid), _took(o, &o.key_offsets), _took(o, &o.key_data)),
            None, None, None, None,
            o.bad_key)
    walked = Walked(
        n,
        np.frombuffer(_took(o, &o.row_section), dtype=np.int64),
        np.frombuffer(_took(o, &o.offset), dtype=np.int64),
        np.frombuffer(_took(o, &o.timestamp), dtype=np.int64),
        np.frombuffer(_took(o, &o.sequence), dtype=np.int32),
        np.frombuffer(_took(o, &o.control), dtype=np.int32),
        _array(pa.binary(), n, o.key_nulls, _took(o, &o.key_valid), _took(o, &o.key_offsets), _took(o, &o.key_data)),
        _array(pa.binary(), n, o.value_nulls, _took(o, &o.value_valid), _took(o, &o.value_offsets), _took(o, &o.value_data)),
        pa.py_buffer(_took(o, &o.header_offsets)),
        _array(pa.string(), o.header_rows, 0, None, _took(o, &o.header_key_offsets), _took(o, &o.header_key_data)),
        None,
        o.bad_key)
    walked.header_values = _array(pa.binary(), o.header_rows, o.header_value_nulls, _took(o, &o.header_value_valid),
                                  _took(o, &o.header_value_offsets), _took(o, &o.header_value_data))
    return walked


def walk(const uint8_t[::1] buf, const int64_t[::1] sec_pos, const int64_t[::1] sec_end,
         const int64_t[::1] sec_count, const int64_t[::1] sec_partial, int64_t[::1] state,
         const int64_t[:, ::1] batch_headers, int64_t[::1] sec_good, int64_t[::1] sec_err,
         int64_t[::1] sec_err_pos, int64_t[::1] sec_trailing_at, int64_t max_rows, bint check=False):
    """The records of sections state[0].. of `buf` (`kafka_record.ksy`) into Arrow's buffers, in one call without
    the GIL, with Kafka's offset, timestamp and sequence rules and the copies into Arrow's layout. `state` is
    [section, position, records done in it], updated so that a call after WALK_FULL goes on where this one
    stopped (`_walk` says what each section's results mean).
    `batch_headers` is a row per section (`KAFKA_RECORD_BATCH__*` columns). Stops with WALK_FULL after
    `max_rows` rows, or before a record whose bytes would overflow Arrow's 32-bit offsets.
    `check`: every record parsed and checked as above (the same sections' results, stops and damage), but no
    key, value or header copied (what `kafkalog verify` reads: `Walked` says what such a walk gives).
    Returns (why it stopped, `Walked`)."""
    cdef int64_t nsec = sec_pos.shape[0]
    if not (sec_end.shape[0] == sec_count.shape[0] == sec_partial.shape[0] == sec_good.shape[0] == sec_err.shape[0]
            == sec_err_pos.shape[0] == sec_trailing_at.shape[0] == batch_headers.shape[0] == nsec
            and state.shape[0] == 3 and batch_headers.shape[1] == KAFKA_RECORD_BATCH__WIDTH):
        raise ValueError("the sections' columns differ in length")  # a caller's bug
    cdef int64_t i
    for i in range(nsec):
        if not 0 <= sec_pos[i] <= sec_end[i] <= buf.shape[0]:
            raise ValueError("a section is not inside the buffer")  # a caller's bug: the walk would read past it
    cdef Scratch w
    cdef int why = _OUT_OF_MEMORY
    cdef const uint8_t* data = &buf[0] if buf.shape[0] else NULL
    cdef const int64_t* headers = &batch_headers[0, 0] if nsec else NULL
    try:
        if _open(&w):
            if nsec == 0:
                why = _WALK_DONE
            else:
                with nogil:
                    why = _walk(data, &sec_pos[0], &sec_end[0], &sec_count[0], &sec_partial[0], nsec, &state[0],
                                headers, &sec_good[0], &sec_err[0], &sec_err_pos[0], &sec_trailing_at[0], &w.o,
                                max_rows, &w.hdr, &w.ctl, check)
        if why == _OUT_OF_MEMORY:
            raise MemoryError()
        return why, _walked(&w.o, check)
    finally:
        _close(&w)


def decode_group(const uint8_t[::1] buf, const int64_t[::1] pos, const int64_t[::1] size, uint8_t[::1] out,
                 int64_t room, int64_t max_rows, int64_t group_bytes=-1, bint check=False):
    """Whole v2 batches `buf[pos[i]:pos[i] + size[i]]` (entries, from their offset) as one group, in one call
    without the GIL: headers, CRC-32C, decompression of compressed records into `out` (each in at most
    `room` bytes), the walk of every record into Arrow's buffers. Takes the batches from the first up to the
    first that is not a plain one: a header that does not parse, a CRC that does not match, another codec
    than the first batch's, gzip where ISA-L's inflate is not `GZIP_AVAILABLE`, records that do not decompress
    within `room` or `out`; the caller reads that one another way. Compressed batches are taken until their
    records reach `group_bytes` (default: all of `out`): then `Group.full` is True, and the batch after the last
    taken is a plain one, for the next group. The walk stops after `max_rows` rows (`why` WALK_FULL, `state`
    where: `walk` goes on from there over the same sections), or before a record past Arrow's 32-bit offsets.
    `check`: the walk checks without copying (`walk`'s check mode).
    Returns `Group`: the batches taken, their headers, the sections' results and the walk's buffers, to be wrapped
    once (`Group.walked`, or `Group.record_batch` for the usual group).

    This is the product path's call for the plain v2 batches of a chunk (`kafkalog.fast.record_batch`): the
    caller wraps the finished buffers once, and reads what it does not take (damage, another codec, a batch
    past a window) as before. The codecs it takes are `GROUP_CODECS`."""
    cdef int64_t n = pos.shape[0], i, taken = 0, at = 0, codec = -1, why = _WALK_DONE
    cdef int err
    cdef bint full = False
    if group_bytes < 0:
        group_bytes = out.shape[0]
    for i in range(n):
        if pos[i] < 0 or size[i] < _LOG_OVERHEAD or pos[i] + size[i] > buf.shape[0]:
            raise ValueError("an entry is not inside the buffer")  # a caller's bug: the call would read past it
    headers = np.zeros((n, KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)
    columns = np.zeros((8, n), dtype=np.int64)  # the sections: pos, end, count, partial, good, err, err_pos, trailing
    columns[7] = -1
    state_array = np.zeros(3, dtype=np.int64)
    cdef int64_t[:, ::1] h = headers
    cdef int64_t[:, ::1] c = columns
    cdef int64_t[::1] state = state_array
    cdef Scratch w
    cdef Table t
    cdef Group group
    cdef const uint8_t* src = &buf[0] if n else NULL
    cdef uint8_t* dst = &out[0] if out.shape[0] else NULL
    cdef const uint8_t* walked_buf = src
    cdef int64_t out_len = out.shape[0]
    cdef uint32_t ones = 0xFFFFFFFF, crc
    try:
        if not _open(&w):
            raise MemoryError()
        with nogil:
            for i in range(n):
                t.data, t.rows = &h[i, 0], 1  # (a row of the row-major table: a table of one row)
                err, _ = parse_kafka_record_batch(src, pos[i], pos[i] + size[i], &t, 0)
                if err != 0 or h[i, KAFKA_RECORD_BATCH__MAGIC] != 2:
                    break
                crc = _crc32_iscsi(src + pos[i] + 21, <int>(size[i] - 21), ones) ^ ones
                if crc != <uint32_t>h[i, KAFKA_RECORD_BATCH__CRC]:
                    break
                if i == 0:
                    codec = h[i, KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION]
                elif h[i, KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION] != codec:
                    break
                c[0, i] = h[i, KAFKA_RECORD_BATCH__RECORDS_DATA__POS]
                c[1, i] = c[0, i] + h[i, KAFKA_RECORD_BATCH__RECORDS_DATA__SIZE]
                c[2, i] = h[i, KAFKA_RECORD_BATCH__NUM_RECORDS]
                taken += 1
            if taken and codec != 0:
                if _takes(codec) and dst != NULL:
                    # The records decompressed one after the other; their sections are where they went.
                    taken = _decompress_sections(codec, src, &c[0, 0], &c[1, 0], taken, dst, out_len, room,
                                                 group_bytes)
                    full = taken > 0 and c[1, taken - 1] >= group_bytes
                    walked_buf = dst
                else:
                    taken = 0
            if taken:
                state[0], state[1], state[2] = 0, c[0, 0], 0
                why = _walk(walked_buf, &c[0, 0], &c[1, 0], &c[2, 0], &c[3, 0], taken, &state[0], &h[0, 0],
                            &c[4, 0], &c[5, 0], &c[6, 0], &c[7, 0], &w.o, max_rows, &w.hdr, &w.ctl, check)
        if why == _OUT_OF_MEMORY:
            raise MemoryError()
        group = Group.__new__(Group)
        group.taken, group.headers, group.columns, group.why, group.state, group.full = (
            taken, headers[:taken], columns[:, :taken], why, state_array, full)
        group.check, group.rows = check, w.o.rows
        group.control_batches = _control_batches(h, taken)
        group.usual = _usual(h, c, taken, why, w.o.bad_key, check) and (
            group.control_batches == 0 or _controls_known(h, &w.o))
        group.differs = 0
        if group.usual and not check:
            # Which of the batch-level fields differ from batch to batch (several producers, or epochs that
            # changed): those columns are made per batch (`BATCH_COLUMNS`), the others are constant, their
            # values `key` (a field that differs: 0 there, its constant column unused).
            group.differs = differs = _differs(h, taken)
            uniform = [0 if differs & (1 << j) else h[0, _BATCH_FIELDS[j]] for j in range(_N_BATCH)]
            group.key = (uniform[0], h[0, KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION], uniform[1], uniform[2],
                         uniform[3], uniform[5], uniform[4], 2)
        group.o = w.o  # (the group owns the walk's buffers from here: wrapped when asked for, else pooled again)
        _empty_out(&w.o)
        return group
    finally:
        _close(&w)


cdef bint _usual(const int64_t[:, ::1] h, const int64_t[:, ::1] c, int64_t taken, int64_t why, int64_t bad_key,
                 bint check) noexcept:
    """Whether the batches `decode_group` took make the usual group (`Group.usual`), but for their control records:
    the walk done, no section damaged (`c`: the sections' columns); for columns (not `check`), every header key
    UTF-8. (Their batch-level fields may differ: `_differs` says which; control batches: `_controls_known`.)"""
    cdef int64_t i
    if taken == 0 or why != _WALK_DONE or (bad_key >= 0 and not check):
        return False
    for i in range(taken):
        if c[3, i] != 0 or c[5, i] != 0 or c[7, i] >= 0:
            return False
    return True


cdef int64_t _control_batches(const int64_t[:, ::1] h, int64_t taken) noexcept:
    """How many of the batches taken are control batches (a transaction's COMMIT or ABORT marker, KRaft's)."""
    cdef int64_t i, n = 0
    for i in range(taken):
        n += h[i, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] != 0
    return n


cdef bint _controls_known(const int64_t[:, ::1] h, const Out* o) noexcept:
    """Whether every record of a control batch the walk wrote (`o`) has a key that parses to a type of 0 or more
    (`_add_row`'s `control`): its `control_type` is then a name, or UNKNOWN, with no damage to word. A key that
    does not parse (its damage worded by the Kaitai parser), or a negative type (which `walk`'s `control` cannot
    tell from its codes), leaves the group to the walk of a group that is not usual."""
    cdef const int64_t* section = <const int64_t*>o.row_section.data
    cdef const int32_t* control = <const int32_t*>o.control.data
    cdef int64_t r
    for r in range(o.rows):
        if h[section[r], KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] != 0 and control[r] < 0:
            return False
    return True


#: The batch-level columns the engine makes per batch for a usual group whose batches' fields differ
#: (`Group.differs`, `Group.record_batch`'s layout -1 - len(GROUP_COLUMNS) - their index), and the header fields
#: they are made from. (A group's batches are all of one codec and of magic 2: those columns are constant.)
BATCH_COLUMNS = ("timestamp_type", "producer_id", "producer_epoch", "is_transactional", "partition_leader_epoch",
                 "is_control")

cdef enum:
    _N_BATCH = 6

cdef int64_t _BATCH_FIELDS[_N_BATCH]
_BATCH_FIELDS[:] = [KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE, KAFKA_RECORD_BATCH__PRODUCER_ID,
                    KAFKA_RECORD_BATCH__PRODUCER_EPOCH, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL,
                    KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL]


cdef int64_t _differs(const int64_t[:, ::1] h, int64_t taken) noexcept:
    """Which of `BATCH_COLUMNS`' fields differ between the batches (bit j for column j)."""
    cdef int64_t i, j, differs = 0
    for i in range(1, taken):
        for j in range(_N_BATCH):
            if h[i, _BATCH_FIELDS[j]] != h[0, _BATCH_FIELDS[j]]:
                differs |= 1 << j
    return differs


cdef int64_t _decompress_sections(int codec, const uint8_t* src, int64_t* start, int64_t* end, int64_t n,
                                  uint8_t* dst, int64_t dst_len, int64_t room, int64_t group_bytes) noexcept nogil:
    """The records of sections src[start[i]:end[i]] decompressed one after the other into `dst`, and the sections
    moved to where they went: how many were taken."""
    cdef int64_t i, taken, at = 0
    cdef int64_t* sizes = <int64_t*>malloc(<size_t>(n * 8))
    cdef int64_t* lengths = <int64_t*>malloc(<size_t>(n * 8))
    if sizes == NULL or lengths == NULL:
        free(sizes)
        free(lengths)
        return 0
    for i in range(n):
        sizes[i] = end[i] - start[i]
    taken = _decompress_run(codec, src, start, sizes, n, dst, dst_len, 0, room, group_bytes, lengths)
    for i in range(taken):
        start[i] = at
        at += lengths[i]
        end[i] = at
    free(sizes)
    free(lengths)
    return taken


#: The columns of a usual group's record batch the engine makes (a `layout` names them -1 - their index).
#: (`control_type`: each control record's type by name, null on the rows of other batches; a group without control
#: batch has it null throughout, which a constant column gives as well.)
GROUP_COLUMNS = ("offset", "timestamp", "sequence", "key", "value", "headers", "batch_position", "control_type")

cdef enum:
    _N_GROUP = 8  # len(GROUP_COLUMNS), known to the compiler (`Group.record_batch` reads its layout once a group)

assert len(GROUP_COLUMNS) == _N_GROUP


# -- a usual group's record batch, handed to Arrow through its C data interface -----------------------------------

from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF


include "arrow_c.pxi"


cdef enum:
    _MAX_ARRAYS = 40  # a record batch's columns, the headers' struct and its two children, and the batch itself


# One record batch's arrays and their buffers' addresses, in one block; `owner` holds what the buffers are in.
cdef struct Exported:
    ArrowArray arrays[_MAX_ARRAYS]  # the columns, then the headers' struct and its key and value; the batch last
    ArrowArray* children[_MAX_ARRAYS]
    const void* buffers[_MAX_ARRAYS][3]
    PyObject* owner


cdef void _release_child(ArrowArray* a) noexcept nogil:
    a.release = NULL


cdef void _release_batch(ArrowArray* a) noexcept nogil:
    """The record batch let go by Arrow (in any thread): the buffers' owner with it."""
    cdef Exported* e = <Exported*>a.private_data
    a.release = NULL
    with gil:
        Py_DECREF(<object>e.owner)
    free(e)


cdef class Constants:
    """A record batch of constant columns (`columns.Repeated.batch`), exported once through Arrow's C data interface:
    the columns `Group.record_batch` slices for each usual group, without a Python object per column."""

    cdef ArrowArray exported
    cdef bint all_null[_MAX_ARRAYS]  # each column's rows: all null, or none (the export may not know its count)
    cdef readonly object batch

    def __cinit__(self, batch):
        self.exported.release = NULL
        if batch.num_columns > _MAX_ARRAYS:
            raise ValueError("too many columns")  # a caller's bug
        for i, column in enumerate(batch.columns):
            if column.null_count not in (0, len(column)):
                raise ValueError("a column neither all null nor without nulls")  # a caller's bug
            self.all_null[i] = column.null_count != 0
        batch._export_to_c(<uintptr_t>&self.exported)
        self.batch = batch  # (what the exported buffers are in)

    def __dealloc__(self):
        if self.exported.release != NULL:
            self.exported.release(&self.exported)


_import_batch = pa.RecordBatch._import_from_c  # (looked up once, not once a group)


cdef inline void _fixed(ArrowArray* a, const void** b, int64_t n, const void* data) noexcept:
    """A column of n fixed-width values, none null."""
    a.length, a.null_count, a.offset, a.n_buffers, a.n_children = n, 0, 0, 2, 0
    b[0], b[1] = NULL, data


cdef inline void _binary(ArrowArray* a, const void** b, int64_t n, int64_t nulls, const void* valid,
                         const void* offsets, const void* data) noexcept:
    """A binary (or string) column of n values, `nulls` of them null."""
    a.length, a.null_count, a.offset, a.n_buffers, a.n_children = n, nulls, 0, 3, 0
    b[0], b[1], b[2] = valid if nulls else NULL, offsets, data


cdef inline const void* _lent(list owner, Block block):
    """The block's address; the block is held by `owner` until Arrow lets the record batch go."""
    owner.append(block)
    return block.data


cdef class Group:
    """What `decode_group` took: `taken` batches, their `headers` (a row each), the sections' `columns`
    (pos, end, count, partial, good, err, err_pos, trailing_at: `walk`'s section results), why the walk
    stopped, its `state`, the walk's `rows`, and whether it stopped taking because the group was `full`.

    The walk's buffers stay here until they are wrapped, once: as a `Walked` (`walked`), or, for the `usual` group,
    as the finished record batch (`record_batch`). A group let go unwrapped gives them back to the pool.

    `usual`: the walk is done, no section is damaged, every control record's key parses to a type of 0 or more,
    and (with columns) every header key is UTF-8. Then each batch's rows are its declared records (`columns[4]`),
    and the rows need nothing but their wrapping. `control_batches`: how many of the batches are control batches
    (a transaction's markers, KRaft's control records), whose rows' `control_type` `record_batch` makes.
    `differs`: which of `BATCH_COLUMNS` differ between the batches (bit j for column j; batches of several
    producers, epochs that changed), which `record_batch` makes per batch; `key`: the batch-level fields of the
    first batch, as `columns.Repeated` caches their constant columns, 0 for those that differ."""

    cdef readonly object taken, headers, columns, why, state, full, key
    cdef readonly int64_t rows, differs, control_batches
    cdef readonly bint usual
    cdef bint check
    cdef bint wrapped  # (the buffers are handed out)
    cdef object _rows  # the `Walked`, once made
    cdef Out o

    def __cinit__(self):
        _empty_out(&self.o)

    def __dealloc__(self):
        with nogil:  # (buffers not wrapped, given back to the pool: the ends of pooled ones to the kernel)
            _free_out(&self.o)

    @property
    def walked(self):
        """The walk's rows as a `Walked` (wrapped at the first ask, GIL held)."""
        if self._rows is None:
            if self.wrapped:
                raise ValueError("the group's rows were wrapped as a record batch")  # a caller's bug
            self.wrapped = True
            self._rows = _walked(&self.o, self.check)
        return self._rows

    def record_batch(self, Constants constants, list layout, schema, const int64_t[::1] positions,
                     tuple timestamp_types=(), tuple control_types=()):
        """The usual group's rows, walked with columns, as one `pa.RecordBatch` of `schema`, from the walk's buffers
        as they are, handed to Arrow in one call (its C data interface: no Python object per column). `layout[i]` says
        where column i comes from: j >= 0, column j of `constants` (of at least `rows` rows: the batch-level columns,
        their first `rows` rows), or -1 - the index of one of `GROUP_COLUMNS`, or -1 - len(GROUP_COLUMNS) - the index
        of one of `BATCH_COLUMNS` (each batch's value on its rows, from its header; `timestamp_types`, the names of
        the timestamp types by their code, for `timestamp_type`), made here; `positions`, each batch's file position
        (`batch_position`, on each of its rows); `control_types`, the names of the control types by their id, the
        last for any other (`control_type`: UNKNOWN)."""
        cdef int64_t n = self.rows, taken = self.taken, i, j, row = 0, ncols = len(layout), k
        cdef const int64_t[::1] good = self.columns[4]
        cdef Out* o = &self.o
        cdef ArrowArray* src = &constants.exported
        if not self.usual or self.check or self.wrapped:
            raise ValueError("not a usual group's columns, or wrapped already")  # a caller's bug
        if positions.shape[0] != taken or o.row_section.size != 8 * n or ncols + 4 > _MAX_ARRAYS:
            raise ValueError("a position per batch taken, a section per row")  # a caller's bug
        cdef int64_t kinds[_MAX_ARRAYS]  # (the layout as C integers: read from its list once)
        for i in range(ncols):
            k = layout[i]
            if not -_N_GROUP - _N_BATCH <= k < src.n_children:
                raise ValueError(f"no column {k}")  # a caller's bug
            kinds[i] = k
        for i in range(taken):
            row += good[i]
        if row != n or src.length < n:
            raise ValueError("the sections' rows do not add up to the walk's, or too few constant rows")  # a bug
        # The per-batch columns asked for, made first (what may fail, before the buffers are handed out).
        per_batch = {}
        for i in range(ncols):
            k = kinds[i]
            if k < -_N_GROUP:
                per_batch[k] = _per_batch(self.headers, good, n, -1 - _N_GROUP - k, timestamp_types)
            elif k == -8:
                per_batch[k] = _control_column(self.headers, good, o, control_types)
        # Each row's section becomes its batch's position, in place: `batch_position`, in memory the walk wrote
        # (the rows of each section are consecutive, in order).
        cdef int64_t* position = <int64_t*>o.row_section.data
        cdef int64_t value
        with nogil:
            for i in range(taken):
                value = positions[i]
                for j in range(good[i]):
                    position[j] = value
                position += good[i]
        self.wrapped = True
        _end_bits(&o.key_valid, n, o.key_nulls)
        _end_bits(&o.value_valid, n, o.value_nulls)
        _end_bits(&o.header_value_valid, o.header_rows, o.header_value_nulls)
        cdef Exported* e = <Exported*>malloc(sizeof(Exported))
        if e == NULL:
            raise MemoryError()
        owner = [constants]
        e.owner = <PyObject*>owner
        Py_INCREF(owner)
        cdef ArrowArray* root = &e.arrays[_MAX_ARRAYS - 1]
        cdef ArrowArray* a
        cdef const void** b
        cdef ArrowArray* c
        for i in range(ncols + 3):
            e.arrays[i].buffers, e.arrays[i].children = e.buffers[i], NULL
            e.arrays[i].dictionary, e.arrays[i].release, e.arrays[i].private_data = NULL, _release_child, NULL
        for i in range(ncols):
            a, b, k = &e.arrays[i], e.buffers[i], kinds[i]
            e.children[i] = a
            if k >= 0:  # a constant column: its first n rows
                c = src.children[k]
                a.length, a.offset, a.n_buffers, a.n_children = n, c.offset, c.n_buffers, 0
                a.null_count = n if constants.all_null[k] else 0
                for j in range(c.n_buffers):
                    b[j] = c.buffers[j]
            elif k == -1:
                _fixed(a, b, n, _lent(owner, _took(o, &o.offset)))
            elif k == -2:
                _fixed(a, b, n, _lent(owner, _took(o, &o.timestamp)))
            elif k == -3:
                _fixed(a, b, n, _lent(owner, _took(o, &o.sequence)))
            elif k == -4:
                _binary(a, b, n, o.key_nulls, _lent(owner, _took(o, &o.key_valid)),
                        _lent(owner, _took(o, &o.key_offsets)), _lent(owner, _took(o, &o.key_data)))
            elif k == -5:
                _binary(a, b, n, o.value_nulls, _lent(owner, _took(o, &o.value_valid)),
                        _lent(owner, _took(o, &o.value_offsets)), _lent(owner, _took(o, &o.value_data)))
            elif k == -6:
                # list<struct<key: string, value: binary>>: the list's offsets, the struct, its two children
                a.length, a.null_count, a.offset, a.n_buffers, a.n_children = n, 0, 0, 2, 1
                b[0], b[1] = NULL, _lent(owner, _took(o, &o.header_offsets))
                a.children = &e.children[ncols]
                c = &e.arrays[ncols]
                e.children[ncols] = c
                c.length, c.null_count, c.offset, c.n_buffers, c.n_children = o.header_rows, 0, 0, 1, 2
                c.buffers[0] = NULL
                c.children = &e.children[ncols + 1]
                e.children[ncols + 1], e.children[ncols + 2] = &e.arrays[ncols + 1], &e.arrays[ncols + 2]
                _binary(&e.arrays[ncols + 1], e.buffers[ncols + 1], o.header_rows, 0, NULL,
                        _lent(owner, _took(o, &o.header_key_offsets)), _lent(owner, _took(o, &o.header_key_data)))
                _binary(&e.arrays[ncols + 2], e.buffers[ncols + 2], o.header_rows, o.header_value_nulls,
                        _lent(owner, _took(o, &o.header_value_valid)), _lent(owner, _took(o, &o.header_value_offsets)),
                        _lent(owner, _took(o, &o.header_value_data)))
            elif k == -7:
                _fixed(a, b, n, _lent(owner, _took(o, &o.row_section)))
            elif k == -8:
                made = per_batch[k]
                _binary(a, b, n, made[0], _lent_array(owner, made[1]), _lent_array(owner, made[2]),
                        _lent_array(owner, made[3]))
            else:
                made = per_batch[k]
                if len(made) == 2:
                    _binary(a, b, n, 0, NULL, _lent_array(owner, made[0]), _lent_array(owner, made[1]))
                else:
                    _fixed(a, b, n, _lent_array(owner, made[0]))
        root.length, root.null_count, root.offset, root.n_buffers, root.n_children = n, 0, 0, 1, ncols
        root.buffers, root.children = e.buffers[_MAX_ARRAYS - 1], e.children
        root.buffers[0] = NULL
        root.dictionary, root.release, root.private_data = NULL, _release_batch, e
        return _import_batch(<uintptr_t>root, schema)  # (Arrow calls `release` when done with it)


cdef tuple _per_batch(const int64_t[:, ::1] headers, const int64_t[::1] good, int64_t n, int64_t j,
                      tuple timestamp_types):
    """Column j of `BATCH_COLUMNS` of n rows: each batch's value (its header's field, `headers`) on its `good` rows,
    none null, as the numpy arrays of its Arrow buffers (offsets and data for `timestamp_type`, each batch's name by
    its code in `timestamp_types`; bits for `is_transactional`; values for the others). Filled without the GIL."""
    cdef int64_t taken = good.shape[0], field = _BATCH_FIELDS[j], i, r, row = 0, at = 0, code, length, v
    cdef const uint8_t* name
    cdef int64_t[::1] wide
    cdef int32_t[::1] narrow
    cdef uint8_t[::1] bits
    cdef int32_t[::1] offsets
    cdef uint8_t[::1] data
    if j == 0:  # timestamp_type: each batch's name, as a string array
        names = [bytes(t) for t in timestamp_types]
        for i in range(taken):
            code = headers[i, field]
            if not 0 <= code < len(names):
                raise ValueError(f"no name for timestamp type {code}")  # a caller's bug: the names are Kafka's
            at += good[i] * len(names[code])
        if at > 0x7FFFFFFF:
            raise ValueError("too many rows for a string array")  # a caller's bug: a group is at most max_rows
        offsets_array, data_array = np.empty(n + 1, dtype=np.int32), np.empty(max(at, 1), dtype=np.uint8)
        offsets, data = offsets_array, data_array
        at = 0
        offsets[0] = 0
        for i in range(taken):
            held = names[headers[i, field]]
            name, length = held, len(held)
            with nogil:
                for r in range(good[i]):
                    memcpy(&data[at], name, <size_t>length)
                    at += length
                    row += 1
                    offsets[row] = <int32_t>at
        return offsets_array, data_array
    if j == 3 or j == 5:  # is_transactional, is_control: bits
        bits_array = np.zeros((n + 7) >> 3, dtype=np.uint8)
        bits = bits_array
        with nogil:
            for i in range(taken):
                if headers[i, field] == 1:
                    for r in range(row, row + good[i]):
                        bits[r >> 3] |= <uint8_t>(1 << (r & 7))
                row += good[i]
        return (bits_array,)
    if j == 1:  # producer_id: int64
        wide_array = np.empty(n, dtype=np.int64)
        wide = wide_array
        with nogil:
            for i in range(taken):
                v = headers[i, field]
                for r in range(row, row + good[i]):
                    wide[r] = v
                row += good[i]
        return (wide_array,)
    narrow_array = np.empty(n, dtype=np.int32)  # producer_epoch, partition_leader_epoch: int32
    narrow = narrow_array
    with nogil:
        for i in range(taken):
            v = headers[i, field]
            for r in range(row, row + good[i]):
                narrow[r] = <int32_t>v
            row += good[i]
    return (narrow_array,)


cdef tuple _control_column(const int64_t[:, ::1] headers, const int64_t[::1] good, const Out* o, tuple names):
    """The `control_type` column of a walk's rows (`o`: each row's control type, `_add_row`'s `control`), of batches
    (`headers`) of `good` rows each: the name of each control record's type (`names` by type id, the last for any
    other id), null on the rows of other batches; as its nulls and the numpy arrays of its validity bitmap, offsets
    and data. Filled without the GIL."""
    cdef int64_t taken = good.shape[0], n = o.rows, i, r, row = 0, at = 0, kind, nulls = 0, last = len(names) - 1
    cdef const int32_t* control = <const int32_t*>o.control.data
    cdef const uint8_t* name
    cdef int64_t length
    if last < 0 and any(headers[i, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] for i in range(taken)):
        raise ValueError("no names for the control types")  # a caller's bug
    held = [bytes(t) for t in names]
    cdef int64_t[::1] lengths = np.array([len(t) for t in held] or [0], dtype=np.int64)
    cdef int64_t most = max(lengths)
    if n * most > 0x7FFFFFFF:
        raise ValueError("too many rows for a string array")  # a caller's bug: a group is at most max_rows
    table_array = np.frombuffer(b"".join(t.ljust(most, b"\0") for t in held) or b"\0", dtype=np.uint8)
    cdef const uint8_t[::1] table = table_array
    with nogil:  # (the names' bytes, counted first: the data array is held as long as the record batch)
        for i in range(taken):
            if headers[i, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] != 0:
                for r in range(row, row + good[i]):
                    kind = control[r]
                    at += lengths[kind if 0 <= kind < last else last]
            row += good[i]
    valid_array = np.zeros((n + 7) >> 3 if n else 1, dtype=np.uint8)
    offsets_array = np.empty(n + 1, dtype=np.int32)
    data_array = np.empty(max(at, 1), dtype=np.uint8)
    row = at = 0
    cdef uint8_t[::1] valid = valid_array
    cdef int32_t[::1] offsets = offsets_array
    cdef uint8_t[::1] data = data_array
    with nogil:
        offsets[0] = 0
        for i in range(taken):
            if headers[i, KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL] != 0:
                for r in range(row, row + good[i]):
                    kind = control[r]
                    if not 0 <= kind < last:
                        kind = last
                    length = lengths[kind]
                    memcpy(&data[at], &table[kind * most], <size_t>length)
                    at += length
                    offsets[r + 1] = <int32_t>at
                    valid[r >> 3] |= <uint8_t>(1 << (r & 7))
            else:
                for r in range(row, row + good[i]):
                    offsets[r + 1] = <int32_t>at
                nulls += good[i]
            row += good[i]
    return nulls, valid_array, offsets_array, data_array


cdef inline const void* _lent_array(list owner, object array):
    """A numpy array's address; the array is held by `owner` until Arrow lets the record batch go."""
    cdef uint8_t[::1] view = array.view(np.uint8).reshape(-1)
    owner.append(array)
    return &view[0] if view.shape[0] else NULL


# --- The Kafka source's columns of an Arrow batch (kafkalog.dataset.rows.to_output) -----------------------------

def kafka_columns(const int64_t[::1] ms, int64_t low, int64_t high, int64_t scale,
                  const int32_t[::1] type_offsets, Py_ssize_t type_at, const int32_t[::1] type_ids,
                  const int32_t[::1] header_offsets, Py_ssize_t header_at):
    """The columns the Kafka source shapes from the decoder's, for the `n` rows of `ms`, in one call without the GIL
    (from `RELEASE_ROWS` rows; per Arrow batch): `timestamp` (``ms[i] * scale`` where ``low <= ms[i] <= high``, else 0
    and null: its values, validity bitmap and nulls), `timestampType` (``type_ids`` by the length of string ``type_at +
    i`` of `type_offsets`, the last id for any other length; written at ``type_at + i``, where the names' validity
    bitmap has them) and the `headers` validity bitmap (bit ``header_at + i`` set where list ``header_at + i`` of
    `header_offsets` is not empty) with its nulls; an empty `header_offsets` makes no bitmap (None, 0)."""
    cdef Py_ssize_t n = ms.shape[0], last = type_ids.shape[0] - 1
    cdef bint headers = header_offsets.shape[0] != 0
    cdef int64_t nulls[2]
    if type_at < 0 or header_at < 0 or last < 0 or type_offsets.shape[0] < type_at + n + 1 \
            or (headers and header_offsets.shape[0] < header_at + n + 1):
        raise ValueError("the offsets or the ids are too short")  # a caller's bug: the loop would read past them
    us_array = np.empty(n, dtype=np.int64)
    ts_bitmap_array = np.zeros((n + 7) >> 3, dtype=np.uint8)
    ids_array = np.empty(type_at + n, dtype=np.int32)
    header_bitmap_array = np.zeros((header_at + n + 7) >> 3 if headers else 0, dtype=np.uint8)
    cdef int64_t[::1] us = us_array
    cdef uint8_t[::1] ts_bitmap = ts_bitmap_array
    cdef int32_t[::1] ids = ids_array
    cdef uint8_t[::1] header_bitmap = header_bitmap_array
    if n == 0:
        return us_array, ts_bitmap_array, 0, ids_array, header_bitmap_array if headers else None, 0
    cdef const int32_t* header_from = &header_offsets[0] if headers else NULL
    cdef uint8_t* header_bits = &header_bitmap[0] if headers else NULL
    if n >= _RELEASE_ROWS:
        with nogil:
            _kafka_columns(&ms[0], n, low, high, scale, &us[0], &ts_bitmap[0], &type_offsets[0], type_at,
                           &type_ids[0], last, &ids[0], header_from, header_at, header_bits, nulls)
    else:
        _kafka_columns(&ms[0], n, low, high, scale, &us[0], &ts_bitmap[0], &type_offsets[0], type_at, &type_ids[0],
                       last, &ids[0], header_from, header_at, header_bits, nulls)
    return (us_array, ts_bitmap_array, nulls[0], ids_array, header_bitmap_array if headers else None, nulls[1])


cdef inline void _kafka_columns(const int64_t* ms, Py_ssize_t n, int64_t low, int64_t high, int64_t scale,
                                int64_t* us, uint8_t* ts_bitmap, const int32_t* type_offsets, Py_ssize_t type_at,
                                const int32_t* type_ids, Py_ssize_t last, int32_t* ids, const int32_t* header_offsets,
                                Py_ssize_t header_at, uint8_t* header_bitmap, int64_t* nulls) noexcept nogil:
    """`kafka_columns`' passes: `nulls`, the timestamps' out of range and the empty headers (none without
    `header_offsets`)."""
    cdef Py_ssize_t i, bit
    cdef int64_t full = 0
    cdef bint listed
    nulls[0] = _scaled(ms, n, low, high, scale, us, ts_bitmap)
    _ids_by_length(type_offsets + type_at, n, type_ids, last, ids + type_at)
    if header_offsets != NULL:
        for i in range(n):  # (without a branch: whether a record has headers is as the data has it)
            bit = header_at + i
            listed = header_offsets[bit + 1] != header_offsets[bit]
            header_bitmap[bit >> 3] |= <uint8_t>(listed << (bit & 7))
            full += listed
    nulls[1] = n - full if header_offsets != NULL else 0
