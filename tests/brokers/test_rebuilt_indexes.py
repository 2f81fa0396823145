"""The indexes a broker's start-up rebuilds (`ServedBounds.rebuilt_indexes`), against Kafka itself: on a copy of
kraft_4x's cleanly stopped disk, `txn-0`'s transaction index (an aborted transaction) is made corrupt as Kafka's
`TransactionIndex.sanityCheck` sees it, `txn-1`'s is deleted, and an offset index of `big-segments-0` is deleted; a
4.3.1 broker restarted on the copy rebuilds exactly the segments kafkalog named (its log says which, and the files
are written again), and a read_committed consumer of it reads what kafkalog reads from the damaged copy, but for the
aborted transactions of txn-1 that `verify` names: a missing transaction index is not rebuilt, and the broker serves
their records."""
from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest

import kafkalog
from kafkalog.log.log_dir import read_log_dir_state
from kafkalog.log.served_log import NO_OFFSET_INDEX, served_bounds
from kafkalog.verify import verify_path
from tests.brokers.harness import Broker, run_scenario
from tests.brokers.scenarios import KRAFT_4X_CONFIG, NEWEST_4X

pytestmark = pytest.mark.broker

#: `AbortedTxn`'s layout (Kafka's storage module): version (int16), producerId, firstOffset, lastOffset,
#: lastStableOffset (int64 each).
LAST_OFFSET = slice(18, 26)
INDEX_SUFFIXES = (".index", ".timeindex", ".txnindex")
#: LogLoader.loadSegmentFiles' lines for a segment it recovers on its own and rebuilds the indexes of.
REBUILDING = re.compile(r"(?:Found a corrupted index file corresponding to log file|Could not find offset index file "
                        r"corresponding to log file) (/\S+?\.log)\b")
TOPICS = ["txn", "big-segments"]


def _records(directory: Path, topic: str, partition: int) -> list[tuple]:
    lines = (directory / f"{topic}-{partition}.json").read_text().splitlines()[1:]
    return [(r["offset"], r["key"], r["value"]) for r in map(json.loads, lines)]


def _b64(b: bytes | None) -> str | None:
    return None if b is None else base64.b64encode(b).decode()


def _ours(data_dir: Path, topic: str, partition: int) -> list[tuple]:
    table = kafkalog.read_table(data_dir, subscribe=topic, **{"kafka.isolation.level": "read_committed"})
    return [(r["offset"], _b64(r["key"]), _b64(r["value"])) for r in table.to_pylist() if r["partition"] == partition]


def _index_files(data_dir: Path) -> dict[Path, tuple[int, bytes]]:
    """Each data partition's index files but its active segment's (resized at start-up and trimmed again at
    shutdown): modification time and bytes."""
    found = {}
    for part in data_dir.glob("*-*"):
        if part.name.startswith("__") or not part.is_dir():
            continue
        logs = sorted(part.glob("*.log"))
        for log in logs[:-1]:
            for index in (log.with_suffix(s) for s in INDEX_SUFFIXES):
                if index.exists():
                    found[index] = (index.stat().st_mtime_ns, index.read_bytes())
    return found


def test_a_restart_rebuilds_the_indexes_kafkalog_names(kraft_4x, tmp_path):
    broker = Broker(NEWEST_4X, "kraft", tmp_path / "restarted", broker_config=dict(KRAFT_4X_CONFIG), format_storage=False)
    data = broker.data_dir
    shutil.copytree(kraft_4x.data_dir, data)
    txn = sorted((data / "txn-0").glob("*.txnindex"))[0]
    corrupt = bytearray(txn.read_bytes())
    assert len(corrupt) >= 34, "txn-0 has no aborted transaction: no oracle"
    corrupt[LAST_OFFSET] = (-1).to_bytes(8, "big", signed=True)  # below any base offset: a CorruptIndexException
    txn.write_bytes(bytes(corrupt))
    # txn-1's transaction index, deleted: not rebuilt (nor checked) at start-up
    unindexed = sorted((data / "txn-1").glob("*.txnindex"))[0]
    unindexed.unlink()
    # a closed segment's offset index (one with entries), deleted
    missing = next(p for p in sorted((data / "big-segments-0").glob("*.index"))[:-1] if p.stat().st_size)
    missing_bytes = missing.read_bytes()
    missing.unlink()

    state = read_log_dir_state(data)
    predicted = {}
    for part in sorted(p for p in data.iterdir() if p.is_dir() and not p.name.startswith("__cluster_metadata")):
        predicted.update(served_bounds(part, state).rebuilt_indexes)
    assert sorted(predicted) == sorted([str(txn.with_suffix(".log")), str(missing.with_suffix(".log"))])
    assert predicted[str(missing.with_suffix(".log"))] == NO_OFFSET_INDEX
    assert "(Kafka's CorruptIndexException)" in predicted[str(txn.with_suffix(".log"))]
    report = verify_path(data)
    # txn-0's damaged index: a note (rebuilt); txn-1's missing one: a problem per aborted transaction it listed
    assert {n.split(":", 1)[0] for n in report.notes if "Kafka's start-up rebuilds this index" in n} >= {str(txn)}
    assert report.problems and {(p.file, p.kind) for p in report.problems} == {(str(unindexed), "abort_not_indexed")}
    leaked = [tuple(int(n) for n in re.findall(r"from offset (\d+), aborted at offset (\d+)", p.detail)[0])
              for p in report.problems]
    ours = {(t, p): _ours(data, t, p) for t in TOPICS for p in ((0, 1) if t == "txn" else (0,))}
    untouched = {p: v for p, v in _index_files(data).items() if str(p.with_suffix(".log")) not in predicted}

    broker.start()
    try:
        run_scenario(broker, [["consume", str(tmp_path / "consumed"), *TOPICS]])
    finally:
        broker.stop()

    # the segments Kafka's start-up rebuilt: those kafkalog named
    rebuilt = set(REBUILDING.findall((broker.work / "server.log").read_text()))
    assert rebuilt == set(predicted)
    # their indexes written again from the segments: as the broker first wrote them
    assert txn.read_bytes() == (kraft_4x.data_dir / "txn-0" / txn.name).read_bytes() != bytes(corrupt)
    assert missing.read_bytes() == missing_bytes
    # the others untouched
    assert {p: v for p, v in _index_files(data).items() if p in untouched} == untouched
    # what a read_committed consumer of the restarted broker reads: kafkalog's reading of the damaged copy, and the
    # consumer's before the damage
    for (topic, partition), records in ours.items():
        served = _records(tmp_path / "consumed" / "read_committed", topic, partition)
        assert records == _records(kraft_4x.consumed / "read_committed", topic, partition)
        if (topic, partition) != ("txn", 1):
            assert served == records
    aborted = len(_records(tmp_path / "consumed" / "read_uncommitted", "txn", 0)) - len(ours[("txn", 0)])
    assert aborted > 0, "txn-0 has no aborted records: no oracle"
    # txn-1 without its transaction index: the broker serves the aborted transactions verify named, kafkalog does not
    every = _records(tmp_path / "consumed" / "read_uncommitted", "txn", 1)
    named = {r for r in every if any(first <= r[0] < last for first, last in leaked)}
    assert named and _records(tmp_path / "consumed" / "read_committed", "txn", 1) == sorted(set(ours[("txn", 1)]) | named)
