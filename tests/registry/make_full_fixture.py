#!/usr/bin/env python3
"""Write tests/registry/fixtures/karapace-full-<broker>: a wider real-registry fixture than make_fixtures.py's.

A real broker (tests/brokers/harness.py, Kafka 4.3.1 KRaft) runs with Karapace 3.15.0
(tests/registry/karapace.py) as its schema registry; confluent-kafka's own serializers write the records
through it. Everything written is in this file (schemas inline), so the fixture is made from it alone:

- `orders`: Avro keys (a record) and values; subject `orders-value` evolves over three versions (v2 adds
  `channel` with a default, v3 removes `legacy`), records under each version. The schemas have nullable
  unions, an enum, an array, a map, bytes, fixed, a nested record, decimal(bytes), date, timestamp-millis,
  timestamp-micros, uuid, float and double (NaN and infinities among the values). Then a tombstone.
  After the data, version 1 is soft-deleted.
- `temp`: Avro values of subject `temp-value` v1 then v2; after the data v1 is soft- then hard-deleted.
- `events`: Protobuf keys (own file `event_key.proto`) and values (`events.proto`, importing `money.proto`,
  registered by the serializer under its own subject, and google/protobuf/timestamp.proto): records of
  message indexes [0], [1], [1, 0], [1, 0, 0] and [2]; enums, repeated, map, oneof, bytes,
  int64/uint64/sint32/sint64/fixed64, double/float/bool. The header `pb-type` names the message type so
  that the reading side picks the class (the Protobuf deserializer needs it).
- `clicks`: JSON Schema keys and values (a local `$ref` to `#/definitions/...`), over two partitions.
- `framed-in-header`: Avro key and value, the schema id in the `__key_schema_id`/`__value_schema_id`
  headers (SchemaId's id bytes: magic 0 and the id), the bodies alone in key and value.
- `raw`: values not framed for any registry.

What Karapace 3.15.0 refuses is tried and its answer kept in schemas.json (`attempts`): Avro references
(subject `customer` and an `invoices-value` referring to `com.example.Customer`) and JSON Schema references
are refused with error 44302 (it takes references for Protobuf only), so topic `invoices` is written
only if the registry took the reference; the GUID framing (`header_schema_id_serializer`, magic 1) needs
the registry to give schemas a guid, which Karapace does not.

Before anything stops, a plain Consumer reads every record of every data topic from the beginning and
the matching real deserializer (AvroDeserializer, ProtobufDeserializer, JSONDeserializer, each with the
live registry) decodes key and value: `expected.jsonl`. `schemas.json` is what the live registry
answered for every subject, version and id. Then Karapace stops, the broker stops cleanly, and only the
partition directories of `_schemas` and of the data topics are copied.

Run from the repository root (Karapace's sources and a Python environment for them: README.md beside
the fixture says how):
    KARAPACE_SRC=/tmp/karapace-src KARAPACE_PYTHON=/tmp/karapace-venv/bin/python \\
        PYTHONPATH=.:scripts .venv/bin/python tests/registry/make_full_fixture.py
"""
from __future__ import annotations

import base64
import datetime
import decimal
import importlib
import json
import math
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, header_schema_id_serializer
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import json_format

from tests.brokers.harness import Broker
from tests.brokers.scenarios import NEWEST_4X
from tests.registry.karapace import Karapace

HERE = Path(__file__).resolve().parent
KARAPACE_TAG = "3.15.0"
# topic -> partitions
TOPICS = {"orders": 1, "temp": 1, "events": 1, "clicks": 2, "framed-in-header": 1, "raw": 1}

# ----------------------------------------------------------------------------- the schemas

ORDER_KEY = {"type": "record", "name": "OrderKey", "namespace": "com.example",
             "fields": [{"name": "order_id", "type": "long"}, {"name": "region", "type": "string"}]}


def order_schema(version: int) -> dict:
    fields: list[dict] = [
        {"name": "id", "type": "long"},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item",
            "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
        {"name": "tags", "type": {"type": "map", "values": "string"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "choice", "type": ["null", "string", "long", "Item"], "default": None},
        {"name": "raw", "type": "bytes"},
        {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 4}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "updated", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "shipping", "type": {"type": "record", "name": "Address", "namespace": "com.example.shared",
                                      "fields": [{"name": "street", "type": "string"},
                                                 {"name": "city", "type": "string"},
                                                 {"name": "zip", "type": ["null", "string"], "default": None}]}},
        {"name": "billing", "type": ["null", "com.example.shared.Address"], "default": None},
        {"name": "ratio", "type": "float"},
        {"name": "score", "type": "double"},
        {"name": "flag", "type": "boolean"},
        {"name": "legacy", "type": "string", "default": "old"},
    ]
    if version >= 2:
        fields.append({"name": "channel", "type": "string", "default": "web"})
    if version >= 3:
        fields = [f for f in fields if f["name"] != "legacy"]
    return {"type": "record", "name": "Order", "namespace": "com.example", "fields": fields}


TEMP = [{"type": "record", "name": "Temp", "fields": [{"name": "n", "type": "int"}]},
        {"type": "record", "name": "Temp", "fields": [{"name": "n", "type": "int"},
                                                      {"name": "s", "type": "string", "default": ""}]}]

CUSTOMER = {"type": "record", "name": "Customer", "namespace": "com.example",
            "fields": [{"name": "name", "type": "string"}, {"name": "email", "type": ["null", "string"], "default": None}]}
INVOICE = {"type": "record", "name": "Invoice", "namespace": "com.example",
           "fields": [{"name": "number", "type": "string"}, {"name": "customer", "type": "com.example.Customer"},
                      {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}}]}

PROTO = {
    "money.proto": """syntax = "proto3";
package ex.common;

message Money {
  string currency = 1;
  int64 units = 2;
  int32 nanos = 3;
}
""",
    "event_key.proto": """syntax = "proto3";
package ex.keys;

message EventKey {
  string id = 1;
  int32 shard = 2;
}
""",
    "events.proto": """syntax = "proto3";
package ex.events;

import "money.proto";
import "google/protobuf/timestamp.proto";

enum Kind {
  KIND_UNSPECIFIED = 0;
  VIEW = 1;
  BUY = 2;
}

message Click {
  message Device {
    enum Platform {
      PLATFORM_UNSPECIFIED = 0;
      IOS = 1;
      ANDROID = 2;
    }
    string os = 1;
    Platform platform = 2;
  }
  string page = 1;
  Kind kind = 2;
  repeated string tags = 3;
  map<string, int32> counters = 4;
  oneof target {
    string url = 5;
    int64 item_id = 6;
  }
  bytes payload = 7;
  int64 big = 8;
  uint64 unsigned_big = 9;
  sint32 delta = 10;
  google.protobuf.Timestamp at = 11;
  ex.common.Money price = 12;
  Device device = 13;
  repeated int32 scores = 14;
}

message Purchase {
  message Line {
    message Discount {
      sint64 cents = 1;
      string reason = 2;
    }
    string sku = 1;
    uint32 qty = 2;
    Discount discount = 3;
  }
  string order = 1;
  repeated Line lines = 2;
  ex.common.Money total = 3;
  map<string, Line> by_sku = 4;
  oneof payment {
    string card = 5;
    bool cash = 6;
  }
  double weight = 7;
  float rating = 8;
  fixed64 checksum = 9;
}

message Heartbeat {
  uint64 seq = 1;
  google.protobuf.Timestamp at = 2;
}
""",
}

CLICK_JSON = {
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Visit", "type": "object",
    "definitions": {"Address": {"type": "object", "properties": {"street": {"type": "string"},
                                                                   "city": {"type": "string"}},
                                "required": ["city"]}},
    "properties": {"user": {"type": "string"}, "count": {"type": "integer"}, "ok": {"type": "boolean"},
                   "score": {"type": ["number", "null"]}, "address": {"$ref": "#/definitions/Address"},
                   "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["user"]}
CLICK_KEY_JSON = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}
ADDRESS_JSON = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "address.json", "type": "object",
                "properties": {"city": {"type": "string"}}}
VISIT_REF_JSON = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                  "properties": {"address": {"$ref": "address.json"}}}


def dumps(schema: dict) -> str:
    return json.dumps(schema)


# ----------------------------------------------------------------------------- what the deserializers return, as JSON

def to_json(v: Any) -> Any:
    """An Avro (fastavro) or JSON Schema deserializer's value as JSON: dicts keep their order."""
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_json(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(v).decode()
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def protobuf_json(m) -> Any:
    return json_format.MessageToDict(m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


# ----------------------------------------------------------------------------- the registry over HTTP

def http(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, text.decode(errors="replace")


# ----------------------------------------------------------------------------- Protobuf classes

def protobuf_modules(tmp: Path):
    """Python classes for the .proto files, made by grpcio-tools' protoc, as an application has them."""
    import grpc_tools  # noqa: PLC0415
    from grpc_tools import protoc  # noqa: PLC0415
    src, out = tmp / "proto", tmp / "pb"
    src.mkdir()
    out.mkdir()
    for name, body in PROTO.items():
        (src / name).write_text(body)
    include = Path(grpc_tools.__file__).parent / "_proto"
    if protoc.main(["protoc", f"-I{src}", f"-I{include}", f"--python_out={out}", *PROTO]):
        raise SystemExit("protoc failed")
    sys.path.insert(0, str(out))
    return importlib.import_module("events_pb2"), importlib.import_module("event_key_pb2")


def header_id_serializer(payload: bytes, ctx: SerializationContext | None, schema_id) -> bytes:
    """As confluent-kafka's header_schema_id_serializer, but the id (magic 0) in the header, not the guid."""
    key = "__key_schema_id" if ctx.field == MessageField.KEY else "__value_schema_id"
    ctx.headers.append((key, schema_id.id_to_bytes()))
    return payload


# ----------------------------------------------------------------------------- producing

def produce(bootstrap: str, client: SchemaRegistryClient, base: str, tmp: Path) -> dict[str, Any]:
    events_pb2, event_key_pb2 = protobuf_modules(tmp)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    notes: dict[str, Any] = {}

    def send(topic: str, key: bytes | None, value: bytes | None, headers=None, partition: int = 0) -> None:
        producer.produce(topic, key=key, value=value, headers=headers or [], partition=partition)
        producer.flush(30)

    def ctx(topic: str, field: str, headers=None) -> SerializationContext:
        return SerializationContext(topic, MessageField.KEY if field == "key" else MessageField.VALUE, headers)

    # ---- Avro: orders, three versions of the value schema
    key_ser = AvroSerializer(client, dumps(ORDER_KEY))
    utc = datetime.UTC
    base_value = {
        "items": [{"sku": "A-1", "qty": 2}, {"sku": "Z-9", "qty": -1}], "tags": {"src": "web", "lang": "nb"},
        "raw": b"\x00\x01\xff", "digest": b"\xde\xad\xbe\xef", "amount": decimal.Decimal("12.34"),
        "day": datetime.date(2024, 2, 29),
        "created": datetime.datetime(2024, 2, 29, 12, 0, 0, 123000, tzinfo=utc),
        "updated": datetime.datetime(2024, 2, 29, 12, 0, 0, 123456, tzinfo=utc),
        "uid": "12345678-1234-5678-1234-567812345678",
        "shipping": {"street": "Karl Johans gate 1", "city": "Oslo", "zip": "0154"},
        "billing": None, "ratio": 0.5, "score": -1.25e10, "flag": True}
    variants = [
        {"choice": None},
        {"choice": "text", "billing": {"street": "Via Roma 2", "city": "Roma", "zip": None}, "score": float("nan")},
        {"choice": 42, "items": [], "tags": {}, "raw": b"", "amount": decimal.Decimal("-0.01"), "score": float("inf")},
        {"choice": {"sku": "B-2", "qty": 1}, "ratio": float("-inf"), "flag": False,
         "day": datetime.date(1969, 12, 31),
         "created": datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=utc)},
    ]
    order_id = 0
    for version in (1, 2, 3):
        ser = AvroSerializer(client, dumps(order_schema(version)))
        for variant in variants:
            order_id += 1
            value = {**base_value, **variant, "id": order_id, "status": ["NEW", "PAID", "SHIPPED"][order_id % 3],
                     "note": f"note {order_id}" if order_id % 2 else None, "legacy": f"legacy {order_id}",
                     "channel": "app"}
            if version < 2:
                value.pop("channel")
            if version == 3:
                value.pop("legacy")
            key = key_ser({"order_id": order_id, "region": "eu"}, ctx("orders", "key"))
            send("orders", key, ser(value, ctx("orders", "value")))
    send("orders", key_ser({"order_id": 1, "region": "eu"}, ctx("orders", "key")), None)  # a tombstone

    # ---- Avro: temp, v1 to be hard-deleted
    for version in (1, 2):
        ser = AvroSerializer(client, dumps(TEMP[version - 1]))
        for n in range(2):
            value = {"n": version * 10 + n} if version == 1 else {"n": version * 10 + n, "s": f"two-{n}"}
            send("temp", None, ser(value, ctx("temp", "value")))

    # ---- Avro references: Karapace 3.15 takes them for Protobuf only
    customer = client.register_schema_full_response("customer", Schema(dumps(CUSTOMER), "AVRO"))
    notes["customer_registered"] = {"id": customer.schema_id, "version": customer.version, "guid": customer.guid}
    status, answer = http(base, "POST", "/subjects/invoices-value/versions", {
        "schema": dumps(INVOICE), "schemaType": "AVRO",
        "references": [{"name": "com.example.Customer", "subject": "customer", "version": 1}]})
    notes["avro_reference"] = {"status": status, "answer": answer}
    if status == 200:  # not with Karapace 3.15
        TOPICS["invoices"] = 1
        for f in AdminClient({"bootstrap.servers": bootstrap}).create_topics([NewTopic("invoices", 1, 1)]).values():
            f.result(30)
        ser = AvroSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.version": True})
        for i, name in enumerate(["Ada", "Bo"]):
            value = {"number": f"INV-{i}", "customer": {"name": name, "email": None}, "total": decimal.Decimal("9.99")}
            send("invoices", f"inv-{i}".encode(), ser(value, ctx("invoices", "value")))

    # ---- Protobuf: events
    conf = {"use.deprecated.format": False}
    key_ser = ProtobufSerializer(event_key_pb2.EventKey, client, conf)
    sers = {name: ProtobufSerializer(cls, client, conf) for name, cls in (
        ("ex.events.Click", events_pb2.Click), ("ex.events.Purchase", events_pb2.Purchase),
        ("ex.events.Purchase.Line", events_pb2.Purchase.Line),
        ("ex.events.Purchase.Line.Discount", events_pb2.Purchase.Line.Discount),
        ("ex.events.Heartbeat", events_pb2.Heartbeat))}
    click = events_pb2.Click(page="/home", kind=events_pb2.BUY, tags=["a", "b"], counters={"x": 1, "y": -2},
                             url="https://example.com", payload=b"\x00\xff", big=-(2**40), unsigned_big=2**63 + 5,
                             delta=-7, scores=[3, -1, 0])
    click.at.FromDatetime(datetime.datetime(2024, 1, 2, 3, 4, 5, 6000))
    click.price.currency, click.price.units, click.price.nanos = "EUR", 3, 500000000
    click.device.os, click.device.platform = "17.1", events_pb2.Click.Device.IOS
    line = events_pb2.Purchase.Line(sku="s", qty=4294967295,
                                    discount=events_pb2.Purchase.Line.Discount(cents=-(2**62), reason="vip"))
    purchase = events_pb2.Purchase(order="o-1", lines=[line, events_pb2.Purchase.Line(sku="t", qty=1)],
                                   cash=True, weight=1.5, rating=float("nan"), checksum=2**64 - 1)
    purchase.total.currency, purchase.total.units = "NOK", -5
    purchase.by_sku["s"].CopyFrom(line)
    heartbeat = events_pb2.Heartbeat(seq=2**64 - 1)
    heartbeat.at.FromDatetime(datetime.datetime(1970, 1, 1))
    samples = [("ex.events.Click", click), ("ex.events.Click", events_pb2.Click(page="/empty", item_id=9)),
               ("ex.events.Purchase", purchase), ("ex.events.Purchase", events_pb2.Purchase(card="visa")),
               ("ex.events.Purchase.Line", events_pb2.Purchase.Line(sku="only", qty=1)),
               ("ex.events.Purchase.Line.Discount", events_pb2.Purchase.Line.Discount(cents=5)),
               ("ex.events.Heartbeat", heartbeat)]
    for i, (name, message) in enumerate(samples):
        headers = [("pb-type", name.encode())]
        send("events", key_ser(event_key_pb2.EventKey(id=f"e{i}", shard=i % 2), ctx("events", "key")),
             sers[name](message, ctx("events", "value")), headers)

    # ---- JSON Schema: clicks over two partitions
    ser = JSONSerializer(dumps(CLICK_JSON), client)
    key_ser = JSONSerializer(dumps(CLICK_KEY_JSON), client)
    clicks = [{"user": "ann", "count": 1, "ok": True, "score": 0.25, "address": {"city": "Oslo"}, "tags": []},
              {"user": "bob", "address": {"street": "Main 1", "city": "Rome"}, "score": None},
              {"user": "cid", "count": -3, "tags": ["x", "y"]},
              {"user": "dag", "ok": False, "count": 2**53}]
    for i, value in enumerate(clicks):
        send("clicks", key_ser(f"k{i}", ctx("clicks", "key")), ser(value, ctx("clicks", "value")), partition=i % 2)
    # JSON Schema references: tried, to keep Karapace's answer
    status, answer = http(base, "POST", "/subjects/address-json/versions",
                          {"schema": dumps(ADDRESS_JSON), "schemaType": "JSON"})
    notes["json_reference_target"] = {"status": status, "answer": answer}
    status, answer = http(base, "POST", "/subjects/visit-ref-value/versions", {
        "schema": dumps(VISIT_REF_JSON), "schemaType": "JSON",
        "references": [{"name": "address.json", "subject": "address-json", "version": 1}]})
    notes["json_reference"] = {"status": status, "answer": answer}

    # ---- the schema id in headers
    # confluent-kafka's header_schema_id_serializer writes the schema's guid (magic 1): tried
    ser = AvroSerializer(client, dumps(CUSTOMER), conf={"schema.id.serializer": header_schema_id_serializer})
    try:
        ser({"name": "Guid", "email": None}, ctx("framed-in-header", "value", []))
        notes["guid_header"] = "serialized"
    except Exception as e:
        notes["guid_header"] = f"{type(e).__name__}: {e}"
    ser = AvroSerializer(client, dumps(CUSTOMER), conf={"schema.id.serializer": header_id_serializer})
    key_ser = AvroSerializer(client, dumps(ORDER_KEY), conf={"schema.id.serializer": header_id_serializer})
    for i, value in enumerate([{"name": "Hedda", "email": None}, {"name": "Ibsen", "email": "h@example.com"}]):
        headers: list = [("trace", b"t-%d" % i)]
        key = key_ser({"order_id": 100 + i, "region": ["no", "norway"][i]}, ctx("framed-in-header", "key", headers))
        data = ser(value, ctx("framed-in-header", "value", headers))
        send("framed-in-header", key, data, headers)

    # ---- values framed for no registry
    for k, v in ((None, b"plain text"), (b"k", b'{"json": "no schema"}'), (None, b""), (None, b"\x00\x00"),
                 (b"raw-key", b"\x01\x00\x00\x00\x01AB")):
        send("raw", k, v)

    # ---- deletes, after the data
    notes["soft_delete_orders_value_1"] = http(base, "DELETE", "/subjects/orders-value/versions/1")
    notes["soft_delete_temp_value_1"] = http(base, "DELETE", "/subjects/temp-value/versions/1")
    notes["hard_delete_temp_value_1"] = http(base, "DELETE", "/subjects/temp-value/versions/1?permanent=true")
    producer.flush(30)
    return notes


# ----------------------------------------------------------------------------- reading back

def schema_id_of(data: bytes | None, headers, field: str) -> int | str | None:
    """The id the bytes name: a `__<field>_schema_id` header (magic 0: the id, magic 1: the guid) or the prefix."""
    name = f"__{field}_schema_id"
    for k, v in headers:
        if k == name and v:
            if v[0] == 0 and len(v) >= 5:
                return struct.unpack(">I", v[1:5])[0]
            if v[0] == 1 and len(v) >= 17:
                return str(uuid.UUID(bytes=v[1:17]))
    if data and len(data) >= 5 and data[0] == 0:
        return struct.unpack(">I", data[1:5])[0]
    return None


def consume(bootstrap: str, client: SchemaRegistryClient, modules, notes: dict[str, Any]) -> list[dict[str, Any]]:
    events_pb2, event_key_pb2 = modules
    classes = {"ex.events.Click": events_pb2.Click, "ex.events.Purchase": events_pb2.Purchase,
               "ex.events.Purchase.Line": events_pb2.Purchase.Line,
               "ex.events.Purchase.Line.Discount": events_pb2.Purchase.Line.Discount,
               "ex.events.Heartbeat": events_pb2.Heartbeat}
    conf = {"use.deprecated.format": False}
    proto = {name: ProtobufDeserializer(cls, conf, schema_registry_client=client) for name, cls in classes.items()}
    # Karapace 3.15 answers GET /schemas/ids/N?format=serialized with a 500 for a Protobuf schema with
    # references (it parses the schema again without them), so events' values are read by the same
    # deserializer without the registry (the framing, message indexes and the application's class).
    proto_alone = {name: ProtobufDeserializer(cls, conf) for name, cls in classes.items()}
    proto_key = ProtobufDeserializer(event_key_pb2.EventKey, conf, schema_registry_client=client)
    avro = AvroDeserializer(client)
    json_de = JSONDeserializer(None, schema_registry_client=client)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "fixture-check", "enable.auto.commit": False})
    out: list[dict[str, Any]] = []
    for topic, partitions in sorted(TOPICS.items()):
        for partition in range(partitions):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            if high == low:
                continue
            consumer.assign([TopicPartition(topic, partition, low)])
            got = 0
            while got < high - low:
                msg = consumer.poll(10)
                if msg is None:
                    raise SystemExit(f"{topic}-{partition}: no record after {got} of {high - low}")
                if msg.error():
                    raise SystemExit(str(msg.error()))
                got += 1
                headers = msg.headers() or []
                row: dict[str, Any] = {"topic": topic, "partition": msg.partition(), "offset": msg.offset()}
                results = {}
                for field, data in (("key", msg.key()), ("value", msg.value())):
                    sctx = SerializationContext(topic, MessageField.KEY if field == "key" else MessageField.VALUE,
                                                headers)
                    decoded = error = None
                    if topic == "raw" and field == "key":
                        decoded = None if data is None else data.decode()  # a plain string key
                    else:
                        try:
                            if topic == "events":
                                if field == "key":
                                    decoded = protobuf_json(proto_key(data, sctx)) if data is not None else None
                                else:
                                    name = dict(headers)["pb-type"].decode()
                                    try:
                                        message = proto[name](data, sctx)
                                    except Exception as e:
                                        notes.setdefault("protobuf_deserializer_with_registry", {})[
                                            f"{topic}@{msg.offset()}"] = f"{type(e).__name__}: {e}"
                                        message = proto_alone[name](data, sctx)
                                    decoded = protobuf_json(message) if message is not None else None
                            elif topic == "clicks":
                                decoded = json_de(data, sctx)
                            elif topic == "invoices" and field == "key":
                                decoded = data.decode()
                            else:
                                decoded = to_json(avro(data, sctx))
                        except Exception as e:  # what the deserializer says
                            error = f"{type(e).__name__}: {e}"
                    results[field] = (decoded, schema_id_of(data, headers, field), error)
                row["key_decoded"], row["value_decoded"] = results["key"][0], results["value"][0]
                row["key_schema_id"], row["value_schema_id"] = results["key"][1], results["value"][1]
                row["key_error"], row["value_error"] = results["key"][2], results["value"][2]
                out.append(row)
    consumer.close()
    return sorted(out, key=lambda r: (r["topic"], r["partition"], r["offset"]))


def registry_answers(base: str, ids_seen: set[int]) -> dict[str, Any]:
    _, subjects = http(base, "GET", "/subjects?deleted=true")
    out: dict[str, Any] = {"subjects_deleted_true": subjects, "subjects_live": http(base, "GET", "/subjects")[1],
                           "subjects": {}, "ids": {}, "config": http(base, "GET", "/config")[1]}
    ids = set(ids_seen)
    for subject in sorted(subjects):
        _, versions = http(base, "GET", f"/subjects/{subject}/versions?deleted=true")
        entry: dict[str, Any] = {"versions_deleted_true": versions,
                                 "versions_live": http(base, "GET", f"/subjects/{subject}/versions")[1],
                                 "versions": {}}
        for v in versions:
            status, answer = http(base, "GET", f"/subjects/{subject}/versions/{v}?deleted=true")
            entry["versions"][str(v)] = answer if status == 200 else {"status": status, "answer": answer}
            if status == 200:
                ids.add(answer["id"])
        out["subjects"][subject] = entry
    for i in range(1, max(ids) + 2):
        status, answer = http(base, "GET", f"/schemas/ids/{i}")
        out["ids"][str(i)] = answer if status == 200 else {"status": status, "answer": answer}
    return out


README = """# karapace-full-{broker}

What a real schema registry, Karapace {karapace} (run from its git tag, Python 3.11), left in a real
Kafka {broker} broker's (KRaft, one node) data directory, written through confluent-kafka {ck}'s own
serializers, and what its own deserializers returned against the live registry. Made on {made} by
`tests/registry/make_full_fixture.py` (its docstring lists every topic and what it holds).

- `data/`: only the partition directories of `_schemas` and of the data topics, as the broker left them
  after a clean stop (no `__consumer_offsets`, no `__cluster_metadata`);
- `expected.jsonl`: one line a record, sorted by topic, partition, offset: `key_decoded`/`value_decoded`
  (the deserializer's result as JSON: Avro bytes as base64, dates and times as isoformat, decimals and
  uuids as strings, NaN/Infinity/-Infinity as strings; Protobuf by MessageToDict with
  preserving_proto_field_name and always_print_fields_with_no_presence; JSON Schema as returned),
  `key_schema_id`/`value_schema_id` (the id the 5-byte prefix or the `__key_schema_id`/`__value_schema_id`
  header names, else null) and `key_error`/`value_error` (the deserializer's exception, else null);
- `schemas.json`: the live registry's answers to GET /subjects?deleted=true, /subjects/S/versions?deleted=true,
  /subjects/S/versions/V?deleted=true, /schemas/ids/N (every id from 1 to one past the highest), /config;
  `attempts` holds what the generator tried that Karapace refused or answered (Avro and JSON Schema
  references, the GUID header framing) and the answers to the deletes.

What Karapace {karapace} and confluent-kafka could not do, and what was done instead:

- references for Avro and JSON Schema: refused with error 44302 (kept in `attempts`), so there is no
  `invoices` topic; Protobuf references work (`events-value` imports subject `money.proto`);
- the GUID framing: Karapace gives schemas no guid, and `header_schema_id_serializer` fails with
  "Schema GUID is not set" (kept in `attempts`); `framed-in-header` has the id (magic 0) in the headers;
- proto3 `optional` fields: Karapace turns the serializer's descriptor into `oneof _x {{ optional ... }}`,
  which it then cannot parse (HTTP 500 on register), so the .proto has none;
- ProtobufDeserializer with the registry: Karapace answers GET /schemas/ids/N?format=serialized for a
  schema with references with HTTP 500 (kept in `attempts`), so `events` values are decoded by the same
  deserializer without the registry client (the bytes' framing and message indexes, the generated class);
- AvroDeserializer refuses a key or value of 5 bytes or less even when its id is in a header
  (`framed-in-header` offset 0's key: its error is the expected answer);
- the hard-deleted `temp-value` version 1: its id is still answered by GET /schemas/ids/N, so its
  records decode.

Karapace's Protobuf schema texts (`schemas.json`) are its own rewrite of the serializer's descriptor: maps
are repeated `...Entry` messages (no `map_entry` option), type names fully qualified, top-level enums after
the messages (the messages keep their order, so the message indexes hold).

To make it again, from the repository root (the machine needs Karapace's git mirror and PyPI):

```sh
mkdir -p /tmp/karapace-src
git --git-dir=KARAPACE_GIT archive {karapace} karapace setup.py version.py README.rst requirements | tar -x -C /tmp/karapace-src
echo '__version__ = "{karapace}"' > /tmp/karapace-src/karapace/version.py
python3.11 -m venv /tmp/karapace-venv
/tmp/karapace-venv/bin/pip install accept-types "aiohttp==3.9.5" "aiokafka==0.10.0" avro "confluent-kafka==2.4.0" \\
    "jsonschema==4.22.0" networkx "protobuf==3.20.3" pyjwt python-dateutil lz4 python-snappy zstandard ujson \\
    cachetools tenacity watchfiles xxhash rich prometheus-client isodate typing-extensions "yarl==1.9.4" \\
    "multidict==6.0.5" "frozenlist==1.4.1" "aiosignal==1.3.1"
KARAPACE_SRC=/tmp/karapace-src KARAPACE_PYTHON=/tmp/karapace-venv/bin/python \\
    PYTHONPATH=.:scripts .venv/bin/python tests/registry/make_full_fixture.py
```

kafkalog's own environment needs confluent-kafka (with its schema-registry extras: fastavro, jsonschema,
protobuf, googleapis-common-protos) and grpcio-tools (protoc for the Python classes).
"""


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kafkalog-registry-full-") as tmp_name:
        tmp = Path(tmp_name)
        broker = Broker(NEWEST_4X, "kraft", tmp / "broker").start()
        karapace = None
        try:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            for f in admin.create_topics([NewTopic(t, n, 1) for t, n in TOPICS.items()]).values():
                f.result(30)
            karapace = Karapace(broker.bootstrap, tmp / "karapace").start()
            client = SchemaRegistryClient({"url": karapace.url})
            notes = produce(broker.bootstrap, client, karapace.url, tmp)
            modules = (importlib.import_module("events_pb2"), importlib.import_module("event_key_pb2"))
            expected = consume(broker.bootstrap, SchemaRegistryClient({"url": karapace.url}), modules, notes)
            ids_seen = {r[f"{f}_schema_id"] for r in expected for f in ("key", "value")}
            answers = registry_answers(karapace.url, {i for i in ids_seen if isinstance(i, int)})
        finally:
            if karapace is not None:
                karapace.stop()
                shutil.copy(tmp / "karapace" / "karapace.out", Path(tempfile.gettempdir()) / "karapace-full.out")
            broker.stop()
        dest = HERE / "fixtures" / f"karapace-full-{broker.version}"
        if dest.exists():
            shutil.rmtree(dest)
        (dest / "data").mkdir(parents=True)
        for d in sorted(broker.data_dir.iterdir()):
            if d.is_dir() and (d.name.startswith("_schemas-") or d.name.rsplit("-", 1)[0] in TOPICS):
                shutil.copytree(d, dest / "data" / d.name)
        with open(dest / "expected.jsonl", "w") as f:
            for row in expected:
                f.write(json.dumps(row) + "\n")
        (dest / "schemas.json").write_text(json.dumps({**answers, "attempts": notes}, indent=1) + "\n")
        (dest / "README.md").write_text(README.format(broker=broker.version, karapace=KARAPACE_TAG,
                                                      ck=confluent_kafka.__version__, made=time.strftime("%Y-%m-%d")))
        print(f"wrote {dest}: {len(expected)} records")
        subprocess.run(["du", "-sh", str(dest)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
