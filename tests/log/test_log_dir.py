"""A log directory's own files read together: real brokers' directories (tests/brokers/fixtures/log-dirs), and
copies with files missing or damaged, where each damaged file is a problem named and the rest still reads."""
from __future__ import annotations

import shutil

from kafkalog.log.log_dir import log_dir_of, partition_log_dir_state, read_log_dir_state
from tests.paths import TESTS

LOG_DIRS = TESTS / "brokers" / "fixtures" / "log-dirs"


def test_a_kraft_brokers_log_dir():
    state = read_log_dir_state(LOG_DIRS / "kraft-4.3.1")
    assert state.meta is not None and (state.meta.node_id, state.meta.cluster_id) == (1, "PQPza3SaRS2lOb8UHh1E4w")
    assert state.high_watermarks == state.recovery_points == {("t", 0): 20, ("t", 1): 32}
    assert state.log_start_offsets == state.cleaner_offsets == {}
    assert state.clean_shutdown and state.problems == []
    assert state.partitions() == {("t", 0), ("t", 1)}


def test_a_partition_dirs_log_dir():
    part = LOG_DIRS / "zk-3.9.2" / "t-1"
    assert log_dir_of(part) == LOG_DIRS / "zk-3.9.2"
    state = partition_log_dir_state(part)
    assert state is not None and state.meta is not None and state.meta.version == 0
    assert state.high_watermarks[("t", 1)] == 32


def test_missing_files_are_no_problem(tmp_path):
    (tmp_path / "t-0").mkdir()
    state = read_log_dir_state(tmp_path)
    assert state.meta is None and state.high_watermarks == {} and not state.clean_shutdown
    assert state.problems == []
    assert partition_log_dir_state(tmp_path / "t-0") is None  # a partition directory copied on its own


def test_damaged_files_are_named_and_the_rest_reads(tmp_path):
    log_dir = tmp_path / "data"
    shutil.copytree(LOG_DIRS / "kraft-4.3.1", log_dir)
    (log_dir / "replication-offset-checkpoint").write_text("0\n3\nt 0 20\n")  # truncated after one entry
    (log_dir / "meta.properties").write_text("version=1\nnode.id=1\n")
    (log_dir / "cleaner-offset-checkpoint").unlink()
    (log_dir / "cleaner-offset-checkpoint").mkdir()  # there, and not a file
    (log_dir / ".kafka_cleanshutdown").unlink()
    state = read_log_dir_state(log_dir)
    assert state.meta is None and state.high_watermarks == {} and state.cleaner_offsets == {}
    assert state.recovery_points == {("t", 0): 20, ("t", 1): 32}
    assert not state.clean_shutdown
    assert len(state.problems) == 3
    assert any(p.startswith(f"{log_dir / 'replication-offset-checkpoint'}: expected 3 entries") for p in state.problems)
    assert any(p.startswith(f"{log_dir / 'meta.properties'}: version 1 without cluster.id") for p in state.problems)
    assert any(p.startswith(f"{log_dir / 'cleaner-offset-checkpoint'}: cannot read") for p in state.problems)
