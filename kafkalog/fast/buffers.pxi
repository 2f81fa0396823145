# Growing C buffers, handed to Python without a copy: included by the compiled engine (`engine.pyx`) and by
# dump's line writers (`lines.pyx`), each of which sets `GROW_FIRST`, the first size a buffer takes, before the
# include (the walk's many small columns start at 4 KiB, a run's lines at 64 KiB).
from cpython.buffer cimport PyBuffer_FillInfo
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy


cdef struct Grow:
    uint8_t* data
    int64_t size  # bytes used
    int64_t cap


cdef inline bint _reserve(Grow* g, int64_t extra) noexcept nogil:
    cdef int64_t need = g.size + extra
    cdef int64_t cap
    cdef uint8_t* p
    if need <= g.cap:
        return True
    cap = g.cap * 2 if g.cap else GROW_FIRST
    while cap < need:
        cap *= 2
    p = <uint8_t*>realloc(g.data, <size_t>cap)
    if p == NULL:
        return False
    g.data = p
    g.cap = cap
    return True


cdef inline bint _put64(Grow* g, int64_t v) noexcept nogil:
    if not _reserve(g, 8):
        return False
    (<int64_t*>(g.data + g.size))[0] = v
    g.size += 8
    return True


cdef inline bint _put32(Grow* g, int32_t v) noexcept nogil:
    if not _reserve(g, 4):
        return False
    (<int32_t*>(g.data + g.size))[0] = v
    g.size += 4
    return True


cdef inline bint _put_bytes(Grow* g, const uint8_t* p, int64_t n) noexcept nogil:
    if n <= 0:
        return True
    if not _reserve(g, n):
        return False
    memcpy(g.data + g.size, p, <size_t>n)
    g.size += n
    return True


cdef inline bint _put_bit(Grow* g, int64_t i, bint valid) noexcept nogil:
    """Bit i of a validity bitmap (Arrow's: least significant bit first); the bytes are added as reached."""
    if (i & 7) == 0:
        if not _reserve(g, 1):
            return False
        g.data[g.size] = 0
        g.size += 1
    if valid:
        g.data[i >> 3] |= <uint8_t>(1 << (i & 7))
    return True


cdef class Block:
    """Bytes written in C (a walk's column, a run's lines), owned here and lent to numpy and Arrow through the
    buffer protocol."""

    cdef uint8_t* data
    cdef Py_ssize_t size

    def __dealloc__(self):
        free(self.data)

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef Block _take(Grow* g):
    """The buffer's bytes as a `Block` (what was reserved and not used given back); `g` is left empty."""
    cdef Block block = Block.__new__(Block)
    cdef uint8_t* fitted
    if g.data == NULL:
        g.data = <uint8_t*>malloc(1)  # (a buffer of no bytes still has an address)
        if g.data == NULL:
            raise MemoryError()
    elif g.cap > g.size:
        # What was reserved and not used goes back: the arrays may be kept long after the walk.
        fitted = <uint8_t*>realloc(g.data, <size_t>max(g.size, 1))
        if fitted != NULL:
            g.data = fitted
    block.data = g.data
    block.size = g.size
    g.data = NULL
    g.size = g.cap = 0
    return block
