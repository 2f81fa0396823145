"""Index files, snapshots, transaction indexes and leader epoch checkpoints against what Kafka's writer wrote."""
from __future__ import annotations

import struct

import pytest

from kafkalog.errors import ChecksumError, CorruptStructureError, TruncatedError
from kafkalog.formats.index import OffsetIndex, OffsetIndexEntry, TimeIndex, TimeIndexEntry
from kafkalog.formats.leader_epoch_checkpoint import parse_leader_epoch_checkpoint, read_leader_epoch_checkpoint
from kafkalog.formats.producer_snapshot import decode_snapshot, read_snapshot
from kafkalog.formats.txn_index import decode_txn_index, read_txn_index
from tests.log.partition.partition_expected import ALL, HEALTHY, PARTITIONS, partition


def _segments(names):
    return [(name, seg) for name in names for seg in partition(name)["segments"]]


@pytest.mark.parametrize("name,segment", _segments(HEALTHY), ids=lambda v: v if isinstance(v, str) else v["log"])
def test_index_entries_stop_where_kafka_stops(name, segment):
    for kind, cls, fields in (("index", OffsetIndex, ("offset", "position")),
                              ("timeindex", TimeIndex, ("timestamp", "offset"))):
        want = segment[kind]
        with cls(PARTITIONS / name / want["file"]) as index:
            assert [{f: getattr(e, f) for f in fields} for e in index] == want["entries"]
            assert (len(index), index.slots, index.unused_slots) == \
                (want["entries_count"], want["slots"], want["preallocated_empty_slots"])


def test_active_segment_indexes_are_preallocated_in_the_fixtures():
    # The rule matters only if the fixtures have zero-filled slots: make sure they do.
    active = [seg for _, seg in _segments(ALL) if seg["active"]]
    assert active and all(seg["index"]["preallocated_empty_slots"] > 0 for seg in active)
    assert any(seg["index"]["entries_count"] == 0 for seg in active)  # orders-1: nothing indexed yet


def _offset_index(*entries, zero_slots=0, trailing=b""):
    return b"".join(struct.pack(">ii", o, p) for o, p in entries) + bytes(8 * zero_slots) + trailing


def test_offset_index_lookup_is_kafkas_largest_lower_bound():
    data = _offset_index((5, 100), (9, 300), (20, 700), zero_slots=5)
    with OffsetIndex(data, base_offset=1000) as index:
        assert len(index) == 3 and index.unused_slots == 5
        assert index.lookup(999) == OffsetIndexEntry(1000, 0)  # below the first entry: (base offset, 0)
        assert index.lookup(1005) == OffsetIndexEntry(1005, 100)
        assert index.lookup(1019) == OffsetIndexEntry(1009, 300)
        assert index.lookup(10 ** 9) == OffsetIndexEntry(1020, 700)


def test_all_zero_index_has_no_entries_and_a_full_one_has_all():
    with OffsetIndex(bytes(80), base_offset=7) as index:
        assert len(index) == 0 and list(index) == [] and index.lookup(50) == OffsetIndexEntry(7, 0)
    full = _offset_index(*[(n + 1, 10 * n) for n in range(6)])
    with OffsetIndex(full, base_offset=0) as index:
        assert len(index) == 6 and index.unused_slots == 0


def test_index_lookup_reads_only_the_slots_it_visits():
    slots = 100_000
    data = _offset_index(*[(n + 1, n * 50) for n in range(slots // 2)], zero_slots=slots // 2)
    with OffsetIndex(data, base_offset=0) as index:
        assert index.lookup(31_337) == OffsetIndexEntry(31_337, 31_336 * 50)
        assert len(index) == slots // 2
        assert index.bytes_read < 80 * 8  # two binary searches of ~17 slots, not 800 KB


def test_partial_slot_at_the_end_is_counted_not_read():
    with OffsetIndex(_offset_index((1, 10), trailing=b"\x01\x02\x03"), base_offset=0) as index:
        assert (len(index), index.trailing_bytes) == (1, 3)


def test_time_index_lookup():
    data = b"".join(struct.pack(">qi", t, o) for t, o in [(1000, 3), (2000, 8)]) + bytes(12 * 4)
    with TimeIndex(data, base_offset=100) as index:
        assert len(index) == 2
        assert index.lookup(999) == TimeIndexEntry(-1, 100)
        assert index.lookup(1500) == TimeIndexEntry(1000, 103)
        assert index.lookup(2000) == TimeIndexEntry(2000, 108)


@pytest.mark.parametrize("name", ALL)
def test_snapshots_match_the_writer(name):
    for want in partition(name)["snapshots"]:
        snap = read_snapshot(PARTITIONS / name / want["file"])
        assert not snap.damage and snap.crc_valid
        assert (snap.offset, snap.version, snap.crc) == (want["offset"], want["version"], want["crc"])
        assert [vars(e) for e in snap.producer_entries] == want["producer_entries"]


def test_snapshot_crc_covers_everything_after_byte_6():
    data = (PARTITIONS / "payments-0" / "00000000000000000097.snapshot").read_bytes()
    assert not decode_snapshot(data).damage
    for flip in (10, len(data) - 1):  # the first entry and the last byte are covered
        damaged = bytearray(data)
        damaged[flip] ^= 0x01
        snap = decode_snapshot(bytes(damaged))
        assert any(isinstance(d, ChecksumError) for d in snap.damage)
    bad_version = b"\x00\x02" + data[2:]
    assert any(isinstance(d, CorruptStructureError) for d in decode_snapshot(bad_version).damage)


def test_txn_indexes_match_the_writer():
    seen = 0
    for name in ALL:
        for seg in partition(name)["segments"]:
            if seg["txnindex"] is None:
                continue
            read = read_txn_index(PARTITIONS / name / seg["txnindex"]["file"])
            assert not read.damage
            assert [vars(t) for t in read.entries] == seg["txnindex"]["entries"]
            seen += len(read.entries)
    assert seen == 9


def test_txn_index_partial_entry_and_unknown_version():
    entry = struct.pack(">hqqqq", 0, 7, 10, 20, 21)
    assert isinstance(decode_txn_index(entry + b"\x00" * 5).damage[0], TruncatedError)
    read = decode_txn_index(entry + struct.pack(">hqqqq", 0x0100, 7, 30, 40, 41))
    assert len(read.entries) == 1 and "version 1" in read.damage[0].message


@pytest.mark.parametrize("name", ALL)
def test_leader_epoch_checkpoints_match_the_writer(name):
    want = partition(name)["leader_epoch_checkpoint"]
    got = read_leader_epoch_checkpoint(PARTITIONS / name / want["file"])
    assert got.version == want["version"]
    assert [vars(e) for e in got.entries] == want["entries"]


@pytest.mark.parametrize("text,message", [("1\n0\n", "unrecognised version"), ("0\n2\n0 0\n", "expected 2"),
                                           ("0\n1\n0\n", "malformed"), ("0\nx\n", "not a number")])
def test_checkpoint_errors_where_kafka_fails(text, message):
    with pytest.raises(CorruptStructureError, match=message):
        parse_leader_epoch_checkpoint(text)


def test_empty_checkpoint_is_empty():
    assert parse_leader_epoch_checkpoint("").entries == []
