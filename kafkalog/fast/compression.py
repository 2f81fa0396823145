"""LZ4, zstd, snappy and gzip batches decompressed many at a time, straight into a group's buffer: the fast
path's twin of `kafkalog.compression`.

Spec: `kafka_record_batch.ksy`'s `records_data`, whose `attributes.compression` names the codec.

One codec call per batch from Python holds the GIL around every 16 KiB batch, and with a thread per byte range
the threads took turns. Here the engine walks consecutive batches of one codec and calls the C libraries that
python-lz4 (`LZ4F_decompress`) and zstandard (`ZSTD_decompressStream`, into a stable output buffer) carry and
export, writing each batch after the last in the group's output buffer. It takes only what decompresses
cleanly and within its room: at the first batch that does not (damage, a batch past the window, a buffer too
small) it stops, and `kafkalog.compression` reads that batch one call at a time, as it reads every batch
without this module, and says what is wrong in Kafka's words. A batch the engine does take gives the bytes
those same libraries give through Python:
- LZ4: the first frame, to its end mark (what follows it is not read, as python-lz4's frame decompressor
  leaves it), with its block and content checksums when the frame has them;
- zstd: every frame, one after the other, and nothing else (what is not a frame fails the batch);
- snappy: snappy-java's stream framing, every block, or one raw block, each block decoding to exactly the
  length it declares (the engine's own raw snappy decoder, `snappy.pxi`, held to cramjam's, which
  python-snappy wraps);
- gzip: one member, whole, trailer (CRC-32 and ISIZE) checked, nothing after it, by ISA-L's inflate
  (python-isal's); more members, trailing bytes or damage are left to `kafkalog.compression`.

The loop is the compiled engine's (`kafkalog.fast.engine`, through `kafkalog.fast.compiled`): a run of
batches of any codec in one call without the GIL; the engine finds the C functions by address when it is
imported. Where it was not built or a library does not export them, `AVAILABLE` leaves the codec to
`kafkalog.compression`. gzip alone has a second way: where the engine does not call ISA-L's inflate (a
python-isal whose ISA-L is of another version than the one whose `struct inflate_state` the engine mirrors),
python-isal inflates a batch a call from Python, holding the GIL.
"""
from __future__ import annotations

import numpy as np
from isal import isal_zlib

from kafkalog.compression import GZIP, LZ4, SNAPPY, ZSTD, Output
from kafkalog.fast import compiled

#: The codecs whose batches are taken many at a time (the others: one `kafkalog.compression` call each).
AVAILABLE = {LZ4: compiled.AVAILABLE, ZSTD: compiled.AVAILABLE, SNAPPY: compiled.BUILT, GZIP: True}
#: The codecs the engine takes in one call without the GIL (gzip: where it calls ISA-L's inflate).
_ENGINE = {LZ4, ZSTD, SNAPPY, *([GZIP] if compiled.BUILT and compiled.engine.GZIP_AVAILABLE else [])}


def _gzip_batches(buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: Output, room: int, group_bytes: int
              ) -> np.ndarray:
    source = buf.data  # (memoryview(buf): numpy's stubs give ndarray `__buffer__` from Python 3.12 on)
    lengths: list[int] = []
    at = out.end
    with memoryview(out.buffer) as target:  # (released before the buffer grows again)
        for p, n in zip(pos.tolist(), size.tolist(), strict=True):
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
                       group_bytes: int) -> np.ndarray:
    """Batches of one codec, `buf[pos[i]:pos[i] + size[i]]`, decompressed into `out` one after the other from its
    `end`, each in at most `room` bytes, until the group holds `group_bytes` or a batch is not taken. The lengths
    of those taken (`out.end` is moved past them); none when the codec is not `AVAILABLE` or the buffer cannot
    grow to hold them."""
    if not AVAILABLE.get(codec) or not len(pos) or not out.reserve(group_bytes + room):
        return np.empty(0, dtype=np.int64)
    pos = np.ascontiguousarray(pos, dtype=np.int64)
    size = np.ascontiguousarray(size, dtype=np.int64)
    if pos.min() < 0 or size.min() < 0 or (pos + size).max() > len(buf):
        raise ValueError("a batch is not inside the buffer")  # a caller's bug: the engine would read past it
    if codec == GZIP and GZIP not in _ENGINE:
        return _gzip_batches(buf, pos, size, out, room, group_bytes)
    lengths = np.empty(len(pos), dtype=np.int64)
    target = np.frombuffer(out.buffer, dtype=np.uint8)
    taken = compiled.engine.decompress_batches(codec, buf, pos, size, target, out.end, room, group_bytes, lengths)
    del target  # (a view would keep the buffer from growing)
    out.end += int(lengths[:taken].sum())
    return lengths[:taken]
