"""Oracle 2 on broker-written files: `kafkalog dump --format kafka` prints what the broker's own
kafka-dump-log.sh (`DumpLogSegments` of the same version, from the same jars) prints, for every
segment, KRaft snapshot, index, time index, producer snapshot and transaction index the broker wrote,
internal topics through their decoder flags."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from kafkalog.cli import main as kafkalog_main
from tests.dump import dump_log_segments as dls

pytestmark = pytest.mark.broker

# Internal topics whose records kafkalog prints otherwise than Kafka's decoders: none left (the
# remote-log metadata's toString() is compared on the tiered broker, tests/brokers/test_tiered_storage.py).
KNOWN_DIFFERENT_TOPICS: set[str] = set()


def _topic(path: Path) -> str:
    return "__cluster_metadata" if path.suffix == ".checkpoint" else re.sub(r"-\d+$", "", path.parent.name)


def _ours(path: Path, kafka_version: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        kafkalog_main(["dump", "--format", "kafka", "--kafka-version", kafka_version, str(path)])
    return out.getvalue().splitlines()


def _files(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.rglob("*")
                  if p.suffix in (".log", ".checkpoint", ".index", ".timeindex", ".snapshot", ".txnindex")
                  and re.match(r"^\d{20}(-\d{10})?\.", p.name))


def _differ(tool_version: str, files: list[Path]) -> dict[str, list[str]]:
    """The files (by topic) whose lines from `tool_version`'s DumpLogSegments kafkalog does not print with the
    matching --kafka-version."""
    dumped = dls.run_decoded(tool_version, files)
    assert len(dumped) >= 5
    differ: dict[str, list[str]] = {}
    for f, theirs in dumped.items():
        assert theirs.exception is None, (f, theirs.exception)
        if _ours(f, dls.VERSIONS[tool_version]) != theirs.lines:
            differ.setdefault(_topic(f), []).append(f.name)
    return differ


def test_kafkalog_prints_what_the_brokers_own_tool_prints(broker_run):
    differ = _differ(broker_run.version, _files(broker_run.data_dir))
    data_topics = {t: names for t, names in differ.items() if not t.startswith("__")}
    assert data_topics == {}
    assert set(differ) <= KNOWN_DIFFERENT_TOPICS


def test_kafka_44s_tool_on_what_kafka_43_wrote(kraft_4x):
    """4.4.0's tool over the internal topics 4.3.1 wrote (where the two tools differ: the transaction
    log's state names), against `--kafka-version 4.4`; its own files are compared on the 4.4 broker's run."""
    files = [f for f in _files(kraft_4x.data_dir) if f.suffix in (".log", ".checkpoint") and dls.decoder_flag(f)]
    assert any(_topic(f) == "__transaction_state" for f in files)
    assert _differ("4.4.0", files) == {}
