"""`kafkalog dump` as a user runs it: text and JSON output, exit status."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.kafka_reference import SEGMENTS


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", *args], capture_output=True, text=True)


def test_text_dump_reads_like_kafka_dump_log():
    result = run("dump", str(SEGMENTS / "v2-transactions.log"))
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"Dumping {SEGMENTS / 'v2-transactions.log'}"
    assert lines[1].startswith("baseOffset: 0 lastOffset: 2 count: 3 magic: 2 compression: none position: 0")
    assert any("endTxnMarker: ABORT coordinatorEpoch: " in line for line in lines)
    assert any("endTxnMarker: COMMIT coordinatorEpoch: " in line for line in lines)


def test_json_dump_of_several_files_keeps_file_order():
    result = run("dump", "--format", "json", str(SEGMENTS / "v0-none.log"), str(SEGMENTS / "v2-none.log"))
    assert result.returncode == 0
    magics = [json.loads(line)["magic"] for line in result.stdout.splitlines() if '"type":"batch"' in line]
    assert magics == sorted(magics) and magics[0] == 0 and magics[-1] == 2


def test_damaged_file_prints_what_it_can_then_exits_1():
    result = run("dump", "--format", "json", str(SEGMENTS / "damaged-truncated-records.log"))
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[-1]["type"] == "error" and "partial entry" in lines[-1]["message"]
    assert [line["type"] for line in lines[:2]] == ["batch", "record"]


def test_usage_errors_exit_2():
    assert run("dump").returncode == 2
    missing = run("dump", "/no/such/file.log")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert run("frobnicate").returncode == 2
