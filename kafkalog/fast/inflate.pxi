# gzip batches inflated without the GIL by ISA-L, which python-isal carries and exports: included by the
# compiled engine (`engine.pyx`), whose `_decompress_run` calls `_gunzip_batch`.
#
# ISA-L's inflate takes a caller-allocated `struct inflate_state`, so the engine must know its layout: it is
# mirrored below from ISA-L's include/igzip_lib.h at v2.32.1 (the ISA-L that python-isal 1.9 bundles), and is
# the same, field for field and size for size, from v2.30.0 to v2.32.1 (compared tag by tag). The engine
# calls ISA-L only where python-isal reports one of those versions (`ISAL_VERSIONS`, checked when the engine is
# imported); with another, gzip batches are left to `kafkalog.fast.compression`'s Python loop (python-isal's
# decompressobj), as before.
#
# `isal_inflate_stateless` inflates a whole gzip member (crc_flag ISAL_GZIP: header, deflate data, trailer's
# CRC-32 and ISIZE checked) straight into the output in one call, which is what a batch is: the rule is
# `kafkalog.fast.compression`'s (one member, whole, trailer checked, nothing after it, within the room).

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

#: The ISA-L versions whose `struct inflate_state` is the one below.
ISAL_VERSIONS = frozenset({"2.30.0", "2.31.0", "2.31.1", "2.32.0", "2.32.1"})

cdef enum:
    _ISAL_GZIP = 1  # crc_flag: a gzip header and trailer around the deflate data
    _ISAL_DECOMP_OK = 0
    _ISAL_HIST = 32 * 1024  # ISAL_DEF_HIST_SIZE
    _ISAL_LOOK_AHEAD = 288  # ISAL_LOOK_AHEAD: (ISAL_DEF_MAX_MATCH + 31) & ~31
    _ISAL_MAX_HDR = 328  # ISAL_DEF_MAX_HDR_SIZE
    _ISAL_LARGE_SHORT = 1 << 12  # 1 << ISAL_DECODE_LONG_BITS
    _ISAL_LARGE_LONG = 1264  # ISAL_HUFF_CODE_LARGE_LONG_ALIGNED (ISAL_L_SIZE 1253, rounded up to 16)
    _ISAL_SMALL_SHORT = 1 << 10  # 1 << ISAL_DECODE_SHORT_BITS
    _ISAL_SMALL_LONG = 80  # ISAL_HUFF_CODE_SMALL_LONG_ALIGNED (ISAL_S_SIZE 77, rounded up to 16)


cdef struct IsalHuffLarge:  # struct inflate_huff_code_large
    uint32_t short_code_lookup[_ISAL_LARGE_SHORT]
    uint16_t long_code_lookup[_ISAL_LARGE_LONG]


cdef struct IsalHuffSmall:  # struct inflate_huff_code_small
    uint16_t short_code_lookup[_ISAL_SMALL_SHORT]
    uint16_t long_code_lookup[_ISAL_SMALL_LONG]


cdef struct IsalInflateState:  # struct inflate_state
    uint8_t* next_out
    uint32_t avail_out
    uint32_t total_out
    const uint8_t* next_in
    uint64_t read_in
    uint32_t avail_in
    int32_t read_in_length
    IsalHuffLarge lit_huff_code
    IsalHuffSmall dist_huff_code
    int32_t block_state  # enum isal_block_state (an int)
    uint32_t dict_length
    uint32_t bfinal
    uint32_t crc_flag
    uint32_t crc
    uint32_t hist_bits
    int32_t type0_block_len  # an anonymous union of three 4-byte fields (type0_block_len, count, dict_id)
    int32_t write_overflow_lits
    int32_t write_overflow_len
    int32_t copy_overflow_length
    int32_t copy_overflow_distance
    int16_t wrapper_flag
    int16_t tmp_in_size
    int32_t tmp_out_valid
    int32_t tmp_out_processed
    uint8_t tmp_in_buffer[_ISAL_MAX_HDR]
    uint8_t tmp_out_buffer[2 * _ISAL_HIST + _ISAL_LOOK_AHEAD]


ctypedef void (*IsalInflateInitFn)(IsalInflateState*) noexcept nogil
ctypedef int (*IsalInflateStatelessFn)(IsalInflateState*) noexcept nogil

cdef IsalInflateInitFn _isal_inflate_init = NULL
cdef IsalInflateStatelessFn _isal_inflate_stateless = NULL


cdef int64_t _gunzip_batch(IsalInflateState* state, const uint8_t* src, int64_t n, uint8_t* dst,
                           int64_t cap) noexcept nogil:
    """The gzip batch `src[0:n]` into `dst` (at most `cap` bytes): what it gives, or -1 when it is not taken (not
    one whole member with its trailer, bytes after it, damage, more than `cap`)."""
    if n <= 0 or n >= (<int64_t>1) << 32:
        return -1
    _isal_inflate_init(state)
    state.crc_flag = _ISAL_GZIP
    state.next_in = src
    state.avail_in = <uint32_t>n
    state.next_out = dst
    state.avail_out = <uint32_t>min(cap, ((<int64_t>1) << 32) - 1)
    if _isal_inflate_stateless(state) != _ISAL_DECOMP_OK or state.avail_in != 0:
        return -1  # (avail_in: what follows the member, the read-ahead given back)
    return state.next_out - dst
