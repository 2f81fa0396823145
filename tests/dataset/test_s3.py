"""Tiered history in object storage: a log directory and a LocalTieredStorage root uploaded to a real
S3-protocol server on 127.0.0.1 read through s3:// URIs as they do from the local disk: in Python, and with
`kafkalog ingest`, the command that reads them with Spark's data source (in its own process, whose Spark
workers get the same S3 settings) into Parquet."""
from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import kafkalog
from tests.dataset.s3_server import environment, s3_server, upload
from tests.dataset.test_remote_root import ORDERS, _tier
from tests.paths import ROOT

@pytest.fixture(scope="module")
def bucket(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s3")
    data, root = _tier(tmp, 3, 2)
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


def test_the_ingest_command_reads_the_same_uris_into_parquet(bucket, tmp_path):
    env = {**os.environ, **bucket, "PYSPARK_PYTHON": sys.executable}
    out = tmp_path / "parquet"
    res = subprocess.run([sys.executable, "-m", "kafkalog.cli", "ingest", "s3://kafkalog-test/data",
                          "--option", "remoteRoot=s3://kafkalog-test/remote", "--master", "local[1]",
                          "--output", str(out)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    written = pq.read_table(out)
    assert sorted(written.column("offset").to_pylist()) == kafkalog.read_table(ORDERS).column("offset").to_pylist()
