"""Record keys and values framed for a schema registry, decoded with the schemas of a `SchemaStore`.

    decoder = ValueDecoder(store)
    out = decoder.decode(record.value, record.headers, topic="orders", is_key=False)
    out.decoded   # plain JSON values (None when the bytes name no schema, or do not decode)
    out.schema    # SchemaRef(id, subject, version, format), or None when no schema is named
    out.error     # what is wrong, or None; the record's raw bytes are never touched

Formats: Avro (`registry.avro`, fastavro), Protobuf (`registry.protobuf`, compiled in-process), JSON
Schema (`registry.json_schema`). What a schema compiles to is cached per id, failures included, so
a schema is compiled once however many records use it.

Only bytes that start as the wire format does (magic byte 0 or 1), or records with the schema-id
header, are decoded: other bytes are not registry values and give nothing. Internal topics
(`__consumer_offsets`, `_schemas`, ...) are never decoded this way.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from kafkalog.errors import UndecodableValueError
from kafkalog.formats.schemas_topic import AVRO, JSON, PROTOBUF, SCHEMAS_TOPIC
from kafkalog.registry import avro, json_schema, protobuf
from kafkalog.registry.framing import Framed, message_indexes, unframe
from kafkalog.registry.store import Schema, SchemaStore

#: The wire-format names of the formats, as `value_schema.format` gives them.
FORMAT_NAMES = {AVRO: "avro", PROTOBUF: "protobuf", JSON: "json"}


@dataclass(frozen=True)
class SchemaRef:
    """The schema a key or value names: its id, and the subject and version it is known by."""

    id: int | None
    subject: str | None
    version: int | None
    format: str | None
    #: "live", "soft" or "hard": whether that version was deleted (the data still decodes).
    state: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "subject": self.subject, "version": self.version, "format": self.format}


@dataclass(frozen=True)
class DecodedValue:
    decoded: Any = None
    schema: SchemaRef | None = None
    error: str | None = None

    def decoded_json(self) -> str | None:
        """`decoded` as JSON text; None when nothing was decoded."""
        return _json(self.decoded) if self.schema is not None and self.error is None else None


NOTHING = DecodedValue()


def is_registry_topic(topic: str | None) -> bool:
    """Topics whose records may be registry-framed: not Kafka's internal ones, not the registry's own."""
    return not (topic or "").startswith("__") and topic != SCHEMAS_TOPIC


class ValueDecoder:
    """Decodes keys and values with a store's schemas; `validate_json` checks JSON Schema values."""

    def __init__(self, store: SchemaStore, *, validate_json: bool = False):
        self.store = store
        self.validate_json = validate_json
        self._compiled: dict[int, object] = {}
        # read_arrow's threads share one decoder: a schema is compiled once (protoc's in-process run included).
        self._compiling = threading.Lock()

    def decode(self, data: bytes | None, headers: list[tuple[str, bytes | None]] | None = None, *,
               topic: str | None = None, is_key: bool = False) -> DecodedValue:
        """The decoded key or value; NOTHING when it names no schema (and for internal topics)."""
        if data is None or not is_registry_topic(topic):
            return NOTHING  # a null key or a tombstone names no schema, whatever its headers say
        try:
            framed = unframe(data, headers, is_key=is_key)
        except UndecodableValueError as e:
            return DecodedValue(error=str(e))
        if framed is None:
            return NOTHING
        schema = self._schema_of(framed)
        if schema is None:
            return DecodedValue(error=f"{framed.source} names schema {framed.identifier}, which is not in the "
                                      f"schema store{self._where()}")
        ref = self._ref(schema, topic, is_key)
        try:
            return DecodedValue(self._decode(schema, framed), ref)
        except UndecodableValueError as e:
            return DecodedValue(schema=ref, error=str(e))

    def decode_as(self, data: bytes | None, headers, reader: Schema, *, topic: str | None = None,
                  is_key: bool = False) -> Any:
        """The value resolved to `reader` (a subject's latest Avro schema): Python values, not JSON.

        Raises UndecodableValueError when it does not decode or resolve; None for a null or unframed value."""
        if data is None:
            return None
        framed = unframe(data, headers, is_key=is_key)
        if framed is None:
            return None
        schema = self._schema_of(framed)
        if schema is None:
            raise UndecodableValueError(f"{framed.source} names schema {framed.identifier}, which is not in the "
                                        f"schema store{self._where()}")
        if schema.schema_type != reader.schema_type:
            raise UndecodableValueError(f"schema id {schema.id} is {schema.schema_type}, not {reader.schema_type} "
                                        f"as schema id {reader.id}")
        if schema.schema_type == AVRO:
            return avro.decode_avro(self._compile(schema), framed.body, self._compile(reader))
        if schema.schema_type == PROTOBUF:
            indexes, body = self._indexes(framed)
            if indexes != [0]:
                raise UndecodableValueError(f"it is message {indexes} of schema id {schema.id}; the typed column "
                                            f"is the first message of schema id {reader.id}")
            return protobuf.decode_protobuf(self._compile(reader), [0], body)
        return self._decode(schema, framed)

    def compiled(self, schema: Schema) -> object:
        """What a schema compiles to (AvroSchema, ProtobufSchema, JsonSchema); UndecodableValueError if it does not."""
        return self._compile(schema)

    # ------------------------------------------------------------------

    def _schema_of(self, framed: Framed) -> Schema | None:
        if framed.schema_id is not None:
            return self.store.by_id(framed.schema_id)
        return self.store.by_guid(framed.guid) if framed.guid is not None else None

    def _ref(self, schema: Schema, topic: str | None, is_key: bool) -> SchemaRef:
        version = self.store.version_for(schema.id, topic, is_key)
        return SchemaRef(schema.id, version.subject if version else None, version.version if version else None,
                         FORMAT_NAMES.get(schema.schema_type, schema.schema_type.lower()),
                         version.state if version else None)

    def _decode(self, schema: Schema, framed: Framed) -> Any:
        if schema.schema_type == AVRO:
            return avro.plain_json(avro.decode_avro(self._compile(schema), framed.body))
        if schema.schema_type == PROTOBUF:
            return protobuf.plain_json(self._protobuf(schema, framed))
        if schema.schema_type == JSON:
            return json_schema.decode_json(self._compile(schema), framed.body, validate=self.validate_json)
        raise UndecodableValueError(f"schema id {schema.id} has schemaType {schema.schema_type!r}, which kafkalog "
                                    "does not decode (AVRO, PROTOBUF, JSON)")

    def _protobuf(self, schema: Schema, framed: Framed):
        indexes, body = self._indexes(framed)
        return protobuf.decode_protobuf(self._compile(schema), indexes, body)

    @staticmethod
    def _indexes(framed: Framed) -> tuple[list[int], bytes]:
        """A Protobuf body's message indexes and the message's bytes (indexes in the header with that framing)."""
        indexes, used = message_indexes(framed.index_bytes or b"")
        return indexes, framed.body[used:] if framed.source in ("key", "value") else framed.body

    def _compile(self, schema: Schema):
        if schema.id not in self._compiled:
            with self._compiling:
                self._compile_once(schema)
        compiled = self._compiled[schema.id]
        if isinstance(compiled, UndecodableValueError):
            raise UndecodableValueError(compiled.message)
        return compiled

    def _compile_once(self, schema: Schema) -> None:
        if schema.id not in self._compiled:
            try:
                if schema.schema_type == AVRO:
                    self._compiled[schema.id] = avro.compile_avro(self.store, schema)
                elif schema.schema_type == PROTOBUF:
                    self._compiled[schema.id] = protobuf.compile_protobuf(self.store, schema)
                elif schema.schema_type == JSON:
                    self._compiled[schema.id] = json_schema.compile_json_schema(self.store, schema)
                else:
                    raise UndecodableValueError(f"schema id {schema.id} has schemaType {schema.schema_type!r}, "
                                                "which kafkalog does not decode (AVRO, PROTOBUF, JSON)")
            except UndecodableValueError as e:
                self._compiled[schema.id] = e

    def _where(self) -> str:
        return f" ({self.store.source})" if self.store.source else ""

    def __getstate__(self) -> dict:
        # Compiled schemas (descriptor pools) do not pickle: a Spark executor compiles its own.
        return {"store": self.store, "validate_json": self.validate_json, "_compiled": {}}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._compiling = threading.Lock()


def _json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
