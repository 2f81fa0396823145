"""A partition directory's `partition.metadata`: its topic's id, as Kafka's `PartitionMetadataReadBuffer` reads it.

No spec (the file is text, not bytes with a layout) and no fast-path twin.

    version: 0
    topic_id: _TKG_VOmThu9-5l14yFjLA

Where Kafka fails, a `CorruptStructureError` names the file and the 1-based line: a first line other than
`version: <int>` (key and value split at a colon and whitespace), a version below 0, a second line other than
`topic_id: <Uuid>` (URL-safe base64 of 16 bytes), or the zero id. Later lines are not read, as by Kafka; a
version above 0 reads, as Kafka reads it ("downgrade compatibility").
(`storage/.../checkpoint/PartitionMetadataReadBuffer.java`, `PartitionMetadataFile.java`)
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kafkalog.errors import CorruptStructureError
from kafkalog.formats import text_files

CURRENT_VERSION = 0

_KEY_VALUE = re.compile(r":[ \t\n\x0b\f\r]+")  # Java's ":\\s+"


@dataclass
class PartitionMetadata:
    """The file's version and its topic id, as Kafka's `Uuid.toString` writes it."""

    version: int
    topic_id: str


def parse_partition_metadata(text: str, path: str | None = None) -> PartitionMetadata:
    """Parse the file's text; a `CorruptStructureError` (with the 1-based line in its message) where Kafka fails."""
    lines = text_files.lines(text)
    version_text = _value(lines, 0, "version", path)
    version = text_files.java_int(version_text)
    if version is None:
        raise CorruptStructureError(f"line 1: version {version_text!r} is not a number", path=path)
    if version < CURRENT_VERSION:
        raise CorruptStructureError(f"line 1: unrecognised version {version}", path=path)
    id_text = _value(lines, 1, "topic_id", path)
    topic_id = text_files.kafka_uuid(id_text)
    if topic_id is None:
        raise CorruptStructureError(f"line 2: topic_id {id_text!r} is not a Kafka Uuid (URL-safe base64 of 16 bytes)",
                                    path=path)
    if topic_id == text_files.ZERO_UUID:
        raise CorruptStructureError("line 2: topic_id is the zero Uuid, which names no topic", path=path)
    return PartitionMetadata(version=version, topic_id=topic_id)


def read_partition_metadata(path: str | os.PathLike) -> PartitionMetadata:
    return parse_partition_metadata(text_files.read_utf8(path), os.fspath(path))


def _value(lines: list[str], index: int, key: str, path: str | None) -> str:
    if index >= len(lines):
        raise CorruptStructureError(f"line {index + 1}: missing (expected '{key}: ...')", path=path)
    parts = _KEY_VALUE.split(lines[index], maxsplit=1)
    if len(parts) != 2 or parts[0] != key:
        raise CorruptStructureError(f"line {index + 1}: malformed line {lines[index]!r} (expected '{key}: ...')",
                                    path=path)
    return parts[1]
