"""Codecs in the framings Kafka writes, and their failure modes."""
from __future__ import annotations

import gzip
import os
import struct

import lz4.frame
import pytest
import snappy
import zstandard

from kafkalog import compression
from kafkalog.compression import GZIP, LZ4, SNAPPY, ZSTD, _fix_lz4_header_checksum, _xxh32, decompress
from kafkalog.errors import DecompressionError

DATA = os.urandom(5000) * 40  # compressible, 200 KB: several blocks in every codec


def xerial(data: bytes, block: int = 32 * 1024) -> bytes:
    """snappy-java's stream framing, as Kafka's Java client writes it."""
    out = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    for i in range(0, len(data), block):
        chunk = snappy.compress(data[i:i + block])
        out += struct.pack(">i", len(chunk)) + chunk
    return out


def test_xxh32_known_values():
    assert _xxh32(b"") == 0x02CC5D05
    assert _xxh32(b"abc") == 0x32D153FF


@pytest.mark.parametrize("codec,blob", [
    (GZIP, gzip.compress(DATA)),
    (GZIP, gzip.compress(DATA[:1000]) + gzip.compress(DATA[1000:])),
    (SNAPPY, xerial(DATA)),
    (SNAPPY, snappy.compress(DATA)),
    (LZ4, lz4.frame.compress(DATA)),
    (ZSTD, zstandard.ZstdCompressor(write_content_size=False).compress(DATA)),
    (ZSTD, zstandard.ZstdCompressor().compress(DATA[:7]) + zstandard.ZstdCompressor().compress(DATA[7:])),
], ids=["gzip", "gzip-2-members", "snappy-xerial", "snappy-raw", "lz4", "zstd-no-size", "zstd-2-frames"])
def test_round_trip(codec, blob):
    assert decompress(codec, blob) == DATA


def test_lz4_magic_0_header_checksum_is_recomputed():
    # Kafka writes frames without a content size, so the descriptor checksum is byte 6.
    frame = bytearray(lz4.frame.compress(DATA, store_size=False))
    frame[6] ^= 0xFF
    with pytest.raises(DecompressionError):
        decompress(LZ4, bytes(frame), magic=1)
    assert decompress(LZ4, bytes(frame), magic=0) == DATA
    assert _fix_lz4_header_checksum(bytes(frame))[6] == lz4.frame.compress(DATA, store_size=False)[6]


@pytest.mark.parametrize("codec,blob", [
    (GZIP, gzip.compress(DATA)[:-20]),
    (SNAPPY, xerial(DATA)[:-20]),
    (LZ4, lz4.frame.compress(DATA)[:-20]),
    (ZSTD, zstandard.ZstdCompressor().compress(DATA)[:-20]),
], ids=["gzip", "snappy", "lz4", "zstd"])
def test_truncated_streams_are_errors_that_keep_what_decompressed(codec, blob):
    with pytest.raises(DecompressionError) as info:
        decompress(codec, blob)
    assert DATA.startswith(info.value.partial)


def test_gzip_bad_trailer_keeps_all_the_data():
    blob = bytearray(gzip.compress(DATA))
    blob[-6] ^= 0xFF  # CRC in the trailer
    with pytest.raises(DecompressionError) as info:
        decompress(GZIP, bytes(blob))
    assert info.value.partial == DATA


@pytest.mark.parametrize("codec,blob", [
    (GZIP, gzip.compress(b"\0" * 5_000_000)),
    (SNAPPY, xerial(b"\0" * 5_000_000)),
    (LZ4, lz4.frame.compress(b"\0" * 5_000_000)),
    (ZSTD, zstandard.ZstdCompressor(write_content_size=False).compress(b"\0" * 5_000_000)),
], ids=["gzip", "snappy", "lz4", "zstd"])
def test_output_is_bounded(codec, blob):
    with pytest.raises(DecompressionError, match="more than 100000 bytes"):
        decompress(codec, blob, limit=100_000)


def test_zstd_in_legacy_message_and_unknown_codec_are_errors():
    with pytest.raises(DecompressionError, match="zstd"):
        decompress(ZSTD, zstandard.ZstdCompressor().compress(b"x"), magic=1)
    with pytest.raises(DecompressionError, match="unknown compression codec 6"):
        decompress(6, b"x")


def _outcome(codec: int, blob: bytes) -> tuple[bytes, str | None]:
    try:
        return decompress(codec, blob), None
    except DecompressionError as exc:
        return exc.partial, str(exc)


_GZ = gzip.compress(DATA)
_LZ = lz4.frame.compress(DATA, content_checksum=True)


@pytest.mark.parametrize("codec,blob", [
    (GZIP, _GZ),
    (GZIP, _GZ + _GZ),
    (GZIP, _GZ + b"xx"),
    (GZIP, _GZ + b"\x1f\x8b" + b"\0" * 20),  # a malformed member after the first: ignored, as Java does
    (GZIP, _GZ + _GZ[:30] + bytes([_GZ[30] ^ 0xFF]) + _GZ[31:]),  # a damaged second member
    (GZIP, _GZ[:-8] + bytes([_GZ[-8] ^ 1]) + _GZ[-7:]),  # bad CRC in the trailer
    (GZIP, _GZ[:-3]),
    (GZIP, _GZ[:100] + bytes([_GZ[100] ^ 0x55]) + _GZ[101:]),
    (LZ4, _LZ),
    (LZ4, _LZ + _LZ),  # Kafka's stream reads one frame
    (LZ4, _LZ + b"xyz"),
    (LZ4, _LZ[:-3]),
    (LZ4, _LZ[:100] + bytes([_LZ[100] ^ 0x55]) + _LZ[101:]),
], ids=["gzip", "gzip-2", "gzip-trailing", "gzip-bad-2nd-header", "gzip-bad-2nd-member", "gzip-bad-crc",
        "gzip-cut", "gzip-flip", "lz4", "lz4-2", "lz4-trailing", "lz4-cut", "lz4-flip"])
def test_a_stream_read_whole_reads_as_the_careful_reading_does(monkeypatch, codec, blob):
    # gzip and lz4 batches are read in one call when nothing is wrong; the careful reading (which keeps
    # what came before damage) is the reference for every outcome.
    whole = _outcome(codec, blob)
    monkeypatch.setattr(compression, "_gunzip_whole", lambda *args: False)
    monkeypatch.setattr(compression, "_LZ4_MAX_RATIO", 1 << 40)
    assert _outcome(codec, blob) == whole
