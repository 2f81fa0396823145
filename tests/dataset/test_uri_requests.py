"""A cluster's disks behind s3:// URIs cost a bounded number of requests to the store: three copies of a real 4.3.1
broker's log directory (tests/brokers/fixtures/log-dirs), node ids 1-3, uploaded to a real S3-protocol server on
127.0.0.1, whose log counts every request. A command lists each directory once, knows what a listing named
without asking again, and opens and fetches each file once (`kafkalog.uri_path.requests_once`): at most one
stat and one listing per directory, one open (pyarrow's asks the object's size) and one fetch per file, where
it asked of a directory once per replica and command and of a file once per reader (455 requests for `dump`,
558 for `verify`). The output is what the local disks give."""
from __future__ import annotations

import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest

import kafkalog
from kafkalog import cli
from kafkalog.uri_path import as_path, requests_once
from tests.dataset.s3_server import environment, s3_server, upload
from tests.log.test_served_log import FIXTURE

BUCKET = "kafkalog-test/requests"
NODES = (1, 2, 3)


@pytest.fixture(scope="module")
def disks(tmp_path_factory):
    """(local disks, the S3 server's record of requests, its environment): node-1 to node-3, one cluster."""
    tmp = tmp_path_factory.mktemp("requests")
    local = []
    for n in NODES:
        d = tmp / f"node-{n}"
        shutil.copytree(FIXTURE, d)
        meta = d / "meta.properties"
        text = re.sub(r"node\.id=\d+", f"node.id={n}", meta.read_text())
        meta.write_text(re.sub(r"directory\.id=\S", f"directory.id={'ABCD'[n]}", text))  # (a UUID each)
        local.append(d)
    log = tmp / "requests.jsonl"
    with s3_server(tmp / "s3.log", record=log) as env:
        for n, d in zip(NODES, local, strict=True):
            upload(env, d, f"{BUCKET}/node-{n}")
        yield local, log, env


def _requests(log: Path) -> int:
    """The requests the server answered so far (each recorded before it is answered)."""
    with open(log, "rb") as f:
        return sum(1 for _ in f)


def _most(local: list[Path]) -> int:
    """One stat and one listing per directory, one open and one fetch per file (each file is below a block)."""
    dirs = files = 0
    for d in local:
        for p in [d, *d.rglob("*")]:
            dirs, files = (dirs + 1, files) if p.is_dir() else (dirs, files + 1)
    return 2 * dirs + 2 * files


def _cli(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    return code, out.getvalue()


def _uris() -> list[str]:
    return [f"s3://{BUCKET}/node-{n}" for n in NODES]


def _as_uris(text: str, local: list[Path]) -> str:
    for n, d in zip(NODES, local, strict=True):
        text = text.replace(str(d), f"s3://{BUCKET}/node-{n}")
    return text


@pytest.mark.parametrize("command", [["dump", "--format", "json"], ["verify", "--format", "json"],
                                     ["reconcile", "--format", "json"]])
def test_a_command_over_disks_behind_uris_asks_each_directory_and_file_once(disks, command):
    local, log, env = disks
    want_code, want = _cli([*command, *map(str, local)])
    before = _requests(log)
    with environment(env):
        code, got = _cli([*command, *_uris()])
    asked = _requests(log) - before
    assert (code, got) == (want_code, _as_uris(want, local))
    assert 0 < asked <= _most(local), f"{asked} requests for {' '.join(command)}"


def test_read_arrow_plans_over_disks_behind_uris_asking_each_once(disks):
    local, log, env = disks
    want = kafkalog.read_table([str(d) for d in local], subscribe="t")
    before = _requests(log)
    with environment(env):
        got = kafkalog.read_table(_uris(), subscribe="t")
    asked = _requests(log) - before
    assert got.column("offset").to_pylist() == want.column("offset").to_pylist()
    assert 0 < asked <= _most(local), f"{asked} requests"


def test_outside_requests_once_every_call_asks_again(disks):
    """What the store said is kept within `requests_once` only (a command, a stream's trigger): after it, the store
    is asked again, so that what changed since is seen."""
    _, log, env = disks
    with environment(env):
        disk = _uris()[0]
        with requests_once():
            first = [p.name for p in as_path(disk).iterdir()]
            before = _requests(log)
            assert [p.name for p in as_path(disk).iterdir()] == first and (as_path(disk) / "t-0").is_dir()
            assert not (as_path(disk) / "nothing").exists()
            assert _requests(log) == before  # listed once: every name answered from that listing
            meta = (as_path(disk) / "meta.properties").read_bytes()
            assert (as_path(disk) / "meta.properties").read_bytes() == meta
            assert _requests(log) == before + 2  # opened (its size asked) and fetched once
        before = _requests(log)
        assert [p.name for p in as_path(disk).iterdir()] == first
        assert _requests(log) > before
