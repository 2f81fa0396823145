"""Session fixtures: each test broker runs once per session, writes its scenarios and stops.

Fixtures (each a `BrokerRun`: data_dir, version, classpath, topics, consumed):
  kraft_4x    Kafka 4.3.1, KRaft: every scenario
  kraft_39    Kafka 3.9.2, KRaft: codecs, transactions, groups, metadata
  kraft_44    Kafka 4.4.0, KRaft: codecs, transactions, classic, consumer and share groups, metadata
  zk_legacy   Kafka 3.9.2, ZooKeeper mode, IBP 2.8: v0 and v1 messages
  killed_4x   Kafka 4.3.1, KRaft, killed with kill -9 in the middle of produce
  tiered_4x   Kafka 4.3.1, KRaft, a topic tiered to Kafka's LocalTieredStorage (run.work / "remote")
  recovery_4x Kafka 4.3.1, KRaft, log.preallocate: deleteRecords, an open transaction, killed (kill -9) mid-produce;
              its consumer is a broker restarted on a copy of the disk
  cluster_4x  Kafka 4.3.1, three brokers and a controller (a `ClusterRun`): acks=1 and unclean elections
`broker_runs` gives the clean ones. The DumpLogSegments oracle can take any of them:
java -cp <run.classpath> kafka.tools.DumpLogSegments --files <file under run.data_dir>.
"""
from __future__ import annotations

import pytest

from tests.brokers import harness, scenarios


def _run(tmp_path_factory, name, fn):
    try:
        return fn(tmp_path_factory.mktemp(f"broker-{name}"))
    except BaseException:
        harness.stop_all()  # a failed scenario leaves no broker running
        raise


@pytest.fixture(scope="session")
def kraft_4x(tmp_path_factory):
    return _run(tmp_path_factory, "kraft_4x", scenarios.kraft_4x)


@pytest.fixture(scope="session")
def kraft_39(tmp_path_factory):
    return _run(tmp_path_factory, "kraft_39", scenarios.kraft_39)


@pytest.fixture(scope="session")
def kraft_44(tmp_path_factory):
    return _run(tmp_path_factory, "kraft_44", scenarios.kraft_44)


@pytest.fixture(scope="session")
def zk_legacy(tmp_path_factory):
    return _run(tmp_path_factory, "zk_legacy", scenarios.zk_legacy)


@pytest.fixture(scope="session")
def killed_4x(tmp_path_factory):
    return _run(tmp_path_factory, "killed_4x", scenarios.killed_4x)


@pytest.fixture(scope="session")
def tiered_4x(tmp_path_factory):
    return _run(tmp_path_factory, "tiered_4x", scenarios.tiered_4x)


@pytest.fixture(scope="session")
def recovery_4x(tmp_path_factory):
    return _run(tmp_path_factory, "recovery_4x", scenarios.recovery_4x)


CLEAN = ["kraft_4x", "kraft_44", "kraft_39", "zk_legacy"]


@pytest.fixture(params=CLEAN)
def broker_run(request):
    """Each cleanly stopped broker's run in turn."""
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def cluster_4x(tmp_path_factory):
    """Kafka 4.3.1, three brokers and a controller (scenarios.cluster_4x): the stopped disks, and what a
    cluster restarted on copies of them served."""
    return _run(tmp_path_factory, "cluster_4x", scenarios.cluster_4x)
