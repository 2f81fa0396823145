"""LZ4, zstd, snappy and gzip batches decompressed many at a time (`kafkalog.fast.compression`) against
`kafkalog.compression`, which reads one batch at a time through python-lz4, zstandard, python-snappy and
python-isal (and is itself held to Kafka's reading in tests/test_compression.py).

The batches are every LZ4, zstd, snappy and gzip batch of the Kafka-written fixtures, whole and damaged (bytes of their
compressed records flipped, cut short or followed by others). Whatever the kernel takes must be what
`kafkalog.compression` gives; whatever it refuses or cannot hold, it must leave to it, untouched.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
import snappy

from kafkalog.compression import GZIP, LZ4, SNAPPY, ZSTD, DecompressionError, Output, decompress
from kafkalog.fast import compression as fast_compression
from kafkalog.log.segment import SegmentReader
from kafkalog.model import Decoder
from tests.paths import FIXTURES

#: Kafka's DefaultRecordBatch.RECORDS_OFFSET: where a v2 batch's (compressed) records begin.
RECORDS_OFFSET = 61
CODECS = {"lz4": LZ4, "zstd": ZSTD, "snappy": SNAPPY, "gzip": GZIP}


def _payloads() -> list[tuple[int, bytes, str]]:
    """Each distinct payload once (a hostile fixture repeats one batch 300 times)."""
    found, seen = [], set()
    for path in sorted(FIXTURES.rglob("*.log")):
        data = path.read_bytes()
        with SegmentReader(str(path), decode_records=False, decoder=Decoder.OBJECT) as reader:
            for batch in reader:
                if batch.magic == 2 and batch.compression in CODECS:
                    payload = data[batch.position + RECORDS_OFFSET:batch.position + batch.size]
                    if payload not in seen:
                        seen.add(payload)
                        found.append((CODECS[batch.compression], payload, f"{path.name}@{batch.position}"))
    return found


PAYLOADS = _payloads()


def _damaged(payload: bytes, rng: random.Random) -> list[bytes]:
    flips = []
    for _ in range(6):
        at = rng.randrange(len(payload))
        flips.append(payload[:at] + bytes([payload[at] ^ (1 << rng.randrange(8))]) + payload[at + 1:])
    return [*flips, payload[:len(payload) // 2], payload[:-1], b"", payload + payload[:7], payload + payload]


def _python(codec: int, payload: bytes, room: int) -> bytes | None:
    try:
        return decompress(codec, payload, 2, room)
    except DecompressionError:
        return None


def _kernel(codec: int, payloads: list[bytes], room: int, group_bytes: int = 8 * 1024 * 1024
            ) -> tuple[list[bytes], Output]:
    buf = np.frombuffer(b"".join(payloads) or b"\0", dtype=np.uint8)
    size = np.array([len(p) for p in payloads], dtype=np.int64)
    pos = np.concatenate(([0], np.cumsum(size)[:-1])).astype(np.int64)
    out = Output()
    out += b"before"  # what a group already holds stays
    out.next()
    lengths = fast_compression.decompress_batches(codec, buf, pos, size, out, room, group_bytes)
    taken, at = [], len(b"before")
    for n in lengths.tolist():
        taken.append(bytes(out.buffer[at:at + n]))
        at += n
    assert out.end == at and bytes(out.buffer[:6]) == b"before"
    return taken, out


def test_the_fixtures_hold_every_codec_taken():
    assert {codec for codec, _, _ in PAYLOADS} == {LZ4, ZSTD, SNAPPY, GZIP}
    assert all(fast_compression.AVAILABLE.values())  # CI's wheels export both C libraries' functions


@pytest.mark.parametrize("codec,payload,where", PAYLOADS, ids=[w for _, _, w in PAYLOADS])
def test_a_kafka_batch_whole_and_damaged(codec, payload, where):
    rng = random.Random(where)
    room = 4 * 1024 * 1024
    for variant in [payload, *_damaged(payload, rng)]:
        expected = _python(codec, variant, room)
        taken, _ = _kernel(codec, [variant], room)
        if taken:
            assert taken == [expected], where
        if variant == payload and expected is not None:
            assert taken == [expected], where  # a Kafka batch that decompresses within the room is the kernel's


@pytest.mark.parametrize("codec", [LZ4, ZSTD, SNAPPY, GZIP])
def test_a_call_stops_at_the_first_batch_it_does_not_take(codec):
    # The batches that decompress within the room (not the fixtures' damaged or million-record ones).
    whole = [p for c, p, _ in PAYLOADS if c == codec and _python(codec, p, 4 * 1024 * 1024) is not None]
    assert len(whole) > 10
    for bad in range(len(whole)):
        batches = list(whole)
        batches[bad] = batches[bad][:len(batches[bad]) // 2]  # cut short: no end mark, or no last block
        taken, _ = _kernel(codec, batches, 4 * 1024 * 1024)
        assert taken == [_python(codec, p, 4 * 1024 * 1024) for p in whole[:bad]]
    # A batch larger than the room is left to the one-call path (which streams it or refuses it).
    sizes = [len(_python(codec, p, 1 << 30)) for p in whole]
    room = sorted(sizes)[len(sizes) // 2]
    taken, _ = _kernel(codec, whole, room)
    first_too_large = next((i for i, n in enumerate(sizes) if n > room), len(whole))
    assert [len(t) for t in taken] == sizes[:first_too_large]
    # The call ends with the batch that fills the group (the group is then walked).
    group = sum(sizes[:2]) + len(b"before")
    taken, _ = _kernel(codec, whole, 4 * 1024 * 1024, group)
    assert [len(t) for t in taken] == sizes[:2]


def _snappy_blocks(payload: bytes) -> int:
    """How many raw blocks a snappy batch holds: snappy-java's framing a block at a time, or one raw block."""
    if not payload.startswith(b"\x82SNAPPY\x00"):
        return 1
    pos, blocks = 16, 0
    while pos < len(payload):
        pos += 4 + int.from_bytes(payload[pos:pos + 4], "big")
        blocks += 1
    return blocks


def test_snappy_batches_of_many_blocks_are_taken_whole():
    # snappy-java's framing: a batch of many blocks is one batch to the engine, however many blocks it holds.
    room = 4 * 1024 * 1024
    whole = [p for c, p, _ in PAYLOADS if c == SNAPPY and _python(SNAPPY, p, room) is not None]
    blocks = [_snappy_blocks(p) for p in whole]
    assert len(whole) > 10 and max(blocks) > 1  # (the fixtures hold batches of several blocks)
    expected = [_python(SNAPPY, p, room) for p in whole]
    taken, _ = _kernel(SNAPPY, whole, room, sum(map(len, expected)) + 64)
    assert taken == expected


def test_raw_snappy_blocks():
    # Framed by no stream header: one raw block a batch (snappy-java's reader takes these as they are).
    room = 4 * 1024 * 1024
    records = [_python(SNAPPY, p, room) for c, p, _ in PAYLOADS if c == SNAPPY][:40]
    raw = [snappy.compress(r) for r in records if r is not None]
    taken, _ = _kernel(SNAPPY, raw, room)
    assert taken == [r for r in records if r is not None]
    rng = random.Random(7)
    for payload in raw[:10]:
        for variant in _damaged(payload, rng):
            expected = _python(SNAPPY, variant, room)
            taken, _ = _kernel(SNAPPY, [variant], room)
            assert taken == ([] if expected is None else [expected])
