"""A schema store: every schema a registry registered, rebuilt offline from its `_schemas` records.

    store = SchemaStore.from_records((offset, key, value) for each `_schemas` record, in offset order)
    store.by_id(4)                         # the Schema an id names (also after its versions were deleted)
    store.version_for(4, topic="orders", is_key=False)   # the subject/version it is best known by
    store.latest("orders-value")           # the newest version not deleted

Replay follows the registries' readers (Confluent's `KafkaStoreReaderThread`, Karapace's
`schema_reader`): a SCHEMA record registers or rewrites a version (`deleted: true` is a soft
delete); a tombstone of a SCHEMA key is a hard delete; DELETE_SUBJECT soft-deletes the versions up to
its `version`; CLEAR_SUBJECT hard-deletes the soft-deleted ones. CONFIG, MODE, NOOP and CONTEXT
records say nothing about schemas.

An id stays decodable after its versions are deleted, soft or hard, as long as its schema text is in
the records: the data written with it still exists. Such a version is reported with its deleted state.

Other sources (`from_export`): a registry's answer to `GET /schemas?deleted=true` saved as JSON, a
Karapace v1 backup (`karapace_schema_backup`: a JSON list of `[key, value]` texts), or a directory of schema files named
`<id>.avsc`, `<id>.proto` or `<id>.json`.
"""
from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafkalog.errors import UndecodableValueError
from kafkalog.formats import json_depth, schemas_topic
from kafkalog.formats.schemas_topic import (
    AVRO,
    CLEAR_SUBJECT,
    DELETE_SUBJECT,
    JSON,
    PROTOBUF,
    SCHEMA,
    Reference,
    SchemasRecordError,
    SchemaValue,
)

#: How deep references may nest before they are taken for a cycle.
MAX_REFERENCE_DEPTH = 32
#: Schema-file suffixes of a directory of schema files, and their formats.
FILE_FORMATS = {".avsc": AVRO, ".proto": PROTOBUF, ".json": JSON}
#: "Not deleted", "soft" (deleted, still listed with ?deleted=true), "hard" (gone from the registry).
LIVE, SOFT, HARD = "live", "soft", "hard"


@dataclass(frozen=True)
class Schema:
    """One schema: what an id names. The same text under several subjects shares its id."""

    id: int
    schema_type: str
    text: str
    references: tuple[Reference, ...] = ()
    md5: bytes | None = None


@dataclass(frozen=True)
class Version:
    """A subject's version of a schema, and whether it was deleted."""

    subject: str
    version: int
    id: int
    state: str = LIVE


@dataclass
class SchemaStore:
    """Schemas by id, subjects' versions, and what could not be read (`problems`, one line each)."""

    schemas: dict[int, Schema] = field(default_factory=dict)
    versions: dict[tuple[str, int], Version] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: Where the store came from, for messages ("_schemas-0 of /data", "export.json").
    source: str = ""
    # Indexes, so that a lookup costs the same with 10 or 100,000 schema versions: MD5 -> schema,
    # id -> its (subject, version) keys, subject -> its (subject, version) keys.
    _by_md5: dict[bytes, Schema] = field(default_factory=dict, repr=False)
    _keys_of_id: dict[int, set[tuple[str, int]]] = field(default_factory=dict, repr=False)
    _keys_of_subject: dict[str, set[tuple[str, int]]] = field(default_factory=dict, repr=False)
    # (id, subject) -> that subject's versions of the id; id -> the version it is known by when the topic's own
    # subject does not have it (made on first use: one schema id can be registered under every subject).
    _keys_of_id_in_subject: dict[tuple[int, str], set[tuple[str, int]]] = field(default_factory=dict, repr=False)
    _known_by: dict[int, Version] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_records(cls, records: Iterable[tuple[int | None, bytes | None, bytes | None]], source: str = ""
                     ) -> SchemaStore:
        """Replay `_schemas` records `(offset, key, value)` in offset order."""
        store = cls(source=source)
        for offset, key, value in records:
            try:
                store._apply(schemas_topic.parse_key(key), key, value)
            except SchemasRecordError as e:  # skipped, as Karapace's schema reader skips a record it cannot read
                store.problems.append(f"{source or '_schemas'}: offset {offset}: {e}; record skipped")
        return store

    def _set_schema(self, schema: Schema) -> None:
        old = self.schemas.get(schema.id)
        if old is not None and old.md5 is not None and self._by_md5.get(old.md5) is old:
            del self._by_md5[old.md5]
        self.schemas[schema.id] = schema
        if schema.md5 is not None:
            self._by_md5.setdefault(schema.md5, schema)

    def _set_version(self, version: Version) -> None:
        key = (version.subject, version.version)
        old = self.versions.get(key)
        if old is not None and old.id != version.id:
            self._keys_of_id.get(old.id, set()).discard(key)
            self._keys_of_id_in_subject.get((old.id, old.subject), set()).discard(key)
        self.versions[key] = version
        self._keys_of_id.setdefault(version.id, set()).add(key)
        self._keys_of_id_in_subject.setdefault((version.id, version.subject), set()).add(key)
        self._known_by.clear()
        self._keys_of_subject.setdefault(version.subject, set()).add(key)

    @classmethod
    def from_export(cls, path: str | os.PathLike) -> SchemaStore:
        """A registry export: `GET /schemas?deleted=true` as JSON, a Karapace backup, or a directory of schema files."""
        p = Path(path)
        store = cls(source=str(p))
        if p.is_dir():
            store._add_files(p)
            return store
        try:
            data = json_depth.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise SchemasRecordError(f"{p}: not a registry export (JSON): {e}") from None
        if isinstance(data, list) and all(isinstance(e, dict) for e in data):
            for entry in data:
                store._add_export_entry(entry)
            return store
        if isinstance(data, list) and all(isinstance(e, list) and len(e) == 2 for e in data):
            # Karapace's v1 backup: [[key JSON text, value JSON text or null], ...] in the topic's order.
            return cls.from_records(((i, _text(k), _text(v)) for i, (k, v) in enumerate(data)), str(p))
        raise SchemasRecordError(f"{p}: neither a registry's GET /schemas answer nor a Karapace v1 backup")

    def _apply(self, key: dict[str, Any], raw_key: bytes | None, raw_value: bytes | None) -> None:
        keytype = key["keytype"]
        if keytype == SCHEMA:
            value = schemas_topic.parse_value(key, raw_value)
            where = (key["subject"], key["version"])
            if value is None:  # tombstone: the version is gone; its id's text stays for the data written with it
                old = self.versions.get(where)
                if old is not None:
                    self._set_version(Version(old.subject, old.version, old.id, HARD))
                return
            assert isinstance(value, SchemaValue)
            self._set_schema(Schema(value.id, value.schema_type, value.schema, value.references, value.md5))
            self._set_version(Version(value.subject, value.version, value.id, SOFT if value.deleted else LIVE))
        elif keytype == DELETE_SUBJECT and raw_value:
            other = schemas_topic.parse_value(key, raw_value)
            upto = other.fields.get("version") if isinstance(other, schemas_topic.OtherValue) else None
            for subject, version in sorted(self._keys_of_subject.get(key["subject"], ())):
                v = self.versions[(subject, version)]
                if v.state == LIVE and (not isinstance(upto, int) or version <= upto):
                    self._set_version(Version(subject, version, v.id, SOFT))
        elif keytype == CLEAR_SUBJECT and raw_value:
            for subject, version in sorted(self._keys_of_subject.get(key["subject"], ())):
                v = self.versions[(subject, version)]
                if v.state == SOFT:
                    self._set_version(Version(subject, version, v.id, HARD))

    def _add_export_entry(self, entry: dict[str, Any]) -> None:
        try:
            key = {"keytype": SCHEMA, "subject": entry.get("subject"), "version": entry.get("version")}
            value = schemas_topic.parse_value(key, json.dumps(entry).encode())
        except SchemasRecordError as e:
            self.problems.append(f"{self.source}: {e}")
            return
        assert isinstance(value, SchemaValue)
        self._set_schema(Schema(value.id, value.schema_type, value.schema, value.references, value.md5))
        self._set_version(Version(value.subject, value.version, value.id, SOFT if value.deleted else LIVE))

    def _add_files(self, directory: Path) -> None:
        for f in sorted(directory.iterdir()):
            fmt = FILE_FORMATS.get(f.suffix)
            if fmt is None or not f.stem.isdigit():
                continue
            self._set_schema(Schema(int(f.stem), fmt, f.read_text(encoding="utf-8")))

    # ------------------------------------------------------------------ lookups

    def by_id(self, schema_id: int) -> Schema | None:
        return self.schemas.get(schema_id)

    def by_guid(self, guid: uuid.UUID) -> Schema | None:
        """The schema whose MD5 (`md5` in `_schemas`) is this GUID's bytes (magic-1 framing)."""
        return self._by_md5.get(guid.bytes)

    def version_for(self, schema_id: int, topic: str | None = None, is_key: bool = False) -> Version | None:
        """The subject and version an id is known by: under the topic's own subject (`<topic>-key` / `-value`,
        the default TopicNameStrategy) if it is there, else the first subject that has it; live versions first."""
        order = {LIVE: 0, SOFT: 1, HARD: 2}
        if topic:
            own = [self.versions[k] for k in self._keys_of_id_in_subject.get(
                (schema_id, f"{topic}-{'key' if is_key else 'value'}"), ())]
            if own:
                return min(own, key=lambda v: (order[v.state], -v.version))
        if schema_id not in self._known_by:
            found = [self.versions[k] for k in self._keys_of_id.get(schema_id, ())]
            if not found:
                return None
            self._known_by[schema_id] = min(found, key=lambda v: (order[v.state], v.subject, -v.version))
        return self._known_by[schema_id]

    def latest(self, subject: str) -> Version | None:
        """The subject's newest version that is not deleted."""
        versions = (self.versions[k] for k in self._keys_of_subject.get(subject, ()))
        live = [v for v in versions if v.state == LIVE]
        return max(live, key=lambda v: v.version) if live else None

    def resolve(self, ref: Reference) -> Schema | None:
        """The schema a reference names (version -1: the subject's latest)."""
        if ref.version == -1:
            v = self.latest(ref.subject)
        else:
            v = self.versions.get((ref.subject, ref.version))
        return self.schemas.get(v.id) if v is not None else None

    def references(self, schema: Schema, skip: tuple[str, ...] = ()) -> list[tuple[Reference, Schema]]:
        """Every schema `schema` refers to, directly or through others, those it depends on first, each
        reference name once (names starting with one of `skip` left out). UndecodableValueError names a
        reference the store cannot resolve, or references nested deeper than MAX_REFERENCE_DEPTH."""
        out: list[tuple[Reference, Schema]] = []
        seen: set[str] = set()

        def walk(current: Schema, depth: int) -> None:
            if depth > MAX_REFERENCE_DEPTH:
                raise UndecodableValueError(f"schema id {schema.id}: references nest deeper than {MAX_REFERENCE_DEPTH}")
            for ref in current.references:
                if ref.name in seen or (skip and ref.name.startswith(skip)):
                    continue
                seen.add(ref.name)
                target = self.resolve(ref)
                if target is None:
                    raise UndecodableValueError(f"schema id {current.id}: its reference {ref.name!r} (subject "
                                                f"{ref.subject!r} version {ref.version}) is not in the schema store")
                walk(target, depth + 1)
                out.append((ref, target))
        walk(schema, 0)
        return out

    def subjects(self) -> list[str]:
        return sorted({s for s, _ in self.versions})


def _text(obj: Any) -> bytes | None:
    return None if obj is None else (obj.encode() if isinstance(obj, str) else json.dumps(obj).encode())
