"""A broker's log directory behind an s3:// URI (a real 4.3.1 broker's, tests/brokers/fixtures/log-dirs, uploaded
to a real S3-protocol server on 127.0.0.1) reads as it does from the local disk: walked through
`kafkalog.uri_path.UriPath`, its partitions are read as the broker's start-up loads them (log start offset,
recovery's cut), in `read_arrow` and `partition_bounds`. tests/brokers/test_cluster_uris.py reads a whole
cluster's disks so."""
from __future__ import annotations

import shutil

import pyarrow.compute as pc
import pytest

import kafkalog
from kafkalog.uri_path import UriPath, as_path, glob_uri
from tests.dataset.s3_server import environment, s3_server, upload
from tests.log.test_served_log import FIXTURE, SEGMENT, set_checkpoint

BUCKET = "kafkalog-test/disks"


@pytest.fixture(scope="module")
def disks(tmp_path_factory):
    """Two copies of the broker's disk, named as partition directories are (`broker-1`: a log directory all the
    same, since it holds meta.properties): `broker-1` as the broker left it; `broker-2` killed, its t-0 starting
    at 5 (deleteRecords) and ending in preallocated zeros."""
    tmp = tmp_path_factory.mktemp("uris")
    one, two = tmp / "broker-1", tmp / "broker-2"
    shutil.copytree(FIXTURE, one)
    shutil.copytree(FIXTURE, two)
    (two / ".kafka_cleanshutdown").unlink()
    set_checkpoint(two, "log-start-offset-checkpoint", {("t", 0): 5})
    log = two / "t-0" / SEGMENT
    log.write_bytes(log.read_bytes() + bytes(4096))
    with s3_server(tmp / "s3.log") as env:
        upload(env, one, f"{BUCKET}/broker-1")
        upload(env, two, f"{BUCKET}/broker-2")
        with environment(env):
            yield tmp


def test_a_uri_path_walks_a_bucket_as_a_path_walks_a_disk(disks):
    disk = as_path(f"s3://{BUCKET}/broker-2")
    assert isinstance(disk, UriPath) and disk.is_dir() and not disk.is_file()
    assert [p.name for p in disk.iterdir()] == sorted(p.name for p in (disks / "broker-2").iterdir())
    log = disk / "t-0" / SEGMENT
    assert log.is_file() and log.stat().st_size == (disks / "broker-2" / "t-0" / SEGMENT).stat().st_size
    assert log.parent.parent == disk and log.suffix == ".log" and str(log) == f"s3://{BUCKET}/broker-2/t-0/{SEGMENT}"
    assert log.read_bytes() == (disks / "broker-2" / "t-0" / SEGMENT).read_bytes()
    assert [p.name for p in (disk / "t-0").glob("*.log")] == [SEGMENT]
    assert not (disk / "nothing").exists()
    assert [str(p) for p in glob_uri(f"s3://{BUCKET}/broker-*")] == [f"s3://{BUCKET}/broker-1", str(disk)]


@pytest.mark.parametrize("disk", ["broker-1", "broker-2"])
def test_read_arrow_of_a_log_directory_uri_reads_the_served_log(disks, disk):
    local = kafkalog.read_table(str(disks / disk), subscribe="t")
    got = kafkalog.read_table(f"s3://{BUCKET}/{disk}", subscribe="t")
    assert got.column("offset").to_pylist() == local.column("offset").to_pylist()
    assert got.column("value").equals(local.column("value"))
    t0 = pc.filter(got.column("offset"), pc.equal(got.column("partition"), 0)).to_pylist()
    assert t0 == (list(range(20)) if disk == "broker-1" else list(range(5, 20)))


def test_partition_bounds_of_a_log_directory_uri(disks):
    where = ["log_dir", "truncated_segment", "deleted_segments"]
    local = kafkalog.partition_bounds(str(disks / "broker-2"))
    got = kafkalog.partition_bounds(f"s3://{BUCKET}/broker-2")
    assert got.column("log_dir").to_pylist() == [f"s3://{BUCKET}/broker-2"] * local.num_rows
    assert got.drop_columns(where).equals(local.drop_columns(where))
    t0 = got.filter(pc.and_(pc.equal(got.column("topic"), "t"), pc.equal(got.column("partition"), 0))).to_pylist()
    assert (t0[0]["log_start_offset"], t0[0]["log_end_offset"]) == (5, 20)
    assert t0[0]["truncated_segment"] == f"s3://{BUCKET}/broker-2/t-0/{SEGMENT}"
