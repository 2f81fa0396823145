"""How a segment frames its entries: `kafka_log.ksy`'s `entry_header`, and the sizes Kafka names for it.

Every entry of a segment, whatever its format, starts with a base offset (int64), a size (int32)
that counts the bytes after those 12, four bytes that are a v2 batch's leader epoch or a legacy
message's CRC, and the magic byte at byte 16. The sizes below are the places of those fields in
the spec (`tests/formats/test_framing.py` checks them against the generated parser); Kafka
names them in `Records` and `FileLogInputStream`.
"""
from __future__ import annotations

from io import BytesIO
from typing import TypeAlias

from kaitaistruct import KaitaiStream

from kafkalog._generated.kafka_log import KafkaLog

#: The base offset and the size: the bytes an entry's size does not count (`Records.LOG_OVERHEAD`).
LOG_OVERHEAD = 12
#: The entry header up to and including the magic byte (`FileLogInputStream.HEADER_SIZE_UP_TO_MAGIC`).
HEADER_SIZE_UP_TO_MAGIC = 17
#: The header and the v2 fields a lookup reads (last offset delta, max timestamp), without the batch.
V2_HEADER_SIZE = HEADER_SIZE_UP_TO_MAGIC + 26
#: The least entry size Kafka takes for sound (`LegacyRecord.RECORD_OVERHEAD_V0`): `kafka_log.ksy`'s `valid`.
MIN_ENTRY_SIZE = 14

EntryHeader: TypeAlias = KafkaLog.EntryHeader  # the generated parsers are untyped: Any to mypy


def entry_header(data: bytes) -> EntryHeader:
    """The header at the start of `data`, read by the generated parser: the offset and size from
    `LOG_OVERHEAD` bytes on, the magic byte from `HEADER_SIZE_UP_TO_MAGIC` on, a v2 batch's
    fields up to its max timestamp from `V2_HEADER_SIZE` on."""
    return EntryHeader(KaitaiStream(BytesIO(data)))
