"""Hostile Aiven objects (issue 30): each ends in bounded time and memory with a RemoteObjectError that names the
object, the byte and what is wrong in Aiven's terms, and what was read before it stays read. The objects are
written as Aiven writes them (tests/remote/aiven_writer.py), then damaged; the frames by zstandard's own writer."""
from __future__ import annotations

import base64
import io
import json
import struct
import time

import pytest
import zstandard

from kafkalog.errors import FileNameError, RemoteObjectError
from kafkalog.file_names import (
    base_offset_of,
    is_aiven_partition_dir_name,
    parse_partition_dir_name,
    parse_remote_partition_dir_name,
    parse_remote_segment_name,
)
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_keys import Keyring
from kafkalog.remote.aiven_manifest import parse_manifest
from tests.log.test_damage_fuzz import FORBIDDEN
from tests.remote import aiven_writer
from tests.remote.test_aiven import _records_of, _whole_offsets_before, write


def _edit(written, change) -> None:
    manifest = json.loads(written.manifest.read_text())
    change(manifest)
    written.manifest.write_text(json.dumps(manifest))


def _frame(content: bytes) -> bytes:
    return zstandard.ZstdCompressor(write_content_size=True).compress(content)


def _chunks_text(raw: bytes) -> str:
    return base64.b64encode(_frame(raw)).decode()


def _clear(error: BaseException) -> str:
    text = str(error)
    assert not FORBIDDEN.search(text), text
    return text


def _replace_chunk(written, index: int, frame: bytes) -> None:
    """Chunk `index` of a compressed segment's `.log` object replaced by `frame`, the chunk index made to say so."""
    m = parse_manifest(written.manifest.read_bytes(), "m")
    sizes = [c.transformed_size for c in m.chunks]
    data = written.log.read_bytes()
    start = m.chunks[index].transformed_position
    written.log.write_bytes(data[:start] + frame + data[start + sizes[index]:])
    sizes[index] = len(frame)
    _edit(written, lambda d: d["chunkIndex"].update(transformedChunks=aiven_writer.transformed_chunks_text(sizes)))


def test_a_chunk_frame_of_more_than_its_chunk_decodes_no_further(tmp_path):
    # 50 MiB of zeros in a few KB. Declared, the frame is refused by its header (zstd's
    # decompress(max_output_size=) would make all of it); undeclared, it is decoded to one byte past what the
    # manifest says, then refused.
    written = write(tmp_path, compression=True)
    _replace_chunk(written, 3, _frame(bytes(50 << 20)))
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == _whole_offsets_before(3000) and damage[0].readable_until == 3000
    assert f"{written.log}: byte 1517: chunk 3: its zstd frame declares 52428800 bytes; the manifest says 1000" \
        in _clear(damage[0])
    written = write(tmp_path / "undeclared", compression=True)
    _replace_chunk(written, 3, zstandard.ZstdCompressor(write_content_size=False).compress(bytes(50 << 20)))
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == _whole_offsets_before(3000) and damage[0].readable_until == 3000
    assert f"{written.log}: byte 1517: chunk 3: decodes to more than the 1000 bytes the manifest says" \
        in _clear(damage[0])


def test_a_frame_claiming_two_to_the_fifty_bytes(tmp_path):
    buf = io.BytesIO()
    writer = zstandard.ZstdCompressor(write_content_size=True).stream_writer(buf, size=2**50, closefd=False)
    writer.write(b"x" * 1000)
    writer.flush(zstandard.FLUSH_BLOCK)  # a frame that declares 2^50 bytes and holds 1000 of them
    assert zstandard.get_frame_parameters(buf.getvalue()).content_size == 2**50
    written = write(tmp_path, compression=True)
    _replace_chunk(written, 0, buf.getvalue())
    offsets, damage = _records_of(written.manifest, Keyring())
    assert offsets == [] and damage[0].readable_until == 0
    assert "chunk 0: its zstd frame declares 1125899906842624 bytes; the manifest says 1000" in _clear(damage[0])
    # the chunk index's own frame, declaring 2^50
    _edit(written, lambda d: d["chunkIndex"].update(transformedChunks=base64.b64encode(buf.getvalue()).decode()))
    with pytest.raises(RemoteObjectError, match="transformedChunks: invalid decompressed size 1125899906842624"):
        aiven_object.read_manifest(str(written.manifest))


def test_a_chunk_index_claiming_more_chunks_than_the_object_has_bytes(tmp_path):
    written = write(tmp_path, compression=True)
    count = 2_000_000  # 2 MB of the codec in a frame of a few hundred bytes; the object has 16 KB
    _edit(written, lambda d: d["chunkIndex"].update(originalChunkSize=1, originalFileSize=count,
                                                    transformedChunks=_chunks_text(
                                                        aiven_writer.encode_chunk_sizes([1] * count))))
    assert len(written.manifest.read_bytes()) < 10_000
    began = time.monotonic()
    m = aiven_object.read_manifest(str(written.manifest))
    assert len(m.chunks) == count
    offsets, damage = _records_of(written.manifest, Keyring())
    assert time.monotonic() - began < 5
    assert offsets == [] and damage[0].readable_until == 0
    assert f"the chunk index claims {count} chunks and the .log object {written.log} has " in _clear(damage[0])


@pytest.mark.parametrize("raw,message", [
    (struct.pack(">i", -1), "byte 0 should start a chunk count (not negative)"),
    (struct.pack(">iib", 5, 0, 9), "byte 0 should start a chunk count (not negative), then one size, or a base"),
    (struct.pack(">iib", 10_000_000, 0, 1), "byte 9 should start 9999999 differences of 1 bytes and the last size"),
    (struct.pack(">iibbi", 2, 0, 1, 0, -5), "the last chunk's size is -5"),
])
def test_chunk_size_codecs_that_are_not_aivens(tmp_path, raw, message):
    written = write(tmp_path, compression=True)
    _edit(written, lambda d: d["chunkIndex"].update(transformedChunks=_chunks_text(raw)))
    with pytest.raises(RemoteObjectError) as caught:
        aiven_object.read_manifest(str(written.manifest))
    assert message in _clear(caught.value) and str(written.manifest) in str(caught.value)


def test_a_chunk_count_that_does_not_fit_the_segment(tmp_path):
    written = write(tmp_path, compression=True)
    for sizes in ([], [5] * 3, [5] * 40):
        text = aiven_writer.transformed_chunks_text(sizes)
        _edit(written, lambda d, text=text: d["chunkIndex"].update(transformedChunks=text))
        with pytest.raises(RemoteObjectError, match=f"chunk index: {len(sizes)} chunks of 1000 bytes cannot hold a "
                                                    "segment of 16111 bytes"):
            aiven_object.read_manifest(str(written.manifest))


@pytest.mark.parametrize("text,message", [
    ("[" * 100_000 + "]" * 100_000, "not a segment manifest: JSON nested too deep"),
    ('{"version":"1","chunkIndex":{"originalChunkSize":' + "9" * 5000 + "}}",
     "a number of more digits than any Java int or long"),
    ('{"version":"1","chunkIndex":{"type":"fixed","originalChunkSize":' + "9" * 4000 + "}}",
     f"manifest field originalChunkSize is {'9' * 37}..., not a Java int >= 1"),
    ('{"version":' + "[" * 500 + "]" * 500 + "}", 'segment manifest version [[[[[['),
])
def test_manifests_that_are_not_json_kafkalog_can_hold(tmp_path, text, message):
    written = write(tmp_path)
    written.manifest.write_text(text)
    with pytest.raises(RemoteObjectError) as caught:
        aiven_object.read_manifest(str(written.manifest))
    assert message in _clear(caught.value) and len(str(caught.value)) < 1000


@pytest.mark.parametrize("change,message", [
    ({"remoteLogSegmentId": 5}, "remoteLogSegmentMetadata.remoteLogSegmentId is 5, not an object"),
    ({"startOffset": "x"}, 'remoteLogSegmentMetadata.startOffset is "x", not a Java long >= 0'),
    ({"endOffset": 2**63}, "remoteLogSegmentMetadata.endOffset is 9223372036854775808, not a Java long >= 0"),
    ({"remoteLogSegmentId": {"topicIdPartition": {"topicPartition": {"topic": "t", "partition": 2**31}}}},
     "topicPartition.partition is 2147483648, not a Java int >= 0"),
    ({"remoteLogSegmentId": {"topicIdPartition": {"topicPartition": {"topic": 3}}}},
     "topicPartition.topic is 3, not a string"),
    ({"remoteLogSegmentId": {"id": True}}, "remoteLogSegmentMetadata.remoteLogSegmentId.id is true, not a string"),
])
def test_segment_metadata_of_the_wrong_types(tmp_path, change, message):
    written = write(tmp_path)
    _edit(written, lambda d: d["remoteLogSegmentMetadata"].update(change))
    with pytest.raises(RemoteObjectError) as caught:
        aiven_object.read_manifest(str(written.manifest))
    assert message in _clear(caught.value)


@pytest.mark.parametrize("parse,name", [
    (is_aiven_partition_dir_name, "2147483648"), (is_aiven_partition_dir_name, "9223372036854775808"),
    (is_aiven_partition_dir_name, "9" * 5000), (parse_partition_dir_name, "orders-2147483648"),
    (parse_remote_partition_dir_name, f"orders-{2**63}-{'A' * 22}"), (base_offset_of, "99999999999999999999.log"),
    (parse_remote_segment_name, f"99999999999999999999-{'A' * 22}.log"),
])
def test_names_past_a_java_int_partition_or_a_java_long_offset_are_refused_naming_the_file(parse, name):
    # Kafka's own parsers (UnifiedLog.parseTopicPartitionName, LogFileUtils.offsetFromFileName) fail on them.
    with pytest.raises(FileNameError, match="past Kafka's largest") as raised:
        parse(name)
    assert str(raised.value).startswith(name[:20])


def test_the_largest_partition_and_offset_are_kafka_names():
    assert is_aiven_partition_dir_name("2147483647") and parse_partition_dir_name("orders-2147483647").partition == 2**31 - 1
    assert base_offset_of("09223372036854775807.log") == 2**63 - 1


@pytest.mark.parametrize("key,why", [
    ("tiered/orders-x/0/00000000000000000000-y", None),
    ("a/../b", "a key with `.` or `..`"), ("./b", "a key with `.` or `..`"), ("..", "a key with `.` or `..`"),
    ("/etc/k", "an absolute key"), ("s3://other/k", "a key that names a scheme or drive"),
    ("C:/k", "a key that names a scheme or drive"), ("a//b", "a key with an empty part (`//`)"),
    ("a\\..\\b", "a key with a backslash (a separator on Windows)"), ("a\0b", "a key with a control character"),
    ("", "an empty key"),
])
def test_which_object_keys_stay_under_the_root(key, why):
    from kafkalog.dataset.remote_roots import outside_root

    assert outside_root(key) == why
