"""Damaged bytes never crash the reader, hang it or make it allocate by a bogus length.

Each Kafka-written fixture is damaged at many seeded places (flipped bytes,
cuts, overwritten lengths); the read must end with batches and `DamagedDataError`s
only, and keep the batches before the damage.
"""
from __future__ import annotations

import random

import pytest

from kafka_reference import SEGMENTS
from kafkalog import DamagedDataError, SegmentReader, read_batches

FILES = ["v2-zstd", "v2-gzip", "v2-snappy", "v2-lz4", "v0-lz4", "v1-snappy", "v1-compacted",
         "mixed-formats", "v2-headers", "v2-transactions", "v2-timestamp-deltas"]


def mutations(data: bytes, rng: random.Random):
    for _ in range(40):
        pos = rng.randrange(len(data))
        kind = rng.choice(["flip", "cut", "length", "garbage"])
        if kind == "flip":
            yield kind, pos, data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1:]
        elif kind == "cut":
            yield kind, pos, data[:pos]
        elif kind == "length":
            value = rng.choice([0, 13, 48, 2**31 - 1, -1, rng.randrange(2**31)])
            yield kind, pos, data[:pos] + value.to_bytes(4, "big", signed=True) + data[pos + 4:]
        else:
            yield kind, pos, data[:pos] + rng.randbytes(rng.randrange(1, 64)) + data[pos:]


@pytest.mark.parametrize("name", FILES)
def test_damaged_copies_read_to_an_end(name):
    data = (SEGMENTS / f"{name}.log").read_bytes()
    whole = list(read_batches(data))
    rng = random.Random(name)
    for kind, pos, damaged in mutations(data, rng):
        reader = SegmentReader(damaged, max_decompressed_bytes=16 * 1024 * 1024)
        batches = list(reader)
        assert all(isinstance(d, DamagedDataError) for d in reader.damage), (kind, pos)
        assert all(d.position is not None for d in reader.damage), (kind, pos)
        # Batches wholly before the damaged byte read exactly as before.
        before = [b for b in whole if b.end_position <= pos]
        assert batches[: len(before)] == before, (kind, pos)
        if damaged != data and not reader.damage:
            # Undetected damage can only be in bytes no check covers.
            assert kind in ("flip", "length", "garbage")
