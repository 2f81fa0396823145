"""Kafka's internal topics decoded: consumer offsets, transactions, share groups, KRaft metadata, and a
schema registry's `_schemas` (JSON, `kafkalog.formats.schemas_topic`).

Specs: the `kafka_*_record.ksy` families, `kafka_raft_control_record.ksy`, `kafka_consumer_protocol.ksy`,
`kafka_message_common.ksy`. No fast-path twin: records are decoded one at a time when asked for.

    from kafkalog.formats.internal_topics import decoder_for_path, decode_record
    decoder = decoder_for_path("/var/lib/kafka/__consumer_offsets-7/00000000000000000000.log")
    decoded = decode_record(decoder, record.key, record.value, record.control_type)
    decoded.key    # {"type": "OffsetCommitKey", "version": 1, "data": {"group": ..., "topic": ..., "partition": 0}}
    decoded.value  # {"type": "OffsetCommitValue", "version": 3, "data": {"offset": 42, ...}} or None (tombstone)
    decoded.error  # None, or what is wrong in Kafka's terms

Which family a record belongs to comes from its topic (the partition directory's name,
`__consumer_offsets-N`, ...) or from an explicit decoder name. The bytes are parsed by the
generated parsers of the specs (`schemas/kafka_*_record.ksy`, written by
`scripts/message_specs.py` from Kafka's message schemas); this module only turns the parsed
objects into Kafka's names (`generated/internal_topics_catalog.py`): `type` is the schema's
message name, `data` its fields, camelCase, UUIDs as Kafka prints them (URL-safe base64),
bytes in base64, absent tagged fields with their defaults, unknown tagged fields kept under
`unknownTaggedFields` as `{"tag": n, "data": base64}`.

Control records (COMMIT, ABORT, and the KRaft LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER,
KRAFT_VERSION, KRAFT_VOTERS) are decoded in every topic.
"""
from __future__ import annotations

import base64
import functools
import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

from kaitaistruct import KaitaiStream, KaitaiStruct

from kafkalog import file_names
from kafkalog._generated import (
    internal_topics_catalog as catalog,
    kafka_consumer_protocol,
    kafka_message_common,
    kafka_raft_control_record,
    kafka_varint,
)
from kafkalog._generated.kafka_control_record import KafkaControlRecord
from kafkalog.errors import UndecodableRecordError, UsageError
from kafkalog.formats import schemas_topic
from kafkalog.formats.topic_decoders import (
    CONTROL_ONLY,
    DECODERS,
    METADATA,
    NONE,
    OFFSETS,
    REMOTE_LOG_METADATA,
    SCHEMAS,
    SHARE,
    TRANSACTIONS,
)
from kafkalog.javatext import java_utf8
from kafkalog.model import Record

TOPIC_DECODERS = {
    "__consumer_offsets": OFFSETS,
    "__transaction_state": TRANSACTIONS,
    "__share_group_state": SHARE,
    "__cluster_metadata": METADATA,
    "__remote_log_metadata": REMOTE_LOG_METADATA,
    # A schema registry's topic (Confluent's and Karapace's default name): JSON, not a Kafka schema.
    schemas_topic.SCHEMAS_TOPIC: SCHEMAS,
}
#: Each family's generated parser module. They are imported when a record of theirs is first decoded: together
#: they take a tenth of a second to import, which a dump of a topic that is not internal need not pay.
_SPECS = {
    OFFSETS: "kafka_group_coordinator_record",
    TRANSACTIONS: "kafka_transaction_log_record",
    SHARE: "kafka_share_coordinator_record",
    METADATA: "kafka_metadata_record",
    REMOTE_LOG_METADATA: "kafka_remote_log_metadata_record",
}
_RAFT_CONTROL_TYPES = {"LEADER_CHANGE": 2, "SNAPSHOT_HEADER": 3, "SNAPSHOT_FOOTER": 4, "KRAFT_VERSION": 5,
                       "KRAFT_VOTERS": 6}


@functools.cache
def _spec(decoder: str) -> ModuleType:
    return importlib.import_module(f"kafkalog._generated.{_SPECS[decoder]}")


@dataclass
class Decoded:
    """A record's key and value in Kafka's names; None for a null key, a tombstone or bytes not decoded."""

    key: dict[str, Any] | None = None
    value: dict[str, Any] | None = None
    #: What could not be decoded, in Kafka's terms (the raw bytes stay in the record).
    error: str | None = None


def decoder_for_topic(topic: str | None) -> str:
    """The decoder of a topic's records: an internal topic's family, else control records only."""
    return TOPIC_DECODERS.get(topic or "", CONTROL_ONLY)


def topic_of_path(path: str | Path) -> str | None:
    """The topic a segment or snapshot belongs to, from its partition directory (`__consumer_offsets-7`)."""
    p = Path(path)
    if p.name == file_names.BOOTSTRAP_CHECKPOINT:
        return "__cluster_metadata"  # the log directory's bootstrap snapshot
    directory = p if p.is_dir() else p.parent
    name = file_names.parse_partition_dir_name(directory)
    return name.topic if name is not None and name.state is None else None


def decoder_for_path(path: str | Path, override: str | None = None) -> str | None:
    """`override` (a `--decode` value) if given, else the decoder of the path's topic; None for `none`."""
    if override is not None:
        if override not in DECODERS:
            raise UsageError(f"--decode: expected one of {', '.join(DECODERS)}, got {override!r}")
        return None if override == NONE else override
    return decoder_for_topic(topic_of_path(path))


# ----------------------------------------------------------------------------- decoding

def decode_record(decoder: str | None, key: bytes | None, value: bytes | None,
                  control_type: str | None = None, *, as_kafka_prints: bool | str = False) -> Decoded:
    """Decode one record's key and value with `decoder` (a DECODERS name, CONTROL_ONLY or None).

    `as_kafka_prints`: as the JsonConverters of DumpLogSegments' decoders write them, of Kafka 4 (True, "4")
    or of Kafka 3.9 ("3.9", which does not know the tagged fields added since)."""
    if decoder is None:
        return Decoded()
    kafka: str | None = ("4" if as_kafka_prints is True else as_kafka_prints) or None
    try:
        if control_type is not None:
            return Decoded(value=_control_value(control_type, value, kafka))
        if decoder == CONTROL_ONLY:
            return Decoded()
        if decoder in (OFFSETS, TRANSACTIONS, SHARE):
            return _coordinator(_spec(decoder), key, value, kafka)
        if decoder == SCHEMAS:
            return Decoded(*schemas_topic.decode_record(key, value))
        return Decoded(value=None if value is None else _framed(_spec(decoder), value, kafka))
    except (_Undecodable, schemas_topic.SchemasRecordError) as e:
        return Decoded(error=str(e))


class _Undecodable(Exception):
    pass


def _parse(what: str, make: Callable[[KaitaiStream], KaitaiStruct], data: bytes) -> tuple[KaitaiStruct, int]:
    """Parse `data` with `make`; returns the object and how many bytes it left."""
    io = KaitaiStream(BytesIO(data))
    try:
        obj = make(io)
    except EOFError:
        raise _Undecodable(f"{what}: the bytes end before the message does ({len(data)} bytes)") from None
    except Exception as e:  # kaitaistruct validation errors, negative sizes
        raise _Undecodable(f"{what}: malformed ({_reason(e)})") from None
    return obj, io.size() - io.pos()


def record_type(key: bytes | None) -> int | None:
    """A coordinator key's record type (its leading int16); None for a key too short to have one."""
    return _int16_prefix(key) if key is not None and len(key) >= 2 else None


def _int16_prefix(data: bytes) -> int:
    """The int16 a coordinator key, a coordinator value or a KRaft control record starts with (at least 2 bytes)."""
    return kafka_message_common.KafkaMessageCommon.Int16Prefix(KaitaiStream(BytesIO(data))).value


def _reason(e: Exception) -> str:
    text = str(e)
    if "negative" in text or "requested -" in text:
        return "a negative length"
    return "a length or count that does not fit the bytes"


def _coordinator(spec: ModuleType, key: bytes | None, value: bytes | None, kafka: str | None) -> Decoded:
    types = catalog.COORDINATOR[_spec_id(spec)]
    if key is None:
        raise _Undecodable("null key: a coordinator record always has a key")
    if len(key) < 2:
        raise _Undecodable(f"key of {len(key)} bytes has no record type")
    record_type = _int16_prefix(key)
    if record_type not in types:
        raise _Undecodable(f"unknown record type {record_type} (known: {min(types)}-{max(types)})")
    key_name, value_name, max_version = types[record_type]
    cls = getattr(spec, _cls(_spec_id(spec)))
    key_obj, _ = _parse(f"{key_name} (record type {record_type})", lambda io: cls(io), key)
    out = Decoded(key=_envelope(key_name, record_type, key_obj.message, kafka))
    if value is None:
        return out
    if len(value) < 2:
        raise _Undecodable(f"{value_name}: value of {len(value)} bytes has no version")
    version = _int16_prefix(value)
    if version < 0:
        raise _Undecodable(f"{value_name}: negative version {version}")
    value_cls = getattr(cls, _cls(snake_case(value_name)))
    obj, left = _parse(f"{value_name} version {version}", lambda io: value_cls(version, io), value[2:])
    if version > max_version and left:
        raise _Undecodable(f"{value_name} version {version} is newer than the newest kafkalog knows "
                           f"({max_version}) and its bytes do not fit that version")
    data = _data(obj, kafka)
    if value_name == "GroupMetadataValue" and data.get("protocolType") == "consumer":
        _consumer_protocol(data, kafka)
    out.value = {"type": value_name, "version": version, "data": data}
    return out


def _framed(spec: ModuleType, value: bytes, kafka: str | None) -> dict[str, Any]:
    apis = catalog.FRAMED[_spec_id(spec)]
    frame, api_key, version = _frame_header(value)
    if frame != 1:
        raise _Undecodable(f"frame version {frame}: only frame version 1 is supported")
    if api_key not in apis:
        raise _Undecodable(f"unknown record type (API key) {api_key}")
    name, max_version = apis[api_key]
    obj, _ = _parse(f"{name} version {version}", lambda io: getattr(spec, _cls(_spec_id(spec)))(io), value)
    if obj.trailing:
        raise _Undecodable(f"{name} version {version}: {len(obj.trailing)} byte(s) of garbage after the record"
                           + (f" (kafkalog knows versions up to {max_version})" if version > max_version else ""))
    return {"type": name, "version": version, "data": _data(obj.message, kafka)}


def framed_record_type(value: bytes | None) -> int | None:
    """A framed record's (KRaft metadata, remote-log metadata) API key; None when its header does not read."""
    if value is None:
        return None
    try:
        return _frame_header(value)[1]
    except _Undecodable:
        return None


def _frame_header(value: bytes) -> tuple[int, int, int]:
    """Frame version, API key and record version: the three unsigned varints before a framed record."""
    io = KaitaiStream(BytesIO(value))
    varint = kafka_varint.KafkaVarint
    out = []
    for what in ("frame version", "record type", "record version"):
        try:
            out.append(varint(io).unsigned_value)
        except Exception:
            raise _Undecodable(f"the bytes end before the {what} (unsigned varint)") from None
    return out[0], out[1], out[2]


def _control_value(control_type: str, value: bytes | None, kafka: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if control_type in ("COMMIT", "ABORT"):
        if len(value) < 6:
            raise _Undecodable(f"end transaction marker of {len(value)} bytes (at least 6 expected)")
        marker, _ = _parse("EndTransactionMarker", lambda io: KafkaControlRecord.EndTxnMarker(io), value)
        return {"type": "EndTransactionMarker", "version": marker.version,
                "data": {"coordinatorEpoch": marker.coordinator_epoch}}
    if control_type not in _RAFT_CONTROL_TYPES:
        return None
    name, _ = catalog.CONTROL[_RAFT_CONTROL_TYPES[control_type]]
    # No version prefix: the message's own leading int16 `version` field is the version it is read with.
    if len(value) < 2:
        raise _Undecodable(f"{name}: value of {len(value)} bytes has no version")
    version = _int16_prefix(value)
    cls = kafka_raft_control_record.KafkaRaftControlRecord
    obj, _ = _parse(f"{name} version {version}", lambda io: cls(_RAFT_CONTROL_TYPES[control_type], io), value)
    return {"type": name, "version": version, "data": _data(obj.message, kafka)}


def _consumer_protocol(group: dict[str, Any], kafka: str | None) -> None:
    """Replace the members' subscription and assignment bytes by their decoding, as DumpLogSegments does."""
    cls = kafka_consumer_protocol.KafkaConsumerProtocol
    for member in group.get("members") or []:
        for field, make, name in (("subscription", cls, "ConsumerProtocolSubscription"),
                                  ("assignment", cls.Assignment, "ConsumerProtocolAssignment")):
            raw = member.get(field)
            if not raw:
                continue
            try:
                obj, _ = _parse(name, make, base64.b64decode(raw))
            except _Undecodable:
                continue  # a client's bytes that are not the consumer protocol: left as bytes
            data = _data(obj.message, kafka)
            # DumpLogSegments puts the converter's JSON in place of the bytes; kafkalog names it too.
            member[field] = data if kafka else {"type": name, "version": obj.version, "data": data}


def _envelope(name: str, version: int, message: KaitaiStruct, kafka: str | None = None) -> dict[str, Any]:
    return {"type": name, "version": version, "data": _data(message, kafka)}


# ----------------------------------------------------------------------------- parsed objects -> Kafka's names

def _spec_id(spec: ModuleType) -> str:
    """The spec's id (`kafka_metadata_record`): the generated module's own name."""
    return spec.__name__.rpartition(".")[2]


def _cls(kaitai_id: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in kaitai_id.split("_"))


def snake_case(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def _common_types():
    return kafka_message_common.KafkaMessageCommon


def _value(v: Any, kafka: str | None) -> Any:
    c = _common_types()
    if isinstance(v, list):
        return [_value(x, kafka) for x in v]
    if isinstance(v, (c.StringField, c.BytesField)):
        if v.is_null:
            return None
        # a string as Kafka's readers decode it (`new String(bytes, UTF_8)`): malformed bytes become U+FFFD
        return java_utf8(v.value) if isinstance(v, c.StringField) else base64.b64encode(v.value).decode("ascii")
    if isinstance(v, c.Uuid):
        return base64.urlsafe_b64encode(v.raw).rstrip(b"=").decode("ascii")
    if isinstance(v, c.Boolean):
        return v.value
    if isinstance(v, KaitaiStruct):
        return _data(v, kafka)
    return v


def _data(obj: KaitaiStruct, kafka: str | None = None) -> dict[str, Any]:
    """A message or struct's fields, in schema order, by Kafka's names.

    With `kafka`, as Kafka's JsonConverters write them (what DumpLogSegments' decoders print): a
    tagged field that holds its default is left out, and unknown tagged fields are not shown."""
    out: dict[str, Any] = {}
    arrays = _common_types().ArrayHeader
    for attr, v in vars(obj).items():
        if attr.startswith("_") or attr == "schema_version":
            continue
        # An array's count, `num_<array>`, told by its type: Kafka has fields named num_* (NumPartitions).
        if isinstance(v, arrays):
            if v.is_null:
                out[catalog.NAMES[attr[len("num_"):]]] = None
            continue
        if attr == "tagged_fields":
            _tagged(obj.schema_version, v, out, kafka)
            continue
        if attr.endswith("_marker"):  # a nullable struct's presence marker: null when the struct is absent
            if not hasattr(obj, attr[:-len("_marker")]):
                out[catalog.NAMES[attr[:-len("_marker")]]] = None
            continue
        out[catalog.NAMES[attr]] = _value(v, kafka)
    order = catalog.ORDER.get(type(obj).__qualname__) if kafka else None
    if order:  # tagged fields where the schema declares them, as Kafka's JsonConverters write them
        out = {**{name: out[name] for name in order if name in out}, **out}
    return out


def _tagged(version: int, section: KaitaiStruct, out: dict[str, Any], kafka: str | None) -> None:
    unknown = []
    for f in section.fields:
        value = getattr(f, "value", None)
        if isinstance(value, KaitaiStruct):
            out.update(_data(value, kafka))
        else:
            unknown.append({"tag": f.tag.unsigned_value,
                            "data": base64.b64encode(value if value is not None else f.data).decode("ascii")})
    always = catalog.TAGGED_STRUCTS.get(type(section).__qualname__, ())
    # Kafka 3.9's generated classes do not have the tagged fields added since: unknown tags, not printed.
    too_new = catalog.KAFKA_39_UNKNOWN_TAGS.get(type(section).__qualname__.split(".")[1], ()) if kafka == "3.9" else ()
    for _tag, name, default, versions in catalog.TAGGED.get(type(section).__qualname__, ()):
        if name in too_new:
            out.pop(name, None)
            continue
        if kafka and name in always:
            # A struct-typed tagged field defaults to an empty struct, not null: present in the bytes, even
            # as null, it differs from its default and the JsonConverters write it; absent, they do not.
            continue
        if kafka:
            if name in out and out[name] == default:
                del out[name]
        elif name not in out and _in_versions(version, versions):
            out[name] = default
    if unknown and not kafka:
        out["unknownTaggedFields"] = unknown


def _in_versions(version: int, spec: str | None) -> bool:
    if not spec or spec == "none":
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    lo, _, hi = spec.partition("-")
    return int(lo) <= version <= int(hi or lo)


# ----------------------------------------------------------------------------- dump output

def dump_hook(line: dict[str, Any] | str, record: Record, decoder: str | None, path: str | None,
              batch_position: int) -> tuple[dict[str, Any] | str, UndecodableRecordError | None]:
    """A `kafkalog dump` record line with the decoded key and value added, and the error if any.

    JSON lines get `key_decoded` and `value_decoded` (objects or null) on internal topics, and on
    control records everywhere; text lines end in `key: {...} payload: {...}`, as kafka-dump-log's
    decoders print them. The error is placed at the batch and names the record's offset.
    """
    if decoder is None or (decoder == CONTROL_ONLY and record.control_type is None):
        return line, None
    decoded = decode_record(decoder, record.key, record.value, record.control_type)
    if isinstance(line, dict):
        line = {**line, "key_decoded": decoded.key, "value_decoded": decoded.value}
    elif decoded.error is None and record.control_type is None:
        # In place of the raw previews, as kafka-dump-log's --offsets-decoder (and the others) print it.
        line = (line.split(" key: ", 1)[0] + f" key: {json.dumps(decoded.key, ensure_ascii=False)}"
                + f" payload: {json.dumps(decoded.value, ensure_ascii=False)}")
    elif decoded.error is None and record.control_type not in ("COMMIT", "ABORT"):
        line += f" payload: {json.dumps(decoded.value, ensure_ascii=False)}"
    if decoded.error is None:
        return line, None
    return line, UndecodableRecordError(f"record at offset {record.offset}: {decoded.error}",
                                        path=path, position=batch_position)
