"""An Aiven remote segment's custom metadata: where its objects are, as `__remote_log_metadata` keeps it.

Spec: `schemas/aiven_segment_custom_metadata.ksy`, parsed here by its generated parser (no fast-path twin:
one per remote segment).

    meta = parse_custom_metadata(record_custom_metadata_bytes)
    meta.object_prefix, meta.object_key   # the objects are prefix + key + ".rsm-manifest" (".log", ".indexes")
"""
from __future__ import annotations

from dataclasses import dataclass
from io import BytesIO

from kaitaistruct import KaitaiStream, KaitaiStructError

from kafkalog._generated.aiven_segment_custom_metadata import AivenSegmentCustomMetadata

REMOTE_SIZE, OBJECT_PREFIX, OBJECT_KEY = 0, 1, 2


@dataclass(frozen=True)
class CustomMetadata:
    remote_size: int | None = None
    object_prefix: str | None = None
    object_key: str | None = None


def parse_custom_metadata(data: bytes | None) -> CustomMetadata | None:
    """The fields Aiven's storage manager wrote; None for no bytes, or bytes that are not its tagged fields
    (another storage manager's custom metadata)."""
    if not data:
        return None
    try:
        parsed = AivenSegmentCustomMetadata(KaitaiStream(BytesIO(data)))
    except (EOFError, KaitaiStructError, UnicodeDecodeError, ValueError):
        return None
    fields = {f.tag.unsigned_value: f.value for f in parsed.fields}
    return CustomMetadata(
        fields[REMOTE_SIZE].value if REMOTE_SIZE in fields else None,
        fields[OBJECT_PREFIX].value if OBJECT_PREFIX in fields else None,
        fields[OBJECT_KEY].value if OBJECT_KEY in fields else None)
