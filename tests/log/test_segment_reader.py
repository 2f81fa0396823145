"""The segment reader's API: sources, byte ranges, strict mode, damage reports."""
from __future__ import annotations

import io
import itertools

import pytest

from kafkalog import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    SegmentReader,
    TruncatedError,
    read_batches,
)
from tests.kafka_reference import SEGMENTS, kafka_reading


def offsets(batches) -> list[int]:
    return [r.offset for b in batches for r in b.records]


def kafka_offsets(name: str) -> list[int]:
    return [line["offset"] for line in kafka_reading(name) if line["type"] == "record"]


@pytest.mark.parametrize("name", ["v2-zstd", "mixed-formats", "v0-gzip"])
def test_path_bytes_and_file_object_read_the_same(name):
    path = SEGMENTS / f"{name}.log"
    data = path.read_bytes()
    assert offsets(read_batches(path)) == kafka_offsets(name)
    assert offsets(read_batches(data)) == kafka_offsets(name)
    with open(path, "rb") as f:
        assert offsets(read_batches(f)) == kafka_offsets(name)
    assert offsets(read_batches(io.BytesIO(data))) == kafka_offsets(name)


def test_byte_ranges_at_batch_boundaries_read_each_record_once():
    path = SEGMENTS / "v2-offset-deltas.log"
    batches = list(read_batches(path))
    assert len(batches) >= 3
    cuts = [0] + [b.position for b in batches[1:]] + [batches[-1].end_position]
    pieces = []
    for start, end in itertools.pairwise(cuts):
        pieces += offsets(read_batches(path, start=start, end=end))
    assert pieces == offsets(batches)
    # An end inside a batch still reads the batch that starts before it, whole.
    assert offsets(read_batches(path, start=0, end=1)) == offsets(batches[:1])


def test_truncated_tail_keeps_everything_before_it():
    reader = SegmentReader(SEGMENTS / "damaged-truncated-records.log")
    got = offsets(reader)
    whole = offsets(read_batches(SEGMENTS / "v2-small.log"))
    last = list(read_batches(SEGMENTS / "v2-small.log"))[-1]
    assert got == whole[: len(whole) - len(last.records)]
    [damage] = reader.damage
    assert isinstance(damage, TruncatedError)
    assert damage.position == last.position
    assert str(damage).startswith(f"{SEGMENTS / 'damaged-truncated-records.log'}: byte {last.position}: ")


def test_crc_mismatch_is_reported_and_the_records_still_read():
    batches = list(read_batches(SEGMENTS / "damaged-v2-value-flip.log"))
    bad = [b for b in batches if not b.crc_valid]
    assert len(bad) == 1 and bad[0].records
    assert isinstance(bad[0].damage[0], ChecksumError)


def test_strict_mode_raises_the_first_damage_with_file_and_position():
    path = SEGMENTS / "damaged-length-too-small.log"
    seen = []
    with pytest.raises(CorruptStructureError) as info:
        for batch in SegmentReader(path, strict=True):
            seen.append(batch)
    assert seen, "the batches before the damage are handed out first"
    assert info.value.path == str(path)
    assert info.value.position == seen[-1].end_position


def test_headers_only_mode_skips_records():
    batches = list(read_batches(SEGMENTS / "v2-lz4.log", decode_records=False))
    assert batches and all(not b.records for b in batches)
    assert [b.base_offset for b in batches] == [b.base_offset for b in read_batches(SEGMENTS / "v2-lz4.log")]


def test_zero_filled_tail_is_named_as_such():
    reader = SegmentReader(SEGMENTS / "damaged-zero-padding.log")
    list(reader)
    [damage] = reader.damage
    assert "all zero" in damage.message


def test_entry_larger_than_the_limit_is_refused_without_reading_it():
    reader = SegmentReader(SEGMENTS / "v2-long-keys-values.log", max_entry_bytes=1000)
    batches = list(reader)
    [damage] = reader.damage
    assert isinstance(damage, CorruptStructureError) and "above the limit" in damage.message
    assert all(b.size <= 1000 for b in batches)


def test_a_record_past_the_decompression_limit_is_refused_and_named():
    """Past max_decompressed_bytes a batch is read in parts (tests/fast/test_streamed_batch.py); what the limit
    still refuses is a record larger than it, here a 40,000-byte value under a 16 KiB limit."""
    with SegmentReader(SEGMENTS / "v2-zstd.log", max_decompressed_bytes=16 * 1024) as reader:
        got = [(b.position, len(list(b.records)), [str(d) for d in b.damage]) for b in reader]
    assert [(position, n) for position, n, _ in got] == [(0, 5), (175, 0), (9290, 3)]
    (damage,) = got[1][2]
    assert damage.startswith(f"{SEGMENTS / 'v2-zstd.log'}: byte 175: record 0 of the 2 the batch declares does not "
                             "parse: ") and damage.endswith(", in the 16384 bytes the max_decompressed_bytes limit "
                                                            "lets one record take")
    assert all(isinstance(d, DamagedDataError) for d in reader.damage) and len(reader.damage) == 1


def test_empty_file_reads_nothing():
    reader = SegmentReader(b"")
    assert list(reader) == [] and reader.damage == []
