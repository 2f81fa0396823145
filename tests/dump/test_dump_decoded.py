"""`kafkalog dump` on internal topics: key_decoded / value_decoded, --decode, errors, text form."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tests.paths import ROOT

INTERNAL = ROOT / "tests" / "fixtures" / "internal"
OFFSETS = INTERNAL / "__consumer_offsets-0" / "00000000000000000000.log"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", *args], capture_output=True, text=True)


def records(stdout: str) -> list[dict]:
    return [o for o in map(json.loads, stdout.splitlines()) if o["type"] == "record"]


def test_json_lines_carry_the_decoding_by_directory_name():
    r = run("--format", "json", str(OFFSETS))
    assert r.returncode == 0, r.stdout[-500:]
    recs = records(r.stdout)
    expected = [json.loads(line) for line in
                (INTERNAL / "expected" / "__consumer_offsets-0-00000000000000000000.log.jsonl").read_text().splitlines()]
    assert [(x["key_decoded"], x["value_decoded"]) for x in recs] == \
           [(x["key_decoded"], x["value_decoded"]) for x in expected]
    assert recs[0]["key"] is not None and recs[0]["value"] is not None  # the raw bytes stay


def test_decode_option_outside_a_partition_directory(tmp_path):
    copy = tmp_path / "00000000000000000000.log"
    shutil.copyfile(INTERNAL / "__transaction_state-0" / "00000000000000000000.log", copy)
    plain = records(run("--format", "json", str(copy)).stdout)
    assert "key_decoded" not in plain[0]
    decoded = records(run("--format", "json", "--decode", "transactions", str(copy)).stdout)
    assert decoded[0]["key_decoded"]["type"] == "TransactionLogKey"
    assert decoded[0]["value_decoded"]["type"] == "TransactionLogValue"
    none = records(run("--format", "json", "--decode", "none", str(OFFSETS)).stdout)
    assert "key_decoded" not in none[0]


def test_undecodable_records_get_an_error_line_naming_the_offset():
    r = run("--format", "json", str(INTERNAL / "__consumer_offsets-1" / "00000000000000000000.log"))
    assert r.returncode == 1
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    errors = [x for x in lines if x["type"] == "error"]
    assert [e["position"] for e in errors] == [0, 0]
    assert errors[0]["message"] == "record at offset 0: unknown record type 99 (known: 0-23)"
    assert errors[1]["message"].startswith("record at offset 1: OffsetCommitValue version 3: the bytes end")
    assert all(x["value"] is not None for x in lines if x["type"] == "record")


def test_text_form_prints_key_and_payload_like_kafka_dump_log():
    r = run(str(INTERNAL / "__cluster_metadata-0" / "00000000000000000000.log"))
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert any(" controlType: LEADER_CHANGE payload: {\"type\": \"LeaderChangeMessage\"" in line for line in lines)
    topic = next(line for line in lines if '"TopicRecord"' in line)
    assert topic.startswith("| offset: ") and " key: null payload: {\"type\": \"TopicRecord\", \"version\": 0" in topic
