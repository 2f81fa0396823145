"""LZ4, zstd, snappy and gzip batches decompressed many at a time, straight into a group's buffer: the fast
path's twin of `kafkalog.compression`.

Spec: `kafka_record_batch.ksy`'s `records_data`, whose `attributes.compression` names the codec.

One codec call per batch from Python holds the GIL around every 16 KiB batch, and with a thread per byte
range the threads took turns. Here a kernel walks consecutive batches of one codec and calls the C libraries
that python-lz4 (`LZ4F_decompress`) and zstandard (`ZSTD_decompressDCtx`) carry and export, writing each
batch after the last in the group's output buffer. It takes only what decompresses cleanly and within
its room: at the first batch that does not (damage, a batch past the window, a buffer too small) it
stops, and `kafkalog.compression` reads that batch one call at a time, as it reads every batch without
this module, and says what is wrong in Kafka's words. A batch the kernel does take gives the bytes those
same libraries give through Python:
- LZ4: the first frame, to its end mark (what follows it is not read, as python-lz4's frame decompressor
  leaves it), with its block and content checksums when the frame has them;
- zstd: every frame, one after the other, and nothing else (what is not a frame fails the batch);
- snappy: snappy-java's stream framing, every block, or one raw block. A kernel finds the blocks and the
  length each declares; then each block is one call of cramjam (the library python-snappy wraps), which
  writes straight into the group's buffer and lets go of the GIL, not a Python walk of the framing, a
  `bytes` copy and a copy into the buffer per block;
- gzip: one member, whole, trailer checked, by ISA-L's inflate (python-isal) a batch a call, with nothing
  in between (python-isal holds the GIL while it inflates; zlib, which lets it go, takes twice as long);
  more members, trailing bytes or damage are left to `kafkalog.compression`.

numba links the calls by name (`jit.link`), so the compiled kernels stay cacheable. Where a library does not export
its functions, `AVAILABLE` leaves that codec to `kafkalog.compression`.
"""
from __future__ import annotations

import cramjam
import numba as nb
import numpy as np
from isal import isal_zlib
from numba import types

from kafkalog.compression import GZIP, LZ4, SNAPPY, XERIAL_MAGIC, ZSTD, Output
from kafkalog.fast import jit

jit.configure()

_LZ4F_VERSION = 100
AVAILABLE = {
    LZ4: jit.link("lz4.frame._frame", ("LZ4F_createDecompressionContext", "LZ4F_freeDecompressionContext",
                                       "LZ4F_decompress", "LZ4F_isError")),
    # (zstandard carries its C library, with its symbols exported, in the `_cffi` module beside `backend_c`.)
    ZSTD: jit.link("zstandard._cffi", ("ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_decompressDCtx", "ZSTD_isError")),
    SNAPPY: True,
    GZIP: True,
}

# Pointers and size_t go as uintp: the same register in every C calling convention numba targets.
_p = types.uintp
_lz4f_create = types.ExternalFunction("LZ4F_createDecompressionContext", _p(_p, types.uint32))
_lz4f_free = types.ExternalFunction("LZ4F_freeDecompressionContext", _p(_p))
_lz4f_decompress = types.ExternalFunction("LZ4F_decompress", _p(_p, _p, _p, _p, _p, _p))
_lz4f_is_error = types.ExternalFunction("LZ4F_isError", types.uint32(_p))
_zstd_create = types.ExternalFunction("ZSTD_createDCtx", _p())
_zstd_free = types.ExternalFunction("ZSTD_freeDCtx", _p(_p))
_zstd_decompress = types.ExternalFunction("ZSTD_decompressDCtx", _p(_p, _p, _p, _p, _p))
_zstd_is_error = types.ExternalFunction("ZSTD_isError", types.uint32(_p))


@nb.njit(cache=True, nogil=True)
def _lz4_frame(dctx, dst, cap, src, left, sizes):
    """One LZ4 frame at `src` (`left` bytes) into `dst` (`cap` bytes): what it gives, or -1 when the kernel does not
    take it (damage, no end mark, more than `cap`)."""
    produced = np.int64(0)
    while True:
        sizes[0] = cap - produced  # in: room and input left; out: what the call wrote and read
        sizes[1] = left
        hint = _lz4f_decompress(dctx, dst + produced, sizes.ctypes.data, src, sizes.ctypes.data + 8, 0)
        if _lz4f_is_error(hint):
            return -1
        produced += np.int64(sizes[0])  # (int64 throughout: uint64 with int64 would make floats)
        src += np.int64(sizes[1])
        left -= np.int64(sizes[1])
        if hint == 0:
            return produced  # the end mark (what follows the frame is not read)
        if sizes[0] == 0 and sizes[1] == 0:  # no room left, or no input
            return -1


@nb.njit(cache=True, nogil=True)
def _zstd_frames(dctx, dst, cap, src, left):
    """Every zstd frame at `src` (`left` bytes) into `dst` (`cap` bytes): what they give, or -1 when the kernel does
    not take them (damage, what is not a frame, more than `cap`, no frame at all)."""
    if left <= 0:
        return -1  # (`kafkalog.compression` says what an empty batch gives)
    written = _zstd_decompress(dctx, dst, cap, src, left)
    return -1 if _zstd_is_error(written) else np.int64(written)


@nb.njit(cache=True, nogil=True)
def _lz4_zstd_batches(codec, buf, pos, size, out, at, room, group_bytes, lengths):
    """Batches `buf[pos[i]:pos[i] + size[i]]` of `codec` one after the other into `out` from `at`, until one is not
    taken or `group_bytes` are held; how many were taken."""
    sizes = np.zeros(2, dtype=np.uint64)
    if codec == LZ4:
        if _lz4f_is_error(_lz4f_create(sizes.ctypes.data, _LZ4F_VERSION)):
            return 0
        dctx = np.uint64(sizes[0])
    else:
        dctx = _zstd_create()
        if dctx == 0:
            return 0
    src_base, out_base = buf.ctypes.data, out.ctypes.data
    taken = 0
    for i in range(len(pos)):
        cap = min(room, len(out) - at)
        if codec == LZ4:
            n = _lz4_frame(dctx, out_base + at, cap, src_base + pos[i], size[i], sizes)
        else:
            n = _zstd_frames(dctx, out_base + at, cap, src_base + pos[i], size[i])
        if n < 0:
            break  # (an LZ4 context left mid-frame is not used again)
        lengths[i] = n
        at += n
        taken += 1
        if at >= group_bytes:
            break
    if codec == LZ4:
        _lz4f_free(dctx)
    else:
        _zstd_free(dctx)
    return taken


_XERIAL_MAGIC = np.frombuffer(XERIAL_MAGIC, dtype=np.uint8)
#: snappy-java's stream header: the magic, then two int32 versions (which its reader does not check).
_XERIAL_HEADER = 16


@nb.njit(cache=True, nogil=True)
def _snappy_length(buf, at, end):
    """The uncompressed length a raw snappy block at `buf[at:end]` declares in its varint preamble (at most 5
    bytes), or -1."""
    n = np.int64(0)
    for i in range(min(5, end - at)):
        b = np.int64(buf[at + i])
        n |= (b & 0x7F) << (7 * i)
        if b < 0x80:
            return n
    return -1


#: Blocks found per kernel call: 32 KiB of raw data each as snappy-java writes them, 128 MiB in all.
_SNAPPY_BLOCKS = 4096


@nb.njit(cache=True, nogil=True)
def _snappy_blocks(buf, pos, size, room, cap, group_bytes, block_pos, block_size, block_out, batch_blocks):
    """The raw snappy blocks of batches `buf[pos[i]:pos[i] + size[i]]`: each block's place, size and declared
    output, and each batch's end in the blocks. It stops before the first batch whose framing is not clean, whose
    blocks declare more than `room`, or more than the `cap` bytes left in all, or whose blocks do not fit in
    `block_pos`; and after the batch that brings the output to `group_bytes`. How many batches it found, and
    whether it stopped for want of room in `block_pos` (the batches after those may still be taken)."""
    blocks = 0
    written = np.int64(0)
    for i in range(len(pos)):
        start, end = pos[i], pos[i] + size[i]
        total = np.int64(0)
        framed = size[i] >= 8
        for k in range(min(8, size[i])):
            framed = framed and buf[start + k] == _XERIAL_MAGIC[k]
        if not framed:  # one raw block: the whole batch
            n = _snappy_length(buf, start, end)
            if n < 0:
                return i, False
            if blocks == len(block_pos):
                return i, True
            block_pos[blocks], block_size[blocks], block_out[blocks] = start, end - start, n
            blocks += 1
            total = n
        else:
            at = start + _XERIAL_HEADER
            if at > end:
                return i, False
            while at < end:
                if at + 4 > end:
                    return i, False
                if blocks == len(block_pos):
                    return i, True
                length = np.int64(0)
                for k in range(4):
                    length = (length << 8) | np.int64(buf[at + k])
                at += 4
                if length >= 1 << 31 or at + length > end:  # (a negative int32)
                    return i, False
                n = _snappy_length(buf, at, at + length)
                if n < 0:
                    return i, False
                block_pos[blocks], block_size[blocks], block_out[blocks] = at, length, n
                blocks += 1
                total += n
                at += length
        if total > room or written + total > cap:
            return i, False
        written += total
        batch_blocks[i] = blocks
        if written >= group_bytes:
            return i + 1, False
    return len(pos), False


def _snappy_batches(buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: Output, room: int, group_bytes: int,
                    find_blocks=_snappy_blocks) -> np.ndarray:
    block_pos, block_size, block_out = (np.empty(_SNAPPY_BLOCKS, dtype=np.int64) for _ in range(3))
    batch_blocks = np.empty(len(pos), dtype=np.int64)
    source = buf.data  # (memoryview(buf): numpy's stubs give ndarray `__buffer__` from Python 3.12 on)
    lengths: list[int] = []
    at = out.end
    with memoryview(out.buffer) as target:  # (released before the buffer grows again)
        while len(lengths) < len(pos) and at < group_bytes:
            first = len(lengths)
            found, full = find_blocks(buf, pos[first:], size[first:], room, len(target) - at, group_bytes - at,
                                      block_pos, block_size, block_out, batch_blocks)
            block = 0
            for i in range(found):
                start = at
                for k in range(block, int(batch_blocks[i])):
                    s, n, written = int(block_pos[k]), int(block_size[k]), int(block_out[k])
                    try:
                        done = cramjam.snappy.decompress_raw_into(source[s:s + n], target[at:at + written]) == written
                    except cramjam.DecompressionError:
                        done = False
                    if not done:  # left to `kafkalog.compression`, which says what is wrong
                        out.end = start
                        return np.array(lengths, dtype=np.int64)
                    at += written
                lengths.append(at - start)
                block = int(batch_blocks[i])
            if not full or found == 0:
                break  # the group is full, or a batch is not taken (one with more blocks than a call finds, too)
    out.end = at
    return np.array(lengths, dtype=np.int64)


def _gzip_batches(buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: Output, room: int, group_bytes: int
              ) -> np.ndarray:
    source = buf.data  # (memoryview(buf): numpy's stubs give ndarray `__buffer__` from Python 3.12 on)
    lengths: list[int] = []
    at = out.end
    with memoryview(out.buffer) as target:  # (released before the buffer grows again)
        for p, n in zip(pos.tolist(), size.tolist()):
            cap = min(room, len(target) - at)
            inflater = isal_zlib.decompressobj(wbits=31)  # a gzip member, its trailer checked
            try:
                inflated = inflater.decompress(source[p:p + n], cap + 1)
            except isal_zlib.error:  # type: ignore[misc]  # isal's stub: `error` an instance
                break
            if not inflater.eof or inflater.unused_data or len(inflated) > cap:
                break  # more members or bytes after one, cut short, or past the room: one call at a time
            target[at:at + len(inflated)] = inflated
            at += len(inflated)
            lengths.append(len(inflated))
            if at >= group_bytes:
                break
    out.end = at
    return np.array(lengths, dtype=np.int64)


def decompress_batches(codec: int, buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: Output, room: int,
                   group_bytes: int, find_snappy_blocks=_snappy_blocks) -> np.ndarray:
    """Batches of one codec, `buf[pos[i]:pos[i] + size[i]]`, decompressed into `out` one after the other from its
    `end`, each in at most `room` bytes, until the group holds `group_bytes` or a batch is not taken. The lengths
    of those taken (`out.end` is moved past them); none when the codec is not `AVAILABLE` or the buffer cannot
    grow to hold them. `find_snappy_blocks`: the kernel that finds snappy's blocks (the compiled engine's twin,
    `kafkalog.fast.compiled`, passes its own)."""
    if not AVAILABLE.get(codec) or not len(pos) or not out.reserve(group_bytes + room):
        return np.empty(0, dtype=np.int64)
    pos = np.ascontiguousarray(pos, dtype=np.int64)
    size = np.ascontiguousarray(size, dtype=np.int64)
    if pos.min() < 0 or size.min() < 0 or (pos + size).max() > len(buf):
        raise ValueError("a batch is not inside the buffer")  # a caller's bug: the kernel would read past it
    if codec == SNAPPY:
        return _snappy_batches(buf, pos, size, out, room, group_bytes, find_snappy_blocks)
    if codec == GZIP:
        return _gzip_batches(buf, pos, size, out, room, group_bytes)
    lengths = np.empty(len(pos), dtype=np.int64)
    target = np.frombuffer(out.buffer, dtype=np.uint8)
    taken = _lz4_zstd_batches(codec, buf, pos, size, target, out.end, room, group_bytes, lengths)
    del target  # (a view would keep the buffer from growing)
    out.end += int(lengths[:taken].sum())
    return lengths[:taken]
