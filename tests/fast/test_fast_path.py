"""The fast path (generated columnar kernels) against the reference (generated Kaitai parsers), field for field.

Every fixture and sample Kafka wrote, then a few thousand seeded mutations of them: flipped bytes, cut
tails, bad lengths, overlong varints, bad counts, each also with the batch CRCs made valid again so that
the damage reaches the records. The fast path must give exactly the reference's rows and damage rows.
"""
from __future__ import annotations

import dataclasses
import random
import re
import struct
import zlib

import crc32c
import pyarrow as pa
import pytest

from kafkalog.dataset.decode import read_segment_table
from kafkalog.dataset.options import DamageMode
from kafkalog.entries import EntryScanner
from kafkalog.errors import DamagedDataError
from kafkalog.fast import record_batch as fast_path, segment as fast_segment
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES, SegmentReader
from kafkalog.model import Decoder
from tests.paths import ROOT

FILES = sorted((ROOT / "tests" / "fixtures" / "segments").glob("*.log")) + sorted((ROOT / "samples").glob("*.log"))
V2_FILES = [f for f in FILES if f.name.startswith(("v2-", "mixed"))]


def both(source, **options) -> tuple[pa.Table, pa.Table]:
    return read_segment_table(source, decoder=Decoder.FAST, **options), read_segment_table(source, decoder=Decoder.OBJECT, **options)


def _no_address(text):
    # Parser objects in messages show their memory address, which differs between two parses.
    return re.sub(r" at 0x[0-9a-f]+", " at 0x...", text) if isinstance(text, str) else text


def assert_same(fast: pa.Table, ref: pa.Table, what: str) -> None:
    if fast.equals(ref):
        return
    assert fast.num_rows == ref.num_rows, f"{what}: {fast.num_rows} rows, the reference has {ref.num_rows}"
    for name in ref.schema.names:
        f, r = fast.column(name).to_pylist(), ref.column(name).to_pylist()
        if name == "damage":
            f, r = [_no_address(x) for x in f], [_no_address(x) for x in r]
        for i, (a, b) in enumerate(zip(f, r, strict=True)):
            assert a == b, f"{what}: row {i}, column {name}: fast {a!r}, reference {b!r}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_fixture_reads_the_same_both_ways(path):
    for options in ({}, {"mode": DamageMode.DROPMALFORMED}, {"validate_checksums": False}, {"stop_offset": 3},
                    {"rows_per_batch": 2}):
        assert_same(*both(path, **options), f"{path.name} {options}")


@pytest.fixture
def small_groups(monkeypatch):
    """Chunks, groups and tables of a few batches or rows, so that every fixture crosses their boundaries."""
    monkeypatch.setattr("kafkalog.entries.CHUNK_BYTES", 700)
    monkeypatch.setattr(fast_path, "GROUP_BYTES", 300)
    monkeypatch.setattr(fast_path, "TABLE_ROWS", 5)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_fixture_reads_the_same_both_ways_in_small_groups(path, small_groups):
    for options in ({}, {"stop_offset": 3}):
        assert_same(*both(path, **options), f"{path.name} {options}")
    assert objects(path, decoder=Decoder.FAST) == objects(path, decoder=Decoder.OBJECT)
    assert scanned(path) == counted(path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_failfast_raises_the_same_damage(path):
    errors = []
    for decoder in (Decoder.FAST, Decoder.OBJECT):
        try:
            read_segment_table(path, mode=DamageMode.FAILFAST, decoder=decoder)
            errors.append(None)
        except DamagedDataError as exc:
            errors.append(_no_address(str(exc)))
    assert errors[0] == errors[1]


def test_the_fast_path_reads_v2_batches_itself():
    # Not a reference read in disguise: the kernels decode the undamaged v2 batches.
    with EntryScanner(ROOT / "samples" / "v2-zstd.log", start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES,
                      damage=[]) as scanner:
        items = [item for run in fast_segment.decode_runs(scanner) for item in run.items]
    assert items and all(item.batch is None for item in items)


# -- mutations ------------------------------------------------------------------------------------------------


def entries(data: bytes):
    pos = 0
    while pos + 17 <= len(data):
        length = struct.unpack_from(">i", data, pos + 8)[0]
        if length < 14 or pos + 12 + length > len(data):
            return
        yield pos, length, data[pos + 16]
        pos += 12 + length


def fix_crcs(data: bytes) -> bytes:
    """The same bytes with every whole entry's CRC (CRC-32C of a v2 batch, CRC-32 of a message) made valid again."""
    out = bytearray(data)
    for pos, length, magic in entries(data):
        if magic == 2 and length >= 49:
            struct.pack_into(">I", out, pos + 17, crc32c.crc32c(bytes(out[pos + 21:pos + 12 + length])))
        elif magic in (0, 1):
            struct.pack_into(">I", out, pos + 12, zlib.crc32(bytes(out[pos + 16:pos + 12 + length])))
    return bytes(out)


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    batches = [e for e in entries(data) if e[2] == 2 and e[1] >= 49]
    messages = [e for e in entries(data) if e[2] in (0, 1)]
    kind = rng.randrange(7)
    if messages and rng.random() < 0.3:  # legacy: a key or value length, or bytes of a wrapper's value
        pos, length, _ = rng.choice(messages)
        i = pos + 17 + rng.randrange(max(1, length - 5))
        if rng.random() < 0.5 and i + 4 <= pos + 12 + length:
            struct.pack_into(">i", out, i, rng.choice([-1, 0, 1, 7, 2**31 - 1, length]))
        else:
            out[i] ^= rng.randint(1, 255)
    elif kind == 0 or not batches:  # flipped bytes anywhere
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(out))
            out[i] ^= rng.randint(1, 255)
    elif kind == 1:  # a cut tail
        del out[rng.randrange(len(out)):]
    elif kind == 2:  # a record count that is wrong
        pos, _, _ = rng.choice(batches)
        count = struct.unpack_from(">i", out, pos + 57)[0]
        struct.pack_into(">i", out, pos + 57, rng.choice([count + 1, count - 1, 0, 2**31 - 1, -1, count * 3]))
    elif kind == 3:  # an overlong or cut varint inside the records
        pos, length, _ = rng.choice(batches)
        if length > 49:
            start = pos + 61 + rng.randrange(length - 49)
            for i in range(start, min(start + rng.randint(1, 11), pos + 12 + length)):
                out[i] = 0xFF
    elif kind == 4:  # a batch length that does not fit
        pos, length, _ = rng.choice(batches)
        struct.pack_into(">i", out, pos + 8, rng.choice([length + 1, length - 1, 48, 13, -5, 2**31 - 1]))
    elif kind == 5:  # a record length or key/value length changed (first bytes of the records)
        pos, length, _ = rng.choice(batches)
        if length > 49:
            i = pos + 61 + rng.randrange(min(8, length - 49))
            out[i] = rng.choice([0x00, 0x01, 0x7F, 0x80, 0xFE, out[i] ^ 0x02])
    else:  # the attributes: codec, timestamp type, control and transactional bits
        pos, _, _ = rng.choice(batches)
        out[pos + 22] ^= 1 << rng.randrange(8)
    return bytes(out)


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS[:8])
def test_mutations_read_the_same_both_ways_in_small_groups(seed, small_groups):
    test_mutations_read_the_same_both_ways(seed + 1000)


@pytest.mark.parametrize("seed", SEEDS)
def test_mutations_read_the_same_both_ways(seed):
    rng = random.Random(seed)
    sources = [p.read_bytes() for p in FILES if 0 < p.stat().st_size < 64 * 1024]
    for i in range(60):
        original = rng.choice(sources)
        data = mutate(original, rng)
        if rng.random() < 0.6:
            data = fix_crcs(data)
        for options in ({"mode": DamageMode.PERMISSIVE}, {"mode": DamageMode.DROPMALFORMED, "validate_checksums": False}):
            assert_same(*both(data, **options), f"seed {seed} mutation {i} {options}")
        assert objects(data, decoder=Decoder.FAST) == objects(data, decoder=Decoder.OBJECT), f"seed {seed} mutation {i}"
        assert scanned(data) == counted(data), f"seed {seed} mutation {i}"


def objects(source, **options):
    """What the object API gives: every batch with its records, then every damage, as plain values."""
    with SegmentReader(source, **options) as reader:
        batches = [(dataclasses.replace(b, records=[], damage=[]), list(b.records),
                    [_no_address(str(d)) for d in b.damage]) for b in reader]
        return batches, [_no_address(str(d)) for d in reader.damage], reader.position


def scanned(source):
    """What `SegmentReader.scan` (kafkalog verify) gives, in the terms of `objects`."""
    with SegmentReader(source) as reader:
        batches = [(dataclasses.replace(b, records=[], damage=[]), n, controls,
                    [_no_address(str(d)) for d in b.damage]) for b, n, controls in reader.scan()]
        return batches, [_no_address(str(d)) for d in reader.damage], reader.position


def counted(source):
    batches, damage, position = objects(source, decoder=Decoder.OBJECT)
    return ([(b, len(records), [(r.offset, r.control_type) for r in records if r.control_type is not None], d)
             for b, records, d in batches], damage, position)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scan_counts_and_checks_records_as_reading_them_does(path):
    assert scanned(path) == counted(path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_object_api_reads_the_same_both_ways(path):
    assert objects(path, decoder=Decoder.FAST) == objects(path, decoder=Decoder.OBJECT)
    assert objects(path, decoder=Decoder.FAST, decode_records=False) == objects(path, decoder=Decoder.OBJECT, decode_records=False)
