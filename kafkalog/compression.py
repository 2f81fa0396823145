"""Decompression of Kafka's compressed batches and wrapper messages.

`KafkaDecompress` is the custom process routine that the specs name as
`kafkalog.compression.kafka_decompress(codec, magic)`: the generated parsers
call it to turn a compressed record section or wrapper value into bytes that
they parse with the same types as uncompressed data.

Each codec is read in the framing Kafka's Java client writes:

* gzip: a gzip stream (several members are read, as Java's GZIPInputStream does);
* snappy: snappy-java's stream framing (`\\x82SNAPPY\\x00`, two int32 versions,
  then blocks of [int32 big-endian length][raw snappy]), or a raw snappy block,
  which other clients write;
* lz4: an LZ4 frame; for magic 0 Kafka wrote a wrong frame-header checksum
  (KAFKA-3160), so it is recomputed before decoding;
* zstd: one or more zstd frames, with or without the content size.

Output is bounded: more than `max_decompressed_bytes()` bytes from one batch
is reported as an error instead of filling memory (a decompression bomb), unless
it is read a piece at a time with `stream`, as the fast path reads such a batch.
"""
from __future__ import annotations

import contextlib
import contextvars
import re
import struct
import threading
import zlib
from collections.abc import Callable, Iterator

import lz4.frame
import snappy
import zstandard
from isal import isal_zlib

from kafkalog.errors import DecompressionError, DecompressionLimitError

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}

#: Default bound on the decompressed size of one batch or wrapper: far above
#: what a broker accepts by default (max.message.bytes is 1 MiB compressed).
DEFAULT_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024

_max_bytes: contextvars.ContextVar[int] = contextvars.ContextVar(
    "kafkalog_max_decompressed_bytes", default=DEFAULT_MAX_DECOMPRESSED_BYTES
)

_local = threading.local()
_STEP = 1 << 20  # most output one gzip or lz4 call makes
_ZSTD_SLICE = 1024
_ZSTD_MAX_RATIO = 32 * 1024  # a 4-byte RLE block makes up to 128 KiB
_LZ4_SLICE = 16 * 1024
# LZ4's densest sequence is a byte of 255 more match bytes: no frame decompresses to more than this times its size.
_LZ4_MAX_RATIO = 256
XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER_LEN = 16
_LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"


def max_decompressed_bytes() -> int:
    return _max_bytes.get()


@contextlib.contextmanager
def decompression_limit(limit: int) -> Iterator[None]:
    """Within the block, refuse to decompress one batch to more than `limit` bytes."""
    token = _max_bytes.set(limit)
    try:
        yield
    finally:
        _max_bytes.reset(token)


class Output:
    """Where the decoders write: a byte buffer that grows, and that the fast path reuses for many batches.

    The batch being decompressed is `written()`, from `start` to `end`; `next()`
    begins another after it, `clear()` empties the buffer for reuse. It grows
    in place, unless a view of it is held.
    """

    def __init__(self):
        self.buffer = bytearray()
        self.start = self.end = 0

    def __len__(self) -> int:
        return self.end - self.start

    def __iadd__(self, data) -> Output:
        n = len(data)
        if self.end + n <= len(self.buffer):
            self.buffer[self.end:self.end + n] = data  # reused memory: a copy, no allocation
        else:
            # Grown by realloc, not zeroed and not copied twice: a batch near the limit costs the limit, once.
            try:
                del self.buffer[self.end:]
                self.buffer += data
            except BufferError:
                # A view of it is still held (by a walk's traceback in a damage report, say): leave it to
                # that view and go on in a new buffer.
                grown = bytearray(memoryview(self.buffer)[:self.end])
                grown += data
                self.buffer = grown
        self.end += n
        return self

    def reserve(self, size: int) -> bool:
        """A buffer of at least `size` bytes, for a writer that writes into it in place (the fast path's kernels);
        False when a view of it keeps it from growing."""
        if len(self.buffer) < size:
            try:
                self.buffer += bytes(size - len(self.buffer))
            except BufferError:
                return False
        return True

    def written(self) -> memoryview:
        return memoryview(self.buffer)[self.start:self.end]

    def next(self) -> None:
        self.start = self.end

    def clear(self, keep: int) -> None:
        """Empty it for reuse, keeping at most `keep` bytes of memory (after a large batch grew it)."""
        if len(self.buffer) > keep:
            self.buffer = bytearray()
        self.start = self.end = 0


def decompress(codec: int, data: bytes | memoryview, magic: int = 2, limit: int | None = None) -> bytes:
    """Decompress a batch's records or a wrapper's value written with `codec`."""
    if codec == NONE:
        return bytes(data)
    out = Output()
    try:
        decompress_into(codec, data, magic, limit, out)
    except DecompressionError as exc:
        exc.partial = bytes(out.written())
        raise
    return bytes(out.written())


def decompress_into(codec: int, data, magic: int, limit: int | None, out: Output) -> None:
    """`decompress`, appended to `out` (the fast path's way: one buffer for many batches, no copy per batch).

    On a `DecompressionError`, `out.written()` is what decompressed before the
    damage, and nothing past the limit: such a batch is refused whole.
    """
    limit = max_decompressed_bytes() if limit is None else limit
    if codec == NONE:
        out += data
        return
    decoder = _DECODERS.get(codec)
    if decoder is None:
        raise DecompressionError(f"unknown compression codec {codec}")
    if codec == ZSTD and magic < 2:
        raise DecompressionError(f"zstd compression in a magic {magic} message (Kafka allows it only in v2 batches)")
    try:
        decoder(bytes(data), limit, magic, out)
    except DecompressionLimitError:
        out.end = out.start
        raise
    except DecompressionError:
        raise
    except Exception as exc:  # each codec library raises its own types
        raise DecompressionError(f"{CODEC_NAMES[codec]} data is corrupt: {_reason(exc)}") from exc


def stream(codec: int, data, magic: int = 2, limit: int | None = None) -> Iterator[bytes]:
    """The output of `data`, written with `codec`, a piece at a time: for a batch that decompresses past the
    limit, which Kafka's reader streams whole. Pieces are about a MiB (a zstd call can give up to 32 MiB);
    only a snappy block, which decompresses in one call, must itself fit under `limit`. After the pieces that
    decompressed before damage, a `DecompressionError` says what it is, as `decompress` does."""
    limit = max_decompressed_bytes() if limit is None else limit
    if codec == NONE:
        yield bytes(data)
        return
    if codec not in _DECODERS:
        raise DecompressionError(f"unknown compression codec {codec}")
    if codec == ZSTD and magic < 2:
        raise DecompressionError(f"zstd compression in a magic {magic} message (Kafka allows it only in v2 batches)")
    data = bytes(data)
    if codec == GZIP:
        chunks = _gunzip_chunks(data)
    elif codec == SNAPPY:
        chunks = _unsnappy_chunks(data, lambda: limit, limit)
    elif codec == LZ4:
        chunks = _unlz4_chunks(_lz4_frame(data, magic))
    else:
        chunks = _unzstd_chunks(data, _STEP)
    try:
        yield from chunks
    except DecompressionError:
        raise
    except Exception as exc:  # each codec library raises its own types
        raise DecompressionError(f"{CODEC_NAMES[codec]} data is corrupt: {_reason(exc)}") from exc


def declared_size(codec: int, data) -> int | None:
    """The fewest bytes `data` decompresses to, as its framing declares it (None where it does not): a gzip
    stream's last member's size (modulo 2^32), the first zstd frame's or LZ4 frame's content size, a raw
    snappy block's length. A batch that declares more than a window is streamed at once, not first
    decompressed until the window is full."""
    try:
        if codec == GZIP and len(data) >= 18:
            return int.from_bytes(bytes(data[-4:]), "little")
        if codec == ZSTD:
            size = zstandard.frame_content_size(bytes(data[:18]))
            return size if size >= 0 else None
        if codec == LZ4:
            return lz4.frame.get_frame_info(bytes(data[:19])).get("content_size") or None
        if codec == SNAPPY and bytes(data[:8]) != XERIAL_MAGIC:
            return _raw_snappy_length(bytes(data[:5]))
    except Exception:  # noqa: BLE001  (a header that does not read: the decoder says why)
        return None
    return None


def _fill(chunks: Iterator[bytes], codec: str, limit: int, out: Output) -> None:
    """A codec's pieces into `out`, refused past `limit`."""
    for chunk in chunks:
        out += chunk
        if len(out) > limit:
            raise _too_large(codec, limit)


def _reason(exc: Exception) -> str:
    """What a codec library's exception says, without its function names and error codes."""
    text = str(exc).strip()
    if isinstance(exc, zlib.error):
        # "Error -3 while decompressing data: invalid block type"
        return text.split(": ", 1)[-1] + " (deflate)"
    if type(exc).__name__ == "UncompressError":  # python-snappy raises it without a message
        return "a raw snappy block does not decompress"
    lz4_code = re.search(r"ERROR_(\w+)", text)
    if lz4_code:
        # "LZ4F_decompress failed with code: ERROR_maxBlockSize_invalid"
        words = re.sub(r"([a-z])([A-Z])", r"\1 \2", lz4_code.group(1)).replace("_", " ").lower()
        return f"{words} (LZ4 frame)"
    text = re.sub(r"^zstd decompressor error: ", "", text)
    return (text[:1].lower() + text[1:]) if text else "the data does not decompress"


class KafkaDecompress:
    """Custom process routine `kafka_decompress(codec, magic)` for the generated parsers."""

    def __init__(self, codec: int, magic: int):
        self.codec = int(codec)
        self.magic = int(magic)

    def decode(self, data: bytes) -> bytes:
        return decompress(self.codec, data, self.magic)


def _too_large(codec: str, limit: int) -> DecompressionLimitError:
    return DecompressionLimitError(
        f"{codec} data decompresses to more than {limit} bytes (the max_decompressed_bytes limit)"
    )


def _gunzip(data: bytes, limit: int, magic: int, out: Output) -> None:
    if not _gunzip_whole(data, limit, out):
        _fill(_gunzip_chunks(data), "gzip", limit, out)


def _gunzip_chunks(data: bytes) -> Iterator[bytes]:
    """A gzip stream inflated a step at a time. The deflate body is inflated raw and the trailer checked
    here, as Java's GZIPInputStream does, so that a bad trailer still leaves all the data."""
    rest = data
    first = True
    while True:
        d = zlib.decompressobj(wbits=-zlib.MAX_WBITS)
        try:
            buf = _gzip_body(rest)
        except DecompressionError:
            if first:
                raise
            return  # GZIPInputStream.readTrailer ignores a malformed member after the first
        first = False
        crc = size = 0
        while True:
            # At most a step of output a call: one call's output is a copy on its way to the caller.
            before = d.copy()
            try:
                chunk = d.decompress(buf, _STEP)
            except zlib.error:
                # zlib drops the output of a failing call: redo it in smaller
                # steps to keep what decompressed before the damage (less than a step).
                salvaged = Output()
                _salvage(before, buf, _STEP, salvaged)
                if len(salvaged):
                    yield bytes(salvaged.written())
                raise
            if chunk:
                crc = zlib.crc32(chunk, crc)
                size += len(chunk)
                yield chunk
            if d.eof:
                break
            buf = d.unconsumed_tail
            if not buf and len(chunk) < _STEP:
                break
        if not d.eof or len(d.unused_data) < 8:
            raise DecompressionError("gzip stream ends before its end (truncated)")
        want_crc, want_size = struct.unpack_from("<II", d.unused_data)
        if want_crc != crc or want_size != size & 0xFFFFFFFF:
            raise DecompressionError("gzip trailer does not match the data (corrupt gzip trailer)")
        rest = d.unused_data[8:]
        # Java's GZIPInputStream reads further members and ignores trailing bytes that are not one.
        if len(rest) < 10 or rest[:2] != b"\x1f\x8b":
            return


def _gunzip_whole(data: bytes, limit: int, out: Output) -> bool:
    """The usual gzip stream, whole members at a time by ISA-L's inflate (which checks each trailer, and is
    twice zlib's speed). False, with nothing written, for anything else (damage, the limit, a malformed
    member after the first): the careful reading in `_gunzip` then says what, as Java does."""
    if len(data) >= 18 and int.from_bytes(data[-4:], "little") > limit - len(out):
        return False  # the (last) member's trailer says its output passes the limit
    rest = data
    first = True
    while first or (len(rest) >= 10 and rest[:2] == b"\x1f\x8b"):
        d = isal_zlib.decompressobj(wbits=31)
        try:
            inflated = d.decompress(rest, limit + 1 - len(out))
        except isal_zlib.error:  # type: ignore[misc]  # isal's stub: `error` an instance
            inflated = None
        if inflated is None or not d.eof or len(out) + len(inflated) > limit:
            out.end = out.start
            return False
        out += inflated
        rest = d.unused_data
        first = False
    return True


def _gzip_body(member: bytes) -> bytes:
    """The deflate data of a gzip member, after its header (RFC 1952)."""
    if len(member) < 10 or member[:3] != b"\x1f\x8b\x08":
        raise DecompressionError("not a gzip stream (bad magic or method)")
    flags, pos = member[3], 10
    if flags & 0x04:  # FEXTRA
        pos += 2 + int.from_bytes(member[pos:pos + 2], "little")
    for flag, field in ((0x08, "file name"), (0x10, "comment")):  # FNAME, FCOMMENT: zero-terminated
        if flags & flag:
            end = member.find(b"\0", pos)
            if end < 0:
                raise DecompressionError(f"gzip header is truncated: its {field} has no terminating zero byte")
            pos = end + 1
    if flags & 0x02:  # FHCRC
        pos += 2
    if pos > len(member):
        raise DecompressionError("gzip header is truncated")
    return member[pos:]


_SALVAGE_STEPS = (1 << 16, 1 << 10, 1 << 4, 1)


def _salvage(d: zlib._Decompress, buf: bytes, limit: int, out: Output) -> None:
    """Append what `buf` inflates to before the damage; `d` is the state before `buf` was fed.

    The input is replayed in slices of shrinking size: a slice that fails is
    retried from the state before it with smaller slices, and the last input
    byte one output byte at a time, so the work stays linear in the input.
    """
    for step in _SALVAGE_STEPS:
        pos = 0
        while pos < len(buf) and not d.eof and len(out) <= limit:
            saved = d.copy()
            try:
                out += d.decompress(buf[pos:pos + step], limit + 1 - len(out))
            except zlib.error:
                d, buf = saved, buf[pos:pos + step]
                break
            if d.unconsumed_tail:  # stopped at the limit
                return
            pos += step
        else:
            return
    # One input byte left, and it fails: take its output a byte at a time.
    while len(out) <= limit:
        try:
            chunk = d.decompress(buf, 1)
        except zlib.error:
            return
        if not chunk:
            return
        out += chunk
        buf = d.unconsumed_tail


def _raw_snappy_length(block: bytes) -> int:
    """The uncompressed length a raw snappy block declares in its varint preamble."""
    n = shift = 0
    for b in block[:5]:
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n
        shift += 7
    raise DecompressionError("snappy block has no valid length preamble")


def _unsnappy_block(block: bytes, room: int, limit: int) -> bytes:
    """A raw snappy block, refused when it declares more than the `room` left under `limit`."""
    if _raw_snappy_length(block) > room:
        raise _too_large("snappy", limit)
    return snappy.decompress(block)


def _unsnappy(data: bytes, limit: int, magic: int, out: Output) -> None:
    _fill(_unsnappy_chunks(data, lambda: limit - len(out), limit), "snappy", limit, out)


def _unsnappy_chunks(data: bytes, room: Callable[[], int], limit: int) -> Iterator[bytes]:
    """snappy-java's stream framing a block at a time, or one raw block; a block declaring more than `room()`
    is refused before it is decompressed (python-snappy allocates what it declares)."""
    if not data.startswith(XERIAL_MAGIC):
        yield _unsnappy_block(data, room(), limit)
        return
    if len(data) < _XERIAL_HEADER_LEN:
        raise DecompressionError("snappy stream header is truncated")
    pos = _XERIAL_HEADER_LEN
    while pos < len(data):
        if pos + 4 > len(data):
            raise DecompressionError(f"snappy block length at stream byte {pos} is truncated")
        n = int.from_bytes(data[pos:pos + 4], "big", signed=True)
        pos += 4
        if n < 0 or pos + n > len(data):
            raise DecompressionError(
                f"snappy block at stream byte {pos - 4} declares {n} bytes, {len(data) - pos} remain")
        yield _unsnappy_block(data[pos:pos + n], room(), limit)
        pos += n


def _xxh32(data: bytes, seed: int = 0) -> int:
    """xxHash32 of a few bytes: only the LZ4 frame descriptor is hashed here."""
    p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
    m = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & m

    def round_(acc: int, lane: int) -> int:
        return (rotl((acc + lane * p2) & m, 13) * p1) & m

    n, i = len(data), 0
    if n >= 16:
        v = [(seed + p1 + p2) & m, (seed + p2) & m, seed & m, (seed - p1) & m]
        while i + 16 <= n:
            for k in range(4):
                v[k] = round_(v[k], int.from_bytes(data[i + 4 * k:i + 4 * k + 4], "little"))
            i += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & m
    else:
        h = (seed + p5) & m
    h = (h + n) & m
    while i + 4 <= n:
        h = (rotl((h + int.from_bytes(data[i:i + 4], "little") * p3) & m, 17) * p4) & m
        i += 4
    while i < n:
        h = (rotl((h + data[i] * p5) & m, 11) * p1) & m
        i += 1
    h ^= h >> 15
    h = (h * p2) & m
    h ^= h >> 13
    h = (h * p3) & m
    h ^= h >> 16
    return h


def _fix_lz4_header_checksum(data: bytes) -> bytes:
    """Recompute the frame descriptor checksum that Kafka got wrong for magic 0 (KAFKA-3160)."""
    if len(data) < 7 or data[:4] != _LZ4_FRAME_MAGIC:
        return data
    flg = data[4]
    hc_pos = 4 + 2 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    if hc_pos >= len(data):
        return data
    hc = (_xxh32(data[4:hc_pos]) >> 8) & 0xFF
    return data[:hc_pos] + bytes([hc]) + data[hc_pos + 1:]


def _lz4_frame(data: bytes, magic: int) -> bytes:
    return _fix_lz4_header_checksum(data) if magic == 0 else data


def _unlz4(data: bytes, limit: int, magic: int, out: Output) -> None:
    data = _lz4_frame(data, magic)
    if _LZ4_MAX_RATIO * len(data) <= limit - len(out):
        # The usual batch: one call, which cannot pass the limit. Where it fails, the
        # slices below find what decompressed before the damage.
        d = lz4.frame.LZ4FrameDecompressor()
        try:
            whole = d.decompress(data)
        except Exception:  # noqa: BLE001  (damage: the slices below say what it is)
            whole = None
        if whole is not None and d.eof:
            out += whole
            return
    _fill(_unlz4_chunks(data), "lz4", limit, out)


def _unlz4_chunks(data: bytes) -> Iterator[bytes]:
    """An LZ4 frame fed a slice at a time, so that the blocks before a damaged one are kept; each call's output
    is at most a step (python-lz4 allocates max_length up front)."""
    d = lz4.frame.LZ4FrameDecompressor()
    for i in range(0, len(data), _LZ4_SLICE):
        yield d.decompress(data[i:i + _LZ4_SLICE], max_length=_STEP)
        while not d.eof and not d.needs_input:
            yield d.decompress(b"", max_length=_STEP)
        if d.eof:
            return
    raise DecompressionError("lz4 frame ends before its end mark (truncated)")


def _zstd_context() -> zstandard.ZstdDecompressor:
    """This thread's zstd decompression context: making one per batch costs more than decompressing it."""
    dctx = getattr(_local, "zstd", None)
    if dctx is None:
        dctx = _local.zstd = zstandard.ZstdDecompressor()
    return dctx


def _unzstd(data: bytes, limit: int, magic: int, out: Output) -> None:
    _fill(_unzstd_chunks(data, limit - len(out)), "zstd", limit, out)


def _unzstd_chunks(data: bytes, budget: int) -> Iterator[bytes]:
    """zstd frames, one after the other, as Kafka's zstd-jni stream reads them (Java may omit the content
    size). Input goes in slices small enough that even the most compressible block (_ZSTD_MAX_RATIO) cannot
    take one call's output far past `budget`, and large enough that an ordinary batch takes a call or two."""
    dctx = _zstd_context()
    view = memoryview(data)
    produced = 0
    while len(view):
        dobj = dctx.decompressobj()
        fed = 0
        while fed < len(view) and not dobj.eof:
            step = max(_ZSTD_SLICE, (budget - produced) // _ZSTD_MAX_RATIO)
            chunk = dobj.decompress(view[fed:fed + step])
            fed += step
            if chunk:
                produced += len(chunk)
                yield chunk
        if not dobj.eof:
            raise DecompressionError("zstd frame ends before its last block (truncated)")
        rest = dobj.unused_data
        view = memoryview(rest + bytes(view[fed:])) if rest else view[fed:]


_DECODERS = {GZIP: _gunzip, SNAPPY: _unsnappy, LZ4: _unlz4, ZSTD: _unzstd}
