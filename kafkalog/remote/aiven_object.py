"""An Aiven remote segment read back into the segment's bytes, chunk by chunk.

    with open_segment("…/00000000000000000000-<segment id>.rsm-manifest") as f:
        SegmentReader(f)           # reads as the segment the broker uploaded

`KafkaRemoteStorageManager.copyLogSegmentData` cut the segment into `originalChunkSize` pieces, made each a
zstd frame when the manifest says `compression` (`CompressionChunkEnumeration`), then encrypted each with
AES-256-GCM when it says `encryption` (`EncryptionChunkEnumeration`: the 12-byte IV, the ciphertext, the
16-byte tag, `schemas/aiven_encrypted_chunk.ksy`), and concatenated them into the `.log` object. The
`.indexes` object is the segment's five indexes concatenated, each encrypted the same way and never
compressed. The objects lie beside the manifest, under the same name.

A chunk is read, checked and decoded only when asked for, and one decoded chunk is kept: memory is a chunk
and what the caller asks for at once. A chunk that cannot be read is a `RemoteObjectError` naming the object
and the byte where the chunk starts, with `readable_until`, where in the segment the good bytes end.
"""
from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import BinaryIO

import zstandard
from kaitaistruct import KaitaiStream, KaitaiStructError

from kafkalog._generated.aiven_encrypted_chunk import AivenEncryptedChunk
from kafkalog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES
from kafkalog.errors import RemoteObjectError
from kafkalog.file_names import INDEXES_SUFFIX, LOG_SUFFIX, MANIFEST_SUFFIX
from kafkalog.remote.aiven_keys import Keyring
from kafkalog.remote.aiven_manifest import Chunk, Manifest, decompress_frame, parse_manifest

IV_SIZE = 12  # SegmentEncryptionMetadataV1.IV_SIZE
TAG_SIZE = 16  # AesEncryptionProvider.GCM_TAG_LENGTH / 8
#: The most one chunk may decode to (Aiven's `chunk.size` is a few MiB): memory is bounded by it, not by
#: what a manifest claims.
MAX_CHUNK_BYTES = DEFAULT_MAX_DECOMPRESSED_BYTES
#: A manifest is a few KiB; more than this is not one.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024

Opener = Callable[[str], BinaryIO]


def open_local(location: str) -> BinaryIO:
    return open(location, "rb")


def sibling(manifest_location: str, suffix: str) -> str:
    """The object beside a manifest with the same name: its `.log` or `.indexes` (`ObjectKeyFactory.key`)."""
    if not manifest_location.endswith(MANIFEST_SUFFIX):
        raise ValueError(f"{manifest_location}: not a {MANIFEST_SUFFIX}")
    return manifest_location[: -len(MANIFEST_SUFFIX)] + suffix


def read_manifest(location: str, opener: Opener = open_local) -> Manifest:
    try:
        with opener(location) as f:
            data = f.read(MAX_MANIFEST_BYTES + 1)
    except (FileNotFoundError, OSError) as exc:
        raise RemoteObjectError(f"the segment manifest cannot be read: {exc}", path=location, position=0) from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise RemoteObjectError(f"more than {MAX_MANIFEST_BYTES} bytes: not a segment manifest", path=location)
    return parse_manifest(data, location)


class AivenSegmentFile:
    """The segment a manifest describes, as a seekable binary file of `manifest.original_file_size` bytes."""

    def __init__(self, manifest_location: str, opener: Opener = open_local, keyring: Keyring | None = None,
                 manifest: Manifest | None = None):
        self.name = manifest_location
        self.manifest = manifest if manifest is not None else read_manifest(manifest_location, opener)
        self.log_location = sibling(manifest_location, LOG_SUFFIX)
        self.size = self.manifest.original_file_size
        self._opener = opener
        self._keyring = keyring if keyring is not None else Keyring()
        self._object: BinaryIO | None = None
        self._object_size = 0
        self._key: bytes | None = None
        self._cached: tuple[int, bytes] | None = None
        self._pos = 0
        #: How many chunks were read and decoded (a sequential read decodes each once).
        self.chunks_decoded = 0

    # -- file protocol --------------------------------------------------------------------------------------

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self._pos + n)
        out = bytearray()
        if self._pos < end:
            self._open_object()  # (its size bounds the chunk index before a chunk is looked up)
        while self._pos < end:
            chunk = self.manifest.chunks[min(self._pos // self.manifest.original_chunk_size,
                                             len(self.manifest.chunks) - 1)]
            data = self.chunk_bytes(chunk)
            start = self._pos - chunk.original_position
            piece = data[start: start + (end - self._pos)]
            out += piece
            self._pos += len(piece)
        return bytes(out)

    def close(self) -> None:
        if self._object is not None:
            self._object.close()
            self._object = None

    def __enter__(self) -> AivenSegmentFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- chunks ---------------------------------------------------------------------------------------------

    def chunk_bytes(self, chunk: Chunk) -> bytes:
        """The segment's bytes of one chunk, read from the object and decoded (the last one is kept)."""
        if self._cached is not None and self._cached[0] == chunk.index:
            return self._cached[1]
        if chunk.original_size > MAX_CHUNK_BYTES:
            raise RemoteObjectError(
                f"chunk {chunk.index}: the manifest says {chunk.original_size} bytes, above the limit of "
                f"{MAX_CHUNK_BYTES} kafkalog decodes at once", path=self.name, readable_until=chunk.original_position)
        raw = self._read_object(chunk)
        data = decode_piece(raw, self.manifest, self._data_key, chunk.original_size, self.log_location,
                            chunk.transformed_position, chunk.original_position, f"chunk {chunk.index}")
        self._cached = (chunk.index, data)
        self.chunks_decoded += 1
        return data

    def _read_object(self, chunk: Chunk) -> bytes:
        def fail(message: str, position: int) -> RemoteObjectError:
            return RemoteObjectError(message, path=self.log_location, position=position,
                                     readable_until=chunk.original_position)

        obj = self._open_object()
        end = chunk.transformed_position + chunk.transformed_size
        if end > self._object_size:
            raise fail(f"the manifest places chunk {chunk.index} at bytes {chunk.transformed_position}..{end} and "
                       f"the object has {self._object_size} bytes (the manifest's chunk index says "
                       f"{self.manifest.transformed_size})", min(chunk.transformed_position, self._object_size))
        obj.seek(chunk.transformed_position)
        data = obj.read(chunk.transformed_size)
        if len(data) != chunk.transformed_size:
            raise fail(f"chunk {chunk.index}: object ended after {len(data)} of {chunk.transformed_size} bytes",
                       chunk.transformed_position + len(data))
        return data

    def _open_object(self) -> BinaryIO:
        """The `.log` object, opened once; a chunk index that claims more chunks than it has bytes is refused
        here, before the index's sizes are read."""
        if self._object is None:
            try:
                obj = self._opener(self.log_location)
            except (FileNotFoundError, OSError) as exc:
                raise RemoteObjectError(f"the segment's .log object cannot be read: {exc}", path=self.log_location,
                                        position=0) from None
            size = obj.seek(0, os.SEEK_END)
            try:
                self.manifest.chunks.check_object_size(size, self.log_location)
            except RemoteObjectError:
                obj.close()
                raise
            self._object, self._object_size = obj, size
        return self._object

    def _data_key(self) -> bytes:
        if self._key is None:
            enc = self.manifest.encryption
            assert enc is not None
            try:
                self._key = self._keyring.unwrap(enc.key_id, enc.wrapped_key, self.name)
            except RemoteObjectError as exc:
                failure = exc.with_location(
                    None, None, message=exc.message + f"; the segment's {self.log_location} is encrypted")
                failure.readable_until = 0
                raise failure from None
        return self._key


def decode_piece(raw: bytes, manifest: Manifest, data_key: Callable[[], bytes], original_size: int,
                 name: str, position: int, readable_until: int, what: str, compressed: bool | None = None) -> bytes:
    """One chunk (or index) as stored -> its original bytes: decrypted, then decompressed, as the manifest says."""
    def fail(message: str, cls: type[RemoteObjectError] = RemoteObjectError) -> RemoteObjectError:
        return cls(f"{what}: {message}", path=name, position=position, readable_until=readable_until)

    data = raw
    if manifest.encryption is not None:
        try:
            framed = AivenEncryptedChunk(KaitaiStream(io.BytesIO(raw)))
        except (KaitaiStructError, EOFError, ValueError):
            raise fail(f"{len(raw)} bytes cannot hold an encrypted chunk (a {IV_SIZE}-byte IV and a {TAG_SIZE}-byte "
                       "tag at least)") from None
        try:
            key = data_key()
        except RemoteObjectError as exc:
            failure = exc.with_location(None, None)
            failure.readable_until = readable_until
            raise failure from None
        from Crypto.Cipher import AES  # only for an encrypted segment: not at every command's start-up

        cipher = AES.new(key, AES.MODE_GCM, nonce=framed.iv, mac_len=TAG_SIZE)
        cipher.update(manifest.encryption.aad)
        try:
            data = cipher.decrypt_and_verify(framed.ciphertext, framed.tag)
        except ValueError:
            raise fail("fails AES-GCM authentication (the bytes changed, or the data key or AAD is not this "
                       "segment's)") from None
    if manifest.compression if compressed is None else compressed:
        try:
            declared = zstandard.get_frame_parameters(data).content_size
            # Aiven's frames declare their chunk's size: another one is refused before anything is decoded.
            if declared != zstandard.CONTENTSIZE_UNKNOWN and declared != original_size:
                raise fail(f"its zstd frame declares {declared} bytes; the manifest says {original_size}")
            data = decompress_frame(data, original_size)
        except zstandard.ZstdError as exc:
            raise fail(f"zstd frame does not decode: {exc}") from None
    if len(data) > original_size:
        raise fail(f"decodes to more than the {original_size} bytes the manifest says")
    if len(data) != original_size:
        raise fail(f"decodes to {len(data)} bytes; the manifest says {original_size}")
    return data


def read_index(manifest_location: str, index_name: str, opener: Opener = open_local, keyring: Keyring | None = None,
               manifest: Manifest | None = None) -> bytes | None:
    """The bytes of one of the segment's indexes (`offset`, `timestamp`, `producerSnapshot`, `leaderEpoch`,
    `transaction`) from its `.indexes` object; None where the manifest has none."""
    manifest = manifest if manifest is not None else read_manifest(manifest_location, opener)
    part = manifest.indexes.get(index_name)
    if part is None:
        return None
    position, size = part
    location = sibling(manifest_location, INDEXES_SUFFIX)
    if size == 0:
        return b""
    try:
        f = opener(location)
    except (FileNotFoundError, OSError) as exc:
        raise RemoteObjectError(f"no {INDEXES_SUFFIX} object beside the manifest ({exc}): the segment's indexes "
                                "cannot be read", path=location, position=0) from None
    with f:
        available = f.seek(0, os.SEEK_END)
        if position + size > available:
            raise RemoteObjectError(f"the manifest places the {index_name} index at bytes "
                                    f"{position}..{position + size} and the object has {available} bytes",
                                    path=location, position=min(position, available))
        f.seek(position)
        raw = f.read(size)
    original = size - IV_SIZE - TAG_SIZE if manifest.encryption is not None else size

    def data_key() -> bytes:
        enc = manifest.encryption
        assert enc is not None  # (asked for only for an encrypted segment)
        return (keyring or Keyring()).unwrap(enc.key_id, enc.wrapped_key, manifest_location)

    return decode_piece(raw, manifest, data_key, original, location, position, 0, f"{index_name} index",
                        compressed=False)


def open_segment(manifest_location: str, opener: Opener = open_local,
                 keyring: Keyring | None = None) -> AivenSegmentFile:
    return AivenSegmentFile(manifest_location, opener, keyring)
