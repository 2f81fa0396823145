# snappy batches decompressed without the GIL: included by the compiled engine (`engine.pyx`), whose
# `_decompress_run` calls `_snappy_batch`. Kafka's snappy batches are snappy-java's stream framing (the
# magic b"\x82SNAPPY\x00", two int32 versions, then blocks of [int32 big-endian length][raw snappy block])
# or one raw snappy block (snappy-java's SnappyInputStream reads those as they are): `kafkalog.compression`'s
# `_unsnappy_chunks` says the same in Python.
#
# The raw block decoder is ours: no snappy C library is among the packages the engine can reach (cramjam,
# which python-snappy wraps, is Rust and exports no C function), and the format is small and fixed. Its rules
# are google/snappy's (format_description.txt, and `SnappyDecompressor`/`SnappyArrayWriter` in snappy.cc),
# carried over:
# - the preamble is the uncompressed length, a little-endian base-128 varint of at most 5 bytes and 32 bits;
# - then elements, each a tag byte whose low two bits say what it is:
#   00 a literal of (tag >> 2) + 1 bytes, or, where (tag >> 2) is 60..63, of 1 + the (tag >> 2) - 59 bytes
#      after the tag (little-endian);
#   01 a copy of 4 + ((tag >> 2) & 7) bytes from ((tag >> 5) << 8 | the next byte) back;
#   10 a copy of (tag >> 2) + 1 bytes from the next 2 bytes' offset back (little-endian);
#   11 the same with a 4-byte offset;
# - a copy's offset is at least 1 and at most what has been written (an offset of 0, or one before the
#   output's start, is an error), it may overlap what it writes (the pattern repeats), and no element
#   writes past the length the preamble declares;
# - the block ends where its input ends, having written exactly the declared length.
# Every read is checked against the block's end and every write against the declared length and the room,
# so a hostile block never reads or writes outside them; what breaks a rule is refused (-1), and the
# one-call path (`kafkalog.compression`, python-snappy) then says what is wrong.

cdef const char* _XERIAL = b"\x82SNAPPY\x00"  # snappy-java's stream magic (`kafkalog.compression`'s)


cdef inline int64_t _snappy_length(const uint8_t* src, int64_t n, int64_t* used) noexcept nogil:
    """The uncompressed length the raw snappy block `src[0:n]` declares in its varint preamble, or -1 (no
    preamble, or one of more than 5 bytes or 32 bits, as snappy's `Varint::Parse32WithLimit`); `used[0]` its
    bytes."""
    cdef int64_t length = 0, b
    cdef int i
    for i in range(min(5, n)):
        b = src[i]
        length |= (b & 0x7F) << (7 * i)
        if b < 0x80:
            used[0] = i + 1
            return length if length < (<int64_t>1) << 32 else -1
    return -1


cdef inline int64_t _uint_le(const uint8_t* src, int n) noexcept nogil:
    cdef int64_t v = 0
    cdef int i
    for i in range(n):
        v |= (<int64_t>src[i]) << (8 * i)
    return v


cdef inline void _copy16(uint8_t* to, const uint8_t* src) noexcept nogil:
    """16 bytes, as two 8-byte words, the first written before the second is read (what a copy from 8 to 15
    bytes back needs: the second word's source overlaps the first's target)."""
    memcpy(to, src, 8)
    memcpy(to + 8, src + 8, 8)


cdef int64_t _unsnappy(const uint8_t* src, int64_t n, uint8_t* dst, int64_t cap) noexcept nogil:
    """The raw snappy block `src[0:n]` into `dst` (at most `cap` bytes): the bytes written, or -1 where it breaks
    a rule above or declares more than `cap`.

    Short elements are copied 16 bytes at a time where at least 16 bytes are left in both the block and the
    declared output (what lies past the element's end is written over by the elements after it), as
    snappy's own decoder does; the rest byte for byte or by `memcpy`."""
    cdef int64_t ip = 0, op = 0, declared, length, offset, k, chunk
    cdef uint8_t tag
    declared = _snappy_length(src, n, &ip)
    if declared < 0 or declared > cap:
        return -1
    while ip < n:
        tag = src[ip]
        ip += 1
        if tag & 3 == 0:  # a literal
            length = (tag >> 2) + 1
            if length <= 16 and n - ip >= 16 and declared - op >= 16:
                _copy16(dst + op, src + ip)
                ip += length
                op += length
                continue
            if length > 60:
                k = length - 60
                if k > n - ip:
                    return -1
                length = _uint_le(src + ip, <int>k) + 1
                ip += k
            if length > n - ip or length > declared - op:
                return -1
            memcpy(dst + op, src + ip, <size_t>length)
            ip += length
            op += length
            continue
        if tag & 3 == 1:
            if ip >= n:
                return -1
            length = 4 + ((tag >> 2) & 7)
            offset = ((<int64_t>(tag >> 5)) << 8) | src[ip]
            ip += 1
        else:
            k = 2 if tag & 3 == 2 else 4
            if k > n - ip:
                return -1
            length = (tag >> 2) + 1
            offset = _uint_le(src + ip, <int>k)
            ip += k
        if offset == 0 or offset > op or length > declared - op:
            return -1
        if offset >= 8 and length <= 16 and declared - op >= 16:
            _copy16(dst + op, dst + op - offset)
            op += length
        elif offset >= length:
            memcpy(dst + op, dst + op - offset, <size_t>length)
            op += length
        else:  # overlapping: the pattern of `offset` bytes repeats, copied in ever longer runs
            k = op - offset
            while length > 0:
                chunk = min(op - k, length)
                memcpy(dst + op, dst + k, <size_t>chunk)
                op += chunk
                length -= chunk
    return op if op == declared else -1


cdef int64_t _snappy_batch(const uint8_t* src, int64_t n, uint8_t* dst, int64_t cap) noexcept nogil:
    """A snappy batch `src[0:n]` (snappy-java's framing, or one raw block) into `dst` (at most `cap` bytes): what
    it gives, or -1 when it is not taken (framing not clean, a block that does not decompress, more than
    `cap`): `kafkalog.fast.compression`'s rule."""
    cdef int64_t at, length, got, produced = 0
    cdef int k
    if n < 8:
        return _unsnappy(src, n, dst, cap)
    for k in range(8):
        if src[k] != <uint8_t>_XERIAL[k]:
            return _unsnappy(src, n, dst, cap)  # one raw block: the whole batch
    at = 16  # the magic, then two int32 versions (which snappy-java's reader does not check)
    if at > n:
        return -1
    while at < n:
        if at + 4 > n:
            return -1
        length = _uint_be(src, at, 4)
        at += 4
        if length >= (<int64_t>1) << 31 or length > n - at:  # (a negative int32, or past the batch)
            return -1
        got = _unsnappy(src + at, length, dst + produced, cap - produced)
        if got < 0:
            return -1
        produced += got
        at += length
    return produced
