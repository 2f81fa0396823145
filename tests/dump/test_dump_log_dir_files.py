"""`kafkalog dump` of a log directory's own files, of partition.metadata and quorum-state, on their own and as
part of a whole directory: real brokers' directories (tests/brokers/fixtures/log-dirs), and damaged copies."""
from __future__ import annotations

import json
import shutil

import pytest

from kafkalog import cli
from tests.paths import TESTS

LOG_DIRS = TESTS / "brokers" / "fixtures" / "log-dirs"
KRAFT, ZK = LOG_DIRS / "kraft-4.3.1", LOG_DIRS / "zk-3.9.2"


def dump(capsys, *args: str) -> tuple[int, str]:
    status = cli.main(["dump", *args])
    return status, capsys.readouterr().out


def test_each_file_as_json(capsys):
    status, out = dump(capsys, "--format", "json", str(KRAFT / "replication-offset-checkpoint"),
                       str(KRAFT / "recovery-point-offset-checkpoint"), str(KRAFT / "meta.properties"),
                       str(KRAFT / "t-0" / "partition.metadata"), str(KRAFT / "__cluster_metadata-0" / "quorum-state"),
                       str(ZK / "meta.properties"))
    assert status == 0
    got = [json.loads(line) for line in out.splitlines()]
    assert got == [
        {"type": "high_watermark", "topic": "t", "partition": 0, "offset": 20},
        {"type": "high_watermark", "topic": "t", "partition": 1, "offset": 32},
        {"type": "recovery_point", "topic": "t", "partition": 1, "offset": 32},
        {"type": "recovery_point", "topic": "t", "partition": 0, "offset": 20},
        {"type": "meta_properties", "version": 1, "node_id": 1, "cluster_id": "PQPza3SaRS2lOb8UHh1E4w",
         "directory_id": "wepczIOXDsq8edc__TRcaA",
         "properties": {"node.id": "1", "directory.id": "wepczIOXDsq8edc__TRcaA", "version": "1",
                        "cluster.id": "PQPza3SaRS2lOb8UHh1E4w"}},
        {"type": "partition_metadata", "version": 0, "topic_id": "gFJcmg8YTmWchffUYd91wg"},
        {"type": "quorum_state", "data_version": 0, "leader_id": 1, "leader_epoch": 1, "voted_id": -1,
         "voted_directory_id": None, "cluster_id": "", "applied_offset": 0, "current_voters": [1]},
        {"type": "meta_properties", "version": 0, "node_id": 0, "cluster_id": "OcidZmaySHaXh3-QWM4S4g",
         "directory_id": None, "properties": {"broker.id": "0", "version": "0", "cluster.id": "OcidZmaySHaXh3-QWM4S4g"}},
    ]


def test_each_file_as_text(capsys):
    status, out = dump(capsys, str(KRAFT / "replication-offset-checkpoint"), str(KRAFT / "log-start-offset-checkpoint"),
                       str(KRAFT / "meta.properties"), str(KRAFT / "t-1" / "partition.metadata"),
                       str(KRAFT / "__cluster_metadata-0" / "quorum-state"))
    assert status == 0
    assert out.splitlines() == [
        f"Dumping {KRAFT / 'replication-offset-checkpoint'}",
        "topic: t partition: 0 highWatermark: 20",
        "topic: t partition: 1 highWatermark: 32",
        f"Dumping {KRAFT / 'log-start-offset-checkpoint'}",
        "no entries",
        f"Dumping {KRAFT / 'meta.properties'}",
        "version: 1 nodeId: 1 clusterId: PQPza3SaRS2lOb8UHh1E4w directoryId: wepczIOXDsq8edc__TRcaA",
        f"Dumping {KRAFT / 't-1' / 'partition.metadata'}",
        "version: 0 topicId: gFJcmg8YTmWchffUYd91wg",
        f"Dumping {KRAFT / '__cluster_metadata-0' / 'quorum-state'}",
        "dataVersion: 0 leaderId: 1 leaderEpoch: 1 votedId: -1 clusterId:  appliedOffset: 0 currentVoters: [1]",
    ]


def test_a_log_directory_lists_its_own_files_after_its_partitions(capsys):
    status, out = dump(capsys, "--format", "json", str(KRAFT))
    assert status == 0
    files = [json.loads(line)["path"] for line in out.splitlines() if json.loads(line)["type"] == "file"]
    names = [f[len(str(KRAFT)) + 1:] for f in files]
    assert names[-6:] == ["bootstrap.checkpoint", "meta.properties", "replication-offset-checkpoint",
                          "recovery-point-offset-checkpoint", "log-start-offset-checkpoint", "cleaner-offset-checkpoint"]
    for part in ("__cluster_metadata-0", "t-0", "t-1"):
        assert f"{part}/partition.metadata" in names and f"{part}/leader-epoch-checkpoint" in names
    assert "__cluster_metadata-0/quorum-state" in names


def test_a_partition_directory_dumps_its_topic_id(capsys):
    status, out = dump(capsys, "--format", "json", str(ZK / "t-0"))
    assert status == 0
    got = [json.loads(line) for line in out.splitlines()]
    assert got[-2:] == [{"type": "file", "path": str(ZK / "t-0" / "partition.metadata")},
                        {"type": "partition_metadata", "version": 0, "topic_id": "LSWaNaEDTXGmitA4RwZQog"}]


@pytest.mark.parametrize("name,text,message", [
    ("replication-offset-checkpoint", "0\n3\nt 0 20\n", "expected 3 entries (line 2), found 1"),
    ("meta.properties", "version=7\n", "unknown meta.properties version '7'"),
    ("partition.metadata", "version: 0\n", "line 2: missing"),
    ("quorum-state", '{"leaderId":1}', "no data_version field"),
])
def test_damage_is_an_error_line_naming_the_file(capsys, tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    status, out = dump(capsys, "--format", "json", str(path))
    assert status == 1
    line = json.loads(out)
    assert line["type"] == "error" and message in line["message"]
    status, out = dump(capsys, str(path))
    assert status == 1 and out.splitlines() == [f"Dumping {path}", f"ERROR: {line['message']}"]


def test_forced_kind_and_damage_in_a_log_directory(capsys, tmp_path):
    copy = tmp_path / "saved.txt"
    shutil.copy(KRAFT / "replication-offset-checkpoint", copy)
    status, out = dump(capsys, "--type", "offset-checkpoint", "--format", "json", str(copy))
    assert status == 0 and json.loads(out.splitlines()[0]) == {"type": "checkpoint_offset", "topic": "t",
                                                               "partition": 0, "offset": 20}
    log_dir = tmp_path / "data"
    shutil.copytree(ZK, log_dir)
    (log_dir / "recovery-point-offset-checkpoint").write_text("0\n1\nt 0\n")
    status, out = dump(capsys, "--format", "json", str(log_dir))
    assert status == 1  # the damaged checkpoint; everything after it is still dumped
    got = [json.loads(line) for line in out.splitlines()]
    assert any(g["type"] == "error" and "line 3: malformed entry" in g["message"] for g in got)
    assert got[-1] == {"type": "file", "path": str(log_dir / "cleaner-offset-checkpoint")}
