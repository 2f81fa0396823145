"""The engine's snappy and gzip decoders (`kafkalog/fast/snappy.pxi`, `inflate.pxi`) against the libraries
the object path reads with: every raw snappy block of every fixture and a corpus of mutated and hostile
blocks against cramjam (the codec python-snappy wraps), gzip members against python-isal's decompressobj; zstd
frames and their mutants against zstandard's Python API, as `kafkalog.compression` calls it.

Where the library decompresses, the engine gives the same bytes; where it refuses, the engine refuses (and
`kafkalog.compression` then says what is wrong). The engine is reached as the product reaches it, through
`kafkalog.fast.compression.decompress_batches`, one batch a raw block or a gzip member.
"""
from __future__ import annotations

import gzip
import io
import random
import subprocess
import sys
import zlib

import cramjam
import isal
import numpy as np
import pytest
from isal import isal_zlib

from kafkalog.compression import GZIP, SNAPPY, ZSTD, Output
from kafkalog.fast import compression as fast_compression, engine
from tests.fast.test_compression_batches import PAYLOADS, _python
from tests.paths import ROOT

XERIAL = b"\x82SNAPPY\x00"
ROOM = 4 * 1024 * 1024


def _raw_blocks(payload: bytes) -> list[bytes]:
    """The raw snappy blocks of a snappy batch: snappy-java's framing a block at a time, or one raw block."""
    if not payload.startswith(XERIAL):
        return [payload]
    blocks, pos = [], 16
    while pos + 4 <= len(payload):
        n = int.from_bytes(payload[pos:pos + 4], "big")
        blocks.append(payload[pos + 4:pos + 4 + n])
        pos += 4 + n
    return blocks


#: Every raw block of every snappy batch of the fixtures (Kafka's producer wrote them through snappy-java).
BLOCKS = [b for c, p, _ in PAYLOADS if c == SNAPPY for b in _raw_blocks(p) if b]


def _engine(codec: int, batches: list[bytes], room: int = ROOM) -> list[bytes | None]:
    """Each batch through the engine on its own: its bytes, or None where the engine does not take it."""
    found: list[bytes | None] = []
    out = Output()
    for batch in batches:
        buf = np.frombuffer(batch or b"\0", dtype=np.uint8)
        out.clear(8 * ROOM)  # (reused, as a group's buffer is)
        lengths = fast_compression.decompress_batches(codec, buf, np.zeros(1, dtype=np.int64),
                                                      np.array([len(batch)], dtype=np.int64), out, room, 1)
        found.append(bytes(out.buffer[:int(lengths[0])]) if len(lengths) else None)
    return found


def _cramjam(block: bytes) -> bytes | None:
    try:
        return bytes(cramjam.snappy.decompress_raw(block))
    except cramjam.DecompressionError:
        return None


def _mutants(block: bytes, rng: random.Random, count: int) -> list[bytes]:
    """Blocks made from `block` the ways damage and hostile writers make them: bits flipped, bytes set, cut,
    spliced, elements repeated, the declared length changed."""
    out = []
    for _ in range(count):
        b = bytearray(block)
        kind = rng.randrange(7)
        if kind == 0:
            for _ in range(rng.randrange(1, 4)):
                at = rng.randrange(len(b))
                b[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 2:
            del b[rng.randrange(len(b)):]
        elif kind == 3:
            at = rng.randrange(len(b))
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        elif kind == 4:
            at, n = rng.randrange(len(b)), rng.randrange(1, 16)
            b[at:at] = b[at:at + n]
        elif kind == 5:  # the preamble: another declared length (shorter, longer, wider)
            b[0] = (b[0] + rng.choice((-2, -1, 1, 2))) % 256
        else:
            del b[rng.randrange(len(b))]
        out.append(bytes(b))
    return out


#: Blocks that break snappy's rules one at a time (format_description.txt), beside well-formed ones.
HOSTILE = [
    b"",  # no preamble
    b"\x80\x80\x80\x80\x80",  # a preamble of more than 5 bytes
    b"\xff\xff\xff\xff\x1f",  # a declared length past 32 bits
    b"\x00",  # nothing, declared: empty output
    b"\x03\x08abc",  # a literal of 3
    b"\x03\x08ab",  # a literal past the input
    b"\x02\x08abc",  # a literal past the declared length
    b"\x05\x00a\x01\x00",  # a 1-byte-offset copy of 4 from 0 back: an offset of 0
    b"\x05\x00a\x01\x02",  # from 2 back, when 1 byte is written: before the output's start
    b"\x05\x00a\x01\x01",  # from 1 back: an overlapping copy (aaaaa)
    b"\x05\x04ab\x0a\x02\x00",  # a 2-byte-offset copy of 3 from 2 back, overlapping (ababa)
    b"\x05\x04ab\x0b\x02\x00\x00\x00",  # the same with a 4-byte offset
    b"\x05\x04ab\x0b\x02\x00\x00",  # a 4-byte offset cut short
    b"\x05\x04ab\x0a\x03\x00",  # a 2-byte offset before the output's start
    b"\x04\x04ab\x0a\x02\x00",  # a copy past the declared length
    b"\x06\x04ab\x0a\x02\x00",  # ends short of the declared length
    b"\x05\xfc\x04\x00\x00\x00abcde",  # a literal whose length is in the 4 bytes after the tag
    b"\x05\xfc\x04\x00\x00",  # those 4 bytes cut short
    b"\x03\xf0\x02abc",  # a literal whose length is in the byte after the tag
    b"\x05\x08abc\x05",  # a copy tag with no offset byte
    b"\x03\x08abc\x00",  # an element after the declared length is reached
    b"\x80\x01\xf0\x3f" + bytes(range(64)) + b"\xfe\x40\x00",  # 64 literal bytes, then a copy of 64 from 64 back
]


def test_the_engine_names_the_codecs_and_snappy_javas_magic_as_kafkalog_compression_does():
    from kafkalog import compression

    assert (engine.GZIP, engine.SNAPPY, engine.LZ4, engine.ZSTD) == (GZIP, SNAPPY, compression.LZ4, compression.ZSTD)
    assert engine.XERIAL_MAGIC == compression.XERIAL_MAGIC == XERIAL


def test_the_fixtures_hold_snappy_blocks_of_every_kind():
    assert len(BLOCKS) > 100
    assert any(len(_cramjam(b) or b"") >= 32 * 1024 for b in BLOCKS)  # snappy-java's full 32 KiB blocks


def test_every_snappy_block_of_the_fixtures_is_cramjams():
    found = _engine(SNAPPY, BLOCKS)
    for block, got in zip(BLOCKS, found, strict=True):
        assert got == _cramjam(block)
    assert sum(got is None for got in found) < len(found) // 10  # (damaged fixtures' blocks: both refuse them)


@pytest.mark.parametrize("block", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_snappy_block_is_refused_where_cramjam_refuses_it(block):
    expected = _cramjam(block)
    assert _engine(SNAPPY, [block]) == [expected]


def test_mutated_snappy_blocks_give_cramjams_bytes_or_a_refusal():
    rng = random.Random(33)
    corpus = [m for b in rng.sample(BLOCKS, 120) for m in _mutants(b, rng, 100)]
    corpus = [m for m in corpus if not m.startswith(XERIAL)]  # (those are a stream header, not a raw block)
    refused = 0
    for block, got in zip(corpus, _engine(SNAPPY, corpus), strict=True):
        expected = _cramjam(block)
        assert got == expected, block[:16]
        refused += expected is None
    assert 0 < refused < len(corpus)  # the corpus holds both


def test_a_snappy_block_past_the_room_is_refused():
    whole = BLOCKS[0]
    size = len(_cramjam(whole) or b"")
    assert _engine(SNAPPY, [whole], size) == [_cramjam(whole)]
    assert _engine(SNAPPY, [whole], size - 1) == [None]


def _isal(member: bytes, room: int = ROOM) -> bytes | None:
    """python-isal's decompressobj under `kafkalog.fast.compression`'s rule: one member, whole, nothing after."""
    inflater = isal_zlib.decompressobj(wbits=31)
    try:
        inflated = inflater.decompress(member, room + 1)
    except isal_zlib.error:  # type: ignore[misc]
        return None
    if not inflater.eof or inflater.unused_data or len(inflated) > room:
        return None
    return inflated


GZIP_MEMBERS = [p for c, p, _ in PAYLOADS if c == GZIP]


def _named_member(data: bytes) -> bytes:
    with io.BytesIO() as raw:
        with gzip.GzipFile("records.bin", "wb", 6, raw, mtime=0) as f:  # FNAME in the header
            f.write(data)
        return raw.getvalue()


def test_gzip_members_and_their_mutants_give_isals_bytes_or_a_refusal():
    assert engine.GZIP_AVAILABLE and isal.ISAL_VERSION in engine.ISAL_VERSIONS  # the pinned python-isal
    rng = random.Random(33)
    data = _isal(GZIP_MEMBERS[0]) or b""
    extra = [
        _named_member(data),
        gzip.compress(data) + gzip.compress(data),  # two members
        gzip.compress(data) + b"\0",  # a byte after the member
        gzip.compress(b""),
        zlib.compress(data),  # a zlib stream, not gzip
        gzip.compress(data)[:-4] + (len(data) + 1).to_bytes(4, "little"),  # ISIZE wrong
        gzip.compress(data)[:-8] + bytes(8),  # CRC-32 wrong
    ]
    corpus = [*GZIP_MEMBERS, *extra]
    corpus += [m for p in rng.sample(GZIP_MEMBERS, 10) for m in _mutants(p, rng, 20)]
    refused = 0
    for member, got in zip(corpus, _engine(GZIP, corpus), strict=True):
        expected = _isal(member)
        assert got == expected
        refused += expected is None
    assert 0 < refused < len(corpus)


def test_a_gzip_member_past_the_room_is_refused():
    whole = GZIP_MEMBERS[0]
    size = len(_isal(whole) or b"")
    assert _engine(GZIP, [whole], size) == [_isal(whole)]
    assert _engine(GZIP, [whole], size - 1) == [None]


def test_gzip_without_the_engines_inflate_goes_through_python_isal(monkeypatch):
    # A python-isal whose ISA-L is not one inflate.pxi mirrors: the engine leaves gzip to the Python loop.
    monkeypatch.setattr(fast_compression, "_ENGINE", fast_compression._ENGINE - {GZIP})
    members = [*GZIP_MEMBERS[:5], gzip.compress(b"x") + b"\0"]
    assert _engine(GZIP, members) == [_isal(m) for m in members]


@pytest.mark.parametrize("codec", [SNAPPY, GZIP])
def test_nothing_is_written_past_the_room(codec):
    # The room is where the engine may write: a batch that needs one byte more is refused, and the bytes
    # after the room (a sentinel) stay as they were, for a sound batch and for its mutants.
    rng = random.Random(codec)
    sound = BLOCKS[:20] if codec == SNAPPY else GZIP_MEMBERS[:10]
    for batch in [*sound, *(m for b in sound for m in _mutants(b, rng, 10))]:
        expected = _cramjam(batch) if codec == SNAPPY else _isal(batch)
        if not expected:
            continue
        buf = np.frombuffer(batch, dtype=np.uint8)
        for room in (len(expected), len(expected) - 1):
            out = np.full(len(expected) + 64, 0xA5, dtype=np.uint8)
            lengths = np.zeros(1, dtype=np.int64)
            taken = engine.decompress_batches(codec, buf, np.zeros(1, dtype=np.int64),
                                              np.array([len(batch)], dtype=np.int64), out, 0, room, 1, lengths)
            assert taken == (room == len(expected))
            assert (out[room:] == 0xA5).all()


def test_an_isa_l_of_another_version_leaves_gzip_to_python_isal():
    # The engine mirrors `struct inflate_state` of the ISA-L versions it names; with any other (a python-isal
    # outside the pinned range), it does not call ISA-L's inflate, and gzip batches read as before.
    code = (
        "import isal\n"
        "isal.ISAL_VERSION = '2.29.0'\n"  # (before the engine is imported: it checks the version then)
        "from kafkalog.fast import compression, engine\n"
        "from kafkalog.compression import GZIP\n"
        "from kafkalog.dataset.decode import read_segment_table\n"
        "from kafkalog.model import Decoder\n"
        "assert not engine.GZIP_AVAILABLE and engine.AVAILABLE and GZIP not in compression._ENGINE\n"
        "data = open('tests/fixtures/segments/v2-gzip.log', 'rb').read()\n"
        "fast = read_segment_table(data, decoder=Decoder.FAST)\n"
        "assert fast.num_rows >= 10 and fast.equals(read_segment_table(data, decoder=Decoder.OBJECT))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr


ZSTD_FRAMES = [p for c, p, _ in PAYLOADS if c == ZSTD]


def test_zstd_batches_and_their_mutants_give_zstandards_bytes_or_a_refusal():
    # The engine calls the libzstd zstandard carries by address, streamed into the group's buffer, and takes a frame
    # only as `kafkalog.compression` takes it (whole, within the room, nothing after it). Another libzstd would not
    # do: Debian's 1.5.4, 10% faster on the benchmark corpora, takes a bit-flipped frame of v2-zstd-small.log that
    # 1.5.7 refuses ("Data corruption detected"). The engine gives zstandard's bytes, or refuses.
    rng = random.Random(33)
    corpus = [*ZSTD_FRAMES, ZSTD_FRAMES[0] + ZSTD_FRAMES[0], ZSTD_FRAMES[0] + b"\0", ZSTD_FRAMES[0][:-1]]
    corpus += [m for p in rng.sample(ZSTD_FRAMES, min(10, len(ZSTD_FRAMES))) for m in _mutants(p, rng, 40)]
    refused = 0
    for frame, got in zip(corpus, _engine(ZSTD, corpus), strict=True):
        expected = _python(ZSTD, frame, ROOM)  # (zstandard, by `kafkalog.compression`'s rule)
        assert got == expected
        refused += expected is None
    assert 0 < refused < len(corpus)


def test_every_bit_flip_of_an_rle_frame_gives_zstandards_bytes_or_a_refusal():
    # Kafka's zstd frame of 30,000 minimal records is a few RLE blocks. zstd's one-shot decoder took one of its
    # bit flips (a block made larger than the frame's largest block) as 8 more bytes: a record Kafka's zstd-jni
    # stream and zstandard refuse ("Data corruption detected"). The engine streams, as they do.
    frame = next(p for c, p, where in PAYLOADS if c == ZSTD and where.startswith("v2-zstd-300-batches.log@"))
    flips = [frame[:i] + bytes([frame[i] ^ (1 << b)]) + frame[i + 1:] for i in range(len(frame)) for b in range(8)]
    refused = 0
    for flipped, got in zip(flips, _engine(ZSTD, flips), strict=True):
        expected = _python(ZSTD, flipped, ROOM)
        assert got == expected, flipped.hex()
        refused += expected is None
    assert 0 < refused < len(flips)
