"""Protobuf bodies: the schema's `.proto` text compiled in-process, the message decoded by `protobuf`.

    compiled = compile_protobuf(store, store.by_id(7))   # protoc (grpcio-tools) into a descriptor set, once
    message = decode_protobuf(compiled, [1, 0], body)     # the message the indexes name
    plain_json(message)   # proto3's JSON mapping, field names as written, fields without presence included

A registry keeps a Protobuf schema as `.proto` text, or (as confluent-kafka's Python serializer
registers it) as base64 of a serialized `FileDescriptorProto`; both are read. References name the
files a schema imports (`import "customer.proto"`), each another subject's version; Google's
well-known types (`google/protobuf/*.proto`) come with grpcio-tools, as the serializers take them
without a reference.
"""
from __future__ import annotations

import base64
import binascii
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc_tools
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.message import DecodeError, Message
from grpc_tools import protoc

from kafkalog.errors import UndecodableValueError
from kafkalog.registry.store import MAX_REFERENCE_DEPTH, Schema, SchemaStore

#: How deep messages may nest in a value (Protobuf's own parsers default to 100); deeper would overflow
#: json_format's recursion.
MAX_MESSAGE_DEPTH = 100
#: Google's well-known types, shipped with grpcio-tools.
WELL_KNOWN_INCLUDE = str(Path(grpc_tools.__file__).parent / "_proto")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]+$")
#: protoc's errors go to the process's stderr: compile one schema at a time while it is redirected.
_PROTOC_LOCK = threading.Lock()


@dataclass(frozen=True)
class ProtobufSchema:
    """A compiled schema: its file in its own descriptor pool (versions of one file may define the same names)."""

    id: int
    file: descriptor_pb2.FileDescriptorProto
    pool: descriptor_pool.DescriptorPool
    #: Its message classes, held (upb keeps a descriptor's class weakly; rebuilding one recurses per chained type).
    classes: tuple[Any, ...] = ()

    def message_name(self, indexes: list[int]) -> str:
        """The full name of the message the indexes name (top-level index, then nested ones)."""
        candidates = list(self.file.message_type)
        name = self.file.package
        for depth, i in enumerate(indexes):
            if i >= len(candidates):
                raise UndecodableValueError(f"message indexes {indexes} name no message of schema id {self.id} "
                                            f"(level {depth} has {len(candidates)})")
            message = candidates[i]
            name = f"{name}.{message.name}" if name else message.name
            candidates = list(message.nested_type)
        return name


def compile_protobuf(store: SchemaStore, schema: Schema) -> ProtobufSchema:
    """Compile a schema and its references; UndecodableValueError when one does not compile or resolve."""
    # Google's well-known types come with grpcio-tools: the serializers import them without a reference.
    files: dict[str, str | descriptor_pb2.FileDescriptorProto] = {
        ref.name: _serialized(target.text, ref.name) or target.text
        for ref, target in store.references(schema, skip=("google/protobuf/",))}
    main_name = f"kafkalog_schema_{schema.id}.proto"
    files[main_name] = _serialized(schema.text) or schema.text
    protos = _compile(files, main_name, schema.id)
    for proto in protos.values():
        for message in proto.message_type:
            _restore_map_entries(message, f"{proto.package}.{message.name}" if proto.package else message.name)
    pool = descriptor_pool.DescriptorPool()
    for proto in _dependency_order(protos):
        try:
            pool.Add(proto)
        except (TypeError, ValueError) as e:
            raise UndecodableValueError(f"schema id {schema.id}: {proto.name} does not load: {e}") from None
    classes = _build_classes(pool, protos[main_name])
    return ProtobufSchema(schema.id, protos[main_name], pool, classes)


def _build_classes(pool: descriptor_pool.DescriptorPool, file: descriptor_pb2.FileDescriptorProto
                   ) -> tuple[Any, ...]:
    """Build the file's message classes deepest field types first: protobuf's GetMessageClass recurses once per
    message type a field chain goes through (1,000 chained types end in RecursionError); built in this order, each
    finds its fields' classes made already."""
    stack: list[tuple[Any, bool]] = [(pool.FindFileByName(file.name).message_types_by_name[m.name], False)
                                     for m in file.message_type]
    seen: set[str] = set()
    built = []  # held while building: upb keeps a descriptor's class weakly
    while stack:
        d, fields_done = stack.pop()
        if fields_done:
            built.append(message_factory.GetMessageClass(d))
            continue
        if d.full_name in seen:
            continue
        seen.add(d.full_name)
        stack.append((d, True))
        stack.extend((f.message_type, False) for f in d.fields if f.message_type is not None)
        stack.extend((n, False) for n in d.nested_types)
    return tuple(built)


def decode_protobuf(schema: ProtobufSchema, indexes: list[int], body: bytes) -> Message:
    name = schema.message_name(indexes)
    cls = message_factory.GetMessageClass(schema.pool.FindMessageTypeByName(name))
    try:
        message = cls.FromString(body)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise UndecodableValueError(f"the Protobuf body of {len(body)} bytes does not decode as {name} "
                                    f"(schema id {schema.id}): {e}") from None
    if _depth_over(message, MAX_MESSAGE_DEPTH):
        raise UndecodableValueError(f"the Protobuf body of {len(body)} bytes ({name}, schema id {schema.id}) nests "
                                    f"messages deeper than {MAX_MESSAGE_DEPTH}")
    return message


def _depth_over(message: Message, limit: int) -> bool:
    """Whether messages nest deeper than `limit` in `message` (an explicit stack: no recursion)."""
    stack = [(message, 1)]
    while stack:
        m, depth = stack.pop()
        if depth > limit:
            return True
        for f, v in m.ListFields():
            if f.cpp_type != f.CPPTYPE_MESSAGE:
                continue
            if f.message_type.GetOptions().map_entry:
                v = [x for x in v.values()] if f.message_type.fields_by_name["value"].message_type else []
            stack.extend((x, depth + 1) for x in (v if f.is_repeated else [v]))
    return False


def plain_json(message: Message) -> dict[str, Any]:
    """proto3's canonical JSON mapping (int64 as text, bytes as base64, enums by name, well-known types as
    their JSON), with the field names of the `.proto` and every field without presence shown."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def _restore_map_entries(message: descriptor_pb2.DescriptorProto, full_name: str) -> None:
    """Mark the entry messages of map fields that a registry wrote out as plain messages.

    Karapace keeps a Protobuf schema registered as a serialized descriptor (confluent-kafka's Python
    serializer registers it so) as `.proto` text in which `map<string, int32> counters = 4;` has
    become `repeated CountersEntry counters = 4;` with a nested `message CountersEntry {key = 1;
    value = 2;}`: the same bytes on the wire, but no longer a map. protoc's own entry message has
    exactly that shape and name, so such a pair is taken for the map it was, as the deserializer
    with the application's classes reads it."""
    nested = {n.name: n for n in message.nested_type}
    for f in message.field:
        entry_name = "".join(part[:1].upper() + part[1:] for part in f.name.split("_")) + "Entry"
        entry = nested.get(entry_name)
        if (entry is None or f.label != descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                or f.type_name.lstrip(".") != f"{full_name}.{entry_name}" or entry.nested_type or entry.enum_type):
            continue
        numbers = {(x.name, x.number) for x in entry.field}
        if numbers == {("key", 1), ("value", 2)} and not entry.options.map_entry:
            entry.options.map_entry = True
    for n in message.nested_type:
        _restore_map_entries(n, f"{full_name}.{n.name}")


def _serialized(text: str, name: str | None = None) -> descriptor_pb2.FileDescriptorProto | None:
    """A schema kept as base64 of a serialized FileDescriptorProto (confluent-kafka's Python serializer)."""
    if "syntax" in text or "message" in text or not _BASE64.match(text):
        return None
    try:
        proto = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(text, validate=False))
    except (binascii.Error, DecodeError, ValueError):
        return None
    if name is not None:
        proto.name = name
    return proto


def _compile(files: dict[str, str | descriptor_pb2.FileDescriptorProto], main: str,
             schema_id: int) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    """Every file as a FileDescriptorProto: text compiled by protoc, serialized ones as they are."""
    out = {name: f for name, f in files.items() if isinstance(f, descriptor_pb2.FileDescriptorProto)}
    texts = {name: f for name, f in files.items() if isinstance(f, str)}
    if not texts:
        return out
    with tempfile.TemporaryDirectory(prefix="kafkalog-proto-") as tmp:
        for name, text in texts.items():
            path = Path(tmp, "src", name)
            if not path.resolve().is_relative_to(Path(tmp, "src").resolve()):
                raise UndecodableValueError(f"schema id {schema_id}: import name {name!r} leaves its directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        descriptor_set = Path(tmp, "set.pb")
        args = ["protoc", f"-I{Path(tmp, 'src')}", f"-I{WELL_KNOWN_INCLUDE}", "--include_imports",
                f"--descriptor_set_out={descriptor_set}"]
        if out:
            given = descriptor_pb2.FileDescriptorSet(file=list(out.values()))
            Path(tmp, "given.pb").write_bytes(given.SerializeToString())
            args.append(f"--descriptor_set_in={Path(tmp, 'given.pb')}")
        targets = [main] if main in texts else sorted(texts)
        with _PROTOC_LOCK, _stderr_to(Path(tmp, "errors.txt")):
            code = protoc.main([*args, *targets])
        if code != 0:
            errors = Path(tmp, "errors.txt").read_text(errors="replace").strip()
            errors = errors.replace(str(Path(tmp, "src")) + "/", "")
            raise UndecodableValueError(f"schema id {schema_id} does not compile as Protobuf: "
                                        f"{errors or f'protoc exit {code}'}")
        compiled = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes())
    for proto in compiled.file:
        out.setdefault(proto.name, proto)
    return out


def _dependency_order(protos: dict[str, descriptor_pb2.FileDescriptorProto]
                      ) -> Iterator[descriptor_pb2.FileDescriptorProto]:
    done: set[str] = set()

    def visit(name: str, depth: int) -> Iterator[descriptor_pb2.FileDescriptorProto]:
        if name in done or name not in protos or depth > MAX_REFERENCE_DEPTH:
            return
        done.add(name)
        for dep in protos[name].dependency:
            yield from visit(dep, depth + 1)
        yield protos[name]

    for name in list(protos):
        yield from visit(name, 0)


@contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """File descriptor 2 into `path` (protoc writes its diagnostics there, not to Python's sys.stderr)."""
    saved = os.dup(2)
    try:
        with open(path, "wb") as f:
            os.dup2(f.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)
