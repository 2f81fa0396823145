"""A partition read inside its broker's log directory reads as the broker's start-up loads it
(kafkalog.log.served_log): on a real 4.3.1 broker's log directory (tests/brokers/fixtures/log-dirs), with its
checkpoints changed as a lagging or moved broker leaves them, and its segments left as a killed one leaves them.
The broker tests (tests/brokers/test_served_log.py) check the same against a broker restarted on a copy."""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pytest

import kafkalog
from kafkalog.log.log_dir import read_log_dir_state
from kafkalog.log.served_log import served_bounds
from kafkalog.verify import VerifyReport, verify_path

FIXTURE = Path(__file__).resolve().parents[1] / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1"
SEGMENT = "00000000000000000000.log"
#: t-0 holds offsets 0-19 (a batch of one, then 1-19), t-1 offsets 0-31 (0, then 1-31 at byte 175).
SECOND_BATCH = 175


@pytest.fixture
def log_dir(tmp_path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(FIXTURE, d)
    return d


def killed(log_dir: Path) -> None:
    """No clean shutdown marker: the broker was killed, or this is a copy of a running broker's disk."""
    (log_dir / ".kafka_cleanshutdown").unlink()


def set_checkpoint(log_dir: Path, name: str, offsets: dict[tuple[str, int], int]) -> None:
    """A checkpoint with these lines, in Kafka's CheckpointFile format (version 0, count, lines)."""
    lines = [f"{t} {p} {o}" for (t, p), o in offsets.items()]
    (log_dir / name).write_text("\n".join(["0", str(len(lines)), *lines]) + "\n")


def offsets(path, **options) -> list[int]:
    return kafkalog.read_table(path, subscribe="t", **options).column("offset").to_pylist()


def verify(path: Path) -> VerifyReport:
    return verify_path(path)


def test_a_cleanly_stopped_broker_serves_its_whole_log(log_dir):
    bounds = served_bounds(log_dir / "t-0", read_log_dir_state(log_dir))
    assert (bounds.log_start_offset, bounds.recovered_end_offset, bounds.high_watermark,
            bounds.last_stable_offset) == (0, 20, 20, 20)
    assert bounds.clean_shutdown and bounds.truncated_from is None
    assert offsets(log_dir) == list(range(20)) + list(range(32))


def test_records_below_the_log_start_offset_are_not_served(log_dir):
    set_checkpoint(log_dir, "log-start-offset-checkpoint", {("t", 0): 5})
    assert offsets(log_dir / "t-0") == list(range(5, 20))
    table = kafkalog.read_table(log_dir / "t-0", includeBelowLogStart=True)
    assert table.column("offset").to_pylist() == list(range(20))
    assert table.column("below_log_start").to_pylist() == [True] * 5 + [False] * 15
    with pytest.raises(kafkalog.DataLossError, match="below the log start offset"):
        offsets(log_dir / "t-0", startingOffsets='{"t":{"0":2}}')
    # a segment named on its own reads as its bytes are
    assert offsets(log_dir / "t-0" / SEGMENT) == list(range(20))


def test_the_high_watermark_is_clamped_to_the_log(log_dir):
    set_checkpoint(log_dir, "replication-offset-checkpoint", {("t", 0): 999, ("t", 1): 3})
    set_checkpoint(log_dir, "log-start-offset-checkpoint", {("t", 1): 7})
    state = read_log_dir_state(log_dir)
    assert served_bounds(log_dir / "t-0", state).high_watermark == 20
    assert served_bounds(log_dir / "t-1", state).high_watermark == 7
    assert served_bounds(log_dir / "t-0", state).checkpointed_high_watermark == 999


@pytest.mark.parametrize("tail", ["zeros", "torn"])
def test_a_killed_brokers_tail_ends_the_log_as_recovery_ends_it(log_dir, tail):
    killed(log_dir)
    log = log_dir / "t-0" / SEGMENT
    size = log.stat().st_size
    data = log.read_bytes()
    # preallocated space never written (log.preallocate=true), or a batch cut short by the kill
    log.write_bytes(data + (bytes(4096) if tail == "zeros" else data[SECOND_BATCH:SECOND_BATCH + 100]))
    assert offsets(log_dir) == list(range(20)) + list(range(32))  # failOnDataLoss=true: no error
    cut = served_bounds(log_dir / "t-0", read_log_dir_state(log_dir)).truncated_from
    assert cut is not None and (cut.segment, cut.position, cut.offset) == (log, size, 20)
    report = verify(log_dir)
    assert report.ok, report.problems
    assert any(n.startswith(f"{log}: byte {size}: Kafka's recovery ends the log here, at offset 20")
               for n in report.notes), report.notes


def test_after_a_clean_shutdown_nothing_is_recovered_and_damage_stays_damage(log_dir):
    log = log_dir / "t-0" / SEGMENT
    log.write_bytes(log.read_bytes() + bytes(4096))
    with pytest.raises(kafkalog.DamagedDataError):
        offsets(log_dir)
    assert not verify(log_dir).ok


def split(log_dir: Path) -> tuple[Path, Path]:
    """t-1 as two segments (0 and 1), cut where its second batch starts; each with an empty offset index."""
    part = log_dir / "t-1"
    data = (part / SEGMENT).read_bytes()
    first, second = part / SEGMENT, part / "00000000000000000001.log"
    first.write_bytes(data[:SECOND_BATCH])
    second.write_bytes(data[SECOND_BATCH:])
    for stem in ("00000000000000000000", "00000000000000000001"):
        (part / f"{stem}.index").write_bytes(b"")
        (part / f"{stem}.timeindex").write_bytes(b"")
    return first, second


def corrupt(log: Path, position: int) -> None:
    data = bytearray(log.read_bytes())
    data[position] ^= 0xFF
    log.write_bytes(bytes(data))


def test_recovery_deletes_the_segments_after_the_one_it_cuts(log_dir):
    killed(log_dir)
    first, second = split(log_dir)
    corrupt(first, 100)  # inside the first batch's records: its CRC no longer matches
    set_checkpoint(log_dir, "recovery-point-offset-checkpoint", {("t", 1): 0})
    bounds = served_bounds(log_dir / "t-1", read_log_dir_state(log_dir))
    assert bounds.truncated_from is not None and bounds.truncated_from.deleted_segments == (second,)
    assert bounds.recovered_end_offset == 0
    assert offsets(log_dir / "t-1") == []
    report = verify(log_dir / "t-1")
    assert report.ok and any("deletes 1 later segment" in n for n in report.notes), (report.problems, report.notes)


def test_damage_below_the_recovery_point_stays_damage(log_dir):
    """Kafka recovers the segments from the one holding the recovery point: earlier ones are not read at
    start-up, and their damage is served as it is (a consumer fails on it)."""
    killed(log_dir)
    first, _ = split(log_dir)
    corrupt(first, 100)
    set_checkpoint(log_dir, "recovery-point-offset-checkpoint", {("t", 1): 1})
    assert served_bounds(log_dir / "t-1", read_log_dir_state(log_dir)).truncated_from is None
    with pytest.raises(kafkalog.ChecksumError):
        offsets(log_dir / "t-1")
    assert not verify(log_dir / "t-1").ok


def test_a_partition_directory_without_its_log_directory_reads_as_its_files(tmp_path):
    part = tmp_path / "t-0"
    shutil.copytree(FIXTURE / "t-0", part)
    (part / SEGMENT).write_bytes((part / SEGMENT).read_bytes() + bytes(64))
    with pytest.raises(kafkalog.DamagedDataError):
        offsets(part)
    with pytest.raises(kafkalog.UsageError, match="no partition directory inside a broker's log directory"):
        kafkalog.partition_bounds(part)


def test_partition_bounds(log_dir):
    set_checkpoint(log_dir, "log-start-offset-checkpoint", {("t", 1): 4})
    table = kafkalog.partition_bounds(log_dir)
    rows = {(r["topic"], r["partition"]): r for r in table.to_pylist()}
    assert rows[("t", 1)]["log_start_offset"] == 4 and rows[("t", 1)]["log_end_offset"] == 32
    assert rows[("t", 0)]["high_watermark"] == 20
    assert pc.all(table.column("clean_shutdown")).as_py()


def test_a_checkpoint_that_does_not_read_is_named_and_read_as_absent(log_dir, caplog):
    (log_dir / "log-start-offset-checkpoint").write_text("0\n3\nt 0 5\n")  # says 3 lines, holds 1: Kafka refuses it
    with caplog.at_level("WARNING", logger="kafkalog.dataset"):
        assert offsets(log_dir / "t-0") == list(range(20))
    assert any("log-start-offset-checkpoint" in r.getMessage() and "line 2" in r.getMessage() for r in caplog.records)


def test_a_log_start_offset_past_the_log_end_serves_nothing(log_dir, caplog):
    """Kafka's start-up deletes every segment (`deleteSegmentsIfLogStartGreaterThanLogEnd`): said, and nothing read
    unless includeBelowLogStart."""
    set_checkpoint(log_dir, "log-start-offset-checkpoint", {("t", 0): 50})
    with caplog.at_level("WARNING", logger="kafkalog.dataset"):
        assert offsets(log_dir / "t-0") == []
    assert any("past the log end" in r.getMessage() for r in caplog.records)
    bounds = served_bounds(log_dir / "t-0", read_log_dir_state(log_dir))
    assert (bounds.log_start_offset, bounds.recovered_end_offset, bounds.segment_ends) == (50, 50, {})
    table = kafkalog.read_table(log_dir / "t-0", includeBelowLogStart=True)
    assert table.column("below_log_start").to_pylist() == [True] * 20


def test_a_log_directory_named_as_a_partition_is_read_as_a_log_directory(tmp_path):
    """`kafka-1` (a broker's log directory, as deployments name them) has a partition directory's name: what it
    holds says what it is. Its meta.properties and checkpoints make it a log directory; a partition directory
    named `kafka-1` (topic kafka) inside one stays a partition."""
    named = tmp_path / "kafka-1"
    shutil.copytree(FIXTURE, named)
    rows = {(r["topic"], r["partition"]): r for r in kafkalog.partition_bounds(named).to_pylist()}
    assert set(rows) == {("t", 0), ("t", 1), ("__cluster_metadata", 0)}
    assert rows[("t", 0)]["log_dir"] == str(named)
    (named / "t-1").rename(named / "kafka-1")  # a partition of topic "kafka" (its files stay t-1's)
    [row] = kafkalog.partition_bounds(named / "kafka-1").to_pylist()
    assert (row["topic"], row["partition"], row["log_end_offset"]) == ("kafka", 1, 32)


PAYMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "partitions" / "payments-0"


def test_a_corrupt_transaction_index_is_rebuilt_and_the_served_log_is_unaffected(log_dir):
    """A transaction index whose aborted transactions end below its segment's base offset fails Kafka's
    `TransactionIndex.sanityCheck`: the broker's start-up recovers that segment and rebuilds its indexes
    (`LogLoader.loadSegmentFiles`). The log served is the same; verify says it in a note, not a problem. The
    partition is payments-0 (written with Kafka's classes: three segments with aborted transactions), here as
    t-0 of the broker's log directory; the third segment gets the first's transaction index."""
    shutil.rmtree(log_dir / "t-0")
    shutil.copytree(PAYMENTS, log_dir / "t-0")
    state = read_log_dir_state(log_dir)
    before = served_bounds(log_dir / "t-0", state)
    rows = kafkalog.read_table(log_dir / "t-0", **{"isolation.level": "read_committed"})
    assert before.rebuilt_indexes == {} and verify(log_dir).ok
    shutil.copy(PAYMENTS / "00000000000000000000.txnindex", log_dir / "t-0" / "00000000000000000189.txnindex")
    after = served_bounds(log_dir / "t-0", state)
    segment = str(log_dir / "t-0" / "00000000000000000189.log")
    assert list(after.rebuilt_indexes) == [segment]
    assert "below the base offset 189 (Kafka's CorruptIndexException)" in after.rebuilt_indexes[segment]
    assert dataclasses.replace(after, rebuilt_indexes={}) == before
    assert kafkalog.read_table(log_dir / "t-0", **{"isolation.level": "read_committed"}) == rows
    report = verify(log_dir)
    assert report.ok, report.problems
    [note] = [n for n in report.notes if "rebuilds this index" in n]
    txnindex = log_dir / "t-0" / "00000000000000000189.txnindex"
    assert note.startswith(f"{txnindex}: Kafka's start-up rebuilds this index (00000000000000000189.txnindex: entry 0:"
                           " the last offset")
    assert "last_offset_below_base" in note
    # read alone (no log directory around it), the same index is a problem: nothing says Kafka rebuilds it
    alone = verify_path(log_dir / "t-0" / "00000000000000000189.txnindex")
    assert not alone.ok


def test_a_segment_that_only_grew_is_walked_on_from_where_the_last_walk_stopped(log_dir):
    """A stream's next finding (`previous`) walks a grown segment on from where the last walk stopped, once its last
    valid batch is checked unchanged (position, size, CRC); the bounds are those of a walk from the start. A segment
    whose last batch changed, or that got shorter, is walked from its start again."""
    killed(log_dir)
    state = read_log_dir_state(log_dir)
    segment = log_dir / "t-1" / SEGMENT
    whole = segment.read_bytes()
    segment.write_bytes(whole[:SECOND_BATCH])  # offset 0 only, as the broker had written it at the last trigger
    first = served_bounds(log_dir / "t-1", state)
    assert (first.recovered_end_offset, first.scanned_bytes) == (1, 2 * SECOND_BATCH)  # the walk, the txn search

    def again(previous):
        found, fresh = served_bounds(log_dir / "t-1", state, previous=previous), served_bounds(log_dir / "t-1", state)
        assert found == fresh
        return found

    segment.write_bytes(whole + whole[SECOND_BATCH:SECOND_BATCH + 50])  # 1-31 appended, then a batch half written
    grown = again(first)
    assert grown.walks[str(segment)].resumed_from == SECOND_BATCH
    # the walk read the batch it checked (offset 0's) and the one appended
    assert grown.walks[str(segment)].scanned_bytes == SECOND_BATCH + (len(whole) - SECOND_BATCH)
    assert (grown.recovered_end_offset, grown.truncated_from.position) == (32, len(whole))
    segment.write_bytes(whole)  # the half-written batch's place: the next walk resumes from the same batch
    same = again(grown)
    assert same.walks[str(segment)].resumed_from == len(whole)
    # one batch checked (1-31's), nothing walked; the open-transaction search (from the producer snapshot at 32,
    # as the last one) goes on from where it stopped: nothing to read
    assert same.scanned_bytes == len(whole) - SECOND_BATCH
    flipped = bytearray(whole)
    flipped[SECOND_BATCH + 70] ^= 1  # a byte of 1-31's batch (the last walked) changed: its CRC no longer matches
    segment.write_bytes(bytes(flipped))
    changed = again(grown)
    assert changed.walks[str(segment)].resumed_from == 0 and changed.recovered_end_offset == 1
    segment.write_bytes(whole[:100])  # shorter than the bytes walked: from the start
    shorter = again(grown)
    assert shorter.walks[str(segment)].resumed_from == 0 and shorter.recovered_end_offset == 0
