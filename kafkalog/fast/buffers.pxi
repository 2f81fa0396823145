# Growing C buffers, handed to Python without a copy: included by the compiled engine (`engine.pyx`) and by
# dump's line writers (`lines.pyx`), each of which sets `GROW_FIRST`, the first size a buffer takes, before the
# include (the walk's many small columns start at 4 KiB, a run's lines at 64 KiB).
#
# Large buffers come from a small pool of the memory of `Block`s freed (each including module has its own): a
# block handed to Python and let go is reused by the next buffer of a like size, so a read's every walk does not
# take fresh memory from the kernel and page-fault it in again (glibc hands large blocks back to the kernel when
# they are freed: issue 33, docs/performance.md). The pool is bounded (`POOL_SLOTS` blocks; a block's pages past
# its last fill and its slack (`POOL_SLACK`, or a `POOL_SLACK_PART` of the fill where more) are given back to the
# kernel as it goes in, and the rest, at most `POOL_BYTES` of all its blocks, is what it holds in memory; the
# oldest blocks are freed to make room) and thread-safe; what it keeps stays until a block is asked for or pushed
# out.
from cpython.buffer cimport PyBuffer_FillInfo
from cpython.pythread cimport PyThread_type_lock, PyThread_allocate_lock, PyThread_acquire_lock, \
    PyThread_release_lock, WAIT_LOCK
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove
from posix.mman cimport MADV_DONTNEED, madvise
from posix.unistd cimport _SC_PAGESIZE, sysconf


cdef enum:
    POOL_MIN = 256 * 1024  # bytes: smaller blocks are left to malloc, whose free lists reuse them as they are
    POOL_SLOTS = 256
    POOL_BYTES = 96 * 1024 * 1024  # bytes the pooled blocks hold in memory (their last fill and slack): a run of a
    # chunk of zstd batches, 9 groups of 4-5 MiB, is 127 blocks and 73 MB
    POOL_SPARE = 4  # a block is reused for a buffer that needs at least 1/POOL_SPARE of it
    POOL_SLACK = 128 * 1024  # bytes past what a pooled block's last use wrote that it keeps in memory, at least
    POOL_SLACK_PART = 4  # or 1/POOL_SLACK_PART of what it wrote, where more (a group's bytes vary by a batch)
    POOL_SPAN = 1024 * 1024 * 1024  # bytes of address space the pooled blocks span (written or not)
    # Bytes of address space that blocks lent to Python may hold past what they were written with (a walk reserves
    # room for the most its sections' bytes could give): past it, a block gives its unused end back as it is lent.
    LENT_SLACK_MAX = 1024 * 1024 * 1024


cdef struct Pooled:
    uint8_t* data
    int64_t cap  # bytes allocated
    int64_t filled  # bytes its last use wrote: what it holds in memory, at least
    int tag  # what it was last used for (a buffer of the walk's `Out`; 0: anything)


cdef Pooled _pool[POOL_SLOTS]
cdef int _pool_count = 0
cdef int64_t _pool_filled = 0
cdef int64_t _pool_span = 0  # the pooled blocks' sizes, in all
cdef int64_t _lent_slack = 0  # what blocks lent to Python hold past their bytes (changed with the GIL held)
cdef PyThread_type_lock _pool_lock = PyThread_allocate_lock()
# What the pool did (`pool_counts`): blocks asked for and found, asked for and not found, kept, freed to make room.
cdef int64_t _pool_hits = 0, _pool_misses = 0, _pool_kept = 0, _pool_evicted = 0
cdef uintptr_t _page = <uintptr_t>max(sysconf(_SC_PAGESIZE), 4096)


cdef uint8_t* _pool_take(int64_t need, int64_t* cap, int tag) noexcept nogil:
    """A pooled block of at least `need` bytes (and at most POOL_SPARE times), taken out of the pool (its size in
    `cap`), or NULL: the smallest last used for the same `tag` (its pages already hold what such a buffer
    writes), else the smallest."""
    global _pool_count, _pool_filled, _pool_span, _pool_hits, _pool_misses
    cdef int i, best = -1
    cdef bint same, best_same = False
    cdef uint8_t* data = NULL
    if _pool_count == 0:  # (read without the lock: a miss only costs a fresh block)
        _pool_misses += 1  # (a count for `pool_counts`, not exact under threads)
        return NULL
    PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
    for i in range(_pool_count):
        if not need <= _pool[i].cap <= need * POOL_SPARE:
            continue
        same = tag != 0 and _pool[i].tag == tag
        if best < 0 or (same and not best_same) or (same == best_same and _pool[i].cap < _pool[best].cap):
            best, best_same = i, same
    if best >= 0:
        data = _pool[best].data
        cap[0] = _pool[best].cap
        _pool_filled -= _pool[best].filled
        _pool_span -= _pool[best].cap
        _pool_count -= 1
        memmove(&_pool[best], &_pool[best + 1], (_pool_count - best) * sizeof(Pooled))  # (oldest first)
        _pool_hits += 1
    else:
        _pool_misses += 1
    PyThread_release_lock(_pool_lock)
    return data


cdef void _release(uint8_t* data, int64_t cap, int64_t filled, int tag) noexcept nogil:
    """A block no longer used: into the pool, the oldest blocks in it freed to make room (blocks that no buffer
    asks for again do not keep the pool full); freed when it is larger than the pool."""
    global _pool_count, _pool_filled, _pool_span, _pool_kept, _pool_evicted
    cdef bint kept = False
    cdef uintptr_t start, end
    cdef uint8_t* evicted[POOL_SLOTS]
    cdef int n_evicted = 0, i
    if data == NULL:
        return
    if cap >= POOL_MIN:
        filled = max(filled, 0)
        filled = min(filled + max(POOL_SLACK, filled // POOL_SLACK_PART), cap)  # (what it keeps: `filled` from here)
        # The block is to hold in memory what its last use wrote and some slack more (the next use writes about as
        # much: a group's bytes vary by a batch, up to 1 MiB of 4-5 MiB), no more: the pages past that (an earlier
        # use may have written them) go back to the kernel, so that the pool holds at most POOL_BYTES in memory.
        # Only pages inside the block (its first whole page after that to the last whole page before its end), and
        # before it is in the pool, where another thread may take it.
        start = (<uintptr_t>data + <uintptr_t>filled + _page - 1) & ~(_page - 1)
        end = (<uintptr_t>data + <uintptr_t>cap) & ~(_page - 1)
        if end > start:
            madvise(<void*>start, end - start, MADV_DONTNEED)
        PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
        while _pool_count and (_pool_count == POOL_SLOTS or _pool_filled + filled > POOL_BYTES
                               or _pool_span + cap > POOL_SPAN) and filled <= POOL_BYTES and cap <= POOL_SPAN:
            evicted[n_evicted] = _pool[0].data
            n_evicted += 1
            _pool_filled -= _pool[0].filled
            _pool_span -= _pool[0].cap
            _pool_count -= 1
            memmove(&_pool[0], &_pool[1], _pool_count * sizeof(Pooled))
            _pool_evicted += 1
        if _pool_count < POOL_SLOTS and _pool_filled + filled <= POOL_BYTES and _pool_span + cap <= POOL_SPAN:
            _pool[_pool_count].data, _pool[_pool_count].cap, _pool[_pool_count].filled = data, cap, filled
            _pool[_pool_count].tag = tag
            _pool_count += 1
            _pool_filled += filled
            _pool_span += cap
            _pool_kept += 1
            kept = True
        PyThread_release_lock(_pool_lock)
        for i in range(n_evicted):
            free(evicted[i])
    if not kept:
        free(data)


def pool_counts():
    """What the pool of large blocks did in this module so far (a diagnostic for benchmarks): blocks asked for
    and found in it, asked for and not found, kept in it, freed to make room; and the blocks and bytes it holds."""
    return {"hits": _pool_hits, "misses": _pool_misses, "kept": _pool_kept, "evicted": _pool_evicted,
            "blocks": _pool_count, "filled": _pool_filled, "span": _pool_span, "lent_slack": _lent_slack}


cdef struct Grow:
    uint8_t* data
    int64_t size  # bytes used
    int64_t cap


cdef inline bint _reserve(Grow* g, int64_t extra) noexcept nogil:
    """Room for `extra` more bytes."""
    if g.size + extra <= g.cap:
        return True
    return _grow(g, g.size + extra, 0)


cdef bint _grow(Grow* g, int64_t need, int tag) noexcept nogil:
    """`_reserve`'s slow path, apart so that the puts stay small enough to be inlined: room for `need` bytes (`tag`:
    what the buffer is, for the pool; 0 for any)."""
    cdef int64_t cap = g.cap * 2 if g.cap else GROW_FIRST
    cdef uint8_t* p
    while cap < need:
        cap *= 2
    if cap >= POOL_MIN:
        p = _pool_take(cap, &cap, tag)
        if p != NULL:
            if g.size:
                memcpy(p, g.data, <size_t>g.size)
            _release(g.data, g.cap, g.size, tag)
            g.data = p
            g.cap = cap
            return True
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
    buffer protocol; a large block's memory goes back to the pool when it is let go."""

    cdef uint8_t* data
    cdef Py_ssize_t size
    cdef int64_t cap  # bytes allocated (0: not a pooled size)
    cdef int tag  # what it holds, for the pool

    def __dealloc__(self):
        global _lent_slack
        if self.cap:
            _lent_slack -= self.cap - self.size
            _release(self.data, self.cap, self.size, self.tag)
        else:
            free(self.data)

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef Block _take(Grow* g, int tag=0):
    """The buffer's bytes as a `Block`; `g` is left empty. A buffer of a pooled size keeps what was reserved and
    not used (pages never written cost no memory; the block goes back to the pool whole) while the blocks lent hold
    at most `LENT_SLACK_MAX` so; any other gives it back to malloc, as the arrays may be kept long after the walk
    (a table of many walks would otherwise span each walk's whole reservation of address space)."""
    global _lent_slack
    cdef Block block = Block.__new__(Block)
    cdef uint8_t* fitted
    if g.data == NULL:
        g.data = <uint8_t*>malloc(1)  # (a buffer of no bytes still has an address)
        if g.data == NULL:
            raise MemoryError()
    elif g.cap >= POOL_MIN and (g.cap - g.size <= POOL_SLACK or _lent_slack + g.cap - g.size <= LENT_SLACK_MAX):
        block.cap, block.tag = g.cap, tag
        _lent_slack += g.cap - g.size
    elif g.cap > g.size:
        fitted = <uint8_t*>realloc(g.data, <size_t>max(g.size, 1))
        if fitted != NULL:
            g.data = fitted
            if g.size >= POOL_MIN:
                block.cap, block.tag = g.size, tag
    block.data = g.data
    block.size = g.size
    g.data = NULL
    g.size = g.cap = 0
    return block
