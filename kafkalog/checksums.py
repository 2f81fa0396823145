"""The checksums of the two message formats."""
from __future__ import annotations

import zlib

#: Where the CRC-covered bytes start, counted from the start of the entry.
V2_CRC_START = 21  # attributes: after base offset, length, leader epoch, magic, crc
LEGACY_CRC_START = 16  # magic: after offset, size, crc


def v2_crc(entry: bytes) -> int:
    """CRC-32C of a v2 batch from its attributes to its end (the leader epoch is not covered)."""
    import crc32c  # noqa: PLC0415  (its import reads package metadata: start-up, where the engine checks CRCs)

    return crc32c.crc32c(memoryview(entry)[V2_CRC_START:])


def legacy_crc(entry: bytes) -> int:
    """CRC-32 of a v0/v1 message from its magic byte to its end."""
    return zlib.crc32(memoryview(entry)[LEGACY_CRC_START:]) & 0xFFFFFFFF


def crc32(data: bytes | memoryview) -> int:
    """CRC-32 (IEEE) of bytes: a Kafka 0.7 message's checksum covers its payload alone."""
    return zlib.crc32(data) & 0xFFFFFFFF
