"""`kafkalog dump --format kafka` prints what kafka-dump-log.sh --deep-iteration --print-data-log prints.

The expected lines (tests/dump/kafka-dump-log/) come from Kafka's own reading of every fixture and
sample, printed with the statements of Kafka 3.9's DumpLogSegments (make_kafka_dump_reference.py).
Where Kafka's tool dies with an exception on damaged data, the lines it printed before are ours too.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kafkalog.cli import main
from tests.paths import ROOT as REPO

EXPECTED = sorted((Path(__file__).parent / "kafka-dump-log").glob("*.txt.gz"))


def dump(capsys, monkeypatch, *args: str) -> tuple[int, list[str], str]:
    monkeypatch.chdir(REPO)
    status = main(["dump", *args])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def source_of(expected: Path) -> str:
    folder, stem = expected.name[:-len(".txt.gz")].split("--", 1)
    return f"tests/fixtures/segments/{stem}.log" if folder == "segments" else f"{folder}/{stem}.log"


def test_every_fixture_has_kafkas_lines():
    assert len(EXPECTED) >= 60


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.name[:-len(".txt.gz")])
def test_lines_are_kafkas(expected, capsys, monkeypatch):
    kafka = gzip.decompress(expected.read_bytes()).decode("utf-8").splitlines()
    status, ours, err = dump(capsys, monkeypatch, "--format", "kafka", source_of(expected))
    if kafka[-1].startswith("EXCEPTION: "):
        # Kafka's tool stops with a stack trace; we print what it printed before, then go on.
        assert ours[:len(kafka) - 1] == kafka[:-1]
        assert status == 1 and err
    else:
        assert ours == kafka
        assert status == (1 if err else 0)
