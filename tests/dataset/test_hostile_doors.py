"""Issue 30: lying indexes never change read_arrow's rows, whatever the threads and range sizes; read_arrow,
dump and verify agree on what a directory holds (skipped renamed partitions, broken links, names past Kafka's
numbers) and refuse what they cannot read with a message naming the path.

The segments are Kafka-written fixtures; an index lies by having its slots' positions moved (damage, as
tests/log/test_damage_fuzz.py damages segments). `KAFKALOG_FUZZ_ROUNDS` runs the seeded fuzz longer by hand.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pytest

import kafkalog
from kafkalog.errors import UsageError
from tests.paths import FIXTURES, SAMPLES

ORDERS = FIXTURES / "partitions" / "orders-0"
SEGMENT = "00000000000000000000"
ROUNDS = int(os.environ.get("KAFKALOG_FUZZ_ROUNDS", "2"))
#: (threads, maxPartitionBytes, minPartitions): one range, several on 1-3 threads, minPartitions' splits.
LAYOUTS = [(1, None, None), (2, 1000, None), (3, 500, None), (1, 3000, None), (2, None, 5), (3, 2000, 7)]


def partition_with_index(tmp_path: Path, move) -> Path:
    """orders-0's first segment beside an index whose slots' positions `move` rewrites: [(slot, position)]."""
    directory = tmp_path / "orders-0"
    directory.mkdir(parents=True, exist_ok=True)
    for suffix in (".log", ".index", ".timeindex"):
        shutil.copy(ORDERS / (SEGMENT + suffix), directory / (SEGMENT + suffix))
    index = bytearray((directory / (SEGMENT + ".index")).read_bytes())
    for slot, position in move:
        index[slot * 8 + 4:slot * 8 + 8] = position.to_bytes(4, "big", signed=True)  # an offset-index slot's position
    (directory / (SEGMENT + ".index")).write_bytes(bytes(index))
    return directory / (SEGMENT + ".log")


def rows(path: Path, threads: int, max_bytes: int | None, min_partitions: int | None, **options) -> object:
    if max_bytes is not None:
        options["maxPartitionBytes"] = max_bytes
    if min_partitions is not None:
        options["minPartitions"] = min_partitions
    try:
        table = kafkalog.read_table(path, threads=threads, **options)
    except kafkalog.DamagedDataError as e:
        return str(e)
    return table.select(["offset", "key", "value"]).to_pylist()


def one_reader(path: Path, **options) -> object:
    """The rows one reader from the segment's start gives: no index to cut at."""
    bare = path.parent.parent / "bare" / path.parent.name
    bare.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, bare / path.name)
    return rows(bare / path.name, 1, None, None, **options)


def test_an_index_entry_inside_a_batch_that_looks_like_an_entry_changes_no_row(tmp_path):
    # Bytes 1355 and 3249 of this segment read as entry headers (offset 0, a sound size, magic 0), three bytes
    # before and inside the batches Kafka's index points at: the planner checked only that header, and two threads
    # read phantom messages there (a CorruptStructureError, or 75 rows instead of 103 with failOnDataLoss=false).
    path = partition_with_index(tmp_path, [(0, 1355), (1, 3249)])
    expected = one_reader(path)
    assert len(expected) == 103
    for threads, max_bytes, min_partitions in LAYOUTS:
        for fail in ("true", "false"):
            assert rows(path, threads, max_bytes, min_partitions, failOnDataLoss=fail) == expected


def test_cuts_start_where_entries_do(tmp_path):
    from kafkalog.dataset import plan
    from kafkalog.dataset.options import parse_options
    from kafkalog.log.segment import SegmentReader

    path = partition_with_index(tmp_path, [(0, 1355), (1, 3249), (4, 7477)])
    with SegmentReader(path) as reader:
        starts = {b.position for b in reader}
    ranges = plan.plan(str(path), parse_options({"maxPartitionBytes": "500"}))
    assert len(ranges) > 3
    assert {r.start for r in ranges} <= starts
    assert [r.end for r in ranges[:-1]] == [r.start for r in ranges[1:]]


def test_a_start_offset_whose_index_entry_lies_loses_no_record(tmp_path):
    path = partition_with_index(tmp_path, [(2, 4153)])  # slot 2 (offset 27) three bytes into its batch
    expected = [r for r in one_reader(path) if r["offset"] >= 27]
    for threads, max_bytes, min_partitions in LAYOUTS:
        assert rows(path, threads, max_bytes, min_partitions, startingOffsets='{"orders":{"0":27}}') == expected


@pytest.mark.parametrize("seed", range(ROUNDS))
def test_lying_indexes_never_change_the_rows(tmp_path, seed):
    """Seeded fuzz: slots moved inside batches, past the end, backwards, onto other entries; every layout of
    threads and ranges gives one reader's rows (or the same damage)."""
    rng = random.Random(seed)
    size = (ORDERS / (SEGMENT + ".log")).stat().st_size
    with kafkalog.SegmentReader(ORDERS / (SEGMENT + ".log")) as reader:
        starts = [b.position for b in reader]
    for trial in range(8):
        move = []
        for _ in range(rng.randrange(1, 5)):
            kind = rng.choice(["inside", "near", "past", "negative", "other"])
            position = {"inside": rng.randrange(size), "near": rng.choice(starts) + rng.randrange(-4, 5),
                        "past": size + rng.randrange(1, 1 << 20), "negative": -rng.randrange(1, 100),
                        "other": rng.choice(starts)}[kind]
            move.append((rng.randrange(10), max(position, -(2**31))))
        path = partition_with_index(tmp_path / f"t{trial}", move)
        expected = one_reader(path, failOnDataLoss="false")
        for threads, max_bytes, min_partitions in LAYOUTS:
            got = rows(path, threads, max_bytes, min_partitions, failOnDataLoss="false")
            assert got == expected, (seed, trial, move, threads, max_bytes, min_partitions)


def test_lying_indexes_never_change_the_rows_when_the_walk_reads_small_windows(tmp_path, monkeypatch):
    """The planner's walk reads 64 KiB windows at first, more than these segments hold: with 100-byte windows,
    its questions cross windows and large batches are read by their headers alone; the rows stay one reader's."""
    import kafkalog.entries

    monkeypatch.setattr(kafkalog.entries, "WINDOW_BYTES", 100)
    test_lying_indexes_never_change_the_rows(tmp_path, seed=1000)


# The doors: read_arrow, dump and verify read a directory alike.

def doors(path: Path) -> dict[str, str]:
    """What each door says of `path`: its rows or records, or its error's message (never a traceback)."""
    out = {}
    try:
        out["read_arrow"] = f"{kafkalog.read_table(path).num_rows} rows"
    except UsageError as e:
        out["read_arrow"] = str(e)
    for command in ("dump", "verify"):
        done = subprocess.run([sys.executable, "-m", "kafkalog.cli", command, str(path)], capture_output=True, text=True,
                              timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        if done.returncode == 0:
            records = sum(1 for line in done.stdout.splitlines() if line.startswith("| offset:")) \
                if command == "dump" else done.stdout.splitlines()[-1].split(" records")[0].rsplit(" ", 1)[-1]
            out[command] = f"{records} rows"
        else:
            out[command] = done.stderr.strip().removeprefix("kafkalog: ")
    return out


def log_dir(tmp_path: Path, *partitions: str) -> Path:
    root = tmp_path / "logs"
    for name in partitions:
        (root / name).mkdir(parents=True)
        shutil.copy(SAMPLES / "v2-none.log", root / name / (SEGMENT + ".log"))
    return root


def agree(path: Path, expected: str) -> None:
    said = doors(path)
    assert set(said.values()) == {expected}, said


def test_renamed_partitions_are_skipped_by_every_door(tmp_path):
    uid = "0123456789abcdef0123456789abcdef"
    root = log_dir(tmp_path, "t-0", f"t-1.{uid}-delete", f"t-2.{uid}-future", f"t-3.{uid}-stray")
    agree(root, "6 rows")
    agree(root / f"t-1.{uid}-delete", "6 rows")  # named on its own, read


def test_read_replicas_reads_renamed_partitions_marked_with_how_kafka_renamed_them(tmp_path):
    """readReplicas (salvage) reads a broker's renamed partition directories too, each row marked `renamed` with
    'delete', 'future' or 'stray', its topic and partition from the name as Kafka writes it
    (`LocalLog.logDeleteDirName`, `logFutureDirName`, `logStrayDirName`: ``topic-N.<uuid>-delete``, a topic cut so
    that a -delete or -stray name stays within 255 characters). A real 4.3.1 broker's log directory."""
    broker = Path(__file__).resolve().parents[1] / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1"
    root = tmp_path / "data"
    shutil.copytree(broker, root)
    uid = "0123456789abcdef0123456789abcdef"
    long_topic = "x" * 249  # Kafka's longest topic name: cut to 214 characters in a -stray name of partition 0
    stray = f"{long_topic[:214]}-0.{uid}-stray"
    assert len(stray) == 255
    shutil.copytree(root / "t-0", root / f"t-0.{uid}-delete")
    shutil.copytree(root / "t-1", root / f"t-1.{uid}-future")
    shutil.copytree(root / "t-1", root / stray)
    served = kafkalog.read_table(root)
    assert set(served["topic"].to_pylist()) == {"t"} and served.num_rows == 52  # (renamed ones not served)
    every = kafkalog.read_table(root, readReplicas="true")
    assert every.schema.names[-2:] == ["broker", "renamed"]
    counts: dict[tuple, int] = {}
    for row in every.select(["topic", "partition", "renamed", "broker"]).to_pylist():
        key = (row["topic"][:5], row["partition"], row["renamed"], row["broker"])
        counts[key] = counts.get(key, 0) + 1
    assert counts == {("t", 0, None, 1): 20, ("t", 1, None, 1): 32, ("t", 0, "delete", 1): 20,
                      ("t", 1, "future", 1): 32, ("xxxxx", 0, "stray", 1): 32}
    assert {t for t in every["topic"].to_pylist() if t.startswith("x")} == {long_topic[:214]}
    # each renamed directory's records are those it holds, as read when it is named on its own
    for name, renamed in ((f"t-0.{uid}-delete", "delete"), (stray, "stray")):
        mine = every.filter(pc.equal(every["renamed"], renamed))
        alone = kafkalog.read_table(root / name)
        assert mine.select(["offset", "key", "value"]) == alone.select(["offset", "key", "value"])


@pytest.mark.parametrize("name", ["t-2147483648", "t-9223372036854775808", "t-99999999999999999999999"])
def test_a_partition_past_kafkas_int32_is_refused_naming_it(tmp_path, name):
    root = log_dir(tmp_path, "t-0", name)
    agree(root, f"{root / name}: partition {name[2:]} in its name is past Kafka's largest partition number "
                "(2147483647); Kafka names no directory so and does not load one")


def test_the_largest_partition_kafka_numbers_is_read(tmp_path):
    agree(log_dir(tmp_path, "t-2147483647"), "6 rows")


def test_an_offset_past_int64_in_a_file_name_is_refused_naming_it(tmp_path):
    root = log_dir(tmp_path, "t-0")
    big = root / "t-0" / "99999999999999999999.log"
    (root / "t-0" / (SEGMENT + ".log")).rename(big)
    shutil.copy(ORDERS / (SEGMENT + ".index"), big.with_suffix(".index"))
    reason = ("the offset 99999999999999999999 in its name is past Kafka's largest offset (9223372036854775807); "
              "Kafka names no file so and does not load one")
    for path in (root, big):
        said = doors(path)
        # (the segment's .log or its .index, whichever a door lists first)
        assert all(m in (f"{big}: {reason}", f"{big.with_suffix('.index')}: {reason}") for m in said.values()), said


def test_every_door_reads_a_directory_as_kafka_lays_it_out(tmp_path):
    """A log directory holds partition directories, and those hold the files: nothing deeper is read, by any door
    (a backup copy below the log directory, a directory of log directories). Several log directories are named
    with a glob, as `log.dirs` lists them."""
    root = log_dir(tmp_path, "t-0")
    shutil.copytree(root / "t-0", root / "backup" / "t-0")  # not a partition of this log directory
    shutil.copytree(root / "t-0", root / "t-1" / "nested" / "t-0")  # not a file of partition t-1
    agree(root, "6 rows")
    agree(root / "t-0", "6 rows")
    above = tmp_path / "brokers"
    shutil.copytree(root, above / "broker1" / "logs")
    said = doors(above)
    assert said["read_arrow"] == "0 rows" and said["dump"] == said["verify"] == (
        f"{above}: no Kafka files here: neither a partition directory (segment files) nor a log directory (partition "
        "directories)"), said
    assert kafkalog.read_table(str(above / "*" / "logs")).num_rows == 6


def test_a_tiered_storage_partition_folder_is_read_by_read_arrow_and_named_by_dump_and_verify(tmp_path):
    """LocalTieredStorage's `<topic>-<partition>-<topic id>` folder of `<offset>-<segment id>.log` files is a partition
    by the rule; dump and verify read a log directory's partitions (files named by offset) and say how to read it."""
    folder = tmp_path / f"t-0-{'A' * 22}"
    folder.mkdir()
    shutil.copy(SAMPLES / "v2-none.log", folder / f"{SEGMENT}-{'B' * 22}.log")
    said = doors(folder)
    assert said["read_arrow"] == "6 rows" and said["dump"] == said["verify"] == (
        f"{folder}: a tiered storage's partition folder (its segments are named <offset>-<segment id>): name its "
        "segments (.log, .rsm-manifest) one by one, or its tiered-storage root with --remote-root"), said


def test_a_kraft_snapshot_epoch_past_int32_is_refused_naming_it(tmp_path):
    """Kafka's `Snapshots.parse` reads the name's 10-digit epoch with `Integer.parseInt`: 2147483648 on fails."""
    root = tmp_path / "logs"
    shutil.copytree(FIXTURES / "internal" / "__cluster_metadata-0", root / "__cluster_metadata-0")
    snapshot = root / "__cluster_metadata-0" / "00000000000000000100-0000000001.checkpoint"
    largest = snapshot.rename(snapshot.with_name("00000000000000000100-2147483647.checkpoint"))
    said = doors(largest)
    assert said["dump"].endswith(" rows") and said["verify"].endswith(" rows"), said  # read
    big = largest.rename(snapshot.with_name("00000000000000000100-2147483648.checkpoint"))
    reason = (f"{big}: the epoch 2147483648 in its name is past Kafka's largest epoch (2147483647); Kafka's "
              "Snapshots.parse fails on it and does not load the snapshot")
    for path in (root, big):
        said = doors(path)
        assert said["dump"] == said["verify"] == reason, said


def test_a_dangling_segment_link_is_refused_naming_it(tmp_path):
    root = log_dir(tmp_path, "t-0")
    link = root / "t-0" / "00000000000000000100.log"
    link.symlink_to(tmp_path / "gone.log")
    agree(root, f"{link}: a symbolic link to {tmp_path / 'gone.log'}, which does not exist")


def test_a_partition_link_round_a_loop_is_refused_naming_it(tmp_path):
    root = log_dir(tmp_path, "t-0")
    (root / "t-1").symlink_to(root / "t-2")
    (root / "t-2").symlink_to(root / "t-1")
    agree(root, f"{root / 't-1'}: a symbolic link that leads round a loop of links (back to itself), never to a file")


def test_links_back_up_the_tree_and_other_broken_links_are_passed_by(tmp_path):
    root = log_dir(tmp_path, "t-0")
    (root / "t-0" / "up").symlink_to(root)
    (root / "back").symlink_to("..")
    (root / "notes.txt").symlink_to(tmp_path / "gone")
    agree(root, "6 rows")
