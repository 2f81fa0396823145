"""Verification: the broken-index fixture, healthy partitions, and damage made in scratch copies."""
from __future__ import annotations

import collections
import dataclasses
import struct

import pytest

from kafkalog import verify
from kafkalog.formats.index import OffsetIndex
from kafkalog.model import Decoder
from kafkalog.verify import verify_path
from tests.log.partition.partition_expected import (
    ALL,
    DAMAGE,
    HEALTHY,
    PARTITIONS,
    copy_partition,
    count_ranges,
    damaged_segment,
    entry_starts,
    partition,
)


def _where(problems):
    return {(p.file.rsplit("/", 1)[-1], p.entry) for p in problems}


def test_broken_index_problems_are_found_with_file_and_entry():
    want = partition("broken-index-0")["index_problems"]
    report = verify_path(PARTITIONS / "broken-index-0")
    assert not report.ok
    # every damaged entry, and nothing else, is reported...
    assert _where(report.problems) == {(p["file"], p["entry"]) for p in want}
    # ...each with the writer's kind among what is said about it
    kinds = {(p.file.rsplit("/", 1)[-1], p.entry, p.kind) for p in report.problems}
    assert {(p["file"], p["entry"], p["kind"]) for p in want} <= kinds


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_partitions_verify_clean(name):
    report = verify_path(PARTITIONS / name)
    assert report.ok, [str(p) for p in report.problems]
    assert report.records == len(partition(name)["records"])
    leftover = [n for n in report.notes if ": leftover ." in n]
    assert len(leftover) == len(partition(name)["leftover_files"])
    # the others: the active segment's time index, preallocated as a running broker leaves it
    assert all("preallocated time index" in n for n in report.notes if n not in leftover), report.notes


def test_a_log_directory_is_every_partition():
    report = verify_path(PARTITIONS)
    assert report.partitions == 4 and _where(report.problems) == {
        (p["file"], p["entry"]) for p in partition("broken-index-0")["index_problems"]}


def test_a_segment_is_checked_with_its_index_files():
    report = verify_path(PARTITIONS / "broken-index-0" / "00000000000000000049.log")
    assert report.segments == 1 and _where(report.problems) == {("00000000000000000049.index", 3)}


def test_damage_in_scratch_copies(tmp_path):
    d = copy_partition("orders-0", tmp_path)
    # a batch byte flipped: a checksum problem in the log
    log = d / "00000000000000000106.log"
    data = bytearray(log.read_bytes())
    data[200] ^= 0xFF
    log.write_bytes(bytes(data))
    # 3 stray bytes after the last slot of an index
    with open(d / "00000000000000000000.index", "ab") as f:
        f.write(b"\x00\x01\x02")
    # a non-zero slot among the zero-filled ones of the active segment's index
    active = d / "00000000000000000417.index"
    data = bytearray(active.read_bytes())
    data[100 * 8:101 * 8] = struct.pack(">ii", 99, 12345)
    active.write_bytes(bytes(data))
    # a snapshot byte flipped
    snap = d / "00000000000000000207.snapshot"
    data = bytearray(snap.read_bytes())
    data[-1] ^= 0x01
    snap.write_bytes(bytes(data))
    kinds = {(p.file.rsplit("/", 1)[-1], p.kind) for p in verify_path(d).problems}
    assert kinds == {("00000000000000000106.log", "checksum"),
                     ("00000000000000000000.index", "size_not_multiple_of_entry"),
                     ("00000000000000000417.index", "entries_after_end"),
                     ("00000000000000000207.snapshot", "checksum")}


def test_index_problems_of_a_segment_read_in_ranges_are_one_threads(tmp_path, monkeypatch):
    """A segment whose log is read in ranges on threads: stray bytes after an index's last slot and non-zero slots
    past its end are the problems one thread finds, at the same entries."""
    d = copy_partition("orders-0", tmp_path)
    with open(d / "00000000000000000000.index", "ab") as f:
        f.write(b"\x00\x01\x02")
    active = d / "00000000000000000417.index"
    data = bytearray(active.read_bytes())
    data[100 * 8:101 * 8] = struct.pack(">ii", 99, 12345)
    data[110 * 8:111 * 8] = struct.pack(">ii", 98, 2345)
    active.write_bytes(bytes(data))
    one = _report(d, 1)
    assert {(p.split("/")[-1].split(":")[0], p.split(": ")[1]) for p in one[1]} >= {
        ("00000000000000000000.index", "byte 80"), ("00000000000000000417.index", "entry 100")}
    ranged = _ranged(monkeypatch)
    assert _report(d, 2) == one
    assert ranged and max(ranged) > 2


@pytest.mark.parametrize(("decoder", "sparse"), [(Decoder.FAST, False), (Decoder.AUTO, False), (Decoder.FAST, True)])
def test_a_byte_deep_in_the_zero_filled_end_of_an_index(tmp_path, decoder, sparse):
    """The zero-filled end of a preallocated index (zeros written, or a hole, as Kafka's setting of the length leaves
    it) is checked on its bytes a block at a time, holes skipped: zeros alone are no problem, and one byte that is
    not zero, blocks past the entries (in the second field of a slot), is found at its slot, in either index."""
    d = copy_partition("orders-0", tmp_path)
    index, timeindex = d / "00000000000000000417.index", d / "00000000000000000417.timeindex"
    for path, size in ((index, 8 * 40_000), (timeindex, 12 * 25_000)):
        with open(path, "r+b") as f:
            if sparse:
                f.truncate(path.stat().st_size + size)
            else:
                f.seek(0, 2)
                f.write(bytes(size))

    def problems() -> set[tuple[str, str, int | None]]:
        report = verify_path(d, report=verify.VerifyReport(decoder=decoder))
        return {(p.file.rsplit("/", 1)[-1], p.kind, p.entry) for p in report.problems}

    assert problems() == set()
    for path, at in ((index, 30_000 * 8 + 7), (timeindex, 20_000 * 12 + 11)):  # a position, a relative offset
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(b"\x02")
    assert problems() == {("00000000000000000417.index", "entries_after_end", 30_000),
                          ("00000000000000000417.timeindex", "entries_after_end", 20_000)}


def test_txnindex_entry_without_its_marker(tmp_path):
    d = copy_partition("payments-0", tmp_path)
    txn = d / "00000000000000000097.txnindex"
    data = bytearray(txn.read_bytes())
    data[18:26] = struct.pack(">q", 100)  # entry 0's last offset: no ABORT marker there
    txn.write_bytes(bytes(data))
    problems = verify_path(d).problems
    # and the transaction the entry listed, no longer listed: a broker serves its records to read_committed consumers
    assert {(p.kind, p.entry) for p in problems} == {("marker_not_found", 0), ("abort_not_indexed", None)}
    [unlisted] = [p for p in problems if p.kind == "abort_not_indexed"]
    assert unlisted.file == str(txn) and "this transaction index does not list it" in unlisted.detail


def test_an_aborted_transaction_without_its_txnindex(tmp_path):
    """Kafka's start-up does not rebuild a missing transaction index, and a fetch's aborted transactions come from
    those indexes alone: a read_committed consumer gets the aborted records. verify names each."""
    d = copy_partition("payments-0", tmp_path)
    txn = d / "00000000000000000097.txnindex"
    entries = len(txn.read_bytes()) // 34
    txn.unlink()
    problems = [p for p in verify_path(d).problems if p.kind == "abort_not_indexed"]
    assert len(problems) == entries > 0
    assert {p.file for p in problems} == {str(txn)}
    assert all("this transaction index does not exist, so a broker serves its records to read_committed consumers"
               in p.detail for p in problems)


def test_offsets_that_go_backwards_are_found_in_runs_of_any_size(tmp_path, monkeypatch):
    from kafkalog import entries
    from kafkalog.fast import record_batch as fast_path

    d = copy_partition("orders-0", tmp_path)
    log = d / "00000000000000000106.log"
    data = bytearray(log.read_bytes())
    starts = entry_starts(data)
    # The third batch's base offset (outside its CRC) set back to the first's: below the second's last offset.
    data[starts[2]:starts[2] + 8] = data[starts[0]:starts[0] + 8]
    log.write_bytes(bytes(data))
    first = struct.unpack_from(">q", data, starts[0])[0]

    def problems():
        return [(p.file.rsplit("/", 1)[-1], p.kind, p.detail) for p in verify_path(d).problems]

    found = problems()
    assert ("00000000000000000106.log", "log_offsets_not_increasing",
            f"batch base offset {first} is not above the previous batch's last offset "
            f"{struct.unpack_from('>q', data, starts[1])[0] + struct.unpack_from('>i', data, starts[1] + 23)[0]}") in found
    # The same, a batch or two at a time: the checks across batches do not depend on where runs end.
    monkeypatch.setattr(entries, "CHUNK_BYTES", 300)
    monkeypatch.setattr(fast_path, "TABLE_ROWS", 3)
    assert problems() == found
    # ... nor on where the items a range's thread joins its runs into end (a few runs each, on threads).
    ranged = _ranged(monkeypatch)
    monkeypatch.setattr(verify, "_JOINED_BATCHES", 2)
    assert _report(d, 2) == _report(d, 1) and [str(p) for p in verify_path(d).problems] == _report(d, 1)[1]
    assert ranged and max(ranged) > 2


def _ranged(monkeypatch) -> list[int]:
    return count_ranges(monkeypatch, verify)


def _report(path, threads):
    report = verify_path(path, report=verify.VerifyReport(threads=threads))
    return dataclasses.replace(report, threads=0), [str(p) for p in report.problems]


@pytest.mark.parametrize("name", ALL)
def test_threads_give_the_report_of_one_thread(name, monkeypatch):
    one = _report(PARTITIONS / name, 1)
    ranged = _ranged(monkeypatch)
    assert _report(PARTITIONS / name, 2) == one
    assert ranged and max(ranged) > 2  # (the segments were read in ranges)
    assert _report(PARTITIONS / name, 3) == one


def test_an_index_entry_inside_a_batch_does_not_cut_it(tmp_path, monkeypatch):
    d = copy_partition("orders-0", tmp_path)
    index = d / "00000000000000000106.index"
    data = bytearray(index.read_bytes())
    # Entry 2's position moved 20 bytes into its batch (still between entries 1 and 3): a range cut there would
    # start inside a batch, and the range before it read past the cut.
    relative, position = struct.unpack_from(">ii", data, 16)
    struct.pack_into(">ii", data, 16, relative, position + 20)
    index.write_bytes(bytes(data))
    one = _report(d, 1)
    assert ("00000000000000000106.index", 2) in _where(verify_path(d).problems)
    ranged = _ranged(monkeypatch)
    assert _report(d, 2) == one and ranged


@pytest.mark.parametrize("damage", DAMAGE)
def test_damage_in_a_range_is_reported_as_one_thread_reports_it(damage, tmp_path, monkeypatch):
    log = damaged_segment(tmp_path, damage)
    one = _report(log.parent, 1)
    assert any(log.name in p or log.stem + ".index" in p for p in one[1])
    ranged = _ranged(monkeypatch)
    assert _report(log.parent, 2) == one and ranged


def test_a_segment_read_in_ranges_reads_its_offset_index_once(monkeypatch):
    """The offset index of a segment read in ranges on threads is read once: for the cuts and for its checks."""
    reads: collections.Counter[str] = collections.Counter()
    real = OffsetIndex.slot_bytes

    def slot_bytes(self, count=None):
        reads[self.name] += 1
        return real(self, count)

    monkeypatch.setattr(OffsetIndex, "slot_bytes", slot_bytes)
    ranged = _ranged(monkeypatch)
    report = verify_path(PARTITIONS / "orders-0", report=verify.VerifyReport(threads=2))
    assert report.ok and ranged and max(ranged) > 2
    assert len(reads) == report.segments and set(reads.values()) == {1}
