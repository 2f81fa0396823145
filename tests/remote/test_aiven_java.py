"""Aiven objects written by the libraries Aiven's remote storage manager runs (JCE AES/GCM, Bouncy Castle's
RSA/OAEP SHA3-512, zstd-jni, at Aiven's versions, from Maven Central), driven as Aiven's sources drive them
(tests/remote/java/AivenObjects.java): kafkalog reads them back into the segment, in every combination of
chunking, compression and encryption. Aiven's own jars are not on Maven Central; these are the parts of
them that make the bytes."""
from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path

import kafka_jars
import pytest

from kafkalog.log.segment import SegmentReader
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_keys import Keyring
from tests.brokers.harness import java
from tests.paths import TESTS
from tests.remote import aiven_writer
from tests.remote.test_aiven import PARTITION, SEGMENT, SEGMENT_ID, TOPIC_ID

pytestmark = pytest.mark.skipif(shutil.which("javac") is None and not os.environ.get("JAVA_HOME"),
                                reason="a JDK (java and javac) runs the Java libraries Aiven uses")

METADATA = {"remoteLogSegmentId": {"topicIdPartition": {"topicId": TOPIC_ID, "topicPartition":
                                                        {"topic": "orders", "partition": 0}}, "id": SEGMENT_ID},
            "startOffset": 0, "endOffset": 105, "maxTimestampMs": 1700000033003, "brokerId": 1,
            "eventTimestampMs": 1700000040000, "segmentLeaderEpochs": {"0": 0}}


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    out = tmp_path_factory.mktemp("aiven-java")
    cp = os.pathsep.join(kafka_jars.classpath("aiven-crypto"))
    javac = str(java()).rsplit("/", 1)[0] + "/javac"
    subprocess.run([javac, "-nowarn", "-d", str(out), "-cp", cp, str(TESTS / "remote" / "java" / "AivenObjects.java")],
                   check=True, capture_output=True, text=True)
    return [java(), "-cp", os.pathsep.join([str(out), cp]), "AivenObjects"]


@pytest.fixture(scope="module")
def key():
    return aiven_writer.rsa_key()


@pytest.mark.parametrize("chunk_size,compression,encryption",
                         list(itertools.product([1000, 1 << 20], [False, True], [False, True])))
def test_objects_of_aivens_libraries_read_as_the_segment(tmp_path, writer, key, chunk_size, compression, encryption):
    der = tmp_path / "public.der"
    der.write_bytes(key.publickey().export_key("DER"))
    stem = tmp_path / "orders-lZ6vvmajTWKDBUTV6SQAtQ" / "0" / f"{0:020d}-{SEGMENT_ID}"
    stem.parent.mkdir(parents=True)
    subprocess.run([*writer, str(stem), str(chunk_size), str(compression).lower(), str(der) if encryption else "-",
                    "key1", json.dumps(METADATA, separators=(",", ":")), str(SEGMENT), str(SEGMENT.with_suffix(".index")),
                    str(SEGMENT.with_suffix(".timeindex")), str(PARTITION / "00000000000000000106.snapshot"),
                    str(PARTITION / "leader-epoch-checkpoint")], check=True, capture_output=True, text=True)
    manifest = str(stem) + ".rsm-manifest"
    ring = Keyring()
    if encryption:
        ring.load(f"key1={aiven_writer.write_pem(key, tmp_path / 'private.pem')}")
    with aiven_object.open_segment(manifest, keyring=ring) as f:
        assert f.manifest.chunk_index_type == ("variable" if compression else "fixed")
        assert f.read() == SEGMENT.read_bytes()
    with aiven_object.open_segment(manifest, keyring=ring) as f, SegmentReader(f) as reader:
        assert sum(len(b.records) for b in reader) == 106 and not reader.damage
    assert aiven_object.read_index(manifest, "offset", keyring=ring) == SEGMENT.with_suffix(".index").read_bytes()
    assert aiven_object.read_index(manifest, "leaderEpoch", keyring=ring) == \
        (PARTITION / "leader-epoch-checkpoint").read_bytes()
    assert aiven_object.read_index(manifest, "transaction", keyring=ring) is None
    if compression:
        # the chunk index's frame is zstd-jni's, and the Python writer's codec gives the same bytes
        sizes = [c.transformed_size for c in f.manifest.chunks]
        assert json.loads(Path(manifest).read_text())["chunkIndex"]["transformedChunks"] == \
            aiven_writer.transformed_chunks_text(sizes)
