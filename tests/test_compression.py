"""Codecs in the framings Kafka writes, and their failure modes."""
from __future__ import annotations

import gzip
import os
import struct

import lz4.frame
import pytest
import snappy
import zstandard

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
