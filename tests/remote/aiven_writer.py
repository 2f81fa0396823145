"""Aiven remote segments made as Aiven's remote storage manager makes them, for the tests.

Aiven's jars (io.aiven:tiered-storage-for-apache-kafka-core, -storage-filesystem) are not on Maven Central, so
no broker here can run them. This writer follows their sources at commit 8fb15816 step by step instead
(`KafkaRemoteStorageManager.copyLogSegmentData`, `uploadSegmentLog`, `uploadIndexes`, `uploadManifest`):

- the segment is cut into `chunk_size` pieces (`BaseTransformChunkEnumeration`);
- each is a zstd frame with its content size when compressing (`CompressionChunkEnumeration`);
- each is then AES-256-GCM encrypted when encrypting: a random 12-byte IV, the ciphertext, the 16-byte tag,
  with the segment's AAD (`EncryptionChunkEnumeration`, `AesEncryptionProvider`);
- the chunk index is fixed when each transformation keeps sizes known (none, or encryption alone), variable
  (the binary chunk-size codec in a zstd frame, base64) once compression is on (`TransformFinisher`);
- the indexes are offset, time, producer snapshot, leader epoch and (when there is one) transaction index,
  each encrypted alone when encrypting, never compressed, concatenated (`uploadIndexes`, `SegmentIndexesV1Builder`);
- the data key is wrapped with RSA/OAEP SHA3-512 (MGF1 SHA3-512, Bouncy Castle's) and written as
  `<key pair id>:<base64>`, the AAD as base64 (`RsaEncryptionProvider`, `DataKeySerializer`);
- the manifest is Jackson's compact JSON in `SegmentManifestV1`'s field order.

The byte packing here is written from the Java, separately from kafkalog's reader (which reads the codec
through schemas/aiven_chunk_sizes.ksy); Aiven's own test vector checks it.
"""
from __future__ import annotations

import base64
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import zstandard
from Crypto.Cipher import AES, PKCS1_OAEP
from Crypto.Hash import SHA3_512
from Crypto.PublicKey import RSA
from Crypto.Signature import pss

from kafkalog.log.segment import SegmentReader

KEY_PAIR_ID = "key1"


def encode_chunk_sizes(values: list[int]) -> bytes:
    """`ChunkSizesBinaryCodec.encode`."""
    count = len(values)
    if count == 0:
        return struct.pack(">i", 0)
    if count == 1:
        return struct.pack(">ii", 1, values[0])
    base = min(values[:-1])
    deltas = [v - base for v in values[:-1]]
    per = max(1 if d <= 0xFF else 2 if d <= 0xFFFF else 3 if d <= 0xFFFFFF else 4 for d in deltas)
    out = [struct.pack(">iib", count, base, per)]
    out += [struct.pack(">i", d)[4 - per:] for d in deltas]
    return b"".join(out) + struct.pack(">i", values[-1])


def transformed_chunks_text(values: list[int]) -> str:
    """`TransformedChunksSerializer`: zstd with the content size, then base64."""
    frame = zstandard.ZstdCompressor(write_content_size=True).compress(encode_chunk_sizes(values))
    return base64.b64encode(frame).decode()


def wrap_key(public_key: RSA.RsaKey, data_key: bytes) -> bytes:
    cipher = PKCS1_OAEP.new(public_key, hashAlgo=SHA3_512, mgfunc=lambda s, n: pss.MGF1(s, n, SHA3_512))
    return cipher.encrypt(data_key)


def encrypt(piece: bytes, data_key: bytes, aad: bytes) -> bytes:
    iv = os.urandom(12)
    cipher = AES.new(data_key, AES.MODE_GCM, nonce=iv, mac_len=16)
    cipher.update(aad)
    ciphertext, tag = cipher.encrypt_and_digest(piece)
    return iv + ciphertext + tag


@dataclass
class Written:
    manifest: Path
    log: Path
    indexes: Path
    data_key: bytes | None


def write_segment(root: Path, segment: Path, *, topic: str, partition: int, topic_id: str, segment_id: str,
                  chunk_size: int, compression: bool = False, key: RSA.RsaKey | None = None,
                  producer_snapshot: Path | None = None, leader_epoch: bytes = b"0\n0\n", prefix: str = "",
                  end_offset: int | None = None, max_timestamp: int = -1) -> Written:
    """The three objects of `segment` (with its .index/.timeindex/.txnindex beside it) under `root`."""
    base = int(segment.name.split(".")[0])
    if end_offset is None:  # as the broker's RemoteLogManager says it: the segment's last offset
        with SegmentReader(str(segment), decode_records=False) as reader:
            end_offset = max((b.last_offset for b in reader), default=base)
    main = f"{topic}-{topic_id}/{partition}/{base:020d}-{segment_id}"
    folder = root / (prefix + main).rsplit("/", 1)[0]
    folder.mkdir(parents=True, exist_ok=True)
    stem = root / (prefix + main)
    data = segment.read_bytes()
    data_key = aad = None
    if key is not None:
        data_key, aad = os.urandom(32), os.urandom(32)

    pieces = [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)]
    transformed = []
    for piece in pieces:
        if compression:
            piece = zstandard.ZstdCompressor(write_content_size=True).compress(piece)
        if data_key is not None:
            piece = encrypt(piece, data_key, aad)
        transformed.append(piece)
    log_path = stem.with_name(stem.name + ".log")
    log_path.write_bytes(b"".join(transformed))
    if compression:
        chunk_index = {"type": "variable", "originalChunkSize": chunk_size, "originalFileSize": len(data),
                       "transformedChunks": transformed_chunks_text([len(t) for t in transformed])}
    else:
        fixed = chunk_size + (28 if data_key is not None else 0)
        chunk_index = {"type": "fixed", "originalChunkSize": chunk_size, "originalFileSize": len(data),
                       "transformedChunkSize": fixed,
                       "finalTransformedChunkSize": len(transformed[-1]) if transformed else 0}

    indexes = {}
    blobs = []
    position = 0
    sources = [("offset", segment.with_suffix(".index").read_bytes()),
               ("timestamp", segment.with_suffix(".timeindex").read_bytes()),
               ("producerSnapshot", producer_snapshot.read_bytes() if producer_snapshot else b""),
               ("leaderEpoch", leader_epoch)]
    txn = segment.with_suffix(".txnindex")
    if txn.exists():
        sources.append(("transaction", txn.read_bytes()))
    for name, blob in sources:
        if blob and data_key is not None:
            blob = encrypt(blob, data_key, aad)
        indexes[name] = {"position": position, "size": len(blob)}
        position += len(blob)
        blobs.append(blob)
    if "transaction" not in indexes:
        indexes["transaction"] = None
    indexes_path = stem.with_name(stem.name + ".indexes")
    indexes_path.write_bytes(b"".join(blobs))

    manifest = {"version": "1", "chunkIndex": chunk_index, "segmentIndexes": indexes, "compression": compression}
    if data_key is not None:
        manifest["encryption"] = {
            "dataKey": f"{KEY_PAIR_ID}:" + base64.b64encode(wrap_key(key.publickey(), data_key)).decode(),
            "aad": base64.b64encode(aad).decode()}
    manifest["remoteLogSegmentMetadata"] = {
        "remoteLogSegmentId": {"topicIdPartition": {"topicId": topic_id,
                                                    "topicPartition": {"topic": topic, "partition": partition}},
                               "id": segment_id},
        "startOffset": base, "endOffset": end_offset, "maxTimestampMs": max_timestamp, "brokerId": 1,
        "eventTimestampMs": 0, "segmentLeaderEpochs": {"0": base}}
    manifest_path = stem.with_name(stem.name + ".rsm-manifest")
    manifest_path.write_text(json.dumps(manifest, separators=(",", ":")))
    return Written(manifest_path, log_path, indexes_path, data_key)


def rsa_key(bits: int = 2048) -> RSA.RsaKey:
    return RSA.generate(bits)


def write_pem(key: RSA.RsaKey, path: Path) -> Path:
    path.write_bytes(key.export_key("PEM"))
    return path
