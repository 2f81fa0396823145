"""Aiven remote segments read back into the segments they were made from (tests/remote/aiven_writer.py makes
them as Aiven's remote storage manager does), in every combination of chunking, compression and encryption."""
from __future__ import annotations

import base64
import itertools
import json
import struct

import pytest
import zstandard
from kafkalog._generated.aiven_chunk_sizes import AivenChunkSizes
from kafkalog._generated.aiven_encrypted_chunk import AivenEncryptedChunk

from kafkalog.errors import EncryptionKeyError, RemoteObjectError
from kafkalog.log.segment import SegmentReader
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_custom_metadata import CustomMetadata, parse_custom_metadata
from kafkalog.remote.aiven_keys import Keyring
from kafkalog.remote.aiven_manifest import chunk_sizes, parse_manifest
from tests.paths import FIXTURES, SAMPLES
from tests.remote import aiven_writer

PARTITION = FIXTURES / "partitions" / "orders-0"
SEGMENT = PARTITION / "00000000000000000000.log"
TOPIC_ID = "lZ6vvmajTWKDBUTV6SQAtQ"
SEGMENT_ID = "adh9f8BMS4anaUnD8KWfWg"
#: ChunkIndexSerializationTest.ENCODED_CHUNKS
AIVEN_VECTOR = "KLUv/SAPeQAAAAAAAwAAAAoBAAoAAAAe"


@pytest.fixture(scope="module")
def key():
    return aiven_writer.rsa_key()


def write(tmp_path, key=None, chunk_size=1000, compression=False, segment=SEGMENT):
    return aiven_writer.write_segment(tmp_path, segment, topic="orders", partition=0, topic_id=TOPIC_ID,
                                      segment_id=SEGMENT_ID, chunk_size=chunk_size, compression=compression, key=key,
                                      producer_snapshot=PARTITION / "00000000000000000106.snapshot",
                                      leader_epoch=(PARTITION / "leader-epoch-checkpoint").read_bytes())


def keyring_with(tmp_path, key, key_id=None) -> Keyring:
    ring = Keyring()
    pem = aiven_writer.write_pem(key, tmp_path / "private.pem")
    ring.load(f"{key_id}={pem}" if key_id else str(pem))
    return ring


def test_aivens_test_vector_decodes_to_its_sizes():
    assert chunk_sizes(AIVEN_VECTOR, "vector") == [10, 20, 30]
    # and the tests' writer encodes as Aiven does (the same frame, byte for byte)
    assert aiven_writer.transformed_chunks_text([10, 20, 30]) == AIVEN_VECTOR


@pytest.mark.parametrize("values", [
    [], [213], [2**31 - 1], [0, 1000, 2, 44002, 369], [2**31 - 1, 2**31 - 2, 2**31 - 3, 10],
    [1, 2, 3, 2**31 - 1], [1, 0xFF + 10, 0xFF + 20, 0xFF + 30, 2**31 - 1],
    [1, 0xFFFF + 10, 0xFFFF + 20, 0xFFFF + 30, 2**31 - 1], [1, 0xFFFFFF + 10, 0xFFFFFF + 20, 0xFFFFFF + 30, 2**31 - 1],
    list(range(0, 2**31 - 2000, 1000 * 4099))])  # ChunkSizesBinaryCodecTest's cases
def test_chunk_size_codec_reads_aivens_cases(values):
    assert chunk_sizes(aiven_writer.transformed_chunks_text(values), "m") == values


def test_aivens_manifest_json_parses():
    # SegmentManifestV1SerdeTest.WITHOUT_ENCRYPTION_WITHOUT_TXN_INDEX_JSON
    text = ('{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":100,"originalFileSize":1000,'
            '"transformedChunkSize":110,"finalTransformedChunkSize":110},"segmentIndexes":{'
            '"offset":{"position":0,"size":1},"timestamp":{"position":1,"size":1},'
            '"producerSnapshot":{"position":2,"size":1},"leaderEpoch":{"position":3,"size":1},"transaction":null},'
            '"compression":false,"remoteLogSegmentMetadata":{"remoteLogSegmentId":{"topicIdPartition":'
            '{"topicId":"lZ6vvmajTWKDBUTV6SQAtQ","topicPartition":{"topic":"topic1","partition":42}},'
            '"id":"adh9f8BMS4anaUnD8KWfWg"},"startOffset":0,"endOffset":1000,"maxTimestampMs":1000000000,'
            '"brokerId":2,"eventTimestampMs":2000000000,"segmentLeaderEpochs":{"0":100,"1":200,"2":300}}}')
    m = parse_manifest(text.encode(), "m")
    assert len(m.chunks) == 10 and m.chunks[-1].transformed_position == 990 and m.transformed_size == 1100
    assert m.indexes["transaction"] is None and m.indexes["leaderEpoch"] == (3, 1)
    assert (m.start_offset, m.end_offset, m.encryption) == (0, 1000, None)
    # ChunkIndexSerializationTest: fixed 100/250/110/30 -> chunks (0,0,100,0,110) (1,100,100,110,110) (2,200,50,220,30)
    fixed = json.loads(text)
    fixed["chunkIndex"] = {"type": "fixed", "originalChunkSize": 100, "originalFileSize": 250,
                           "transformedChunkSize": 110, "finalTransformedChunkSize": 30}
    chunks = parse_manifest(json.dumps(fixed).encode(), "m").chunks
    assert [(c.index, c.original_position, c.original_size, c.transformed_position, c.transformed_size)
            for c in chunks] == [(0, 0, 100, 0, 110), (1, 100, 100, 110, 110), (2, 200, 50, 220, 30)]
    fixed["chunkIndex"] = {"type": "variable", "originalChunkSize": 100, "originalFileSize": 250,
                           "transformedChunks": AIVEN_VECTOR}
    chunks = parse_manifest(json.dumps(fixed).encode(), "m").chunks
    assert [(c.original_position, c.original_size, c.transformed_position, c.transformed_size)
            for c in chunks] == [(0, 100, 0, 10), (100, 100, 10, 20), (200, 50, 30, 30)]


COMBINATIONS = list(itertools.product([1000, 4096, 1 << 20], [False, True], [False, True]))


@pytest.mark.parametrize("chunk_size,compression,encryption", COMBINATIONS)
def test_remote_segment_reads_as_the_segment(tmp_path, key, chunk_size, compression, encryption):
    written = write(tmp_path, key if encryption else None, chunk_size, compression)
    ring = keyring_with(tmp_path, key) if encryption else Keyring()
    manifest = json.loads(written.manifest.read_text())
    assert manifest["chunkIndex"]["type"] == ("variable" if compression else "fixed")
    original = SEGMENT.read_bytes()
    if chunk_size < len(original):
        assert written.log.read_bytes() != original or not (compression or encryption)
    with aiven_object.open_segment(str(written.manifest), keyring=ring) as f:
        assert f.size == len(original)
        assert f.read() == original
        f.seek(1234)
        assert f.read(3000) == original[1234:4234]  # across chunk boundaries, from the middle
    with aiven_object.open_segment(str(written.manifest), keyring=ring) as f, SegmentReader(f) as reader:
        batches = [(b.base_offset, b.position, [(r.offset, r.key, r.value) for r in b.records]) for b in reader]
        assert not reader.damage
    with SegmentReader(str(SEGMENT)) as reader:
        assert batches == [(b.base_offset, b.position, [(r.offset, r.key, r.value) for r in b.records]) for b in reader]
    for name, path in (("offset", SEGMENT.with_suffix(".index")), ("timestamp", SEGMENT.with_suffix(".timeindex")),
                       ("producerSnapshot", PARTITION / "00000000000000000106.snapshot"),
                       ("leaderEpoch", PARTITION / "leader-epoch-checkpoint")):
        assert aiven_object.read_index(str(written.manifest), name, keyring=ring) == path.read_bytes(), name
    assert aiven_object.read_index(str(written.manifest), "transaction", keyring=ring) is None


def _records_of(manifest, ring):
    with aiven_object.open_segment(str(manifest), keyring=ring) as f, SegmentReader(f) as reader:
        offsets = [r.offset for b in reader for r in b.records]
        return offsets, reader.damage


def test_encrypted_segment_without_a_key_or_with_the_wrong_key(tmp_path, key):
    written = write(tmp_path, key)
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == [] and len(damage) == 1 and isinstance(damage[0], EncryptionKeyError)
    assert "key pair 'key1'" in str(damage[0]) and "no private key was given" in str(damage[0])
    assert str(written.manifest) in str(damage[0])
    other = keyring_with(tmp_path, aiven_writer.rsa_key())
    offsets, damage = _records_of(written.manifest, other)
    assert offsets == [] and damage[0].kind == "encryption_key" and "does not unwrap" in str(damage[0])
    # a key given for another key pair id is not tried
    offsets, damage = _records_of(written.manifest, keyring_with(tmp_path, key, key_id="key2"))
    assert offsets == [] and damage[0].kind == "encryption_key"
    offsets, damage = _records_of(written.manifest, keyring_with(tmp_path, key, key_id="key1"))
    assert not damage and len(offsets) == 106


def _flip(path, position):
    data = bytearray(path.read_bytes())
    data[position] ^= 0x01
    path.write_bytes(bytes(data))


def _whole_offsets_before(position: int) -> list[int]:
    with SegmentReader(str(SEGMENT)) as reader:
        return [r.offset for b in reader if b.position + b.size <= position for r in b.records]


def test_chunk_failing_gcm_authentication_ends_the_segment_there(tmp_path, key):
    written = write(tmp_path, key, chunk_size=1000)
    ring = keyring_with(tmp_path, key)
    chunk = parse_manifest(written.manifest.read_bytes(), "m").chunks[5]
    _flip(written.log, chunk.transformed_position + 40)
    offsets, damage = _records_of(written.manifest, ring)
    assert offsets == _whole_offsets_before(5000) and offsets  # every record before the chunk is read
    assert len(damage) == 1 and damage[0].kind == "remote_object"
    text = str(damage[0])
    assert f"{written.log}: byte {chunk.transformed_position}: chunk 5: fails AES-GCM authentication" in text


def test_zstd_frame_that_does_not_decode(tmp_path):
    written = write(tmp_path, None, chunk_size=1000, compression=True)
    chunk = parse_manifest(written.manifest.read_bytes(), "m").chunks[3]
    data = bytearray(written.log.read_bytes())
    data[chunk.transformed_position:chunk.transformed_position + 4] = b"\0\0\0\0"  # the frame's magic number
    written.log.write_bytes(bytes(data))
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == _whole_offsets_before(3000) and offsets
    assert f"byte {chunk.transformed_position}: chunk 3: zstd frame does not decode" in str(damage[0])


def test_manifest_naming_sizes_the_object_does_not_have(tmp_path):
    written = write(tmp_path, None, chunk_size=1000)
    data = written.log.read_bytes()
    written.log.write_bytes(data[:7500])
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == _whole_offsets_before(7000)
    assert "the manifest places chunk 7 at bytes 7000..8000 and the object has 7500 bytes" in str(damage[0])
    assert str(written.log) in str(damage[0])


def test_missing_indexes_object(tmp_path):
    written = write(tmp_path, None)
    written.indexes.unlink()
    with pytest.raises(RemoteObjectError, match=r"\.indexes: byte 0: no \.indexes object beside the manifest"):
        aiven_object.read_index(str(written.manifest), "offset")
    offsets, damage = _records_of(written.manifest, Keyring())  # the records are still there
    assert len(offsets) == 106 and not damage


def test_manifest_that_is_not_one(tmp_path):
    written = write(tmp_path, None)
    manifest = json.loads(written.manifest.read_text())
    manifest["chunkIndex"]["transformedChunks"] = base64.b64encode(
        zstandard.ZstdCompressor().compress(struct.pack(">ii", 2, 5))).decode()
    manifest["chunkIndex"]["type"] = "variable"
    written.manifest.write_text(json.dumps(manifest))
    with pytest.raises(RemoteObjectError, match="chunk sizes do not parse"):
        aiven_object.read_manifest(str(written.manifest))
    written.manifest.write_text('{"version":"2"}')
    with pytest.raises(RemoteObjectError, match='version "2": kafkalog reads version "1"'):
        aiven_object.read_manifest(str(written.manifest))


def test_a_sequential_read_decodes_each_chunk_once(tmp_path, key):
    # One decoded chunk is kept: SegmentReader's reads, which end inside a chunk and start again there,
    # never make a chunk be fetched and decrypted twice.
    written = write(tmp_path, key, chunk_size=1000, compression=True)
    ring = keyring_with(tmp_path, key)
    with aiven_object.open_segment(str(written.manifest), keyring=ring) as f, SegmentReader(f) as reader:
        assert sum(len(b.records) for b in reader) == 106
        assert f.chunks_decoded == len(f.manifest.chunks) == 17


def test_counts_a_manifest_claims_cost_nothing_until_read(tmp_path):
    written = write(tmp_path, None)
    manifest = json.loads(written.manifest.read_text())
    manifest["chunkIndex"] = {"type": "fixed", "originalChunkSize": 1, "originalFileSize": 2**31 - 1,
                              "transformedChunkSize": 1, "finalTransformedChunkSize": 1}
    written.manifest.write_text(json.dumps(manifest))
    m = aiven_object.read_manifest(str(written.manifest))  # two billion chunks, none made
    assert len(m.chunks) == 2**31 - 1 and m.chunks[-1].transformed_position == 2**31 - 2
    offsets, damage = _records_of(written.manifest, Keyring())  # the object's bytes, then where it ends
    assert len(offsets) == 106 and "the manifest places chunk 16111 at bytes 16111..16112 and the object has " \
        "16111 bytes" in str(damage[0])
    manifest["chunkIndex"] = {"type": "fixed", "originalChunkSize": 2**31 - 1, "originalFileSize": 2**31 - 1,
                              "transformedChunkSize": 2**31 - 1, "finalTransformedChunkSize": 2**31 - 1}
    written.manifest.write_text(json.dumps(manifest))
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == [] and "above the limit of 268435456 kafkalog decodes at once" in str(damage[0])


def test_the_web_ide_samples_parse_with_their_specs():
    def sizes(name):
        parsed = AivenChunkSizes.from_bytes((SAMPLES / "aiven" / name).read_bytes())
        return [d.size for d in parsed.differences] + [parsed.last]

    assert sizes("chunk-sizes-10-20-30.bin") == [10, 20, 30]
    assert sizes("chunk-sizes-orders-0.bin") == [1477, 1489, 1483, 1561]
    chunk = AivenEncryptedChunk.from_bytes((SAMPLES / "aiven" / "encrypted-chunk.bin").read_bytes())
    assert (len(chunk.iv), len(chunk.ciphertext), len(chunk.tag)) == (12, 1449, 16)


def test_the_custom_metadata_sample_parses_with_its_spec():
    meta = parse_custom_metadata((SAMPLES / "aiven" / "segment-custom-metadata.bin").read_bytes())
    assert meta == CustomMetadata(5000, "other/", "custom/seg-1")
    assert parse_custom_metadata(b"") is None and parse_custom_metadata(b"\x05\x00") is None
