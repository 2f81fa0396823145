"""Session fixtures: each test broker runs once per session, writes its scenarios and stops.

Fixtures (each a `BrokerRun`: data_dir, version, classpath, topics, consumed):
  kraft_4x    Kafka 4.3.1, KRaft: every scenario
  kraft_39    Kafka 3.9.2, KRaft: codecs, transactions, groups, metadata
  kraft_44    Kafka 4.4.0, KRaft: codecs, transactions, classic, consumer and share groups, metadata
  zk_legacy   Kafka 3.9.2, ZooKeeper mode, IBP 2.8: v0 and v1 messages
  killed_4x   Kafka 4.3.1, KRaft (a dynamic quorum: --standalone), killed with kill -9 in the middle of produce
  tiered_4x   Kafka 4.3.1, KRaft, a topic tiered to Kafka's LocalTieredStorage (run.work / "remote")
  recovery_4x Kafka 4.3.1, KRaft, log.preallocate: deleteRecords, an open transaction, killed (kill -9) mid-produce;
              its consumer is a broker restarted on a copy of the disk
  cluster_4x  Kafka 4.3.1, three brokers and a controller (a `ClusterRun`): acks=1 and unclean elections
  quorum_4x   Kafka 4.3.1, a dynamic quorum of three controllers (a `QuorumRun`): controllers added, one removed, one
              replaced; kafka-metadata-quorum's describe before they stop and after a restart on copies
`broker_runs` gives the clean ones. The DumpLogSegments oracle can take any of them:
java -cp <run.classpath> kafka.tools.DumpLogSegments --files <file under run.data_dir>.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from tests.brokers import harness, scenarios

#: Every session run, in the order they start. The runs a session's tests need start together when the session
#: starts, two at a time: a run spends much of its minute waiting (a JVM's start, a replica's fetch, a session
#: timeout), so two share the two cores better than one after the other; and the tests that need them run last, so
#: that the other tests use the cores while the runs wait, instead of waiting with them.
RUNS = {"kraft_4x": scenarios.kraft_4x, "cluster_4x": scenarios.cluster_4x, "kraft_44": scenarios.kraft_44,
        "recovery_4x": scenarios.recovery_4x, "kraft_39": scenarios.kraft_39, "zk_legacy": scenarios.zk_legacy,
        "tiered_4x": scenarios.tiered_4x, "killed_4x": scenarios.killed_4x, "quorum_4x": scenarios.quorum_4x}
SIDE_BY_SIDE = 2

CLEAN = ["kraft_4x", "kraft_44", "kraft_39", "zk_legacy"]

_wanted: list[str] = []
_futures: dict[str, Future] = {}
_pool: list[ThreadPoolExecutor] = []


def _runs_of(item) -> set[str]:
    """The runs a test needs (`broker_run` needs every clean one)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    return (fixtures & RUNS.keys()) | (set(CLEAN) if "broker_run" in fixtures else set())


def _needed(items) -> list[str]:
    """The runs the tests need, in `RUNS`' order."""
    names = set().union(*map(_runs_of, items))
    return [n for n in RUNS if n in names]


def pytest_collection_modifyitems(session, config, items):
    """The tests that need a broker run (or start brokers: marked `broker`), last, in their order."""
    items.sort(key=lambda item: bool(_runs_of(item)) or item.get_closest_marker("broker") is not None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """The runs the session's tests need, started (not for --collect-only)."""
    if session.config.option.collectonly:
        return
    _wanted[:] = _needed(session.items)
    if _wanted:
        _start(session.config._tmp_path_factory)  # (what the tmp_path_factory fixture returns)


def pytest_sessionfinish(session, exitstatus):
    """The runs not begun yet are dropped: a session that stopped early (-x) does not wait for them at exit."""
    for pool in _pool:
        pool.shutdown(wait=False, cancel_futures=True)


def _in_thread(fn, work):
    try:
        return fn(work)
    except BaseException:
        harness.stop_started_here()  # a failed scenario leaves no broker running; the others run on
        raise


def _start(tmp_path_factory, first: str | None = None) -> None:
    _pool.append(ThreadPoolExecutor(max_workers=SIDE_BY_SIDE, thread_name_prefix="broker-run"))
    for n in [*([first] if first else []), *(w for w in _wanted if w != first)]:
        _futures[n] = _pool[0].submit(_in_thread, RUNS[n], tmp_path_factory.mktemp(f"broker-{n}"))


def _run(tmp_path_factory, name, fn):
    if not _pool:  # (a session that did not start them: asked for by getfixturevalue)
        _start(tmp_path_factory, name)
    if name not in _futures:  # (a run no collected test named: asked for by getfixturevalue)
        _futures[name] = _pool[0].submit(_in_thread, fn, tmp_path_factory.mktemp(f"broker-{name}"))
    return _futures[name].result()


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


@pytest.fixture(params=CLEAN)
def broker_run(request):
    """Each cleanly stopped broker's run in turn."""
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def cluster_4x(tmp_path_factory):
    """Kafka 4.3.1, three brokers and a controller (scenarios.cluster_4x): the stopped disks, and what a
    cluster restarted on copies of them served."""
    return _run(tmp_path_factory, "cluster_4x", scenarios.cluster_4x)


@pytest.fixture(scope="session")
def quorum_4x(tmp_path_factory):
    """Kafka 4.3.1, a dynamic quorum of three controllers changed by kafka-metadata-quorum (scenarios.quorum_4x): the
    stopped disks, and what the tool described before they stopped and once restarted on copies of them."""
    return _run(tmp_path_factory, "quorum_4x", scenarios.quorum_4x)
