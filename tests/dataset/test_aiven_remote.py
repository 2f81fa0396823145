"""Aiven remote segments in the dataset reader: one `.rsm-manifest` read as its segment; a log directory with
an Aiven remote root read as the whole partition, each segment once; through s3:// on a real S3-protocol
server, in read_arrow and Spark; an unreadable remote segment a damage row that stops no other segment."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import kafka_jars  # scripts/kafka_jars.py (pytest's pythonpath)
import pytest

import kafkalog
from kafkalog.dataset import plan
from kafkalog.dataset.options import parse_options
from kafkalog.errors import FileNameError, KafkalogError
from tests.brokers.harness import java
from tests.dataset.s3_server import environment, s3_server, upload
from tests.paths import ROOT
from tests.remote import aiven_writer
from tests.remote.test_aiven import PARTITION, SEGMENT, TOPIC_ID

BASES = sorted(p.stem for p in PARTITION.glob("*.log"))


@pytest.fixture(scope="module")
def key():
    return aiven_writer.rsa_key()


def _tier(tmp_path, key, remote_count: int, local_from: int, prefix: str = "tiered/"):
    """orders-0's first `remote_count` segments as Aiven objects (each in another combination of chunking,
    compression and encryption) under a root with a prefix, its segments from `local_from` on in a log dir."""
    root = tmp_path / "bucket"
    for i, base in enumerate(BASES[:remote_count]):
        nxt = PARTITION / f"{BASES[i + 1]}.snapshot" if i + 1 < len(BASES) else None
        aiven_writer.write_segment(root, PARTITION / f"{base}.log", topic="orders", partition=0, topic_id=TOPIC_ID,
                                   segment_id=f"{i:022d}".replace("0", "B"), chunk_size=(1000, 4096, 1 << 20)[i % 3],
                                   compression=i % 2 == 1, key=key if i % 4 in (1, 2) else None,
                                   producer_snapshot=nxt if nxt and nxt.exists() else None, prefix=prefix)
    local = tmp_path / "data" / "orders-0"
    local.mkdir(parents=True)
    for base in BASES[local_from:]:
        for f in PARTITION.glob(f"{base}.*"):
            shutil.copy(f, local / f.name)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    return tmp_path / "data", root, pem


def _write_remote_log_metadata(log_dir: Path, segment_id: str, prefix: str, key: str) -> tuple[list[int], Path]:
    """`__remote_log_metadata` with the first segment's upload, its custom metadata naming the objects at
    `prefix` + `key`, written by Kafka's own RemoteLogMetadataSerde (tests/remote/java): the segment's
    offsets, and the metadata's partition directory."""
    records = kafkalog.read_table(PARTITION / f"{BASES[0]}.log").column("offset").to_pylist()
    metadata = log_dir / "__remote_log_metadata-0"
    metadata.mkdir(parents=True)
    cp = os.pathsep.join(kafka_jars.classpath("4.3.1"))
    subprocess.run([java(), "-cp", cp, str(ROOT / "tests" / "remote" / "java" / "RemoteLogMetadataRecords.java"),
                    str(metadata / "00000000000000000000.log"), "orders", "0", TOPIC_ID, segment_id, "0",
                    str(max(records)), "5000", prefix, key], check=True, capture_output=True, timeout=120)
    return records, metadata


def test_one_manifest_reads_as_its_segment(tmp_path, key):
    written = aiven_writer.write_segment(tmp_path, SEGMENT, topic="orders", partition=0, topic_id=TOPIC_ID,
                                         segment_id="C" * 22, chunk_size=1000, compression=True, key=key)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    got = kafkalog.read_table(str(written.manifest), remotePrivateKey=str(pem), includeKafkalogColumns=True)
    want = kafkalog.read_table(str(SEGMENT), includeKafkalogColumns=True)
    for column in ("offset", "key", "value", "timestamp", "batch_position"):
        assert got.column(column).equals(want.column(column)), column
    # the topic and partition come from the manifest, as the folder of a local segment gives them
    assert set(got.column("topic").to_pylist()) == {"orders"} and set(got.column("partition").to_pylist()) == {0}
    assert set(got.column("segment").to_pylist()) == {str(written.manifest)}
    # the .log object beside it is not read as a segment of its own
    folder = kafkalog.read_table(str(written.manifest.parent), remotePrivateKey=str(pem))
    assert folder.column("offset").to_pylist() == want.column("offset").to_pylist()


@pytest.mark.parametrize("remote_count, local_from", [(3, 3), (3, 2), (5, 4), (1, 0)])
def test_log_directory_and_aiven_root_give_the_whole_partition_once(tmp_path, key, remote_count, local_from):
    whole = kafkalog.read_table(PARTITION)
    data, root, pem = _tier(tmp_path, key, remote_count, local_from)
    for path in (root, root / "tiered", root / "tiered" / f"orders-{TOPIC_ID}"):
        got = kafkalog.read_table(data, remoteRoot=str(path), remotePrivateKey=f"key1={pem}")
        assert got.column("offset").to_pylist() == whole.column("offset").to_pylist()
        assert got.column("value").equals(whole.column("value"))
    part = kafkalog.read_table(data, remoteRoot=str(root), remotePrivateKey=str(pem),
                               startingOffsets=60, endingOffsets=250)
    assert part.column("offset").to_pylist() == [o for o in whole.column("offset").to_pylist() if 60 <= o < 250]


def test_an_encrypted_segment_without_its_key_is_damage_and_the_rest_reads(tmp_path, key):
    data, root, _ = _tier(tmp_path, key, 3, 3)  # segment 1 (106..206) and 2 (207..311) are encrypted
    with pytest.raises(KafkalogError, match="encrypted with key pair 'key1' and no private key was given"):
        kafkalog.read_table(data, remoteRoot=str(root), remotePrivateKey="")
    got = kafkalog.read_table(data, remoteRoot=str(root), mode="PERMISSIVE", includeKafkalogColumns=True)
    damage = [d for d in got.column("damage").to_pylist() if d]
    assert len(damage) == 2 and all("no private key was given" in d for d in damage)
    whole = kafkalog.read_table(PARTITION).column("offset").to_pylist()
    offsets = [o for o in got.column("offset").to_pylist() if o is not None]
    assert offsets == [o for o in whole if o < 106 or o >= 312]


def test_aiven_objects_on_a_real_s3_server_read_arrow_and_spark(tmp_path, key, spark):
    data, root, pem = _tier(tmp_path, key, 4, 3)
    whole = kafkalog.read_table(PARTITION).column("offset").to_pylist()
    # Spark over the Aiven objects, in the run's session (Spark over S3 itself: test_s3.py's ingest, which
    # needs a Spark of its own to see the server's address)
    df = (spark.read.format("kafkalog").option("remoteRoot", str(root)).option("remotePrivateKey", str(pem))
          .load(str(data)))
    assert sorted(r.offset for r in df.select("offset").collect()) == whole
    with s3_server(tmp_path / "s3.log") as env:
        upload(env, data, "aiven-test/data")
        upload(env, root, "aiven-test/remote")
        with environment(env):
            got = kafkalog.read_table("s3://aiven-test/data", remoteRoot="s3://aiven-test/remote",
                                      remotePrivateKey=str(pem), includeKafkalogColumns=True)
        assert got.column("offset").to_pylist() == whole
        assert any(s.endswith(".rsm-manifest") and s.startswith("s3://aiven-test/remote/tiered/")
                   for s in got.column("segment").to_pylist())
        # verify of an encrypted segment's manifest behind its URI: what it says of the local objects
        manifest = next(root.rglob(f"{BASES[1]}-*.rsm-manifest"))
        uri = "s3://aiven-test/remote/" + manifest.relative_to(root).as_posix()
        verify = [sys.executable, "-m", "kafkalog.cli", "verify", "--private-key", str(pem)]
        in_s3 = subprocess.run([*verify, uri], capture_output=True, text=True, env={**os.environ, **env})
        on_disk = subprocess.run([*verify, str(manifest)], capture_output=True, text=True)
        assert in_s3.returncode == on_disk.returncode == 0, in_s3.stdout + in_s3.stderr
        assert in_s3.stdout == on_disk.stdout and "1 segment(s), 3 file(s)" in in_s3.stdout


def test_offsets_missing_between_remote_segments_or_at_the_seam_are_data_loss(tmp_path, key, caplog):
    # no __remote_log_metadata here: the manifests' end offsets tell where each remote segment ends
    data, root, pem = _tier(tmp_path, key, 3, 4)  # remote 0, 106, 207; local 417: [312, 417) is nowhere
    next(root.rglob(f"{BASES[1]}-*.rsm-manifest")).unlink()  # and [106, 207) lost from the bucket
    with pytest.raises(KafkalogError, match=r"orders-0: offsets \[106, 207\) are in no remote or local segment"):
        kafkalog.read_table(data, remoteRoot=str(root), remotePrivateKey=str(pem))
    whole = kafkalog.read_table(PARTITION).column("offset").to_pylist()
    got = kafkalog.read_table(data, remoteRoot=str(root), remotePrivateKey=str(pem), failOnDataLoss="false")
    assert got.column("offset").to_pylist() == [o for o in whole if o < 106 or 207 <= o < 312 or o >= 417]
    assert "offsets [106, 207) are in no remote or local segment" in caplog.text and "[312, 417)" in caplog.text
    # kafkalog dump prints what there is, each gap an error line where it lies, and exits 1
    dumped = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", "--private-key",
                             str(pem), "--remote-root", str(root), str(data)], capture_output=True, text=True)
    assert dumped.returncode == 1, dumped.stderr
    lines = [json.loads(line) for line in dumped.stdout.splitlines()]
    every = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", str(PARTITION)],
                           capture_output=True, text=True).stdout.splitlines()
    every = [json.loads(line)["offset"] for line in every if '"type":"record"' in line]  # control records too
    assert [d["offset"] for d in lines if d["type"] == "record"] == [o for o in every if o < 106 or 207 <= o < 312
                                                                     or o >= 417]
    errors = [(i, d) for i, d in enumerate(lines) if d["type"] == "error"]
    assert [d["message"] for _, d in errors] == [f"orders-0: offsets [{a}, {b}) are in no remote or local segment"
                                                 for a, b in ((106, 207), (312, 417))]
    # each just before the lines of the segment that follows it
    assert [lines[i + 1]["type"] for i, _ in errors] == ["file", "partition"]
    assert lines[errors[0][0] + 1]["path"].endswith(".rsm-manifest") and BASES[2] in lines[errors[0][0] + 1]["path"]


@pytest.mark.parametrize("encrypted", [False, True])
def test_offsets_start_inside_an_aiven_segment_through_its_indexes_object(tmp_path, key, encrypted):
    written = aiven_writer.write_segment(tmp_path, SEGMENT, topic="orders", partition=0, topic_id=TOPIC_ID,
                                         segment_id="D" * 22, chunk_size=1000, compression=True,
                                         key=key if encrypted else None)
    pem = aiven_writer.write_pem(key, tmp_path / "key.pem")
    options = {"startingOffsets": "60", "remotePrivateKey": str(pem)}
    [rng] = plan.plan(str(written.manifest), parse_options(options))
    local = plan.plan(str(SEGMENT), parse_options(options))[0].start
    assert local > 0
    # the offset index inside .indexes (decrypted with the read's key) places the start as the local .index
    # does, so the chunks before it are never fetched
    assert rng.start == local
    got = kafkalog.read_table(str(written.manifest), **options).column("offset").to_pylist()
    assert got == [o for o in kafkalog.read_table(str(SEGMENT)).column("offset").to_pylist() if o >= 60]
    if encrypted:
        # without the key nothing places the start: the segment is planned whole, and reading it says why
        [rng] = plan.plan(str(written.manifest), parse_options({"startingOffsets": "60"}))
        assert rng.start == 0
        with pytest.raises(KafkalogError, match="no private key was given"):
            kafkalog.read_table(str(written.manifest), startingOffsets="60")


def test_objects_found_where_the_segments_custom_metadata_puts_them(tmp_path, key):
    """Aiven's storage manager returns a segment's object prefix and key as custom metadata, which the broker
    keeps in `__remote_log_metadata`; objects written under an earlier prefix and key are found there, where
    listing the root's default layout does not look. The metadata is written by Kafka's own classes
    (RemoteLogMetadataSerde, and Kafka's protocol types for Aiven's tagged fields)."""
    segment_id = "AAAAAAAAAAAAAAAAAAAAAQ"
    old = aiven_writer.write_segment(tmp_path / "old", PARTITION / f"{BASES[0]}.log", topic="orders", partition=0,
                                     topic_id=TOPIC_ID, segment_id=segment_id, chunk_size=4096)
    root = tmp_path / "bucket"
    (root / "archive" / "k").mkdir(parents=True)
    for written in (old.manifest, old.log, old.indexes):
        shutil.move(written, root / "archive" / "k" / ("seg-0" + written.name[written.name.index("."):]))
    records, metadata = _write_remote_log_metadata(tmp_path / "data", segment_id, "archive/", "k/seg-0")
    table = kafkalog.read_table(tmp_path / "data", subscribe="orders", remoteRoot=str(root), includeKafkalogColumns=True)
    assert table.column("offset").to_pylist() == records
    assert set(table.column("segment").to_pylist()) == {str(root / "archive" / "k" / "seg-0.rsm-manifest")}
    # kafkalog dump stitches with the same planner: it finds them too
    dumped = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json", "--remote-root",
                             str(root), str(tmp_path / "data")], capture_output=True, text=True)
    assert dumped.returncode == 0, dumped.stderr
    lines = [json.loads(line) for line in dumped.stdout.splitlines()]
    assert next(d["path"] for d in lines if d["type"] == "file") == str(root / "archive" / "k" / "seg-0.rsm-manifest")
    segment = subprocess.run([sys.executable, "-m", "kafkalog.cli", "dump", "--format", "json",
                              str(PARTITION / f"{BASES[0]}.log")], capture_output=True, text=True).stdout.splitlines()
    segment = [json.loads(line) for line in segment if '"type":"record"' in line]  # control records too
    assert [d for d in lines if d["type"] == "record"][:len(segment)] == segment
    # the prefix is optional in the root: a root that is the prefix's own folder finds them too
    inner = kafkalog.read_table(tmp_path / "data", subscribe="orders", remoteRoot=str(root / "archive"))
    assert inner.column("offset").to_pylist() == records
    # without the metadata, listing the root's default layout does not find them
    shutil.rmtree(metadata)
    metadata.mkdir()
    assert kafkalog.read_table(tmp_path / "data", subscribe="orders", remoteRoot=str(root)).num_rows == 0


@pytest.mark.parametrize("prefix,key,why", [
    ("../", "outside/k/seg-0", "a key with `.` or `..`"),
    ("archive/", "../../outside/k/seg-0", "a key with `.` or `..`"),
    ("", "ABSOLUTE", "an absolute key"),
    ("s3://other-bucket/", "k/seg-0", "a key that names a scheme or drive"),
])
def test_object_keys_that_leave_the_remote_root_are_not_followed(tmp_path, key, prefix, why):
    """Custom metadata whose prefix or key holds `..`, is absolute or names a scheme would read objects outside
    the remote root the user named (other prefixes or buckets the credentials reach): refused, naming the
    `__remote_log_metadata` record; with failOnDataLoss=false its offsets are missing, nothing outside is read."""
    segment_id = "AAAAAAAAAAAAAAAAAAAAAQ"
    old = aiven_writer.write_segment(tmp_path / "old", PARTITION / f"{BASES[0]}.log", topic="orders", partition=0,
                                     topic_id=TOPIC_ID, segment_id=segment_id, chunk_size=4096)
    (tmp_path / "outside" / "k").mkdir(parents=True)
    for written in (old.manifest, old.log, old.indexes):
        shutil.move(written, tmp_path / "outside" / "k" / ("seg-0" + written.name[written.name.index("."):]))
    root = tmp_path / "bucket"
    (root / "archive").mkdir(parents=True)
    if key == "ABSOLUTE":
        key = str(tmp_path / "outside" / "k" / "seg-0")
    records, _ = _write_remote_log_metadata(tmp_path / "data", segment_id, prefix, key)
    with pytest.raises(KafkalogError) as caught:
        kafkalog.read_table(tmp_path / "data", subscribe="orders", remoteRoot=str(root))
    text = str(caught.value)
    assert "__remote_log_metadata partition 0 record at offset 0: the custom metadata of remote segment " \
           f"{segment_id} (orders-0, offsets 0 to {max(records)}) puts its objects at " in text
    assert f"{why}: outside the remote root {root}, not read" in text and "Traceback" not in text
    table = kafkalog.read_table(tmp_path / "data", subscribe="orders", remoteRoot=str(root), failOnDataLoss="false",
                                includeKafkalogColumns=True)
    assert table.num_rows == 0


def test_two_uploads_of_one_start_offset_and_partitions_past_a_java_int(tmp_path, key):
    """Two manifests of one start offset (an upload retried under a new segment id) read as one segment each;
    an Aiven partition folder numbered past a Java int is refused, naming it (Kafka numbers partitions with an
    int, and fails on such a name as on a local one)."""
    root = tmp_path / "bucket"
    for segment_id in ("C" * 22, "D" * 22):
        aiven_writer.write_segment(root, SEGMENT, topic="orders", partition=0, topic_id=TOPIC_ID,
                                   segment_id=segment_id, chunk_size=4096)
    want = kafkalog.read_table(SEGMENT).num_rows
    assert kafkalog.read_table(str(root / f"orders-{TOPIC_ID}" / "0")).num_rows == 2 * want
    (tmp_path / "empty").mkdir()
    table = kafkalog.read_table(str(tmp_path / "empty"), remoteRoot=str(root), includeKafkalogColumns=True)
    assert set(table.column("partition").to_pylist()) == {0} and table.num_rows == want
    big = root / f"orders-{TOPIC_ID}" / str(2**31)
    shutil.copytree(root / f"orders-{TOPIC_ID}" / "0", big)
    with pytest.raises(FileNameError, match=f"{big}: partition {2**31} in its name is past Kafka's largest"):
        kafkalog.read_table(str(tmp_path / "empty"), remoteRoot=str(root))
