"""A topic tiered by a real 4.3.1 broker to Kafka's own LocalTieredStorage: its log directory together with
the remote storage root gives exactly the records a real consumer fetched from the broker (which served
the old ones from remote storage), each once, through read_arrow, Spark and `kafkalog dump`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import kafkalog
from kafkalog.dataset import remote_roots
from kafkalog.errors import DataLossError, UsageError
from tests.brokers.test_consumer_reading import consumed, data_partitions
from tests.brokers.test_kafka_dump_log import _ours
from tests.dump import dump_log_segments as dls

pytestmark = pytest.mark.broker


def _offsets(table, partition: int) -> list[int]:
    mask = table.column("partition").to_numpy() == partition
    return table.filter(mask).column("offset").to_pylist()


def _consumer(run) -> dict[int, list[tuple]]:
    out = {}
    for d in data_partitions(run):
        head, rows = consumed(run, "read_uncommitted", d)
        assert head["log_start_offset"] == 0
        out[int(d.name.rpartition("-")[2])] = rows
    return out


def test_the_broker_tiered_most_of_the_history(tiered_4x):
    remote_segments = remote_roots.list_remote_segments(str(tiered_4x.work / "remote"))
    assert {s.partition for s in remote_segments} == {0, 1}
    assert all(s.topic == "tiered" and len(s.topic_id) == 22 for s in remote_segments)
    local = kafkalog.read_table(tiered_4x.data_dir, subscribe="tiered")
    for partition, rows in _consumer(tiered_4x).items():
        assert len(_offsets(local, partition)) < len(rows) / 2, "the local log should hold only the tail"


def test_log_directory_and_remote_root_give_the_consumers_records_once(tiered_4x):
    table = kafkalog.read_table(tiered_4x.data_dir, subscribe="tiered", includeHeaders=True,
                                remoteRoot=str(tiered_4x.work / "remote"))
    ts = table.column("timestamp").cast("int64").to_pylist()
    for partition, rows in _consumer(tiered_4x).items():
        got = [(r["offset"], t // 1000) for r, t in zip(table.to_pylist(), ts, strict=True) if r["partition"] == partition]
        assert got == [(r[0], r[1]) for r in rows], partition
    # the two partition directories named one by one: each partition's history stitched once, not once a path
    both = kafkalog.read_table([str(tiered_4x.data_dir / f"tiered-{p}") for p in (0, 1)],
                               remoteRoot=str(tiered_4x.work / "remote"))
    for partition, rows in _consumer(tiered_4x).items():
        assert _offsets(both, partition) == [r[0] for r in rows], partition


def test_spark_reads_the_whole_history_with_the_remote_root(tiered_4x, spark):
    df = (spark.read.format("kafkalog").option("subscribe", "tiered")
          .option("remoteRoot", str(tiered_4x.work / "remote")).load(str(tiered_4x.data_dir)))
    table = df.toArrow()
    for partition, rows in _consumer(tiered_4x).items():
        assert sorted(_offsets(table, partition)) == [r[0] for r in rows], partition
    # the Kafka source's offset options work across the whole history
    late = (spark.read.format("kafkalog").option("subscribe", "tiered").option("remoteRoot", str(tiered_4x.work / "remote"))
            .option("startingOffsets", '{"tiered":{"0":30,"1":-2}}').option("endingOffsets", '{"tiered":{"0":60,"1":10}}')
            .load(str(tiered_4x.data_dir))).toArrow()
    assert sorted(_offsets(late, 0)) == list(range(30, 60)) and sorted(_offsets(late, 1)) == list(range(10))


def test_dump_reads_a_remote_segment_as_a_local_one(tiered_4x):
    segment = remote_roots.list_remote_segments(str(tiered_4x.work / "remote"))[0]
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", segment.location],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    offsets = [json.loads(line)["offset"] for line in res.stdout.splitlines() if '"type":"record"' in line]
    want = [r[0] for r in _consumer(tiered_4x)[segment.partition]]
    assert offsets and offsets == want[want.index(segment.base_offset):][:len(offsets)]


def test_a_missing_remote_root_is_a_usage_error(tiered_4x):
    with pytest.raises(UsageError, match="remoteRoot: no such directory"):
        kafkalog.read_table(tiered_4x.data_dir, remoteRoot=str(tiered_4x.work / "nowhere"))


@pytest.fixture
def tiered_copy(tiered_4x, tmp_path):
    shutil.copytree(tiered_4x.data_dir, tmp_path / "data")
    shutil.copytree(tiered_4x.work / "remote", tmp_path / "remote")
    return tmp_path / "data", tmp_path / "remote"


def test_only_segments_whose_copy_finished_are_read(tiered_4x, tiered_copy):
    """A remote file `__remote_log_metadata` does not list as COPY_SEGMENT_FINISHED is not read: here half a
    copy of a segment under another id, as a copy that failed and was retried leaves, whose id sorts first."""
    data, root = tiered_copy
    first = remote_roots.list_remote_segments(str(root))[0]
    stray = first.location.replace(first.segment_id, "-" * 22)
    with open(first.location, "rb") as f, open(stray, "wb") as out:
        out.write(f.read()[: first.size // 2])
    assert remote_roots.list_remote_segments(str(root))[0].location == stray
    table = kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root))
    assert sorted(_offsets(table, first.partition)) == [r[0] for r in _consumer(tiered_4x)[first.partition]]


def test_a_missing_remote_segment_is_data_loss(tiered_4x, tiered_copy, caplog):
    data, root = tiered_copy
    gone = [s for s in remote_roots.list_remote_segments(str(root)) if s.partition == 0][1]
    os.remove(gone.location)
    states = remote_roots.segment_states([str(data)])
    end = states[gone.segment_id].end_offset
    with pytest.raises(DataLossError, match=rf"tiered-0: offsets \[{gone.base_offset}, {end + 1}\) are in no remote"):
        kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root))
    lenient = kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root), failOnDataLoss=False)
    want = [r[0] for r in _consumer(tiered_4x)[0] if not gone.base_offset <= r[0] <= end]
    assert sorted(_offsets(lenient, 0)) == want
    assert "are in no remote or local segment" in caplog.text
    # PERMISSIVE: the gap is a damage row of its own, where it lies in the partition's history
    permissive = kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root), mode="PERMISSIVE").to_pylist()
    damage = [i for i, r in enumerate(permissive) if r["damage"]]
    assert len(damage) == 1
    row = permissive[damage[0]]
    assert row["damage"] == (f"OffsetGapError: tiered-0: offsets [{gone.base_offset}, {end + 1}) are in no remote "
                             "or local segment")
    before = [r["offset"] for r in permissive[:damage[0]] if r["partition"] == 0]
    assert before and max(before) < gone.base_offset
    assert sorted(r["offset"] for r in permissive if r["partition"] == 0) == want


def test_dump_with_the_remote_root_prints_the_whole_history_once(tiered_4x, tiered_copy):
    """`kafkalog dump --remote-root ROOT PARTITIONS...` stitches as read_arrow does: a half copy the metadata
    does not list is not printed, and a segment both remote and local is printed once, from the disk."""
    data, root = tiered_copy
    segments = [s for s in remote_roots.list_remote_segments(str(root)) if s.partition == 0]
    shutil.copy(segments[0].location, data / "tiered-0" / f"{segments[0].base_offset:020d}.log")
    stray = segments[1].location.replace(segments[1].segment_id, "-" * 22)
    shutil.copy(segments[1].location, stray)
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--remote-root", str(root),
                          str(data / "tiered-0"), str(data / "tiered-1")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    printed: dict[int, list[int]] = {0: [], 1: []}
    files = []
    partition = None
    for line in res.stdout.splitlines():
        if line.startswith("Dumping "):
            files.append(line[len("Dumping "):])
            partition = int(os.path.basename(os.path.dirname(files[-1])).split("-")[1])
        elif line.startswith("| offset: "):
            printed[partition].append(int(line.split()[2]))
    assert stray not in files and segments[0].location not in files
    for p, rows in _consumer(tiered_4x).items():
        assert sorted(printed[p]) == [r[0] for r in rows], p


def test_remote_log_metadata_prints_as_the_brokers_own_tool_prints(tiered_4x):
    """`--remote-log-metadata-decoder` prints the toString() of Kafka's remote-log metadata objects: the
    real broker's COPY_SEGMENT_STARTED / FINISHED records, with their leader epochs and sizes."""
    files = sorted(tiered_4x.data_dir.glob("__remote_log_metadata-*/*.log"))
    dumped = dls.run(tiered_4x.version, files, "--deep-iteration", "--print-data-log", "--remote-log-metadata-decoder")
    assert any("RemoteLogSegmentMetadata{" in line for d in dumped.values() for line in d.lines)
    for f, theirs in dumped.items():
        assert theirs.exception is None
        assert _ours(f, "4") == theirs.lines, f


def test_remote_segments_off_the_leader_epoch_lineage_are_not_read(tiered_4x, tiered_copy):
    """A partition whose leader-epoch-checkpoint says a new leader's epoch began inside its remote history (as
    after an unclean election): the remote segments that go past that offset under the old epoch are not
    part of the log, as the broker would not serve them, and what they held is data loss."""
    data, root = tiered_copy
    segments = [s for s in remote_roots.list_remote_segments(str(root)) if s.partition == 0]
    states = remote_roots.segment_states([str(data)])
    cut = segments[1].base_offset + 1
    (data / "tiered-0" / "leader-epoch-checkpoint").write_text(f"0\n2\n0 0\n1 {cut}\n")
    kept_end = states[segments[0].segment_id].end_offset
    with pytest.raises(DataLossError, match=rf"tiered-0: offsets \[{kept_end + 1}, \d+\) are in no remote"):
        kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root))
    lenient = kafkalog.read_table(data, subscribe="tiered", remoteRoot=str(root), failOnDataLoss=False)
    offsets = sorted(_offsets(lenient, 0))
    assert offsets[: kept_end + 1] == list(range(kept_end + 1)) and kept_end + 1 not in offsets
