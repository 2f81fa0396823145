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
import sys
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import zstandard
from kaitaistruct import KaitaiStream, KaitaiStructError

from kafkalog._generated.aiven_chunk_sizes import AivenChunkSizes
from kafkalog.errors import RemoteObjectError

VERSION = "1"
JAVA_INT_MAX = 2**31 - 1
JAVA_LONG_MAX = 2**63 - 1
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
                 fixed: tuple[int, int] | None = None, sizes: ChunkSizes | None = None):
        self.original_chunk_size = original_chunk_size
        self.original_file_size = original_file_size
        self._count = count
        self._fixed = fixed
        self._sizes = sizes
        self._starts: array | None = None

    def check_object_size(self, object_size: int, name: str) -> None:
        """Refuse a variable index with more chunks than the `.log` object has bytes (each chunk Aiven writes
        takes at least one), before any size is read: the walk and its 8 bytes a chunk are bounded by the
        object, not by the count a manifest claims."""
        if self._sizes is not None and self._starts is None and self._count > object_size:
            raise RemoteObjectError(
                f"the chunk index claims {self._count} chunks and the .log object {name} has {object_size} bytes: "
                "every chunk takes at least one", path=name, position=object_size)

    def _running_sums(self) -> array:
        if self._starts is None:
            assert self._sizes is not None
            self._starts = array("q", itertools.accumulate(self._sizes.walk(), initial=0))
        return self._starts
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
        starts = self._running_sums()
        start, end = starts[i], starts[i + 1]
        return Chunk(i, i * self.original_chunk_size, original_size, start, end - start)

    @property
    def transformed_size(self) -> int:
        if self._fixed is not None:
            return self._fixed[0] * max(self._count - 1, 0) + (self._fixed[1] if self._count else 0)
        return self._running_sums()[-1]


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
    #: `remoteLogSegmentMetadata`, or None.
    metadata: SegmentMetadata | None = None
    chunk_index_type: str = "fixed"
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def transformed_size(self) -> int:
        """How many bytes the `.log` object holds by the manifest."""
        return self.chunks.transformed_size

    @property
    def start_offset(self) -> int | None:
        return self.metadata.start_offset if self.metadata is not None else None

    @property
    def end_offset(self) -> int | None:
        return self.metadata.end_offset if self.metadata is not None else None


def parse_manifest(data: bytes, name: str) -> Manifest:
    """The manifest in `data` (the bytes of the `.rsm-manifest` object `name`); a `RemoteObjectError` naming
    what is wrong otherwise."""
    try:
        text = data.decode("utf-8")  # Jackson writes UTF-8 (json.loads would guess UTF-16 or -32 from zeros)
    except UnicodeDecodeError as exc:
        raise RemoteObjectError(f"not a segment manifest: not UTF-8 JSON (byte {exc.start} is {data[exc.start]})",
                                path=name, position=exc.start) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RemoteObjectError(f"not a segment manifest: {exc}", path=name,
                                position=getattr(exc, "pos", None)) from None
    except RecursionError:  # json's own depth guard: arrays or objects nested past Python's recursion limit
        raise RemoteObjectError("not a segment manifest: JSON nested too deep", path=name) from None
    except ValueError:  # Python's limit on an integer's digits (sys.get_int_max_str_digits)
        raise RemoteObjectError("not a segment manifest: a number of more digits than any Java int or long "
                                f"({sys.get_int_max_str_digits()} at most)", path=name) from None
    if not isinstance(doc, dict):
        raise RemoteObjectError("not a segment manifest: not a JSON object", path=name, position=0)
    version = doc.get("version")
    if version != VERSION:
        raise RemoteObjectError(f"segment manifest version {_shown(version)}: kafkalog reads version \"1\"", path=name)
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
        sizes = decode_chunk_sizes(index.get("transformedChunks"), name)
        count = sizes.count
        # The original sizes follow from the count: every chunk but the last is originalChunkSize.
        if count != -(-original_file_size // original_chunk_size):
            raise RemoteObjectError(
                f"chunk index: {count} chunks of {original_chunk_size} bytes cannot hold a segment of "
                f"{original_file_size} bytes", path=name)
        chunks = Chunks(original_chunk_size, original_file_size, count, sizes=sizes)
    else:
        raise RemoteObjectError(f"chunk index type {_shown(kind)}: Aiven writes \"fixed\" or \"variable\"", path=name)
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
                    _segment_metadata(metadata, name) if metadata is not None else None, kind, doc)


@dataclass(frozen=True)
class SegmentMetadata:
    """What `remoteLogSegmentMetadata` says of the segment, in the types Kafka's `RemoteLogSegmentMetadata` has
    (None where the manifest leaves a field out). Aiven writes it and never reads it back; kafkalog reads the
    segment's topic, partition, ids and offsets from it."""

    topic: str | None
    partition: int | None
    topic_id: str | None
    segment_id: str | None
    start_offset: int | None
    end_offset: int | None


def _segment_metadata(value: object, name: str) -> SegmentMetadata:
    where = "remoteLogSegmentMetadata"
    meta = _optional_object(value, where, name)
    segment = _optional_object(meta.get("remoteLogSegmentId"), f"{where}.remoteLogSegmentId", name)
    tip = _optional_object(segment.get("topicIdPartition"), f"{where}.remoteLogSegmentId.topicIdPartition", name)
    tp = _optional_object(tip.get("topicPartition"), f"{where}.remoteLogSegmentId.topicIdPartition.topicPartition",
                          name)

    def text(doc: dict, key: str, field: str) -> str | None:
        got = doc.get(key)
        if got is not None and not isinstance(got, str):
            raise RemoteObjectError(f"manifest field {field} is {_shown(got)}, not a string", path=name)
        return got

    def number(doc: dict, key: str, field: str, top: int, java: str) -> int | None:
        got = doc.get(key)
        if got is not None and (isinstance(got, bool) or not isinstance(got, int) or not 0 <= got <= top):
            raise RemoteObjectError(f"manifest field {field} is {_shown(got)}, not a Java {java} >= 0", path=name)
        return got

    tp_field = f"{where}.remoteLogSegmentId.topicIdPartition.topicPartition"
    return SegmentMetadata(
        text(tp, "topic", f"{tp_field}.topic"),
        number(tp, "partition", f"{tp_field}.partition", JAVA_INT_MAX, "int"),
        text(tip, "topicId", f"{where}.remoteLogSegmentId.topicIdPartition.topicId"),
        text(segment, "id", f"{where}.remoteLogSegmentId.id"),
        number(meta, "startOffset", f"{where}.startOffset", JAVA_LONG_MAX, "long"),
        number(meta, "endOffset", f"{where}.endOffset", JAVA_LONG_MAX, "long"))


def _optional_object(value: object, field: str, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RemoteObjectError(f"manifest field {field} is {_shown(value)}, not an object", path=name)
    return value


def _shown(value: object) -> str:
    """A JSON value in a message, cut short (a manifest's value can be megabytes)."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


class ChunkSizes:
    """A variable chunk index's sizes, decoded: the header parsed, the sizes read one at a time by `walk`
    (the spec's `difference` type over the same stream), so that nothing is made per chunk until asked."""

    def __init__(self, raw: bytes, name: str):
        self.raw = raw
        self.name = name
        self._stream = KaitaiStream(io.BytesIO(raw))
        try:
            self.header = AivenChunkSizes(self._stream)
        except (KaitaiStructError, EOFError, ValueError):
            raise self._fail(0, "a chunk count (not negative), then one size, or a base (not negative) and 1 to 4 "
                             "bytes per value") from None
        self._differences_at = self._stream.pos()  # right after the header
        self.count = self.header.num_chunks
        if self.count > 1:
            try:
                last = self.header.last  # where the spec places it: past the end if the count claims too many
            except (KaitaiStructError, EOFError, ValueError):
                raise self._fail(self._differences_at, f"{self.count - 1} differences of "
                                 f"{self.header.bytes_per_value} bytes and the last size") from None
            if last < 0:
                raise RemoteObjectError(f"chunkIndex.transformedChunks: the last chunk's size is {last}",
                                        path=self.name)

    def _fail(self, position: int, wanted: str) -> RemoteObjectError:
        return RemoteObjectError(
            f"chunkIndex.transformedChunks: chunk sizes do not parse: in its {len(self.raw)} decoded bytes, byte "
            f"{position} should start {wanted} (Aiven's `ChunkSizesBinaryCodec`)", path=self.name)

    def walk(self) -> Iterator[int]:
        """Each chunk's size in the `.log` object, in order."""
        header = self.header
        if self.count == 1:
            yield header.single
        elif self.count > 1:
            self._stream.seek(self._differences_at)
            for _ in range(self.count - 1):
                yield AivenChunkSizes.Difference(self._stream, header, header).size
            yield header.last


def chunk_sizes(text: object, name: str) -> list[int]:
    """The sizes a variable chunk index's `transformedChunks` holds (`TransformedChunksDeserializer`)."""
    return list(decode_chunk_sizes(text, name).walk())


def decode_chunk_sizes(text: object, name: str) -> ChunkSizes:
    """A variable chunk index's `transformedChunks`: base64 of a zstd frame with its content size, at most
    10 MiB as Aiven's reader allows, holding the chunk-size codec."""
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
        raw = decompress_frame(frame, params.content_size)
    except zstandard.ZstdError as exc:
        raise RemoteObjectError(f"chunkIndex.transformedChunks does not decompress: {exc}", path=name) from None
    if len(raw) != params.content_size:
        raise RemoteObjectError(f"chunkIndex.transformedChunks decompresses to {len(raw)} bytes; its frame says "
                                f"{params.content_size}", path=name)
    return ChunkSizes(raw, name)


#: The largest zstd window a chunk's frame may need beyond its own size (a streaming compressor's default).
MIN_WINDOW_BYTES = 8 * 1024 * 1024


def decompress_frame(frame: bytes, limit: int) -> bytes:
    """One zstd frame's content, at most `limit` + 1 bytes whatever the frame declares (its content size, its
    window): a caller compares the length with what it expects. (`ZstdDecompressor.decompress` allocates a
    declared content size and ignores its `max_output_size`.) A frame that ends early gives what it holds."""
    decompressor = zstandard.ZstdDecompressor(max_window_size=max(limit, MIN_WINDOW_BYTES))
    out = bytearray()
    with decompressor.stream_reader(io.BytesIO(frame), read_across_frames=False) as stream:
        while len(out) <= limit:
            piece = stream.read(limit + 1 - len(out))
            if not piece:
                break
            out += piece
    return bytes(out)


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
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= JAVA_INT_MAX:
        raise RemoteObjectError(f"manifest field {key} is {_shown(value)}, not a Java int >= {minimum}", path=name)
    return value
