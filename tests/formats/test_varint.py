"""Kafka's zigzag varints through the generated parser, over the whole 64-bit range."""
from __future__ import annotations

import pytest
from kafkalog._generated.kafka_varint import KafkaVarint
from kaitaistruct import BytesIO, KaitaiStream, ValidationGreaterThanError


def encode(value: int) -> bytes:
    """Kafka's ByteUtils.writeVarlong."""
    v = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


VALUES = [0, -1, 1, -2, 63, -64, 64, 8191, -8192, 2**31 - 1, -(2**31), 2**53, -(2**53) - 1, 2**63 - 1, -(2**63)]


@pytest.mark.parametrize("value", VALUES)
def test_decodes_like_kafka(value):
    raw = encode(value)
    parsed = KafkaVarint(KaitaiStream(BytesIO(raw + b"\xff")))
    assert parsed.value == value
    assert parsed.len == len(raw)


def test_known_encodings():
    assert encode(-1) == b"\x01" and encode(1) == b"\x02" and encode(-(2**63)) == b"\xff" * 9 + b"\x01"


def test_an_eleventh_byte_is_rejected():
    with pytest.raises(ValidationGreaterThanError):
        KafkaVarint(KaitaiStream(BytesIO(b"\xff" * 11)))
