"""`kafkalog dump` and `verify` on an Aiven remote segment's `.rsm-manifest` (its `.log` and `.indexes` beside it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kafkalog.remote.aiven_manifest import parse_manifest
from tests.dataset.test_aiven_remote import _tier
from tests.remote import aiven_writer
from tests.remote.test_aiven import PARTITION, SEGMENT, write


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def key():
    return aiven_writer.rsa_key()


@pytest.mark.parametrize("fmt", ["json", "text", "kafka"])
def test_dump_of_a_manifest_prints_the_segments_lines(tmp_path, key, fmt):
    written = write(tmp_path, key, chunk_size=4096, compression=True)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    remote = run("dump", "--format", fmt, "--private-key", f"key1={pem}", str(written.manifest))
    local = run("dump", "--format", fmt, str(SEGMENT))
    assert remote.returncode == local.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout.replace(str(SEGMENT), str(written.manifest))
    assert remote.stdout.count("\n") > 100  # 106 records and their batches


def test_verify_a_remote_segment_with_its_indexes(tmp_path, key):
    written = write(tmp_path, key, chunk_size=1000)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    result = run("verify", "--private-key", str(pem), str(written.manifest))
    local = run("verify", str(SEGMENT))
    assert result.returncode == 0, result.stdout + result.stderr
    # the batches and the offset and time index entries the local segment has, all checked
    assert result.stdout.splitlines()[-1] == local.stdout.splitlines()[-1]
    assert "1 segment(s), 3 file(s)" in result.stdout


def test_verify_names_the_object_and_byte_and_goes_on(tmp_path, key):
    written = write(tmp_path, key, chunk_size=1000)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    chunk = parse_manifest(written.manifest.read_bytes(), "m").chunks[4]
    data = bytearray(written.log.read_bytes())
    data[chunk.transformed_position + 100] ^= 0xFF
    written.log.write_bytes(bytes(data))
    written.indexes.unlink()
    result = run("verify", "--format", "json", "--private-key", str(pem), str(written.manifest))
    assert result.returncode == 1
    problems = [json.loads(line) for line in result.stdout.splitlines() if '"problem"' in line]
    kinds = sorted(p["kind"] for p in problems)
    assert kinds == ["remote_object", "remote_object", "remote_object"], problems
    chunk_problem = next(p for p in problems if "GCM" in p["detail"])
    assert f"{written.log}: byte {chunk.transformed_position}: chunk 4" in chunk_problem["detail"]
    assert sum("no .indexes object beside the manifest" in p["detail"] for p in problems) == 2  # offset, time


def test_encrypted_segment_without_its_key(tmp_path, key):
    written = write(tmp_path, key)
    result = run("dump", "--format", "json", str(written.manifest))
    assert result.returncode == 1
    assert "encrypted with key pair 'key1' and no private key was given" in result.stdout + result.stderr


def test_dump_and_verify_a_log_directory_with_its_remote_root(tmp_path, key):
    data, root, pem = _tier(tmp_path, key, 3, 3)
    dumped = run("dump", "--format", "json", "--private-key", str(pem), "--remote-root", str(root), str(data))
    assert dumped.returncode == 0, dumped.stderr
    lines = [json.loads(line) for line in dumped.stdout.splitlines()]
    whole = run("dump", "--format", "json", str(PARTITION))
    want = [json.loads(line)["offset"] for line in whole.stdout.splitlines() if '"type":"record"' in line]
    assert [d["offset"] for d in lines if d["type"] == "record"] == want
    files = [d["path"] for d in lines if d["type"] == "file"]
    assert [f.endswith(".rsm-manifest") for f in files[:4]] == [True, True, True, False]  # remote ones first
    checked = run("verify", "--private-key", str(pem), "--remote-root", str(root), str(data))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 partition(s), 5 segment(s)" in checked.stdout and "OK" in checked.stdout
    # (dump lists a remote root through the same code: its store's retries take seconds, once is enough)
    unreachable = run("verify", "--remote-root", "s3://bucket/x", str(data), env={"AWS_ENDPOINT_URL": "http://127.0.0.1:9"})
    assert unreachable.returncode == 2 and unreachable.stderr.startswith("kafkalog: --remote-root s3://bucket/x: ")


def test_an_aiven_log_object_reads_through_its_manifest(tmp_path, key):
    written = write(tmp_path, key, chunk_size=1000, compression=True)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    by_object = run("dump", "--format", "json", "--private-key", str(pem), str(written.log))
    by_manifest = run("dump", "--format", "json", "--private-key", str(pem), str(written.manifest))
    assert by_object.returncode == 0 and by_object.stdout == by_manifest.stdout
    assert run("verify", "--private-key", str(pem), str(written.log)).returncode == 0
    raw = run("dump", "--type", "log", str(written.log))  # --type log: the object's bytes as they are
    assert raw.returncode == 1
