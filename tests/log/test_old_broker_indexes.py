"""Kafka 1.1 and 2.8 indexed an append of v0/v1 messages at its last offset and the position where it starts
(`LogSegment.append`: `offsetIndex.append(largestOffset, physicalPosition)`). `kafkalog verify` notes such an
entry, naming that behaviour, and keeps every other entry whose offset is not its batch's a problem.

The segments are written by tests/log/java/LegacyAppends.java with Kafka's own FileRecords, MemoryRecords,
OffsetIndex and TimeIndex (3.9.2's jars), appending and indexing as 1.1's LogSegment.append did."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import kafka_jars
import pytest

from kafkalog.verify import verify_path
from tests.brokers.harness import java

PROGRAM = Path(__file__).resolve().parent / "java" / "LegacyAppends.java"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("old-broker-indexes")
    res = subprocess.run([java(), "-cp", os.pathsep.join(kafka_jars.classpath("3.9.2")), str(PROGRAM), str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return out


def _entries(lines: list[str]) -> list[int]:
    return sorted(int(line.split("entry ")[1].split(":")[0]) for line in lines)


@pytest.mark.parametrize("partition", ["old-broker-0", "old-broker-v0-0"])
def test_an_append_indexed_at_its_last_offset_is_a_note(written, partition):
    report = verify_path(written / partition)
    assert report.ok, [str(p) for p in report.problems]
    assert len(report.notes) == 2 and all("as older brokers (1.1, 2.8: LogSegment.append) indexed an append" in n
                                          for n in report.notes), report.notes


def test_other_entries_whose_offset_is_not_their_batchs_stay_problems(written):
    report = verify_path(written / "not-an-append-0")
    # entry 0: past the append at its position; 2: a v2 batch; 3: below the message there
    assert [(p.kind, p.entry) for p in report.problems] == [("offset_mismatch", 0), ("offset_mismatch", 2),
                                                            ("offset_mismatch", 3)]
    assert _entries(report.notes) == [1]
