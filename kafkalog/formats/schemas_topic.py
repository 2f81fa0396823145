"""The records of a schema registry's `_schemas` topic: JSON keys and values, as the registries write them.

No spec: keys and values are JSON text (Confluent Schema Registry's `SchemaRegistryKey` /
`SchemaRegistryValue` classes, which Karapace writes too). Karapace's older key format orders the
fields differently, so keys are compared parsed, never as bytes.

    key = parse_key(record.key)        # {"keytype": "SCHEMA", "subject": "orders-value", "version": 2, "magic": 1}
    value = parse_value(key, record.value)   # a SchemaValue, ... or None for a tombstone

`kafkalog.registry.store` replays these records into a schema store; `kafkalog dump --decode`
prints them with `decoded_key` / `decoded_value`.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from kafkalog.formats.json_depth import JsonDepthError, loads

#: The default topic name (`kafkastore.topic` in Confluent's, `topic_name` in Karapace's configuration).
SCHEMAS_TOPIC = "_schemas"

SCHEMA, CONFIG, MODE, NOOP, DELETE_SUBJECT, CLEAR_SUBJECT, CONTEXT = (
    "SCHEMA", "CONFIG", "MODE", "NOOP", "DELETE_SUBJECT", "CLEAR_SUBJECT", "CONTEXT")
KEY_TYPES = (SCHEMA, CONFIG, MODE, NOOP, DELETE_SUBJECT, CLEAR_SUBJECT, CONTEXT)

AVRO, PROTOBUF, JSON = "AVRO", "PROTOBUF", "JSON"
SCHEMA_TYPES = (AVRO, PROTOBUF, JSON)


class SchemasRecordError(ValueError):
    """A `_schemas` record whose key or value is not what a registry writes."""


@dataclass(frozen=True)
class Reference:
    """A schema's reference to another subject's version: the name it is imported or referred to by."""

    name: str
    subject: str
    #: -1: the subject's latest version (Confluent's convention).
    version: int


@dataclass(frozen=True)
class SchemaValue:
    """A SCHEMA record's value: one version of a subject."""

    subject: str
    version: int
    id: int
    schema: str
    schema_type: str = AVRO
    references: tuple[Reference, ...] = ()
    deleted: bool = False
    #: The schema's MD5 (`md5`, base64 in the record), which magic-1 framing names as a GUID; None when absent.
    md5: bytes | None = None
    metadata: Any = None
    rule_set: Any = None

    def as_json(self) -> dict[str, Any]:
        """What `kafkalog dump --decode` prints for it."""
        out: dict[str, Any] = {"subject": self.subject, "version": self.version, "id": self.id,
                               "schemaType": self.schema_type, "deleted": self.deleted}
        if self.references:
            out["references"] = [{"name": r.name, "subject": r.subject, "version": r.version} for r in self.references]
        if self.md5 is not None:
            out["md5"] = base64.b64encode(self.md5).decode()
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.rule_set is not None:
            out["ruleSet"] = self.rule_set
        out["schema"] = self.schema
        return out


@dataclass(frozen=True)
class OtherValue:
    """The value of any other key type, as the registry wrote it (CONFIG, MODE, DELETE_SUBJECT, ...)."""

    fields: dict[str, Any] = field(default_factory=dict)


def parse_key(data: bytes | None) -> dict[str, Any]:
    """A `_schemas` key as JSON; `keytype` is one of KEY_TYPES."""
    if data is None:
        raise SchemasRecordError("a _schemas record has no key")
    key = _json(data, "key")
    if not isinstance(key, dict) or key.get("keytype") not in KEY_TYPES:
        raise SchemasRecordError(f"key {_preview(data)} has no keytype among {', '.join(KEY_TYPES)}")
    if key["keytype"] in (SCHEMA, DELETE_SUBJECT, CLEAR_SUBJECT) and not isinstance(key.get("subject"), str):
        raise SchemasRecordError(f"{key['keytype']} key {_preview(data)} has no subject")
    if key["keytype"] == SCHEMA and not _is_int(key.get("version")):
        raise SchemasRecordError(f"SCHEMA key {_preview(data)} has no version")
    return key


def parse_value(key: dict[str, Any], data: bytes | None) -> SchemaValue | OtherValue | None:
    """A `_schemas` value for its parsed key; None for a tombstone (a hard delete of a SCHEMA key).

    Karapace writes its tombstones as empty values, Confluent's registry as null ones: both delete."""
    if not data:
        return None
    value = _json(data, "value")
    if not isinstance(value, dict):
        raise SchemasRecordError(f"value {_preview(data)} is not a JSON object")
    if key["keytype"] != SCHEMA:
        return OtherValue(value)
    subject, version, schema_id = value.get("subject"), value.get("version"), value.get("id")
    if not isinstance(subject, str) or not _is_int(version) or not _is_int(schema_id):
        raise SchemasRecordError(f"SCHEMA value for {key['subject']} version {key['version']} lacks subject, "
                                 "version or id")
    schema = value.get("schema")
    if not isinstance(schema, str):
        raise SchemasRecordError(f"SCHEMA value for {subject} version {version} has no schema text")
    schema_type = value.get("schemaType") or AVRO
    if not isinstance(schema_type, str):
        raise SchemasRecordError(f"SCHEMA value for {subject} version {version}: schemaType {_short(schema_type)} "
                                 "is not a name")
    refs = value.get("references") or []
    if not isinstance(refs, list):
        raise SchemasRecordError(f"SCHEMA value for {subject} version {version}: references {_short(refs)} is not "
                                 "a list")
    references = []
    for ref in refs:
        if not isinstance(ref, dict) or not isinstance(ref.get("name"), str) or not isinstance(
                ref.get("subject"), str) or not _is_int(ref.get("version")):
            raise SchemasRecordError(f"SCHEMA value for {subject} version {version}: bad reference {_short(ref)}")
        references.append(Reference(ref["name"], ref["subject"], ref["version"]))
    md5 = None
    if isinstance(value.get("md5"), str):
        try:
            md5 = base64.b64decode(value["md5"], validate=True)
        except ValueError:
            md5 = None
    return SchemaValue(subject, version, schema_id, schema, schema_type.upper(), tuple(references),
                       bool(value.get("deleted", False)), md5, value.get("metadata"), value.get("ruleSet"))


def decode_record(key: bytes | None, value: bytes | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A `_schemas` record as `kafkalog dump --decode` prints it: the key, and the value (None: tombstone)."""
    parsed_key = parse_key(key)
    parsed = parse_value(parsed_key, value)
    if parsed is None:
        return parsed_key, None
    if isinstance(parsed, SchemaValue):
        return parsed_key, parsed.as_json()
    return parsed_key, parsed.fields


def _json(data: bytes, what: str) -> Any:
    try:
        return loads(data)
    except JsonDepthError as e:
        raise SchemasRecordError(f"{what} {_preview(data)} is refused: {e}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise SchemasRecordError(f"{what} {_preview(data)} is not JSON: {e}") from None


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(v: Any, limit: int = 60) -> str:
    text = repr(v)
    return text[:limit] + ("..." if len(text) > limit else "")


def _preview(data: bytes, limit: int = 60) -> str:
    text = data[:limit].decode("utf-8", "backslashreplace")
    return repr(text + ("..." if len(data) > limit else ""))
