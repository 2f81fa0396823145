"""Partition directories: listing, records across segments, broker-style lookups."""
from __future__ import annotations

import base64

import pytest

from kafkalog.file_names import parse_partition_dir_name
from kafkalog.log.partition import Partition
from tests.log.partition.partition_expected import ALL, HEALTHY, PARTITIONS, partition


def _b64(data):
    return None if data is None else base64.b64encode(data).decode("ascii")


@pytest.mark.parametrize("name", ALL)
def test_segments_and_leftovers_are_listed(name):
    want = partition(name)
    p = Partition(PARTITIONS / name)
    assert (p.topic, p.partition) == (name.rsplit("-", 1)[0], int(name.rsplit("-", 1)[1]))
    assert [s.base_offset for s in p.segments] == [s["base_offset"] for s in want["segments"]]
    assert [s.log.name for s in p.segments] == [s["log"] for s in want["segments"]]
    assert [s.log_size for s in p.segments] == [s["log_size"] for s in want["segments"]]
    assert sorted((f.path.name, f.kind) for f in p.leftovers) == \
        sorted((f["file"], f["kind"]) for f in want["leftover_files"])
    assert sorted(p.snapshots) == [s["offset"] for s in want["snapshots"]]
    assert p.other_files == []


def test_leftovers_are_not_read_as_segments():
    p = Partition(PARTITIONS / "orders-1")
    assert len(p.leftovers) == 5 and p.segments[0].base_offset == 83
    assert next(p.records()).offset == partition("orders-1")["log_start_offset"]


@pytest.mark.parametrize("name", ALL)
def test_records_across_segments_in_offset_order(name):
    want = partition(name)["records"]
    got = []
    for segment, batch in Partition(PARTITIONS / name).batches():
        for r in batch.records:
            got.append({"type": "record", "offset": r.offset, "timestamp": r.timestamp, "sequence": r.sequence,
                        "key": _b64(r.key), "value": _b64(r.value),
                        "headers": [[h.key, _b64(h.value)] for h in r.headers], "control_type": r.control_type,
                        "segment": segment.log.name, "batch_position": batch.position})
    assert got == want
    assert got[-1]["offset"] + 1 == partition(name)["log_end_offset"]


def test_records_from_an_offset_start_in_the_right_segment():
    want = [r["offset"] for r in partition("orders-0")["records"] if r["offset"] >= 250]
    assert [r.offset for r in Partition(PARTITIONS / "orders-0").records(start_offset=250)] == want


@pytest.mark.parametrize("name", HEALTHY)
def test_offset_lookup_finds_every_record_reading_little(name):
    p = Partition(PARTITIONS / name)
    for want in partition(name)["records"]:
        found = p.find_offset(want["offset"])
        assert found.index_consistent
        assert (found.record.offset, found.segment.log.name, found.batch.position) == \
            (want["offset"], want["segment"], want["batch_position"])
        # the index narrows the scan to about index.interval.bytes (1024 here) of headers plus one batch
        assert found.bytes_read < 2048 + found.batch.size, want["offset"]


def test_offset_lookup_past_the_end_and_before_the_start():
    p = Partition(PARTITIONS / "orders-1")
    assert p.find_offset(partition("orders-1")["log_end_offset"]).batch is None
    assert p.find_offset(0).record.offset == 83  # the first segment was deleted: the log starts at 83


@pytest.mark.parametrize("name", HEALTHY)
def test_timestamp_lookup_finds_the_first_record_at_or_after(name):
    records = partition(name)["records"]
    p = Partition(PARTITIONS / name)
    targets = sorted({r["timestamp"] for r in records})
    targets += [targets[0] - 1, targets[-1] + 1] + [t + 1 for t in targets[::7]]
    for target in targets:
        want = next((r["offset"] for r in records if r["timestamp"] >= target), None)
        found = p.find_timestamp(target)
        assert (found.record.offset if found.record else None) == want, target


def test_lookups_fall_back_to_a_scan_when_the_index_does_not_match_the_log():
    p = Partition(PARTITIONS / "broken-index-0")
    for want in partition("broken-index-0")["records"]:
        found = p.find_offset(want["offset"])
        assert (found.record.offset, found.batch.position) == (want["offset"], want["batch_position"])
    assert not p.find_offset(33).index_consistent  # entry 2 of 00000000000000000000.index points past the log
    assert p.find_offset(44).index_consistent


@pytest.mark.parametrize("name,parsed", [("orders-0", ("orders", 0, None)), ("my-topic-12", ("my-topic", 12, None)),
                                         ("t-3.0123456789abcdef0123456789abcdef-delete", ("t", 3, "delete")),
                                         ("orders", None)])
def test_partition_directory_names(name, parsed):
    got = parse_partition_dir_name(name)
    assert (got and (got.topic, got.partition, got.state)) == parsed
