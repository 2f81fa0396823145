"""The log directory's text files, read from directories real brokers wrote (tests/brokers/fixtures/log-dirs,
made by tests/brokers/make_fixtures.py: Kafka 4.3.1 in KRaft mode, 3.9.2 in ZooKeeper mode), and refused
where Kafka's own readers refuse them, each refusal naming the file and the line."""
from __future__ import annotations

import pytest

from kafkalog.errors import CorruptStructureError
from kafkalog.formats.leader_epoch_checkpoint import parse_leader_epoch_checkpoint
from kafkalog.formats.meta_properties import parse_meta_properties, read_meta_properties
from kafkalog.formats.offset_checkpoint import parse_offset_checkpoint, read_offset_checkpoint
from kafkalog.formats.partition_metadata import parse_partition_metadata, read_partition_metadata
from kafkalog.formats.quorum_state import parse_quorum_state, read_quorum_state
from tests.paths import TESTS

LOG_DIRS = TESTS / "brokers" / "fixtures" / "log-dirs"
KRAFT, ZK = LOG_DIRS / "kraft-4.3.1", LOG_DIRS / "zk-3.9.2"


@pytest.mark.parametrize("log_dir", [KRAFT, ZK], ids=["kraft", "zk"])
def test_offset_checkpoints_a_broker_wrote(log_dir):
    # the broker produced 20 records to t-0 and 32 to t-1, and stopped cleanly: both checkpoints at the log end
    for name in ("replication-offset-checkpoint", "recovery-point-offset-checkpoint"):
        read = read_offset_checkpoint(log_dir / name)
        assert read.version == 0
        assert read.offsets == {("t", 0): 20, ("t", 1): 32}
    # nothing deleted and nothing compacted: Kafka writes these two with no entries
    for name in ("log-start-offset-checkpoint", "cleaner-offset-checkpoint"):
        read = read_offset_checkpoint(log_dir / name)
        assert read.offsets == {}


def test_meta_properties_kraft_and_zookeeper():
    kraft = read_meta_properties(KRAFT / "meta.properties")
    assert (kraft.version, kraft.node_id, kraft.cluster_id) == (1, 1, "PQPza3SaRS2lOb8UHh1E4w")
    assert kraft.directory_id == "wepczIOXDsq8edc__TRcaA"
    zk = read_meta_properties(ZK / "meta.properties")
    assert (zk.version, zk.node_id, zk.cluster_id, zk.directory_id) == (0, 0, "OcidZmaySHaXh3-QWM4S4g", None)
    assert zk.properties == {"broker.id": "0", "version": "0", "cluster.id": "OcidZmaySHaXh3-QWM4S4g"}


def test_partition_metadata_and_quorum_state():
    ids = {read_partition_metadata(KRAFT / p / "partition.metadata").topic_id for p in ("t-0", "t-1")}
    assert ids == {"gFJcmg8YTmWchffUYd91wg"}
    # the metadata topic's fixed id (Topic.CLUSTER_METADATA_TOPIC_ID)
    assert read_partition_metadata(KRAFT / "__cluster_metadata-0" / "partition.metadata").topic_id == \
        "AAAAAAAAAAAAAAAAAAAAAQ"
    state = read_quorum_state(KRAFT / "__cluster_metadata-0" / "quorum-state")
    assert (state.data_version, state.leader_id, state.voted_id, state.current_voters) == (0, 1, -1, [1])
    assert state.leader_epoch >= 1 and state.cluster_id == "" and state.applied_offset == 0


def test_quorum_state_version_1():
    text = b'{"leaderId":2,"leaderEpoch":7,"votedId":3,"votedDirectoryId":"wepczIOXDsq8edc__TRcaA","data_version":1}\n'
    state = parse_quorum_state(text)
    assert (state.data_version, state.leader_id, state.leader_epoch, state.voted_id) == (1, 2, 7, 3)
    assert state.voted_directory_id == "wepczIOXDsq8edc__TRcaA"
    assert state.applied_offset is None and state.current_voters is None


def test_offset_checkpoint_rules_of_kafkas_reader():
    # a partition named twice keeps the last offset (OffsetCheckpointFile.read's HashMap); tabs split fields;
    # \r\n ends lines (BufferedReader.readLine); an empty file and a lone version line hold nothing
    assert parse_offset_checkpoint("0\r\n2\r\nt\t0  5\r\nt 0 7\r\n").offsets == {("t", 0): 7}
    assert parse_offset_checkpoint("").version is None
    assert parse_offset_checkpoint("0\n").offsets == {}
    assert parse_offset_checkpoint("0\n1\nt 0 +9\n").offsets == {("t", 0): 9}  # Long.parseLong takes a sign
    assert parse_offset_checkpoint("0\n1\nt 0 9 \n").offsets == {("t", 0): 9}  # Java's split drops trailing ""


@pytest.mark.parametrize("text,message", [
    ("1\n0\n", "line 1: unrecognised version 1"),
    ("x\n0\n", "line 1: 'x' is not a number"),
    ("0\n2\nt 0 1\n", "expected 2 entries"),
    ("0\n1\nt 0\n", "line 3: malformed entry 't 0'"),
    ("0\n1\n t 0 1\n", "line 3: malformed entry"),  # a leading space: Java's split keeps a leading ""
    ("0\n1\nt x 1\n", "line 3: 'x' is not a number"),
    ("0\n1\nt 0 1_0\n", "line 3: '1_0' is not a number"),
    ("0\n1\nt 2147483648 1\n", "line 3: '2147483648' is not a number \\(an int\\)"),
    ("0\n1\nt 0 9223372036854775808\n", "is not a number \\(a long\\)"),
    ("0\n 1\n", "line 2: ' 1' is not a number"),  # Integer.parseInt takes no spaces
])
def test_offset_checkpoint_refused_where_kafka_fails(tmp_path, text, message):
    path = tmp_path / "replication-offset-checkpoint"
    path.write_text(text)
    with pytest.raises(CorruptStructureError, match=message) as e:
        read_offset_checkpoint(path)
    assert str(e.value).startswith(str(path))


def test_checkpoints_are_utf8(tmp_path):
    path = tmp_path / "recovery-point-offset-checkpoint"
    path.write_bytes(b"0\n1\nt\xff 0 1\n")
    with pytest.raises(CorruptStructureError, match="not UTF-8") as e:
        read_offset_checkpoint(path)
    assert e.value.position == 5
    assert parse_leader_epoch_checkpoint("0\n1\n0 0\n").entries[0].start_offset == 0


@pytest.mark.parametrize("text,message", [
    ("", "line 1: missing"),
    ("version:0\ntopic_id: gFJcmg8YTmWchffUYd91wg\n", "line 1: malformed"),  # ":\\s+" needs the space
    ("version: -1\ntopic_id: gFJcmg8YTmWchffUYd91wg\n", "unrecognised version -1"),
    ("version: 0\n", "line 2: missing"),
    ("version: 0\ntopic: gFJcmg8YTmWchffUYd91wg\n", "line 2: malformed"),
    ("version: 0\ntopic_id: gFJcmg8YTmWchffUYd91\n", "not a Kafka Uuid"),
    ("version: 0\ntopic_id: gFJcmg8YTmWchffUYd91w!\n", "not a Kafka Uuid"),
    ("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n", "zero Uuid"),
])
def test_partition_metadata_refused_where_kafka_fails(text, message):
    with pytest.raises(CorruptStructureError, match=message):
        parse_partition_metadata(text, "partition.metadata")


def test_partition_metadata_as_kafka_reads_it():
    # a later version reads (downgrade compatibility), padding is taken, later lines are not read
    read = parse_partition_metadata("version: 1\ntopic_id: gFJcmg8YTmWchffUYd91wg==\nwhatever\n")
    assert (read.version, read.topic_id) == (1, "gFJcmg8YTmWchffUYd91wg")


def test_meta_properties_as_java_properties():
    # java.util.Properties: ':' and ' ' separators, '!' comments, escapes, continued lines
    data = b"! comment\nversion : 1\nnode.id 7\ncluster.id=ab\\\n    cd\ndirectory.id=wepczIOXDsq8edc__TRcaA\n"
    meta = parse_meta_properties(data)
    assert (meta.version, meta.node_id, meta.cluster_id) == (1, 7, "abcd")
    assert parse_meta_properties(b"broker.id=3\n").version == 0  # an absent version is 0


@pytest.mark.parametrize("data,message", [
    (b"version=2\nnode.id=1\ncluster.id=x\n", "unknown meta.properties version '2'"),
    (b"version=1\ncluster.id=x\n", "without node.id"),
    (b"version=1\nnode.id=1\n", "without cluster.id"),
    (b"version=1\nnode.id=one\ncluster.id=x\n", "node.id 'one' is not a base-10 int"),
    (b"version=0\nbroker.id=1.5\n", "broker.id '1.5'"),
    (b"version=1\nnode.id=1\ncluster.id=x\ndirectory.id=nope\n", "directory.id 'nope' is not a Kafka Uuid"),
    (b"version=1\nnode.id=1\ncluster.id=\\u12\n", "not Java properties text"),
])
def test_meta_properties_refused_where_kafka_fails(data, message):
    with pytest.raises(CorruptStructureError, match=message) as e:
        parse_meta_properties(data, "meta.properties")
    assert str(e.value).startswith("meta.properties: ")


@pytest.mark.parametrize("data,message", [
    (b"", "empty"),
    (b"{\"leaderId\":1", "not JSON"),
    (b"[1]", "not a JSON object"),
    (b'{"leaderId":1,"leaderEpoch":1,"votedId":-1}', "no data_version"),
    (b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":2}', "unknown data_version 2"),
    (b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":1}', "no votedDirectoryId"),
    (b'{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"currentVoters":null,"data_version":0}',
     "no appliedOffset"),
    (b'{"leaderId":"1","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
     "leaderId '1' is not an int32"),
    (b'{"leaderId":1,\n"leaderEpoch":1,"votedId":-1,"data_version":0}', "not JSON"),  # Kafka reads one line
    (b"[" * 100_000, "not JSON"),
])
def test_quorum_state_refused_where_kafka_fails(data, message):
    with pytest.raises(CorruptStructureError, match=message):
        parse_quorum_state(data, "quorum-state")
