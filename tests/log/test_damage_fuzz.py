"""Damaged bytes never crash the reader, hang it or make it allocate by a bogus length,
and every damage message is a sentence about the data.

Each Kafka-written fixture is damaged at many seeded places (flipped bytes,
cuts, overwritten lengths, runs of 0xff, zeros, garbage); the read must end with
batches and `DamagedDataError`s only, and keep the batches before the damage.
A second pass re-computes the batch (or message) CRC after the damage, so that
the mutation reaches the record parsers and the decompressors instead of
stopping at the checksum.
"""
from __future__ import annotations

import dataclasses
import random
import re
import struct
import zlib

import crc32c
import pytest

from kafkalog import DamagedDataError, SegmentReader, read_batches
from kafkalog.compression import GZIP, SNAPPY, decompress
from kafkalog.errors import DecompressionError
from tests.kafka_reference import SEGMENTS

FILES = sorted(p.stem for p in SEGMENTS.glob("*.log") if p.stat().st_size)

#: What a message about the data never shows: Python reprs and addresses, the spec's internal
#: paths, the parser's and the codec libraries' names and codes.
FORBIDDEN = re.compile(
    r"0x[0-9a-f]{6,}|object at|/seq/|/types/|/instances/|\b_io\b|_m_|Kaitai|Validation\w*Error|"
    r"\bKafka(Varint|Record|RecordBatch|MessageSet|Log|ControlRecord|ProducerSnapshot)\b|"
    r"UncompressError|LZ4F_|ERROR_\w|Error -\d|zstd decompressor error|subsection|Traceback|"
    r"\bNone\b|requested -?\d+ bytes|at pos \d|validation failed|kafkalog\.\w")


def mutations(data: bytes, rng: random.Random, n: int):
    for _ in range(n):
        pos = rng.randrange(len(data))
        kind = rng.choice(["flip", "cut", "length", "garbage", "ff", "zeros"])
        if kind == "flip":
            yield kind, pos, data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1:]
        elif kind == "cut":
            yield kind, pos, data[:pos]
        elif kind == "length":
            value = rng.choice([0, 13, 48, 2**31 - 1, -1, rng.randrange(2**31)])
            yield kind, pos, data[:pos] + value.to_bytes(4, "big", signed=True) + data[pos + 4:]
        elif kind == "ff":  # a run of continuation bits: overlong varints
            yield kind, pos, data[:pos] + b"\xff" * rng.randrange(1, 12) + data[pos:]
        elif kind == "zeros":
            width = rng.randrange(1, 40)
            yield kind, pos, data[:pos] + bytes(width) + data[pos + width:]
        else:
            yield kind, pos, data[:pos] + rng.randbytes(rng.randrange(1, 64)) + data[pos:]


def entries(data: bytes):
    """(position, size) of each whole entry of a segment, by its offset and size fields."""
    pos = 0
    while pos + 17 <= len(data):
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size < 14 or pos + 12 + size > len(data):
            return
        yield pos, 12 + size
        pos += 12 + size


def with_fixed_crc(data: bytes, pos: int) -> bytes:
    """`data` with the CRC of the entry holding `pos` recomputed, as a writer would have."""
    out = bytearray(data)
    for start, size in entries(data):
        if start <= pos < start + size:
            if out[start + 16] >= 2:  # CRC-32C over attributes..end
                struct.pack_into(">I", out, start + 17, crc32c.crc32c(bytes(out[start + 21:start + size])))
            else:  # CRC-32 over magic..end
                struct.pack_into(">I", out, start + 12, zlib.crc32(bytes(out[start + 16:start + size])))
    return bytes(out)


def _plain(batch):
    # Exceptions compare by identity: compare the damage by what it says.
    return dataclasses.replace(batch, damage=[str(d) for d in batch.damage])


def check_messages(reader: SegmentReader, context) -> None:
    for damage in reader.damage:
        assert isinstance(damage, DamagedDataError), context
        assert damage.position is not None and damage.path is not None, context
        assert not FORBIDDEN.search(damage.message), (context, damage.message)
        # A sentence: words, not an empty or one-token string.
        assert len(damage.message.split()) >= 3, (context, damage.message)


@pytest.mark.parametrize("name", FILES)
def test_damaged_copies_read_to_an_end_with_clear_messages(name):
    data = (SEGMENTS / f"{name}.log").read_bytes()
    whole = [_plain(b) for b in read_batches(data, name=f"{name}.log")]
    clean = not any(b.damage for b in whole)
    rng = random.Random(name)
    for kind, pos, damaged in mutations(data, rng, 60):
        for fixed in (False, True):
            if fixed:
                if kind == "cut":
                    continue
                damaged = with_fixed_crc(damaged, pos)
            reader = SegmentReader(damaged, name=f"{name}.log", max_decompressed_bytes=16 * 1024 * 1024)
            batches = [_plain(b) for b in reader]
            check_messages(reader, (kind, pos, fixed))
            # Batches wholly before the damaged byte read exactly as before.
            before = [b for b in whole if b.end_position <= pos]
            assert batches[: len(before)] == before, (kind, pos)
            if clean and damaged != data and not reader.damage and not fixed:
                # Undetected damage can only be in bytes no check covers, or a cut between entries.
                assert kind != "cut" or pos in {0} | {start + size for start, size in entries(data)}, pos


def _record_bytes_replaced(name: str, value: int):
    """Each byte of the first batch's records section replaced by `value`, with the CRC fixed."""
    data = (SEGMENTS / f"{name}.log").read_bytes()
    start, size = next(entries(data))
    for pos in range(start + 61, start + size):
        yield pos, with_fixed_crc(data[:pos] + bytes([value]) + data[pos + 1:], pos)


def _messages(damaged: bytes) -> list[str]:
    reader = SegmentReader(damaged, name="x.log")
    list(reader)
    check_messages(reader, "")
    return [d.message for d in reader.damage]


def test_negative_header_count_and_key_length_say_so_in_kafkas_words():
    seen = [m for _, d in _record_bytes_replaced("v2-headers", 0x01) for m in _messages(d)]
    assert any("negative header count -1" in m and "Found invalid number of record headers -1" in m for m in seen)
    assert any("negative header key length -1" in m and "Invalid negative header key size -1" in m for m in seen)


def test_overlong_varint_says_varlong_is_too_long():
    data = (SEGMENTS / "v2-none.log").read_bytes()
    start, _size = next(entries(data))
    # The first record's timestamp delta (after its length and attributes) as eleven continuation bytes.
    damaged = with_fixed_crc(data[:start + 63] + b"\xff" * 10 + data[start + 73:], start + 63)
    messages = _messages(damaged)
    assert any("Varlong is too long" in m for m in messages), messages


def _first_payload(name: str) -> bytes:
    data = (SEGMENTS / f"{name}.log").read_bytes()
    start, size = next(entries(data))
    return data[start + 61:start + size]


def test_gzip_file_name_without_terminator():
    payload = bytearray(_first_payload("v2-gzip"))
    payload[3] |= 0x08  # FNAME, and no zero byte after the header
    payload[10:] = payload[10:].replace(b"\0", b"\1")
    with pytest.raises(DecompressionError, match="file name has no terminating zero byte"):
        decompress(GZIP, bytes(payload))


def test_snappy_block_damage_is_a_sentence():
    payload = _first_payload("v2-snappy")
    messages = set()
    for pos in range(20, len(payload)):
        try:
            decompress(SNAPPY, payload[:pos] + bytes([payload[pos] ^ 0x80]) + payload[pos + 1:])
        except DecompressionError as exc:
            messages.add(exc.message)
    assert messages and not any(FORBIDDEN.search(m) for m in messages), messages
    assert "snappy data is corrupt: a raw snappy block does not decompress" in messages


def _gzip_with_bad_block(prefix: bytes) -> bytes:
    # A gzip member whose deflate stream holds `prefix`, flushed to a byte boundary, then a block of
    # the reserved type 3 (0x07: final bit, type 11): the damage Java's GZIPInputStream stops at.
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + deflate.compress(prefix)
            + deflate.flush(zlib.Z_FULL_FLUSH) + b"\x07" + bytes(64))


def test_gzip_keeps_every_byte_before_a_bad_block_and_the_limit():
    # Decompressed content taken from a Kafka-written batch: its records section, many times over.
    data = (SEGMENTS / "v2-none.log").read_bytes()
    records = b"".join(data[p + 61:p + s] for p, s in entries(data))
    prefix = records * (300_000 // len(records) + 1)
    with pytest.raises(DecompressionError, match=r"gzip data is corrupt: invalid block type \(deflate\)") as exc:
        decompress(GZIP, _gzip_with_bad_block(prefix))
    assert exc.value.partial == prefix
    with pytest.raises(DecompressionError, match="more than 1000 bytes") as exc:
        decompress(GZIP, _gzip_with_bad_block(prefix), limit=1000)
    assert prefix.startswith(exc.value.partial) and len(exc.value.partial) <= 1001


def test_preallocated_only_when_zeros_fill_an_entry_header():
    data = (SEGMENTS / "v2-none.log").read_bytes()
    start, size = next(entries(data))
    boundary = start + size
    # A cut 4 bytes into the next entry (the high bytes of its offset, zeros) is a cut, not preallocation.
    cut = _messages(data[:boundary + 4])
    assert len(cut) == 1 and "partial entry" in cut[0] and "preallocated" not in cut[0], cut
    preallocated = _messages(data[:boundary] + bytes(4096))
    assert len(preallocated) == 1 and "4096 bytes are all zero (unused space of a preallocated segment)" \
        in preallocated[0], preallocated


def test_a_malformed_gzip_member_after_the_first_is_ignored_as_java_does():
    # GZIPInputStream.readTrailer ignores what follows a member when it is not a whole member header.
    payload = _first_payload("v2-gzip")
    whole = decompress(GZIP, payload)
    assert decompress(GZIP, payload + b"\x1f\x8b\x08\x08\x00\x00\x00\x00\x00\xffname-without-end") == whole


@pytest.mark.parametrize("name", ["damaged-record-count", "damaged-record-count-lz4"])
def test_fewer_records_than_declared_say_premature_eof(name):
    messages = _messages((SEGMENTS / f"{name}.log").read_bytes())
    assert any("Incorrect declared batch size, premature EOF reached" in m for m in messages), messages
