"""`kafkalog dump` of partition files and directories, and `kafkalog verify`, as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.log.partition.partition_expected import PARTITIONS, partition


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", *args], capture_output=True, text=True)


def lines(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_dump_index_files_as_json_with_absolute_offsets():
    seg = partition("orders-0")["segments"][-1]  # the active segment: preallocated slots are not printed
    result = run("dump", "--format", "json", str(PARTITIONS / "orders-0" / seg["index"]["file"]),
                 str(PARTITIONS / "orders-0" / seg["timeindex"]["file"]))
    assert result.returncode == 0
    out = lines(result)
    assert [{k: v for k, v in o.items() if k != "type"} for o in out if o["type"] == "index"] == seg["index"]["entries"]
    assert [{k: v for k, v in o.items() if k != "type"} for o in out if o["type"] == "timeindex"] == \
        seg["timeindex"]["entries"]
    ends = [o for o in out if o["type"] == "index_end"]
    assert [e["unused_slots"] for e in ends] == [seg["index"]["preallocated_empty_slots"],
                                                 seg["timeindex"]["preallocated_empty_slots"]]


def test_dump_snapshot_txnindex_and_checkpoint():
    p = partition("payments-0")
    snap, txn = p["snapshots"][0], p["segments"][1]["txnindex"]
    result = run("dump", "--format", "json", str(PARTITIONS / "payments-0" / snap["file"]),
                 str(PARTITIONS / "payments-0" / txn["file"]), str(PARTITIONS / "payments-0" / "leader-epoch-checkpoint"))
    assert result.returncode == 0
    out = lines(result)
    assert [{k: v for k, v in o.items() if k != "type"} for o in out if o["type"] == "snapshot_entry"] == \
        snap["producer_entries"]
    assert [{k: v for k, v in o.items() if k != "type"} for o in out if o["type"] == "aborted_txn"] == txn["entries"]
    assert [{k: v for k, v in o.items() if k != "type"} for o in out if o["type"] == "leader_epoch"] == \
        p["leader_epoch_checkpoint"]["entries"]
    assert [o["crc_valid"] for o in out if o["type"] == "snapshot"] == [True]


def test_dump_text_follows_kafka_dump_log():
    result = run("dump", str(PARTITIONS / "payments-0" / "00000000000000000097.txnindex"))
    assert result.returncode == 0
    assert result.stdout.splitlines()[1] == \
        "version: 0 producerId: 3001 firstOffset: 83 lastOffset: 97 lastStableOffset: 98"


def test_dump_partition_directory():
    result = run("dump", "--format", "json", str(PARTITIONS / "orders-1"))
    assert result.returncode == 0
    out = lines(result)
    assert [o["offset"] for o in out if o["type"] == "record"] == [r["offset"] for r in partition("orders-1")["records"]]
    assert len([o for o in out if o["type"] == "leftover"]) == 5
    files = [o["path"].rsplit("/", 1)[-1] for o in out if o["type"] == "file"]
    assert files[:3] == ["00000000000000000083.log", "00000000000000000083.index", "00000000000000000083.timeindex"]
    assert files[-1] == "leader-epoch-checkpoint" and not any(".deleted" in f for f in files)


def test_dump_damaged_snapshot_exits_1(tmp_path):
    data = bytearray((PARTITIONS / "orders-0" / "00000000000000000106.snapshot").read_bytes())
    data[-1] ^= 0x01
    (tmp_path / "00000000000000000106.snapshot").write_bytes(bytes(data))
    result = run("dump", "--format", "json", str(tmp_path / "00000000000000000106.snapshot"))
    assert result.returncode == 1 and lines(result)[-1]["type"] == "error"


def test_dump_unknown_file_is_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    assert run("dump", str(tmp_path / "notes.txt")).returncode == 2


def test_verify_exit_status_and_summary():
    good = run("verify", str(PARTITIONS / "orders-0"))
    # OK, with a note: the active segment's time index is preallocated, as a running broker leaves it
    assert good.returncode == 0 and good.stdout.strip().endswith("OK, 1 note(s)") and good.stderr == ""
    bad = run("verify", "--format", "json", str(PARTITIONS))
    assert bad.returncode == 1
    out = lines(bad)
    problems = [o for o in out if o["type"] == "problem"]
    assert {(o["file"].rsplit("/", 1)[-1], o["entry"]) for o in problems} == \
        {(p["file"], p["entry"]) for p in partition("broken-index-0")["index_problems"]}
    assert out[-1]["type"] == "summary" and out[-1]["partitions"] == 4 and not out[-1]["ok"]
    assert run("verify", str(PARTITIONS / "nope")).returncode == 2
