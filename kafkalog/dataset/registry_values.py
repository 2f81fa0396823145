"""Registry-framed keys and values as columns: `keyFormat` / `valueFormat=registry`, `keySubject` / `valueSubject`.

With `valueFormat=registry` each row gets
- `value_decoded`: the value as JSON text (`kafkalog.registry.values`), null when it names no schema;
- `value_schema`: struct<id, subject, version, format>, the schema the bytes name;
- `value_error`: why a value that names a schema does not decode (the row and its bytes stay).
With `valueSubject=SUBJECT`, `value_typed` is typed from that subject's latest schema (Avro, read
through Avro's schema resolution, or Protobuf), as spark-avro and spark-protobuf type it
(`kafkalog.registry.arrow_types`); a value it cannot read is null with the reason in `damage`
(PERMISSIVE), fails the read (FAILFAST), or drops the row with a warning (DROPMALFORMED).
Keys likewise, as `key_*`.

The schemas come from the `_schemas` partition of the log directory read (for a partition directory
or a segment, the log directory that holds it), or from the option `schemaRegistry`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kafkalog.dataset import decode, fs, plan
from kafkalog.dataset.options import DamageMode, ReadOptions, parse_options
from kafkalog.errors import UndecodableValueError, UsageError
from kafkalog.formats.schemas_topic import AVRO, PROTOBUF, SCHEMAS_TOPIC, SchemasRecordError
from kafkalog.location import Location
from kafkalog.registry import arrow_types
from kafkalog.registry.avro import AvroSchema
from kafkalog.registry.protobuf import ProtobufSchema
from kafkalog.registry.store import Schema, SchemaStore
from kafkalog.registry.values import ValueDecoder

#: The partition a registry writes (`_schemas` has one partition).
SCHEMAS_PARTITION = f"{SCHEMAS_TOPIC}-0"
SCHEMA_STRUCT = pa.struct([("id", pa.int32()), ("subject", pa.string()), ("version", pa.int32()),
                           ("format", pa.string())])

log = logging.getLogger("kafkalog.dataset")


def find_schemas_partition(path: str) -> str | None:
    """The `_schemas-0` directory of the log directory `path` is, or holds `path` (a partition, a segment)."""
    found = fs.info(path)
    candidates = []
    if found is not None and found.is_dir:
        candidates += [found.where, found.where.parent]
    elif found is not None:
        candidates += [found.where.parent.parent]
    else:  # a glob: the directories its matches lie in
        for match in fs.expand(path):
            candidates += [match.where.parent, match.where.parent.parent]
    for directory in candidates:
        if directory.name == SCHEMAS_PARTITION:
            return str(directory)
        child = directory.join(SCHEMAS_PARTITION)
        info = fs.info(child)
        if info is not None and info.is_dir:
            return str(child)
    return None


def load_store(location: str) -> SchemaStore:
    """A schema store from a `_schemas` partition directory, a log directory holding one, a registry export
    (a `GET /schemas?deleted=true` answer, a Karapace v1 backup) or a directory of `<id>.avsc/.proto/.json` files."""
    info = fs.info(location)
    if info is None:
        raise UsageError(f"schema registry {location}: no such file or directory")
    if info.is_dir:
        partition = location if Location(location).name.startswith(f"{SCHEMAS_TOPIC}-") else None
        if partition is None:
            child = str(Location(location).join(SCHEMAS_PARTITION))
            child_info = fs.info(child)
            partition = child if child_info is not None and child_info.is_dir else None
        if partition is not None:
            return _from_partition(partition)
        if Location(location).is_uri:
            raise UsageError(f"schema registry {location}: no {SCHEMAS_PARTITION} directory in it")
        store = SchemaStore.from_export(location)
        if not store.schemas:
            raise UsageError(f"schema registry {location}: neither a {SCHEMAS_TOPIC} partition, a log directory "
                             "with one, nor a directory of <id>.avsc, <id>.proto or <id>.json files")
        return store
    if Location(location).is_uri:
        raise UsageError(f"schema registry {location}: a registry export is read from a local file")
    try:
        return SchemaStore.from_export(location)
    except SchemasRecordError as e:
        raise UsageError(f"schema registry: {e}") from None


def _from_partition(partition: str) -> SchemaStore:
    """Replay a `_schemas` partition in offset order; damaged batches become the store's problems."""
    options = decode.DecodeOptions(mode=DamageMode.PERMISSIVE)
    records: list[tuple[int | None, bytes | None, bytes | None]] = []
    problems: list[str] = []
    for rng in plan.plan(partition, parse_options({"mode": DamageMode.PERMISSIVE, "includeControlRecords": "true"})):
        seg = rng.segment
        for arrow_batch in decode.decode_segment_range(seg.location, start=rng.start, end=rng.end,
                                                       segment=seg.location, options=options):
            columns = arrow_batch.select(["offset", "key", "value", "is_control", "batch_position", "damage"])
            for row in columns.to_pylist():
                if row["damage"] is not None:
                    problems.append(f"{seg.location}: byte {row['batch_position']}: {row['damage']}")
                elif not row["is_control"]:
                    records.append((row["offset"], row["key"], row["value"]))
    store = SchemaStore.from_records(records, source=partition)
    store.problems[:0] = problems
    return store


@dataclass
class RegistryColumns:
    """What `keyFormat`/`valueFormat`/`keySubject`/`valueSubject` add to each Arrow batch (pickled to Spark's tasks)."""

    decoder: ValueDecoder
    keys: bool = False
    values: bool = False
    key_reader: Schema | None = None
    value_reader: Schema | None = None
    mode: DamageMode = DamageMode.FAILFAST
    typed: dict[str, pa.DataType] = field(default_factory=dict)

    @classmethod
    def for_read(cls, path: str | list[str], options: ReadOptions) -> RegistryColumns | None:
        """The columns a read asks for, with its schema store loaded; None when it asks for none. The schemas
        are those of the first path's log directory, unless the option schemaRegistry names them."""
        if isinstance(path, list):
            path = path[0]
        if not (options.key_format or options.value_format or options.key_subject or options.value_subject):
            return None
        location = options.schema_registry or find_schemas_partition(path)
        if location is None:
            raise UsageError(f"{path}: no {SCHEMAS_PARTITION} directory in its log directory to take schemas from; "
                             "name one with the option schemaRegistry")
        store = load_store(location)
        for problem in store.problems:
            log.warning("schema registry: %s", problem)
        decoder = ValueDecoder(store, validate_json=options.validate_json_schema)
        columns = cls(decoder, keys=options.key_format == "registry", values=options.value_format == "registry",
                      mode=options.mode)
        for side, subject in (("key", options.key_subject), ("value", options.value_subject)):
            if subject is None:
                continue
            reader = _reader_schema(store, subject)
            setattr(columns, f"{side}_reader", reader)
            columns.typed[side] = _typed(decoder, reader, subject)
        return columns

    def fields(self) -> list[pa.Field]:
        out: list[pa.Field] = []
        for side, on in (("key", self.keys), ("value", self.values)):
            if on:
                out += [pa.field(f"{side}_decoded", pa.string()), pa.field(f"{side}_schema", SCHEMA_STRUCT),
                        pa.field(f"{side}_error", pa.string())]
        for side in ("key", "value"):
            if side in self.typed:
                out.append(pa.field(f"{side}_typed", self.typed[side]))
        return out

    def add(self, out: pa.RecordBatch, raw: pa.RecordBatch) -> pa.RecordBatch:
        """`out` (the rows of `raw`, shaped) with the asked-for columns; typed failures per the mode."""
        topics = raw.column("topic").to_pylist()
        headers = raw.column("headers").to_pylist()
        damage = raw.column("damage").to_pylist()
        arrays: list[pa.Array] = []
        failed: list[str | None] = [None] * raw.num_rows
        for side, on in (("key", self.keys), ("value", self.values)):
            if not on:
                continue
            data = raw.column(side).to_pylist()
            decoded, schemas, errors = [], [], []
            for t, d, h, dmg in zip(topics, data, headers, damage, strict=True):
                got = self.decoder.decode(d, _pairs(h), topic=t, is_key=side == "key") if dmg is None else None
                decoded.append(got.decoded_json() if got else None)
                schemas.append(got.schema.as_json() if got and got.schema else None)
                errors.append(got.error if got else None)
            arrays += [pa.array(decoded, pa.string()), pa.array(schemas, SCHEMA_STRUCT), pa.array(errors, pa.string())]
        for side in ("key", "value"):
            if side not in self.typed:
                continue
            reader: Schema = getattr(self, f"{side}_reader")
            data = raw.column(side).to_pylist()
            values: list[Any] = []
            for i, (t, d, h, dmg) in enumerate(zip(topics, data, headers, damage, strict=True)):
                try:
                    values.append(None if dmg is not None else self._typed_value(reader, d, _pairs(h), t, side))
                except UndecodableValueError as e:
                    values.append(None)
                    failed[i] = failed[i] or f"{side}: {e}"
            arrays.append(pa.array(values, self.typed[side]))
        result = out
        for f, array in zip(self.fields(), arrays, strict=True):
            if f.name in result.schema.names:  # decode=true's value_decoded (internal topics): one column for both
                i = result.schema.get_field_index(f.name)
                result = result.set_column(i, f.name, pc.coalesce(result.column(i), array))
            else:
                result = result.append_column(f.name, array)
        if any(failed):
            result = self._failures(result, raw, failed)
        return result

    def _typed_value(self, reader: Schema, data: bytes | None, headers, topic: str | None, side: str) -> Any:
        value = self.decoder.decode_as(data, headers, reader, topic=topic, is_key=side == "key")
        if value is None:
            return None
        compiled = self.decoder.compiled(reader)
        if reader.schema_type == AVRO:
            assert isinstance(compiled, AvroSchema)
            return arrow_types.avro_arrow_value(compiled, value)
        return arrow_types.protobuf_arrow_value(value)

    def _failures(self, result: pa.RecordBatch, raw: pa.RecordBatch, failed: list[str | None]) -> pa.RecordBatch:
        offsets = raw.column("offset").to_pylist()
        if self.mode is DamageMode.FAILFAST:
            i = next(i for i, f in enumerate(failed) if f)
            raise UndecodableValueError(f"record at offset {offsets[i]}: {failed[i]}",
                                        path=raw.column("segment")[i].as_py(),
                                        position=raw.column("batch_position")[i].as_py())
        if self.mode is DamageMode.DROPMALFORMED:
            for i, f in enumerate(failed):
                if f:
                    log.warning("%s: record at offset %s: %s; dropped (DROPMALFORMED)",
                                raw.column("segment")[i].as_py(), offsets[i], f)
            return result.filter(pa.array([f is None for f in failed]))
        if "damage" in result.schema.names:  # PERMISSIVE: the reason on the record's own row
            idx = result.schema.get_field_index("damage")
            damage = pc.coalesce(result.column("damage"), pa.array(failed, pa.string()))
            result = result.set_column(idx, "damage", damage)
        return result

    def schema(self, base: pa.Schema) -> pa.Schema:
        """`base` with this read's columns appended (a column `base` has already is shared)."""
        for f in self.fields():
            if f.name not in base.names:
                base = base.append(f)
        return base

    def spark_ddl(self, base_names: list[str]) -> str:
        """The DDL of the columns to append to a Spark schema whose columns are `base_names`."""
        return "".join(f", `{f.name}` {arrow_types.spark_ddl(f.type)}" for f in self.fields()
                       if f.name not in base_names)


def _pairs(headers: list[dict] | None) -> list[tuple[str, bytes | None]]:
    return [(h["key"], h["value"]) for h in headers or ()]


def _reader_schema(store: SchemaStore, subject: str) -> Schema:
    latest = store.latest(subject)
    if latest is None:
        subjects = ", ".join(store.subjects()) or "none"
        raise UsageError(f"valueSubject/keySubject {subject!r}: no live version of that subject in the schema store "
                         f"({store.source}); its subjects: {subjects}")
    schema = store.by_id(latest.id)
    assert schema is not None
    if schema.schema_type not in (AVRO, PROTOBUF):
        raise UsageError(f"subject {subject!r} holds {schema.schema_type} schemas; a typed column is made from Avro or "
                         "Protobuf schemas (JSON Schema values: valueFormat=registry gives them as JSON)")
    return schema


def _typed(decoder: ValueDecoder, reader: Schema, subject: str) -> pa.DataType:
    try:
        compiled = decoder.compiled(reader)
    except UndecodableValueError as e:
        raise UsageError(f"subject {subject!r}: its latest schema does not compile: {e}") from None
    if reader.schema_type == AVRO:
        assert isinstance(compiled, AvroSchema)
        return arrow_types.avro_arrow_type(compiled)
    assert isinstance(compiled, ProtobufSchema)  # (only Avro and Protobuf subjects are typed)
    return arrow_types.protobuf_arrow_type(compiled, [0])
