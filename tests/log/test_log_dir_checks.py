"""`verify` of a log directory's own files against its partitions: a real broker's directory
(tests/brokers/fixtures/log-dirs/kraft-4.3.1: t-0 holds offsets 0-19, t-1 0-31) with its checkpoints,
partition.metadata and meta.properties changed as a lost or mixed-up disk has them."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kafkalog.log.log_dir import LogDirState
from kafkalog.log.log_dir_checks import PartitionExtent, check_log_dir
from kafkalog.verify import VerifyReport, verify_log_dirs, verify_path
from tests.paths import TESTS

LOG_DIRS = TESTS / "brokers" / "fixtures" / "log-dirs"


@pytest.fixture
def log_dir(tmp_path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(LOG_DIRS / "kraft-4.3.1", copy)
    return copy


def checkpoint(path: Path, *entries: str) -> None:
    path.write_text("\n".join(["0", str(len(entries)), *entries]) + "\n")


def kinds(report: VerifyReport) -> list[tuple[str, str]]:
    return [(Path(p.file).name, p.kind) for p in report.problems]


def test_lagging_checkpoints_are_normal(log_dir):
    checkpoint(log_dir / "replication-offset-checkpoint", "t 0 10", "t 1 0")
    checkpoint(log_dir / "recovery-point-offset-checkpoint", "t 0 0")
    checkpoint(log_dir / "log-start-offset-checkpoint", "t 1 5")
    report = verify_path(log_dir)
    assert report.ok and report.notes == []


def test_offsets_past_the_log_end_are_problems(log_dir):
    checkpoint(log_dir / "replication-offset-checkpoint", "t 0 21", "t 1 32")
    checkpoint(log_dir / "recovery-point-offset-checkpoint", "t 1 40")
    checkpoint(log_dir / "log-start-offset-checkpoint", "t 0 25")
    checkpoint(log_dir / "cleaner-offset-checkpoint", "t 1 99")
    report = verify_path(log_dir)
    assert kinds(report) == [("replication-offset-checkpoint", "offset_past_log_end"),
                             ("recovery-point-offset-checkpoint", "offset_past_log_end"),
                             ("log-start-offset-checkpoint", "offset_past_log_end")]
    assert "t-0's high watermark 21 is past its log end offset 20" in report.problems[0].detail
    assert "t-1's recovery point 40 is past its log end offset 32" in report.problems[1].detail
    assert report.notes == [f"{log_dir / 'cleaner-offset-checkpoint'}: t-1's cleaner offset 99 is past its log end "
                            "offset 32 (Kafka's cleaner resets it)"]


def test_a_partition_with_no_directory(log_dir):
    checkpoint(log_dir / "replication-offset-checkpoint", "t 0 20", "t 1 32", "gone 0 7", "moved 3 1")
    (log_dir / "moved-3.0123456789abcdef0123456789abcdef-delete").mkdir()
    report = verify_path(log_dir)
    assert kinds(report) == [("replication-offset-checkpoint", "partition_missing")]
    assert "names gone-0 (high watermark 7), which has no directory here" in report.problems[0].detail
    assert len(report.notes) == 1 and "moved-3's directory is renamed for deletion or a move" in report.notes[0]


def test_topic_ids_that_differ_and_files_that_do_not_read(log_dir):
    (log_dir / "t-1" / "partition.metadata").write_text("version: 0\ntopic_id: wepczIOXDsq8edc__TRcaA\n")
    (log_dir / "__cluster_metadata-0" / "quorum-state").write_text('{"leaderId":1}')
    (log_dir / "meta.properties").write_text("version=1\nnode.id=1\n")
    (log_dir / "cleaner-offset-checkpoint").write_text("0\nx\n")
    report = verify_path(log_dir)
    assert sorted(kinds(report)) == [("cleaner-offset-checkpoint", "corrupt_structure"),
                                     ("meta.properties", "corrupt_structure"),
                                     ("partition.metadata", "topic_id_mismatch"),
                                     ("quorum-state", "corrupt_structure")]
    mismatch = next(p for p in report.problems if p.kind == "topic_id_mismatch")
    assert mismatch.file == str(log_dir / "t-1" / "partition.metadata")
    assert "topic id wepczIOXDsq8edc__TRcaA differs from t-0's gFJcmg8YTmWchffUYd91wg" in mismatch.detail


def test_each_file_on_its_own(log_dir):
    (log_dir / "t-0" / "partition.metadata").write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n")
    report = verify_path(log_dir / "t-0" / "partition.metadata")
    assert kinds(report) == [("partition.metadata", "corrupt_structure")] and "zero Uuid" in report.problems[0].detail
    assert verify_path(log_dir / "replication-offset-checkpoint").ok
    assert verify_path(log_dir / "meta.properties").ok
    assert verify_path(log_dir / "__cluster_metadata-0" / "quorum-state").files == 1


def test_jbod_directories_of_one_broker(log_dir, tmp_path):
    other = tmp_path / "data2"
    shutil.copytree(log_dir, other)
    report = VerifyReport()
    verify_log_dirs([log_dir, other], report)
    assert kinds(report) == [("meta.properties", "duplicate_directory_id")]  # a copy of one directory
    (other / "meta.properties").write_text("version=1\nnode.id=2\ncluster.id=another\n")
    report = VerifyReport()
    verify_log_dirs([log_dir, other], report)
    assert kinds(report) == [("meta.properties", "cluster_id_mismatch"), ("meta.properties", "node_id_mismatch")]
    assert all(p.file == str(other / "meta.properties") for p in report.problems)


def test_a_log_start_offset_below_the_first_segment_is_a_note(tmp_path):
    state = LogDirState(path=tmp_path, log_start_offsets={("t", 0): 100})
    found = check_log_dir(state, {("t", 0): PartitionExtent(tmp_path / "t-0", 250, 300)})
    assert found.problems == []
    assert found.notes == [f"{tmp_path / 'log-start-offset-checkpoint'}: t-0's log start offset 100 is below its "
                           "first segment's base offset 250: the records between are in remote storage (tiered) or "
                           "gone; Kafka starts the local log at the larger"]


def test_verify_command_with_jbod_directories(log_dir, tmp_path, capsys):
    from kafkalog import cli
    other = tmp_path / "data2"
    shutil.copytree(LOG_DIRS / "zk-3.9.2", other)
    assert cli.main(["verify", "--format", "json", str(log_dir), str(other)]) == 1
    out = capsys.readouterr().out
    assert '"kind":"cluster_id_mismatch"' in out and '"kind":"node_id_mismatch"' in out
    assert cli.main(["verify", str(log_dir)]) == 0
    assert capsys.readouterr().out.endswith(": OK\n")
