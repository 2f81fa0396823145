"""Where a record key or value names its schema: the wire format's prefix, or the schema-id header.

Spec: `schemas/schema_registry_framing.ksy`, parsed here by its generated parser (no fast-path twin:
values are decoded one record at a time, by their schema).

    framed = unframe(record.value, record.headers, is_key=False)
    framed.schema_id, framed.guid    # one of them
    framed.body                      # Avro binary, JSON text, or a Protobuf message
    framed.message_indexes           # Protobuf: which message of the schema ([0] by default)

Newer serializers (`header_schema_id_serializer`) put the prefix in the record header
`__value_schema_id` / `__key_schema_id` and the body alone in the value; the header wins, as in
confluent-kafka's `dual_schema_id_deserializer`.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from io import BytesIO

from kaitaistruct import KaitaiStream, KaitaiStructError

from kafkalog._generated.schema_registry_framing import SchemaRegistryFraming
from kafkalog.errors import UndecodableValueError

KEY_HEADER, VALUE_HEADER = "__key_schema_id", "__value_schema_id"
#: The shortest prefix of each magic: magic byte and id (5), magic byte and GUID (17).
PREFIX_SIZES = {0: 5, 1: 17}


@dataclass(frozen=True)
class Framed:
    """A key or value's schema identifier and body."""

    schema_id: int | None
    guid: uuid.UUID | None
    #: The serialized body: everything after the prefix (or the whole value, with the header framing).
    body: bytes
    #: Where the prefix was: "value" (or "key") bytes, or the header's name.
    source: str
    #: Bytes where Protobuf message indexes are read from: the start of `body`, or the header's rest.
    index_bytes: bytes | None = None

    @property
    def identifier(self) -> str:
        return f"id {self.schema_id}" if self.schema_id is not None else f"GUID {self.guid}"


def is_framed(data: bytes | None) -> bool:
    """Whether bytes start as the wire format does (magic 0 or 1). Others are not registry values."""
    return data is not None and len(data) > 0 and data[0] in PREFIX_SIZES


def unframe(data: bytes | None, headers: list[tuple[str, bytes | None]] | None, *, is_key: bool) -> Framed | None:
    """The schema identifier and body of a key or value; None when it names no schema (not framed, no header).

    Raises UndecodableValueError for bytes that start like the wire format but do not hold it.
    """
    what = "key" if is_key else "value"
    header_name = KEY_HEADER if is_key else VALUE_HEADER
    for name, header in headers or ():
        if name == header_name:
            prefix = _parse(header, f"header {header_name}")
            return Framed(_id(prefix), _guid(prefix), data or b"", header_name, prefix.body)
    if not is_framed(data):
        return None
    prefix = _parse(data, what)
    return Framed(_id(prefix), _guid(prefix), prefix.body, what, prefix.body)


def message_indexes(data: bytes) -> tuple[list[int], int]:
    """Protobuf message indexes at the start of `data` and how many bytes they take; a count of 0 is [0]."""
    io = KaitaiStream(BytesIO(data))
    try:
        parsed = SchemaRegistryFraming.MessageIndexes(io)
    except (EOFError, KaitaiStructError, ValueError) as e:
        raise UndecodableValueError(f"the Protobuf message indexes end before they are whole ({_reason(e)})") from None
    if parsed.num_indexes.value < 0:
        raise UndecodableValueError(f"the Protobuf message index count is negative ({parsed.num_indexes.value})")
    indexes = [i.value for i in parsed.indexes] or [0]
    if any(i < 0 for i in indexes):
        raise UndecodableValueError(f"a Protobuf message index is negative ({indexes})")
    return indexes, io.pos()


def _parse(data: bytes | None, where: str) -> SchemaRegistryFraming:
    if not data:
        raise UndecodableValueError(f"{where} is empty: no schema registry prefix")
    if data[0] in PREFIX_SIZES and len(data) < PREFIX_SIZES[data[0]]:
        kind = "schema id" if data[0] == 0 else "schema GUID"
        raise UndecodableValueError(f"{where} of {len(data)} bytes is too short for its magic byte {data[0]} and "
                           f"{kind} ({PREFIX_SIZES[data[0]]} bytes)")
    try:
        return SchemaRegistryFraming(KaitaiStream(BytesIO(data)))
    except (EOFError, KaitaiStructError, ValueError):
        raise UndecodableValueError(f"{where} starts with byte 0x{data[0]:02x}: not magic byte 0 (schema id) or 1 "
                           "(schema GUID) of the schema registry's wire format") from None


def _id(prefix: SchemaRegistryFraming) -> int | None:
    return prefix.schema_id if prefix.magic == SchemaRegistryFraming.Magic.schema_id else None


def _guid(prefix: SchemaRegistryFraming) -> uuid.UUID | None:
    return uuid.UUID(bytes=prefix.schema_guid) if prefix.magic == SchemaRegistryFraming.Magic.schema_guid else None


def _reason(e: Exception) -> str:
    return "the bytes end" if isinstance(e, EOFError) else "a varint longer than 10 bytes"

