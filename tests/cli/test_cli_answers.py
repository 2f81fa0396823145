"""The command line answers honestly: what it cannot read is a usage error, never "OK"; exit status,
output encoding, Ctrl-C, progress on a terminal, and the options kafka-dump-log.sh users expect.

Every input is a file Kafka's library wrote (tests/fixtures, samples), copied, renamed or cut.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.kafka_reference import SEGMENTS
from tests.paths import ROOT as REPO
from tests.terminal import with_stderr_on_a_terminal

PARTITIONS = REPO / "tests" / "fixtures" / "partitions"


def run(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", *args], capture_output=True, text=True,
                          errors="replace", env={**os.environ, **(env or {})}, **kw)


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr, result.stderr


# --- files and directories kafkalog cannot read -------------------------------------------------

@pytest.fixture
def odd_files(tmp_path):
    (tmp_path / "random.bin").write_bytes(bytes(range(256)) * 20)
    (tmp_path / "notes.txt").write_text("not a Kafka file\n")
    shutil.copy(SEGMENTS / "v2-none.log", tmp_path / "segment.bin")
    (tmp_path / "cleaner.checkpoint").write_text("0\n1\norders 0 42\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "dir.log").mkdir()
    (tmp_path / "no-kafka").mkdir()
    (tmp_path / "no-kafka" / "README").write_text("hello\n")
    return tmp_path


@pytest.mark.parametrize("command", ["verify", "dump"])
@pytest.mark.parametrize("name", ["random.bin", "notes.txt", "segment.bin", "cleaner.checkpoint"])
def test_a_file_of_unknown_kind_is_a_usage_error(odd_files, command, name):
    result = run(command, str(odd_files / name))
    assert result.returncode == 2, result
    assert "OK" not in result.stdout and result.stdout == ""
    assert "cannot tell from its name what kind of Kafka file" in result.stderr and "--type" in result.stderr
    no_traceback(result)


@pytest.mark.parametrize("command", ["verify", "dump"])
@pytest.mark.parametrize("name", ["empty", "dir.log", "no-kafka"])
def test_a_directory_without_kafka_files_is_a_usage_error(odd_files, command, name):
    result = run(command, str(odd_files / name))
    assert result.returncode == 2 and "no Kafka files here" in result.stderr and "OK" not in result.stdout
    no_traceback(result)


def test_type_log_reads_a_renamed_segment(odd_files):
    verified = run("verify", "--type", "log", str(odd_files / "segment.bin"))
    assert verified.returncode == 0 and "3 batches" in verified.stdout and verified.stdout.rstrip().endswith("OK")
    renamed = run("dump", "--type", "log", "--format", "json", str(odd_files / "segment.bin"))
    original = run("dump", "--format", "json", str(SEGMENTS / "v2-none.log"))
    assert renamed.returncode == 0 and renamed.stdout == original.stdout
    # Random bytes read as a segment are damage, not a pass.
    random = run("verify", "--type", "log", str(odd_files / "random.bin"))
    assert random.returncode == 1 and "byte 0" in random.stdout and "OK" not in random.stdout


def test_type_names_other_kinds_too(tmp_path):
    index = tmp_path / "renamed-index"
    shutil.copy(PARTITIONS / "orders-0" / "00000000000000000000.index", index)
    result = run("dump", "--type", "index", str(index))
    assert result.returncode == 0 and result.stdout.splitlines()[1].startswith("offset: ")
    assert run("verify", "--type", "index", str(index)).returncode == 0
    assert run("verify", "--type", "nonsense", str(index)).returncode == 2


# --- log directories and KRaft snapshots ---------------------------------------------------------

def test_dump_of_a_log_directory_dumps_every_partition(tmp_path):
    for name in ("orders-0", "payments-0"):
        shutil.copytree(PARTITIONS / name, tmp_path / name)
    whole = run("dump", "--format", "json", str(tmp_path))
    assert whole.returncode == 0
    lines = [json.loads(line) for line in whole.stdout.splitlines()]
    assert [x["path"] for x in lines if x["type"] == "partition"] == [str(tmp_path / "orders-0"),
                                                                      str(tmp_path / "payments-0")]
    each = sum(run("dump", "--format", "json", str(tmp_path / n)).stdout.count('"type":"batch"')
               for n in ("orders-0", "payments-0"))
    assert sum(x["type"] == "batch" for x in lines) == each > 0


@pytest.fixture
def metadata_log_dir(tmp_path):
    """A KRaft log directory: __cluster_metadata-0 with a segment and a snapshot, and bootstrap.checkpoint,
    each a Kafka-written record-batch file (the KRaft control fixture)."""
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    shutil.copy(SEGMENTS / "v2-kraft-control.log", partition / "00000000000000000000.log")
    shutil.copy(SEGMENTS / "v2-kraft-control.log", partition / "00000000000000000007-0000000004.checkpoint")
    shutil.copy(SEGMENTS / "v2-none.log", tmp_path / "bootstrap.checkpoint")
    return tmp_path


def test_kraft_snapshots_are_dumped_as_kafka_dump_log_does(metadata_log_dir):
    snapshot = metadata_log_dir / "__cluster_metadata-0" / "00000000000000000007-0000000004.checkpoint"
    result = run("dump", "--format", "kafka", str(snapshot))
    lines = result.stdout.splitlines()
    assert result.returncode == 0
    assert lines[:2] == [f"Dumping {snapshot}", "Snapshot end offset: 7, epoch: 4"]
    assert "SnapshotHeader {" in lines[3] and "SnapshotFooter {\"version\":0}" in lines[-1]
    bootstrap = run("dump", "--format", "kafka", str(metadata_log_dir / "bootstrap.checkpoint"))
    assert bootstrap.stdout.splitlines()[1] == "KRaft bootstrap snapshot"


def test_a_metadata_log_directory_is_read_whole(metadata_log_dir):
    verified = run("verify", "--format", "json", str(metadata_log_dir))
    summary = json.loads(verified.stdout.splitlines()[-1])
    # the segment, the snapshot (6 batches each) and bootstrap.checkpoint (3 batches)
    assert verified.returncode == 0 and summary["batches"] == 6 + 6 + 3 and summary["ok"]
    dumped = run("dump", "--format", "json", str(metadata_log_dir))
    files = [json.loads(x)["path"] for x in dumped.stdout.splitlines() if '"type":"file"' in x]
    assert [Path(f).name for f in files] == ["00000000000000000000.log", "00000000000000000007-0000000004.checkpoint",
                                             "bootstrap.checkpoint"]
    # A damaged snapshot is found.
    snapshot = metadata_log_dir / "__cluster_metadata-0" / "00000000000000000007-0000000004.checkpoint"
    data = bytearray(snapshot.read_bytes())
    data[100] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    damaged = run("verify", str(metadata_log_dir))
    assert damaged.returncode == 1 and "00000000000000000007-0000000004.checkpoint: byte 83: checksum" in damaged.stdout


# --- output encoding ----------------------------------------------------------------------------

@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
                                 {"PYTHONIOENCODING": "latin-1"}])
def test_any_stdout_encoding(env):
    formats = ("text", "kafka", "json")
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda fmt: run("dump", "--format", fmt, "--full", str(SEGMENTS / "v2-headers.log"),
                                                env=env), formats))
    for fmt, result in zip(formats, results, strict=True):
        no_traceback(result)
        assert result.returncode == 0, result.stderr
        if fmt == "json":
            assert all(json.loads(line) for line in result.stdout.splitlines())
    # Non-ASCII header keys come out escaped, not as mojibake or an error.
    text = run("dump", str(SEGMENTS / "v2-headers.log"), env={"PYTHONIOENCODING": "ascii"}).stdout
    assert "\\x" in text or "\\u" in text


def test_control_characters_never_reach_the_terminal(tmp_path):
    # A Kafka-written value with a newline and an escape sequence in it (a mutated copy, CRC left as is).
    data = (SEGMENTS / "v2-none.log").read_bytes()
    at = data.index(b"value")
    damaged = data[:at] + b"\n\x1b[" + data[at + 3:]
    (tmp_path / "x.log").write_bytes(damaged)
    for fmt in ("text", "kafka"):
        out = run("dump", "--format", fmt, "--full", str(tmp_path / "x.log")).stdout
        assert "\x1b" not in out and "\\n\\x1b[" in out


# --- exit status --------------------------------------------------------------------------------

def test_usage_errors_exit_2_everywhere(tmp_path):
    cases = []
    for args in (["dump"], ["dump", "/no/such/file.log"], ["verify", "/no/such"], ["frobnicate"],
                 ["dump", "--bogus", str(SEGMENTS / "v2-none.log")], ["dump", "--max-bytes", "lots", "x.log"],
                 ["ingest", "/no/such/dir", "--output", str(tmp_path / "out")],
                 ["ingest", str(SEGMENTS / "v2-none.log"), "--output", str(tmp_path / "out"), "--option", "bogus=1"],
                 ["ingest", str(SEGMENTS / "v2-none.log"), "--output", str(tmp_path / "out"), "--option", "novalue"],
                 ["ingest", str(SEGMENTS / "v2-none.log")], ["ingest", "--frob"],
                 ["dump", "--decode-values", str(SEGMENTS / "v2-none.log")],
                 ["dump", "--schema-registry", "x.json", str(SEGMENTS / "v2-none.log")]):
        cases.append(args)
    # Independent processes, each mostly start-up: run them side by side.
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda args: run(*args), cases))
    for args, result in zip(cases, results, strict=True):
        assert result.returncode == 2, (args, result.returncode, result.stderr)
        no_traceback(result)


def test_version():
    from importlib.metadata import version

    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"kafkalog {version('kafkalog')}"


def test_ctrl_c_exits_130_without_a_traceback(tmp_path):
    big = tmp_path / "00000000000000000000.log"
    one = (SEGMENTS / "v2-none.log").read_bytes()
    big.write_bytes(one * (8_000_000 // len(one)))  # valid batches, offsets repeating: seconds of work
    # SIGINT as a terminal would deliver it, even where this test runs in the background (a shell's `&`
    # starts jobs with SIGINT ignored, and Python then keeps ignoring it).
    proc = subprocess.Popen([sys.executable, "-m", "kafkalog.cli", "dump", str(big)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.stdout.readline()  # it is dumping
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and b"Traceback" not in err


# --- kafka-dump-log.sh's options ----------------------------------------------------------------

def test_full_values():
    cut = run("dump", str(SEGMENTS / "v0-none.log")).stdout
    full = run("dump", "--full", str(SEGMENTS / "v0-none.log")).stdout
    assert "…" in cut and "…" not in full
    assert max(len(line) for line in full.splitlines()) > 8191 > max(len(line) for line in cut.splitlines())
    assert run("dump", "--print-data-log", str(SEGMENTS / "v0-none.log")).stdout == full


def test_shallow_prints_batches_only():
    for fmt in ("text", "json", "kafka"):
        deep = run("dump", "--format", fmt, str(SEGMENTS / "v2-gzip.log")).stdout.splitlines()
        shallow = run("dump", "--format", fmt, "--shallow", str(SEGMENTS / "v2-gzip.log")).stdout.splitlines()
        batch_lines = [line for line in deep if not line.startswith("|") and '"type":"record"' not in line]
        assert shallow == batch_lines and len(shallow) < len(deep)


def test_max_bytes_reads_the_batches_within_the_first_n_bytes():
    lines = [json.loads(x) for x in run("dump", "--format", "json", str(SEGMENTS / "v2-none.log")).stdout.splitlines()]
    batches = [x for x in lines if x["type"] == "batch"]
    limit = batches[1]["position"] + batches[1]["size"] + 5  # two whole batches and 5 bytes of the third
    result = run("dump", "--format", "json", "--max-bytes", str(limit), str(SEGMENTS / "v2-none.log"))
    got = [json.loads(x) for x in result.stdout.splitlines()]
    assert result.returncode == 0 and [x for x in got if x["type"] == "batch"] == batches[:2]
    assert not any(x["type"] == "error" for x in got)
    kafka = run("dump", "--format", "kafka", "--max-bytes", str(limit), str(SEGMENTS / "v2-none.log")).stdout
    assert "invalid bytes" not in kafka and kafka.count("baseOffset:") == 2
    # A segment cut short is still damage without --max-bytes.
    assert run("dump", str(SEGMENTS / "damaged-truncated-records.log")).returncode == 1


# --- progress on a terminal ---------------------------------------------------------------------

def test_progress_by_bytes_on_a_terminal_only(tmp_path):
    partition = PARTITIONS / "orders-0"
    total = sum(p.stat().st_size for p in partition.glob("*.log"))
    status, shown = with_stderr_on_a_terminal(["verify", str(partition)], subprocess.DEVNULL)
    assert status == 0 and " / " in shown and "KiB" in shown and "%" in shown
    assert f"{total / 1024:.1f} KiB" in shown
    with open(tmp_path / "out.txt", "w") as out:
        status, shown = with_stderr_on_a_terminal(["dump", str(partition)], out)
    assert status == 0 and f"{total / 1024:.1f} KiB" in shown
    assert "\r" not in (tmp_path / "out.txt").read_text()
    # Not a terminal: nothing but the results.
    quiet = run("verify", str(partition))
    assert quiet.stderr == ""
