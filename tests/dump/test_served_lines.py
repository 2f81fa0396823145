"""`kafkalog dump` of a partition inside a broker's log directory prints its log as the broker serves it
(kafkalog.dump.served_lines): on a real 4.3.1 broker's log directory (tests/brokers/fixtures/log-dirs), its log
start offset moved as deleteRecords moves it, and its tail zeroed as a killed broker's preallocated segment is."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kafkalog.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1"
SEGMENT = "00000000000000000000.log"


@pytest.fixture
def log_dir(tmp_path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(FIXTURE, d)
    (d / "log-start-offset-checkpoint").write_text("0\n1\nt 0 5\n")  # deleteRecords before offset 5 of t-0
    (d / ".kafka_cleanshutdown").unlink()  # killed: recovery runs on the next start
    log = d / "t-0" / SEGMENT
    log.write_bytes(log.read_bytes() + bytes(4096))  # a preallocated segment's unwritten space
    return d


def dump(capsys, *args: str) -> tuple[int, list[dict]]:
    code = main(["dump", "--format", "json", *args])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_dump_prints_the_served_log(log_dir, capsys):
    code, lines = dump(capsys, str(log_dir / "t-0"))
    assert code == 0  # the zeros are where recovery ends the log: not damage
    served = lines[0]
    assert (served["type"], served["log_start_offset"], served["log_end_offset"]) == ("served_log", 5, 20)
    assert [line["offset"] for line in lines if line["type"] == "record"] == list(range(5, 20))
    cut = [line for line in lines if line["type"] == "not_served"]
    assert len(cut) == 1 and cut[0]["position"] == (log_dir / "t-0" / SEGMENT).stat().st_size - 4096
    assert not [line for line in lines if line["type"] == "error"]


def test_include_below_log_start(log_dir, capsys):
    _, lines = dump(capsys, "--include-below-log-start", str(log_dir))
    t0 = lines[: next(i for i, line in enumerate(lines) if line["type"] == "served_log" and line["partition"] == 1)]
    assert [line["offset"] for line in t0 if line["type"] == "record"] == list(range(20))


def test_a_segment_named_on_its_own_and_kafka_format_print_the_file(log_dir, capsys):
    code, lines = dump(capsys, str(log_dir / "t-0" / SEGMENT))
    assert code == 1 and lines[-1]["type"] == "error"
    assert [line["offset"] for line in lines if line["type"] == "record"] == list(range(20))
    # kafka-dump-log.sh's lines are of the files as they are, whatever the checkpoints say
    assert main(["dump", "--format", "kafka", str(log_dir / "t-0")]) == 1
    assert "Served log" not in capsys.readouterr().out
