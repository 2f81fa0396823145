"""Typed columns from a subject's schema: Avro and Protobuf types as Arrow (and so Spark) types.

The mappings are Spark's own, so that a column reads as `from_avro` / `from_protobuf` would give it:
- Avro, as spark-avro's `SchemaConverters.toSqlType`: record -> struct, enum -> string, array -> array,
  map -> map<string, _>, fixed and bytes -> binary, int -> int, long -> bigint, float, double, boolean,
  string; logical types date -> date, timestamp-millis/-micros -> timestamp, local-timestamp-millis/-micros
  -> timestamp_ntz, decimal -> decimal(p, s), uuid -> string, time-millis -> int, time-micros -> bigint;
  a union of null and one type -> that type, nullable; of int and long -> bigint; of float and double ->
  double; any other union -> struct<member0, member1, ...> (null left out), one member set.
- Protobuf, as spark-protobuf's `SchemaConverters.toSqlType`: message -> struct, repeated -> array,
  map -> map, enum -> string, int32/uint32/sint32/fixed32/sfixed32 -> int, the 64-bit ones -> bigint,
  float, double, bool, string, bytes -> binary, google.protobuf.Timestamp -> timestamp; recursive messages
  are refused, as spark-protobuf refuses them by default.

    arrow_type = avro_arrow_type(compiled_avro)            # pa.DataType
    column = pa.array([avro_arrow_value(compiled_avro, v) for v in values], arrow_type)
    spark_ddl(arrow_type)                                  # "struct<`id`:bigint,...>"
"""
from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

import pyarrow as pa
from google.protobuf import descriptor as pb
from google.protobuf.message import Message

from kafkalog.errors import UsageError
from kafkalog.registry.avro import AvroSchema
from kafkalog.registry.protobuf import MAX_MESSAGE_DEPTH, ProtobufSchema

_AVRO_PRIMITIVES = {
    "null": pa.null(), "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "bytes": pa.binary(), "string": pa.string(),
}
TIMESTAMP = pa.timestamp("us", tz="UTC")
TIMESTAMP_NTZ = pa.timestamp("us")


# ----------------------------------------------------------------------------- Avro

def avro_arrow_type(schema: AvroSchema) -> pa.DataType:
    return _avro_type(schema.parsed, schema.named, ())


def avro_arrow_value(schema: AvroSchema, value: Any) -> Any:
    """fastavro's value as what `pa.array(..., avro_arrow_type(schema))` takes."""
    return _avro_value(schema.parsed, schema.named, value)


def _named(s: Any, named: dict[str, Any]) -> Any:
    return named[s] if isinstance(s, str) and s in named else s


def _avro_type(s: Any, named: dict[str, Any], seen: tuple[str, ...]) -> pa.DataType:
    if isinstance(s, str) and s in named:
        if s in seen:
            raise UsageError(f"Avro type {s} refers to itself; a recursive type has no Spark type (as in spark-avro)")
        return _avro_type(named[s], named, (*seen, s))
    if isinstance(s, str):
        return _AVRO_PRIMITIVES[s]
    if isinstance(s, list):
        return _union_type(s, named, seen)
    t, logical = s["type"], s.get("logicalType")
    if logical == "date" and t == "int":
        return pa.date32()
    if logical in ("timestamp-millis", "timestamp-micros") and t == "long":
        return TIMESTAMP
    if logical in ("local-timestamp-millis", "local-timestamp-micros") and t == "long":
        return TIMESTAMP_NTZ
    if logical == "decimal" and t in ("bytes", "fixed"):
        return pa.decimal128(s["precision"], s.get("scale", 0)) if s["precision"] <= 38 else pa.decimal256(
            s["precision"], s.get("scale", 0))
    if t == "record" or t == "error":
        name = s.get("name")
        inner = (*seen, name) if name else seen
        return pa.struct([pa.field(f["name"], _avro_type(f["type"], named, inner))
                          for f in s["fields"]])
    if t == "enum":
        return pa.string()
    if t == "array":
        return pa.list_(_avro_type(s["items"], named, seen))
    if t == "map":
        return pa.map_(pa.string(), _avro_type(s["values"], named, seen))
    if t == "fixed":
        return pa.binary()
    return _avro_type(t, named, seen)  # {"type": "string"} and logical types Spark has no type for


def _branches(union: list[Any]) -> list[Any]:
    return [b for b in union if b != "null"]


def _union_type(union: list[Any], named: dict[str, Any], seen: tuple[str, ...]) -> pa.DataType:
    branches = _branches(union)
    if not branches:
        return pa.null()
    if len(branches) == 1:
        return _avro_type(branches[0], named, seen)
    kinds = {b if isinstance(b, str) else None for b in branches}
    if kinds == {"int", "long"}:
        return pa.int64()
    if kinds == {"float", "double"}:
        return pa.float64()
    return pa.struct([pa.field(f"member{i}", _avro_type(b, named, seen)) for i, b in enumerate(branches)])


def _avro_value(s: Any, named: dict[str, Any], v: Any) -> Any:
    s = _named(s, named)
    if v is None:
        return None
    if isinstance(s, list):
        branches = _branches(s)
        if len(branches) == 1:
            return _avro_value(branches[0], named, v)
        kinds = {b if isinstance(b, str) else None for b in branches}
        if kinds in ({"int", "long"}, {"float", "double"}):
            return v
        for i, b in enumerate(branches):
            if _accepts(_named(b, named), named, v):
                return {f"member{j}": (_avro_value(b, named, v) if j == i else None) for j in range(len(branches))}
        return None
    if isinstance(s, str):
        return v
    t = s["type"]
    if s.get("logicalType") == "uuid" or isinstance(v, uuid.UUID):
        return str(v)
    if t in ("record", "error"):
        return {f["name"]: _avro_value(f["type"], named, v.get(f["name"])) for f in s["fields"]}
    if t == "array":
        return [_avro_value(s["items"], named, x) for x in v]
    if t == "map":
        return [(k, _avro_value(s["values"], named, x)) for k, x in v.items()]
    return v


def _accepts(s: Any, named: dict[str, Any], v: Any) -> bool:
    """Whether a Python value read by fastavro is of this union branch (fastavro unwraps unions)."""
    if isinstance(s, str):
        return {"boolean": isinstance(v, bool), "int": isinstance(v, int) and not isinstance(v, bool),
                "long": isinstance(v, int) and not isinstance(v, bool), "float": isinstance(v, float),
                "double": isinstance(v, float), "bytes": isinstance(v, bytes), "string": isinstance(v, str),
                "null": v is None}.get(s, False)
    if isinstance(s, list):
        return any(_accepts(_named(b, named), named, v) for b in s)
    t, logical = s["type"], s.get("logicalType")
    if logical == "date":
        return isinstance(v, datetime.date) and not isinstance(v, datetime.datetime)
    if logical and "timestamp" in logical:
        return isinstance(v, datetime.datetime)
    if logical == "decimal":
        return isinstance(v, decimal.Decimal)
    if logical == "uuid":
        return isinstance(v, (str, uuid.UUID))
    if t in ("record", "error"):
        return isinstance(v, dict) and set(v) == {f["name"] for f in s["fields"]}
    if t == "map":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "enum":
        return isinstance(v, str) and v in s["symbols"]
    if t == "fixed":
        return isinstance(v, bytes) and len(v) == s["size"]
    return _accepts(t, named, v)


# ----------------------------------------------------------------------------- Protobuf

_PB_SCALARS = {
    pb.FieldDescriptor.CPPTYPE_INT32: pa.int32(), pb.FieldDescriptor.CPPTYPE_UINT32: pa.int32(),
    pb.FieldDescriptor.CPPTYPE_INT64: pa.int64(), pb.FieldDescriptor.CPPTYPE_UINT64: pa.int64(),
    pb.FieldDescriptor.CPPTYPE_FLOAT: pa.float32(), pb.FieldDescriptor.CPPTYPE_DOUBLE: pa.float64(),
    pb.FieldDescriptor.CPPTYPE_BOOL: pa.bool_(), pb.FieldDescriptor.CPPTYPE_ENUM: pa.string(),
}


def protobuf_arrow_type(schema: ProtobufSchema, indexes: list[int]) -> pa.DataType:
    return _message_type(schema.pool.FindMessageTypeByName(schema.message_name(indexes)), ())


def protobuf_arrow_value(message: Message) -> dict[str, Any]:
    return _message_value(message)


def _message_type(d: pb.Descriptor, seen: tuple[str, ...]) -> pa.DataType:
    if d.full_name == "google.protobuf.Timestamp":
        return TIMESTAMP
    if len(seen) >= MAX_MESSAGE_DEPTH:
        raise UsageError(f"Protobuf message {d.full_name} is nested in more than {MAX_MESSAGE_DEPTH} messages: "
                         "kafkalog gives it no Spark type")
    if d.full_name in seen:
        raise UsageError(f"Protobuf message {d.full_name} contains itself; a recursive message has no Spark type "
                         "(as spark-protobuf's default recursive.fields.max.depth)")
    return pa.struct([pa.field(f.name, _field_type(f, (*seen, d.full_name))) for f in d.fields])


def _field_type(f: pb.FieldDescriptor, seen: tuple[str, ...]) -> pa.DataType:
    if f.message_type is not None and f.message_type.GetOptions().map_entry:
        key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
        return pa.map_(_single_type(key, seen), _single_type(value, seen))
    single = _single_type(f, seen)
    return pa.list_(single) if _repeated(f) else single


def _repeated(f: pb.FieldDescriptor) -> bool:
    return f.is_repeated


def _single_type(f: pb.FieldDescriptor, seen: tuple[str, ...]) -> pa.DataType:
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_MESSAGE:
        return _message_type(f.message_type, seen)
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_STRING:
        return pa.binary() if f.type == pb.FieldDescriptor.TYPE_BYTES else pa.string()
    return _PB_SCALARS[f.cpp_type]


def _message_value(m: Message) -> Any:
    d = m.DESCRIPTOR
    if d.full_name == "google.protobuf.Timestamp":
        return datetime.datetime.fromtimestamp(m.seconds, datetime.UTC) + datetime.timedelta(
            microseconds=m.nanos // 1000)
    out: dict[str, Any] = {}
    for f in d.fields:
        v = getattr(m, f.name)
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            vf = f.message_type.fields_by_name["value"]
            out[f.name] = [(k, _single_value(vf, x)) for k, x in v.items()]
        elif _repeated(f):
            out[f.name] = [_single_value(f, x) for x in v]
        elif f.cpp_type == pb.FieldDescriptor.CPPTYPE_MESSAGE and not m.HasField(f.name):
            out[f.name] = None
        else:
            out[f.name] = _single_value(f, v)
    return out


def _single_value(f: pb.FieldDescriptor, v: Any) -> Any:
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_MESSAGE:
        return _message_value(v)
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_ENUM:
        value = f.enum_type.values_by_number.get(v)
        return value.name if value is not None else str(v)
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_UINT32 and v >= 2**31:
        return v - 2**32  # as spark-protobuf: an int column, Java's signed view
    if f.cpp_type == pb.FieldDescriptor.CPPTYPE_UINT64 and v >= 2**63:
        return v - 2**64
    return v


# ----------------------------------------------------------------------------- Spark

def spark_ddl(t: pa.DataType) -> str:
    """An Arrow type as Spark SQL's type text."""
    if pa.types.is_struct(t):
        fields = (t.field(i) for i in range(t.num_fields))
        return "struct<" + ",".join(f"`{f.name}`:{spark_ddl(f.type)}" for f in fields) + ">"
    if pa.types.is_map(t):
        return f"map<{spark_ddl(t.key_type)},{spark_ddl(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{spark_ddl(t.value_type)}>"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz else "timestamp_ntz"
    return {pa.null(): "void", pa.bool_(): "boolean", pa.int32(): "int", pa.int64(): "bigint", pa.float32(): "float",
            pa.float64(): "double", pa.binary(): "binary", pa.string(): "string", pa.date32(): "date"}[t]
