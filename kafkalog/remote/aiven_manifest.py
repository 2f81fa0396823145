"""An Aiven remote segment's `.rsm-manifest`: where each chunk of the segment lies in the `.log` object.

The manifest is JSON (`SegmentManifestV1`, `"version":"1"`): `chunkIndex` (fixed or variable transformed
chunk sizes), `segmentIndexes` (each index's `{position,size}` in the `.indexes` object, `transaction` may
be null), `compression` (each chunk a zstd frame), `encryption` (`dataKey`, `aad`: AES-256-GCM per chunk)
and `remoteLogSegmentMetadata` (what the broker said of the segment; written, never read back by Aiven).

A variable chunk index keeps its sizes as base64 of a zstd frame of the binary chunk-size codec
(`schemas/aiven_chunk_sizes.ksy`).
"""
from __future__ import annotations

import base64
import binascii
import io
import itertools
import json
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

import zstandard
from kaitaistruct import KaitaiStream, KaitaiStructError

from kafkalog._generated.aiven_chunk_sizes import AivenChunkSizes
from kafkalog.errors import RemoteObjectError

VERSION = "1"
#: `TransformedChunksDeserializer.MAX_DECOMPRESSED_SIZE`: Aiven refuses a larger encoded chunk list.
MAX_CHUNK_SIZES_BYTES = 10 * 1024 * 1024
#: The five indexes, in the order `KafkaRemoteStorageManager.uploadIndexes` concatenates them.
INDEX_NAMES = ("offset", "timestamp", "producerSnapshot", "leaderEpoch", "transaction")


@dataclass(frozen=True)
class Chunk:
    """One chunk: where it lies in the segment (`original_*`) and in the `.log` object (`transformed_*`)."""

    index: int
    original_position: int
    original_size: int
    transformed_position: int
    transformed_size: int


class Chunks(Sequence[Chunk]):
    """A segment's chunks, each made when asked for: a manifest claiming billions of tiny chunks costs
    nothing until they are read (a fixed index is arithmetic; a variable one keeps its sizes' running sums,
    8 bytes a chunk, from sizes that took at least a byte each of the bounded `transformedChunks`)."""

    def __init__(self, original_chunk_size: int, original_file_size: int, count: int,
                 fixed: tuple[int, int] | None = None, sizes: list[int] | None = None):
        self.original_chunk_size = original_chunk_size
        self.original_file_size = original_file_size
        self._count = count
        self._fixed = fixed
        self._starts = array("q", itertools.accumulate(sizes, initial=0)) if sizes is not None else None

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError(i)
        original_size = (self.original_chunk_size if i < self._count - 1
                         else self.original_file_size - (self._count - 1) * self.original_chunk_size)
        if self._fixed is not None:
            size = self._fixed[0] if i < self._count - 1 else self._fixed[1]
            return Chunk(i, i * self.original_chunk_size, original_size, i * self._fixed[0], size)
        assert self._starts is not None  # sizes given when the sizes are not fixed
        start, end = self._starts[i], self._starts[i + 1]
        return Chunk(i, i * self.original_chunk_size, original_size, start, end - start)

    @property
    def transformed_size(self) -> int:
        if self._fixed is not None:
            return self._fixed[0] * max(self._count - 1, 0) + (self._fixed[1] if self._count else 0)
        assert self._starts is not None  # sizes given when the sizes are not fixed
        return self._starts[-1]


@dataclass(frozen=True)
class Encryption:
    key_id: str  # the operator's key pair the data key was wrapped with
    wrapped_key: bytes  # RSA/OAEP(SHA3-512) of the AES-256 data key
    aad: bytes


@dataclass
class Manifest:
    name: str
    original_file_size: int
    original_chunk_size: int
    chunks: Chunks
    compression: bool
    encryption: Encryption | None
    #: index name -> (position, size) in the `.indexes` object; None where the manifest says null.
    indexes: dict[str, tuple[int, int] | None]
    #: `remoteLogSegmentMetadata` as written, or None.
    metadata: dict | None = None
    chunk_index_type: str = "fixed"
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def transformed_size(self) -> int:
        """How many bytes the `.log` object holds by the manifest."""
        return self.chunks.transformed_size

    @property
    def start_offset(self) -> int | None:
        return _int_or_none((self.metadata or {}).get("startOffset"))

    @property
    def end_offset(self) -> int | None:
        return _int_or_none((self.metadata or {}).get("endOffset"))


def parse_manifest(data: bytes, name: str) -> Manifest:
    """The manifest in `data` (the bytes of the `.rsm-manifest` object `name`); a `RemoteObjectError` naming
    what is wrong otherwise."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RemoteObjectError(f"not a segment manifest: {exc}", path=name,
                                position=getattr(exc, "pos", None)) from None
    if not isinstance(doc, dict):
        raise RemoteObjectError("not a segment manifest: not a JSON object", path=name, position=0)
    version = doc.get("version")
    if version != VERSION:
        raise RemoteObjectError(f"segment manifest version {version!r}: kafkalog reads version \"1\"", path=name)
    index = _object(doc, "chunkIndex", name)
    original_chunk_size = _int(index, "originalChunkSize", name, minimum=1)
    original_file_size = _int(index, "originalFileSize", name, minimum=0)
    kind = index.get("type")
    if kind == "fixed":
        count = -(-original_file_size // original_chunk_size)  # FixedSizeChunkIndex.chunkCount: ceil
        transformed = _int(index, "transformedChunkSize", name, minimum=0)
        final = _int(index, "finalTransformedChunkSize", name, minimum=0)
        chunks = Chunks(original_chunk_size, original_file_size, count, fixed=(transformed, final))
    elif kind == "variable":
        sizes = chunk_sizes(index.get("transformedChunks"), name)
        count = len(sizes)
        chunks = Chunks(original_chunk_size, original_file_size, count, sizes=sizes)
        # The original sizes follow from the count: every chunk but the last is originalChunkSize.
        if count and not (count - 1) * original_chunk_size < original_file_size <= count * original_chunk_size:
            raise RemoteObjectError(
                f"chunk index: {count} chunks of {original_chunk_size} bytes cannot hold a segment of "
                f"{original_file_size} bytes", path=name)
    else:
        raise RemoteObjectError(f"chunk index type {kind!r}: Aiven writes \"fixed\" or \"variable\"", path=name)
    encryption = None
    if doc.get("encryption") is not None:
        enc = _object(doc, "encryption", name)
        encryption = Encryption(*_data_key(enc.get("dataKey"), name), _base64(enc.get("aad"), "encryption.aad", name))
    segment_indexes = _object(doc, "segmentIndexes", name)
    indexes: dict[str, tuple[int, int] | None] = {}
    for index_name in INDEX_NAMES:
        part = segment_indexes.get(index_name)
        if part is None:
            indexes[index_name] = None
            continue
        if not isinstance(part, dict):
            raise RemoteObjectError(f"segmentIndexes.{index_name} is not an object", path=name)
        indexes[index_name] = (_int(part, "position", name, minimum=0), _int(part, "size", name, minimum=0))
    compression = doc.get("compression")
    if not isinstance(compression, bool):
        raise RemoteObjectError("manifest field compression is not true or false", path=name)
    metadata = doc.get("remoteLogSegmentMetadata")
    return Manifest(name, original_file_size, original_chunk_size, chunks, compression, encryption, indexes,
                    metadata if isinstance(metadata, dict) else None, kind, doc)


def chunk_sizes(text: object, name: str) -> list[int]:
    """The sizes a variable chunk index's `transformedChunks` holds (`TransformedChunksDeserializer`)."""
    frame = _base64(text, "chunkIndex.transformedChunks", name)
    try:
        params = zstandard.get_frame_parameters(frame)
    except zstandard.ZstdError as exc:
        raise RemoteObjectError(f"chunkIndex.transformedChunks is not a zstd frame: {exc}", path=name) from None
    if params.content_size < 0 or params.content_size > MAX_CHUNK_SIZES_BYTES:
        # Aiven's reader needs the frame's content size and refuses more than 10 MiB.
        raise RemoteObjectError(f"chunkIndex.transformedChunks: invalid decompressed size {params.content_size}",
                                path=name)
    try:
        raw = zstandard.ZstdDecompressor().decompress(frame, max_output_size=params.content_size)
    except zstandard.ZstdError as exc:
        raise RemoteObjectError(f"chunkIndex.transformedChunks does not decompress: {exc}", path=name) from None
    try:
        parsed = AivenChunkSizes(KaitaiStream(io.BytesIO(raw)))
    except (KaitaiStructError, EOFError, ValueError) as exc:
        raise RemoteObjectError(f"chunkIndex.transformedChunks: chunk sizes do not parse: {exc}", path=name) from None
    if parsed.num_chunks == 0:
        return []
    if parsed.num_chunks == 1:
        return [parsed.single]
    return [d.size for d in parsed.differences] + [parsed.last]


def _data_key(text: object, name: str) -> tuple[str, bytes]:
    """`EncryptedDataKey.parse`: `<key pair id>:<base64>`, exactly one colon."""
    if not isinstance(text, str) or text.count(":") != 1 or not text.split(":")[0].strip():
        raise RemoteObjectError("encryption.dataKey is not `<key pair id>:<base64 of the wrapped key>`", path=name)
    key_id, wrapped = text.split(":")
    return key_id, _base64(wrapped, "encryption.dataKey", name)


def _base64(text: object, what: str, name: str) -> bytes:
    if not isinstance(text, str):
        raise RemoteObjectError(f"{what} is missing or not a string", path=name)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise RemoteObjectError(f"{what} is not base64", path=name) from None


def _object(doc: dict, key: str, name: str) -> dict:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise RemoteObjectError(f"manifest field {key} is missing or not an object", path=name)
    return value


def _int(doc: dict, key: str, name: str, minimum: int) -> int:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= 2**31 - 1:
        raise RemoteObjectError(f"manifest field {key} is {value!r}, not a Java int >= {minimum}", path=name)
    return value


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
