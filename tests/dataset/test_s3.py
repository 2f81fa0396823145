"""Tiered history in object storage: a log directory and a LocalTieredStorage root uploaded to a real
S3-protocol server on 127.0.0.1 read through s3:// URIs as they do from the local disk: in Python, and with
`kafkalog ingest`, the command that reads them with Spark's data source (in its own process, whose Spark
workers get the same S3 settings) into Parquet."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import kafkalog
from kafkalog import cli
from tests.dataset.s3_server import environment, s3_server, upload
from tests.dataset.test_remote_root import ORDERS, _tier
from tests.paths import ROOT
from tests.terminal import with_stderr_on_a_terminal


@pytest.fixture(scope="module")
def tiered(tmp_path_factory):
    """orders-0 tiered: segments 0-2 remote, 2 on (an overlap) in the log directory."""
    tmp = tmp_path_factory.mktemp("s3")
    return tmp, *_tier(tmp, 3, 2)


@pytest.fixture(scope="module")
def bucket(tiered):
    tmp, data, root = tiered
    with s3_server(tmp / "s3.log") as env:
        upload(env, data, "kafkalog-test/data")
        upload(env, root, "kafkalog-test/remote")
        yield env


def test_read_arrow_reads_log_directory_and_remote_root_through_s3(bucket):
    whole = kafkalog.read_table(ORDERS)
    with environment(bucket):
        got = kafkalog.read_table("s3://kafkalog-test/data", remoteRoot="s3://kafkalog-test/remote",
                                  includeKafkalogColumns=True)
    assert got.column("offset").to_pylist() == whole.column("offset").to_pylist()
    assert got.column("value").equals(whole.column("value"))
    assert all(s.startswith("s3://kafkalog-test/") for s in got.column("segment").to_pylist())
    assert any("/remote/" in s for s in got.column("segment").to_pylist())


def test_the_ingest_command_reads_the_same_uris_into_parquet_with_progress_on_a_terminal(bucket, tmp_path):
    """`kafkalog ingest` of the bucket through Spark writes the records the local files hold; on a terminal it
    shows its progress by the bytes of the segments it planned, to 100%. (One Spark run for both: each costs
    a JVM and its Python workers.)"""
    env = {**os.environ, **bucket, "PYSPARK_PYTHON": sys.executable}
    out = tmp_path / "parquet"
    status, shown = with_stderr_on_a_terminal(["ingest", "s3://kafkalog-test/data", "--option",
                                               "remoteRoot=s3://kafkalog-test/remote", "--master", "local[1]",
                                               "--output", str(out)], subprocess.DEVNULL, env=env, cwd=ROOT)
    # On a failure, all the terminal showed: Spark's start-up warnings come first, the command's error last.
    assert status == 0, f"exit status {status}; the terminal showed:\n{shown}"
    written = pq.read_table(out)
    assert sorted(written.column("offset").to_pylist()) == kafkalog.read_table(ORDERS).column("offset").to_pylist()
    done = re.findall(r"ingest  (\d+\.\d KiB) / (\d+\.\d KiB) \(100%\)", shown)
    assert done and done[-1][0] == done[-1][1], shown


def test_dump_reads_remote_segments_and_a_remote_root_through_s3(bucket, tiered):
    """`kafkalog dump` of a remote segment behind an s3:// URI, and of a whole remote root with the local log
    directory's partitions, prints what it prints from the local disk."""
    env = {**os.environ, **bucket}
    local = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", str(ORDERS)],
                           capture_output=True, text=True)
    want = sorted(json.loads(line)["offset"] for line in local.stdout.splitlines() if '"type":"record"' in line)
    # the local partition from disk, the remote root from S3: the segment both hold printed once
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json",
                          "--remote-root", "s3://kafkalog-test/remote", str(tiered[1] / "orders-0")],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    got = sorted(json.loads(line)["offset"] for line in res.stdout.splitlines() if '"type":"record"' in line)
    assert got == want
    files = [json.loads(line)["path"] for line in res.stdout.splitlines() if '"type":"file"' in line]
    files = [f for f in files if f.startswith("s3://")]
    assert len(files) == 2 and all(f.startswith("s3://kafkalog-test/remote/") and f.endswith(".log") for f in files)
    one = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", files[0]], capture_output=True, text=True,
                         env=env)
    assert one.returncode == 0 and one.stdout.startswith(f"Dumping {files[0]}\n"), one.stderr[-2000:]
    # kafka-dump-log.sh's lines of an object behind a URI (its name is not a Kafka segment's: no starting offset)
    kafka = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "kafka", files[0]],
                           capture_output=True, text=True, env=env)
    assert kafka.returncode == 0, kafka.stderr[-2000:]
    assert kafka.stdout.startswith(f"Dumping {files[0]}\nbaseOffset: 0 "), kafka.stdout[:300]


def _verify(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkalog.cli", "verify", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def test_verify_checks_remote_segments_and_a_remote_root_through_s3(bucket, tiered, tmp_path):
    """`kafkalog verify` of a segment behind an s3:// URI (its index files read from beside it), and of a
    remote root with the local partition, reports what it reports on the local copies; a damaged object is
    named by its URI and the byte, and the other segments are still checked."""
    _, data, root = tiered
    on_disk = _verify("--remote-root", str(root), str(data / "orders-0"))
    in_s3 = _verify("--remote-root", "s3://kafkalog-test/remote", str(data / "orders-0"), env=bucket)
    assert on_disk.returncode == in_s3.returncode == 0, in_s3.stderr[-2000:]
    assert in_s3.stdout == on_disk.stdout
    assert "1 partition(s), 6 segment(s)" in in_s3.stdout  # 3 remote, 3 local: the one both hold checked twice

    local_log = sorted(root.rglob("*.log"))[1]
    relative = local_log.relative_to(root).as_posix()
    one = _verify(f"s3://kafkalog-test/remote/{relative}", env=bucket)
    assert one.returncode == 0, one.stderr[-2000:]
    assert one.stdout == _verify(str(local_log)).stdout
    assert "3 file(s)" in one.stdout  # the .log, and its .index and .timeindex from beside it

    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for f in local_log.parent.glob(local_log.name.removesuffix(".log") + ".*"):
        data_ = bytearray(f.read_bytes())
        if f.suffix == ".log":
            data_[200] ^= 0xFF  # inside the first batch: its CRC no longer matches
        (damaged / f.name).write_bytes(bytes(data_))
    upload(bucket, damaged, "kafkalog-test/damaged")
    uri = f"s3://kafkalog-test/damaged/{local_log.name}"
    bad = _verify(uri, env=bucket)
    local_bad = _verify(str(damaged / local_log.name))
    assert bad.returncode == local_bad.returncode == 1
    assert bad.stdout == local_bad.stdout.replace(str(damaged / local_log.name), uri)
    assert bad.stdout.startswith(f"{uri}: byte ")
    missing = _verify("s3://kafkalog-test/damaged/00000000000000000000-none.log", env=bucket)
    assert missing.returncode == 2 and "no such object" in missing.stderr


def _dump(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`kafkalog dump ARGS...` in this process (its exit status, what it printed), with `env` set meanwhile."""
    out, err = io.StringIO(), io.StringIO()
    with environment(env or {}), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["dump", *args])
    assert code in (0, 1), err.getvalue()[-2000:]
    return code, out.getvalue()


def test_dump_and_verify_read_a_log_directory_behind_a_uri(bucket, tiered):
    """A log directory behind a URI: dump prints what it prints of the same directory on the local disk (its
    partitions, each file after a file line), but for where the files lie; verify checks it as it checks the local
    copy."""
    _, data, _ = tiered
    local = _dump("--format", "json", str(data))
    assert _dump("--format", "json", "s3://kafkalog-test/data", env=bucket) == \
        (local[0], local[1].replace(str(data), "s3://kafkalog-test/data"))
    assert '"type":"record"' in local[1] and '.timeindex"' in local[1]
    checked = _verify("s3://kafkalog-test/data", env=bucket)
    on_disk = _verify(str(data))
    assert checked.returncode == on_disk.returncode == 0, checked.stdout + checked.stderr
    # the same checks as on the local copy: every file of the partition, not only its segments
    assert checked.stdout.replace("s3://kafkalog-test/data", str(data)) == on_disk.stdout
    assert checked.stdout.splitlines()[-1].startswith("1 partition(s), 3 segment(s), 12 file(s)")
    empty = _verify("s3://kafkalog-test/nothing-here", env=bucket)
    assert empty.returncode == 2, empty.stdout + empty.stderr


def _broker_dir(tmp_path):
    """A real broker's log directory (Kafka 4.3.1, `tests/brokers/fixtures/log-dirs`) as a restart would find it
    after the broker was killed: no clean shutdown, t-1's log start offset moved to 10 (deleteRecords), and t-0's
    segment ending in a preallocated segment's zeros, from its recovery point 0 on (recovered, and cut there)."""
    data = tmp_path / "broker"
    shutil.copytree(ROOT / "tests" / "brokers" / "fixtures" / "log-dirs" / "kraft-4.3.1", data)
    (data / ".kafka_cleanshutdown").unlink()
    (data / "log-start-offset-checkpoint").write_text("0\n1\nt 1 10\n")
    (data / "recovery-point-offset-checkpoint").write_text("0\n1\nt 1 32\n")
    with open(data / "t-0" / "00000000000000000000.log", "ab") as f:
        f.write(bytes(200))
    return data


def test_dump_of_a_broker_log_directory_behind_a_uri_prints_its_served_log(bucket, tmp_path):
    """A broker's log directory behind a URI prints its served log as the same directory on the local disk does
    (from each partition's log start offset, up to where Kafka's recovery cuts it), in each format, with
    --include-below-log-start, and for a partition directory or a glob of them named on their own."""
    data = _broker_dir(tmp_path)
    upload(bucket, data, "kafkalog-test/broker")
    uri = "s3://kafkalog-test/broker"
    cases = [(["--format", "json"], [data], [uri]),
             (["--format", "text"], [data], [uri]),
             (["--format", "kafka"], [data], [uri]),
             (["--format", "json", "--include-below-log-start"], [data], [uri]),
             (["--format", "text"], [data / "t-1"], [f"{uri}/t-1"]),
             (["--format", "json"], sorted(data.glob("t-*")), [f"{uri}/t-*"])]
    for args, local, remote in cases:
        want = _dump(*args, *map(str, local))
        assert _dump(*args, *remote, env=bucket) == (want[0], want[1].replace(str(data), uri)), args
    served = _dump("--format", "json", uri, env=bucket)[1]
    assert '"type":"not_served"' in served and '"log_start_offset":10' in served  # (the cases to get right)
    offsets: dict[str, list[int]] = {}
    partition = ""
    for o in map(json.loads, served.splitlines()):
        if o["type"] == "partition" or (o["type"] == "file" and o["path"].endswith("/bootstrap.checkpoint")):
            partition = o["path"].rsplit("/", 1)[-1]
        elif o["type"] == "record":
            offsets.setdefault(partition, []).append(o["offset"])
    assert offsets["t-0"] == list(range(20)) and offsets["t-1"] == list(range(10, 32))
    # verify checks the directory behind the URI as it checks the local copy: each partition's files, the log
    # directory's own files, and what recovery cuts (notes, not problems).
    checked, on_disk = _verify(uri, env=bucket), _verify(str(data))
    assert (checked.returncode, checked.stdout.replace(uri, str(data))) == (on_disk.returncode, on_disk.stdout)
    assert "log-start-offset-checkpoint" in on_disk.stdout or "recovery" in on_disk.stdout, on_disk.stdout


def test_an_object_gone_while_it_is_read_is_an_error_naming_it_and_the_bytes(bucket, tmp_path):
    """A store's error in the middle of a read (here the object deleted after it was opened) names the object
    and the bytes asked for, as the CLI prints it; pyarrow's own error names neither."""
    from kafkalog.uri_path import ReadAheadFile, UriPath

    segment = ROOT / "samples" / "v2-none.log"
    upload(bucket, segment.parent, "kafkalog-test/gone")
    uri = f"s3://kafkalog-test/gone/{segment.name}"
    with environment(bucket):
        opened = UriPath(uri).open()
        UriPath(uri)._filesystem.delete_file(f"kafkalog-test/gone/{segment.name}")
        with pytest.raises(OSError) as raised:
            opened.read(10)
    assert raised.value.filename == uri
    assert str(raised.value.strerror).startswith(f"cannot read bytes 0 to {segment.stat().st_size}: ")
    assert isinstance(opened, ReadAheadFile)
