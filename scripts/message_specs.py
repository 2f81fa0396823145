#!/usr/bin/env python3
"""Write the .ksy specs of Kafka's internal-topic records from Kafka's published message schemas.

    python scripts/message_specs.py --kafka /path/to/apache-kafka [--extra DIR]
    python scripts/message_specs.py --kafka ... --check     # exit 1 if schemas/ or the catalog differ

Kafka describes each record of `__consumer_offsets`, `__transaction_state`,
`__share_group_state`, `__cluster_metadata` (and its snapshots), `__remote_log_metadata` and
the KRaft control records in JSON message schemas (`*.json` with `//` comments: fields with
`versions`, `nullableVersions`, `flexibleVersions`, `taggedVersions`/`tag`). This script turns
them into one Kaitai Struct spec per record family (`schemas/kafka_*_record.ksy`, plus
`kafka_message_common.ksy` for compact strings, arrays and tagged fields), and writes
`generated/internal_topics_catalog.py`, the table the runtime needs beside the parsers: Kafka's
field names, record type numbers and the defaults of tagged fields. The output is committed and
reviewed like any other spec; `python scripts/generate.py` then compiles the specs.

`--kafka` is a checkout (or `git archive`) of apache/kafka; `--extra` a folder of schema files
that override or add to it (schemas newer than that checkout). The schema files are facts about
the format, read here, never copied into this repository.
"""
from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
CATALOG = ROOT / "generated" / "internal_topics_catalog.py"
# Kafka's field lists, for the Java fixture writer, which encodes records from them with Kafka's
# generic protocol types (tests/kafka_writer/InternalTopics.java).
FIELD_LISTS = ROOT / "tests" / "kafka_writer" / "message-schemas.json"

GROUP_DIR = "group-coordinator/src/main/resources/common/message"
TXN_DIR = "transaction-coordinator/src/main/resources/common/message"
SHARE_DIR = "share-coordinator/src/main/resources/common/message"
METADATA_DIR = "metadata/src/main/resources/common/metadata"
STORAGE_DIR = "storage/src/main/resources/message"
CLIENTS_DIR = "clients/src/main/resources/common/message"

# The apache/kafka commit the schemas were read from (trunk, October 2024), and the newer files passed
# with --extra: Kafka 4.3.1's, as its jars on Maven Central carry them (`common/message/*.json` in
# kafka-group-coordinator, kafka-share-coordinator, kafka-metadata: `unzip -j JAR '*.json' -d DIR`).
# 4.3.1 is the newest broker the tests run; its share-group values changed in 4.1 without a version bump
# (ShareGroupMetadataValue gained MetadataHash, ShareGroupStatePartitionMetadataValue's topics), so the
# 4.0 preview's layout is not read, as Kafka 4.3.1 does not read it.
KAFKA_COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"
NEWER = "4.3.1"
EXTRA_COMMITS = {name: (directory, NEWER) for name, directory in (
    ("ClearElrRecord.json", METADATA_DIR),
    ("ConsumerGroupRegularExpressionKey.json", GROUP_DIR),
    ("ConsumerGroupRegularExpressionValue.json", GROUP_DIR),
    # KIP-1071 streams groups (record types 17, 19-23; 18, StreamsGroupPartitionMetadata, was dropped before
    # any release carried it)
    ("StreamsGroupMetadataKey.json", GROUP_DIR),
    ("StreamsGroupMetadataValue.json", GROUP_DIR),
    ("StreamsGroupMemberMetadataKey.json", GROUP_DIR),
    ("StreamsGroupMemberMetadataValue.json", GROUP_DIR),
    ("StreamsGroupTargetAssignmentMetadataKey.json", GROUP_DIR),
    ("StreamsGroupTargetAssignmentMetadataValue.json", GROUP_DIR),
    ("StreamsGroupTargetAssignmentMemberKey.json", GROUP_DIR),
    ("StreamsGroupTargetAssignmentMemberValue.json", GROUP_DIR),
    ("StreamsGroupCurrentMemberAssignmentKey.json", GROUP_DIR),
    ("StreamsGroupCurrentMemberAssignmentValue.json", GROUP_DIR),
    ("StreamsGroupTopologyKey.json", GROUP_DIR),
    ("StreamsGroupTopologyValue.json", GROUP_DIR),
    # Tagged fields added since (Kafka 4.x writes them): MetadataHash, AssignmentTimestamp, AssignmentEpochs,
    # NextProducerEpoch, TxnIndexEmpty, CordonedLogDirs; RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3.
    ("OffsetCommitValue.json", GROUP_DIR),
    ("ConsumerGroupMetadataValue.json", GROUP_DIR),
    ("ConsumerGroupTargetAssignmentMetadataValue.json", GROUP_DIR),
    ("ConsumerGroupCurrentMemberAssignmentValue.json", GROUP_DIR),
    ("ShareGroupTargetAssignmentMetadataValue.json", GROUP_DIR),
    ("TransactionLogValue.json", TXN_DIR),
    ("RegisterBrokerRecord.json", METADATA_DIR),
    ("BrokerRegistrationChangeRecord.json", METADATA_DIR),
    ("RemoteLogSegmentMetadataRecord.json", STORAGE_DIR),
    ("RemoteLogSegmentMetadataSnapshotRecord.json", STORAGE_DIR),
    ("ShareGroupMetadataValue.json", GROUP_DIR),
    ("ShareGroupStatePartitionMetadataValue.json", GROUP_DIR),
    ("ShareSnapshotValue.json", SHARE_DIR),
    ("ShareUpdateValue.json", SHARE_DIR),
)}

REMOTE_LOG = ["RemoteLogSegmentMetadataRecord", "RemoteLogSegmentMetadataUpdateRecord",
              "RemotePartitionDeleteMetadataRecord", "RemoteLogSegmentMetadataSnapshotRecord"]
# KRaft control record types (ControlRecordType.java) whose values are Kafka messages.
RAFT_CONTROL = {2: "LeaderChangeMessage", 3: "SnapshotHeaderRecord", 4: "SnapshotFooterRecord",
                5: "KRaftVersionRecord", 6: "VotersRecord"}
CONSUMER_PROTOCOL = ["ConsumerProtocolSubscription", "ConsumerProtocolAssignment"]
PRIMITIVES = {"int8": "s1", "int16": "s2", "int32": "s4", "int64": "s8", "uint16": "u2", "uint32": "u4",
              "float64": "f8"}
COMMON = "kafka_message_common"
# The parameter every message type takes: the version its bytes were written with. (Not
# `version`: VotersRecord and KRaftVersionRecord have fields of that name.)
V = "schema_version"


# ----------------------------------------------------------------------------- schema reading

def load_schema(path: Path) -> dict:
    text = re.sub(r"^\s*//.*$", "", path.read_text(), flags=re.M)
    return json.loads(text)


def key_versions_as_record_type(s: dict) -> dict:
    """A `coordinator-key` schema (Kafka 4.x: `apiKey` = record type, `validVersions` "0"), with its
    versions renumbered to the record type, as the older schemas number them.

    The specs and the fixture writer read and write a key with its record type as the version.
    Kafka 4.x writes keys at version 0 instead; the bytes are the same, since keys are never
    flexible and each key schema has one version.
    """
    if s.get("type") != "coordinator-key":
        return s
    rt = str(s["apiKey"])

    def renumber(fields):
        for f in fields:
            for k in ("versions", "nullableVersions"):
                if f.get(k) in ("0", "0+"):
                    f[k] = rt
            renumber(f.get("fields", []))

    s["validVersions"] = rt
    renumber(s["fields"])
    return s


def snake(name: str) -> str:
    """Kafka's field name (camelCase or PascalCase) as a Kaitai id."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def camel(name: str) -> str:
    """Kafka's JSON name for a field: its schema name with the first letter lowered."""
    return name[:1].lower() + name[1:]


def parse_versions(spec: str | None) -> tuple[int, int | None] | None:
    """'3+' -> (3, None), '0-2' -> (0, 2), '1' -> (1, 1), 'none' -> None."""
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return int(spec[:-1]), None
    lo, _, hi = spec.partition("-")
    return int(lo), int(hi or lo)


def version_cond(spec: str | None, valid: tuple[int, int | None]) -> str | None:
    """A Kaitai condition on the version param, None when always true in the valid range."""
    r = parse_versions(spec)
    if r is None:
        return "false"
    lo, hi = r
    parts = []
    if lo > valid[0]:
        parts.append(f"{V} >= {lo}")
    if hi is not None and (valid[1] is None or hi < valid[1]):
        parts.append(f"{V} <= {hi}")
    return " and ".join(parts) or None


def and_(*conds: str | None) -> str | None:
    conds = [c for c in conds if c]
    if not conds:
        return None
    if len(conds) == 1:
        return conds[0]
    return " and ".join(f"({c})" if " or " in c else c for c in conds)


def _is_struct(t: str) -> bool:
    return not t.startswith("[]") and t not in PRIMITIVES and t not in ("bool", "string", "uuid", "bytes", "records")


def default_of(f: dict):
    """A tagged field's value when absent, as Kafka's generated classes default it."""
    d = f.get("default")
    t = f["type"]
    if d == "null" or ("default" in f and d is None):  # "default": null, as JSON null or as text
        return None
    if t.startswith("[]"):
        return []
    if t in PRIMITIVES:
        if d in (None, ""):
            return 0
        return int(str(d), 0) if t != "float64" else float(d)
    if t == "bool":
        return str(d).lower() == "true"
    if t == "string":
        return d or ""
    if t == "uuid":
        return "AAAAAAAAAAAAAAAAAAAAAA"
    if t == "bytes":
        return ""
    return None


# ----------------------------------------------------------------------------- spec writing

@dataclass
class Family:
    spec_id: str
    title: str
    doc: str
    messages: list[tuple[str, Path]] = field(default_factory=list)  # (schema name, file)


class SpecWriter:
    """Builds the Kaitai types of one family, and the catalog entries of its messages."""

    def __init__(self, family: Family, schemas: dict[str, dict], sources: dict[str, str]):
        self.family = family
        self.schemas = schemas
        self.sources = sources
        self.tagged: dict[str, list] = {}  # catalog: "Message.Struct" -> [(tag, name, default)]
        self.names: dict[str, str] = {}  # kaitai id -> Kafka JSON name
        # catalog: "Spec.Message[.Struct]" -> its fields' names in the schema's order, tagged ones where declared
        # (Kafka's JsonConverters write them so); only structs with tagged fields need it.
        self.order: dict[str, tuple[str, ...]] = {}
        # catalog: tagged-field section -> its struct-typed fields, which the JsonConverters write even when null
        self.tagged_structs: dict[str, tuple[str, ...]] = {}

    def ref(self, name: str) -> str:
        return self.sources[name]

    def message_type(self, name: str) -> dict:
        s = self.schemas[name]
        valid = parse_versions(s["validVersions"])
        flex = parse_versions(s.get("flexibleVersions"))
        flex_cond = "false" if flex is None else (version_cond(f"{flex[0]}+", valid) or "true")
        structs: dict[str, dict] = {}
        common = {c["name"]: c for c in s.get("commonStructs", [])}
        t = self.struct_type(name, name, s["fields"], valid, flex_cond, structs, common, top=True)
        t["doc"] = (f"{name}: Kafka's message schema, versions {s['validVersions']}"
                    f" (flexible versions {s.get('flexibleVersions', 'none')}).")
        if "apiKey" in s:
            t["doc"] += f" API key {s['apiKey']}."
        t["doc-ref"] = self.ref(name)
        if structs:
            t["types"] = structs
        return t

    def struct_type(self, msg: str, sname: str, fields: list[dict], valid, flex_cond: str,
                    structs: dict, common: dict, top: bool = False) -> dict:
        seq: list[dict] = []
        tags = []
        for f in fields:
            if "tag" in f:
                tags.append(f)
                continue
            seq.extend(self.field_attrs(msg, f, valid, flex_cond, structs, common))
        ids = [a["id"] for a in seq]
        # An array's count is `num_<array>`, a nullable struct's marker `<struct>_marker`: a Kafka field may
        # be named so too (ConsumerGroupPartitionMetadataValue has NumPartitions, though no Partitions array).
        clash = sorted({i for i in ids if ids.count(i) > 1})
        if clash:
            raise SystemExit(f"{msg}.{sname}: field name {clash[0]} clashes with a generated name")
        if tags:
            path = (self.family.spec_id, snake(msg)) if top else (self.family.spec_id, snake(msg), snake(sname))
            self.order[".".join(cls_name(x) for x in path)] = tuple(camel(f["name"]) for f in fields)
        t: dict = {}
        if not top:
            t["doc"] = f"{sname}: a struct of Kafka's {msg} schema."
            t["doc-ref"] = self.ref(msg)
        t["params"] = [{"id": V, "type": "s2", "doc": f"Version of the {msg} the bytes were written with."}]
        if flex_cond != "false":
            tag_type = f"{snake(sname)}_tagged_fields" if tags else None
            entry = {"id": "tagged_fields", "doc": "Tagged fields (flexible versions only); unknown tags kept as bytes."}
            if tags:
                entry["type"] = f"{tag_type}({V})"
                structs[tag_type] = self.tag_section(msg, sname, tags, valid, structs, common)
            else:
                entry["type"] = f"{COMMON}::tagged_fields"
            if flex_cond != "true":
                entry["if"] = flex_cond
            seq.append(entry)
        t["seq"] = seq
        t["-webide-representation"] = sname
        return t

    def tag_section(self, msg, sname, tags, valid, structs, common) -> dict:
        base = snake(sname)
        cases = {}
        catalog = []
        for f in tags:
            tag = int(f["tag"])
            tname = f"{base}_tag_{snake(f['name'])}"
            # A tagged field's bytes are always in the flexible encoding.
            structs[tname] = {
                "doc": f"Tagged field {tag} of {sname} ({f['name']}).",
                "doc-ref": self.ref(msg),
                "params": [{"id": V, "type": "s2", "doc": f"Version of the {msg}."}],
                "seq": self.field_attrs(msg, {**f, "versions": "0+"}, (0, None), "true", structs, common),
                "-webide-representation": f["name"],
            }
            cases[tag] = f"{tname}({V})"
            catalog.append((tag, camel(f["name"]), default_of(f), f.get("taggedVersions")))
        # Keyed by the Python class the compiler makes of the section type.
        qual = ".".join(cls_name(x) for x in (self.family.spec_id, snake(msg), f"{base}_tagged_fields"))
        self.tagged[qual] = catalog
        structs_tagged = tuple(camel(f["name"]) for f in tags if _is_struct(f["type"]))
        if structs_tagged:
            self.tagged_structs[qual] = structs_tagged
        field_type = f"{base}_tagged_field"
        structs[field_type] = {
            "doc": f"One tagged field of {sname}: known tags parsed, others kept as bytes.",
            "doc-ref": self.ref(msg),
            "params": [{"id": V, "type": "s2", "doc": f"Version of the {msg}."}],
            "seq": [
                {"id": "tag", "type": "kafka_varint", "doc": "The tag (unsigned varint)."},
                {"id": "len_value", "type": "kafka_varint", "doc": "Size of the field's bytes (unsigned varint)."},
                {"id": "value", "size": "len_value.unsigned_value",
                 "type": {"switch-on": "tag.unsigned_value", "cases": cases},
                 "doc": "The field; bytes when the tag is unknown."},
            ],
            "-webide-representation": "tag {tag.unsigned_value:dec}",
        }
        return {
            "doc": f"Tagged-field section of {sname}: a count, then the fields.",
            "doc-ref": self.ref(msg),
            "params": [{"id": V, "type": "s2", "doc": f"Version of the {msg}."}],
            "seq": [
                {"id": "num_fields", "type": "kafka_varint", "doc": "Number of tagged fields (unsigned varint)."},
                {"id": "fields", "type": f"{field_type}({V})", "repeat": "expr",
                 "repeat-expr": "num_fields.unsigned_value", "doc": "The tagged fields."},
            ],
            "-webide-representation": "{num_fields.unsigned_value:dec} tagged fields",
        }

    def field_attrs(self, msg, f, valid, flex_cond, structs, common) -> list[dict]:
        name = f["name"]
        fid = snake(name)
        if keyword.iskeyword(fid) or fid in ("tagged_fields", V):
            raise SystemExit(f"{msg}.{name}: field name clashes with a generated name")
        old = self.names.setdefault(fid, camel(name))
        if old != camel(name):
            raise SystemExit(f"{msg}.{name}: {fid} is already {old}")
        cond = version_cond(f.get("versions"), valid)
        if cond == "false":
            return []
        doc = (f.get("about") or f"The {name} field.").strip()
        doc += f" (Kafka field `{camel(name)}`, {f['type']}, versions {f.get('versions')}"
        if f.get("nullableVersions"):
            doc += f", nullable in {f['nullableVersions']}"
        doc += ".)"
        t = f["type"]
        out: list[dict] = []
        if t.startswith("[]"):
            elem = t[2:]
            out.append({"id": f"num_{fid}", "type": f"{COMMON}::array_header({flex_cond})",
                        "doc": f"Number of elements of `{fid}` (-1 or compact 0: null)."})
            if cond:
                out[-1]["if"] = cond
            a = {"id": fid, "repeat": "expr", "repeat-expr": f"num_{fid}.num_elements", "if": and_(cond, f"not num_{fid}.is_null")}
            a.update(self.elem_type(msg, elem, f, valid, flex_cond, structs, common))
            a["doc"] = doc
            out.append(a)
            return out
        a = {"id": fid}
        a.update(self.elem_type(msg, t, f, valid, flex_cond, structs, common))
        if f.get("nullableVersions") and a["type"].endswith(f"({V})"):
            # A nullable struct starts with a presence marker (Kafka's generated read()): a tagged one an
            # unsigned varint, 0 for null; any other one an int8, negative for null.
            null_cond = and_(cond, version_cond(f["nullableVersions"], valid))
            marker = {"id": f"{fid}_marker", "doc": f"Whether `{fid}` follows: "}
            if "tag" in f:
                marker.update(type="kafka_varint")
                marker["doc"] += "0 (null) or not (an unsigned varint)."
                present = f"{fid}_marker.unsigned_value > 0"
            else:
                marker.update(type="s1")
                marker["doc"] += "negative (null) or not (an int8)."
                present = f"{fid}_marker >= 0"
            if null_cond:
                marker["if"] = null_cond
                present = f"(not ({null_cond}) or {present})"
            out.append(marker)
            cond = and_(cond, present)
        if cond:
            a["if"] = cond
        a["doc"] = doc
        out.append(a)
        return out

    def elem_type(self, msg, t, f, valid, flex_cond, structs, common) -> dict:
        if t in PRIMITIVES:
            return {"type": PRIMITIVES[t]}
        if t == "bool":
            return {"type": f"{COMMON}::boolean"}
        if t == "uuid":
            return {"type": f"{COMMON}::uuid"}
        if t == "string":
            return {"type": f"{COMMON}::string_field({flex_cond})"}
        if t == "bytes":
            return {"type": f"{COMMON}::bytes_field({flex_cond})"}
        # a struct
        sfields = f.get("fields") or (common.get(t) or {}).get("fields")
        if sfields is None:
            raise SystemExit(f"{msg}: unknown type {t}")
        sid = snake(t)
        if sid not in structs:
            structs[sid] = None  # reserve: recursion cannot happen in Kafka's schemas
            structs[sid] = self.struct_type(msg, t, sfields, valid, flex_cond, structs, common)
        return {"type": f"{sid}({V})"}


def cls_name(kaitai_id: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in kaitai_id.split("_"))


def common_spec() -> dict:
    ref = f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java"
    ref_tf = f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/clients/src/main/java/org/apache/kafka/common/protocol/types/RawTaggedField.java"
    return {
        "meta": meta(COMMON, "Kafka message encoding: strings, bytes, arrays, UUIDs and tagged fields"),
        "doc": ("The building blocks of Kafka's generated message classes, shared by the internal-topic "
                "record specs. Classic versions use int16 string lengths and int32 byte and array lengths "
                "(-1 = null); flexible versions use compact forms, an unsigned varint of length + 1 (0 = "
                "null), and end each struct with a tagged-field section. The top-level type is such a "
                "section."),
        "doc-ref": [ref, ref_tf, "https://cwiki.apache.org/confluence/display/KAFKA/KIP-482%3A+The+Kafka+Protocol+should+Support+Optional+Tagged+Fields"],
        "-webide-representation": "{num_fields.unsigned_value:dec} tagged fields",
        "seq": [
            {"id": "num_fields", "type": "kafka_varint", "doc": "Number of tagged fields (unsigned varint)."},
            {"id": "fields", "type": "tagged_field", "repeat": "expr", "repeat-expr": "num_fields.unsigned_value",
             "doc": "The tagged fields, in increasing tag order."},
        ],
        "types": {
            "tagged_fields": {
                "doc": "A tagged-field section of a struct none of whose tags is known.",
                "doc-ref": ref_tf,
                "-webide-representation": "{num_fields.unsigned_value:dec} tagged fields",
                "seq": [
                    {"id": "num_fields", "type": "kafka_varint", "doc": "Number of tagged fields (unsigned varint)."},
                    {"id": "fields", "type": "tagged_field", "repeat": "expr",
                     "repeat-expr": "num_fields.unsigned_value", "doc": "The tagged fields."},
                ],
            },
            "int16_prefix": {
                "doc": ("The int16 that opens a coordinator record's key (its record type) and value (its "
                        "version), an end-transaction marker and a KRaft control record (their version). "
                        "Read on its own, it names a record whose message does not parse."),
                "doc-ref": ref,
                "-webide-representation": "{value:dec}",
                "seq": [
                    {"id": "value", "type": "s2", "doc": "The record type or the version."},
                ],
            },
            "tagged_field": {
                "doc": "One tagged field kept as bytes: its tag, its size, its data.",
                "doc-ref": ref_tf,
                "-webide-representation": "tag {tag.unsigned_value:dec}",
                "seq": [
                    {"id": "tag", "type": "kafka_varint", "doc": "The tag (unsigned varint)."},
                    {"id": "len_data", "type": "kafka_varint", "doc": "Size of the data (unsigned varint)."},
                    {"id": "data", "size": "len_data.unsigned_value", "doc": "The field's bytes."},
                ],
            },
            "string_field": {
                "doc": "A Kafka string: int16 length (classic) or unsigned varint length + 1 (compact); null when the length is -1 or the compact length 0.",
                "doc-ref": ref,
                "params": [{"id": "compact", "type": "bool", "doc": "True in flexible versions."}],
                "-webide-representation": "{text}",
                "seq": [
                    {"id": "len_compact", "type": "kafka_varint", "if": "compact", "doc": "Length + 1 (flexible versions)."},
                    {"id": "len_classic", "type": "s2", "if": "not compact", "doc": "Length, -1 for null (classic versions)."},
                    {"id": "value", "size": "len", "if": "not is_null",
                     "doc": "The text's UTF-8 bytes. Kafka reads them with Java's `new String(bytes, UTF_8)`, which"
                            " puts U+FFFD in place of a malformed sequence rather than failing, so they are kept as"
                            " bytes here: kafkalog turns them into text by Java's rules (`kafkalog.javatext`)."},
                ],
                "instances": {
                    "text": {"value": "value.to_s(\"UTF-8\")", "if": "not is_null",
                             "doc": "The text, for the Web IDE (whose decoder replaces malformed bytes as browsers do)."},
                    "is_null": {"value": "compact ? len_compact.unsigned_value == 0 : len_classic == -1",
                                "doc": "True for a null string."},
                    "len": {"value": "compact ? len_compact.unsigned_value - 1 : len_classic",
                            "doc": "Length in bytes."},
                },
            },
            "bytes_field": {
                "doc": "Kafka bytes: int32 length (classic) or unsigned varint length + 1 (compact); null when the length is -1 or the compact length 0.",
                "doc-ref": ref,
                "params": [{"id": "compact", "type": "bool", "doc": "True in flexible versions."}],
                "-webide-representation": "{len:dec} bytes",
                "seq": [
                    {"id": "len_compact", "type": "kafka_varint", "if": "compact", "doc": "Length + 1 (flexible versions)."},
                    {"id": "len_classic", "type": "s4", "if": "not compact", "doc": "Length, -1 for null (classic versions)."},
                    {"id": "value", "size": "len", "if": "not is_null", "doc": "The bytes."},
                ],
                "instances": {
                    "is_null": {"value": "compact ? len_compact.unsigned_value == 0 : len_classic == -1",
                                "doc": "True for null bytes."},
                    "len": {"value": "compact ? len_compact.unsigned_value - 1 : len_classic",
                            "doc": "Length in bytes."},
                },
            },
            "array_header": {
                "doc": "The element count before an array: int32 (classic) or unsigned varint count + 1 (compact); null when -1 or compact 0.",
                "doc-ref": ref,
                "params": [{"id": "compact", "type": "bool", "doc": "True in flexible versions."}],
                "-webide-representation": "{num_elements:dec} elements",
                "seq": [
                    {"id": "num_compact", "type": "kafka_varint", "if": "compact", "doc": "Count + 1 (flexible versions)."},
                    {"id": "num_classic", "type": "s4", "if": "not compact", "doc": "Count, -1 for null (classic versions)."},
                ],
                "instances": {
                    "is_null": {"value": "compact ? num_compact.unsigned_value == 0 : num_classic == -1",
                                "doc": "True for a null array."},
                    "num_elements": {"value": "is_null ? 0 : compact ? num_compact.unsigned_value - 1 : num_classic",
                                     "doc": "Number of elements."},
                },
            },
            "uuid": {
                "doc": "A UUID: 16 bytes, most significant first. Kafka prints it in URL-safe base64 without padding.",
                "doc-ref": f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/clients/src/main/java/org/apache/kafka/common/Uuid.java",
                "-webide-representation": "{raw:uuid}",
                "seq": [{"id": "raw", "size": 16, "doc": "The 128 bits."}],
            },
            "boolean": {
                "doc": "A Kafka bool: one byte, non-zero is true.",
                "doc-ref": ref,
                "-webide-representation": "{raw:dec}",
                "seq": [{"id": "raw", "type": "u1", "doc": "0 false, anything else true."}],
                "instances": {"value": {"value": "raw != 0", "doc": "The truth value."}},
            },
        },
    }


def meta(spec_id: str, title: str, imports: list[str] | None = None) -> dict:
    m = {"id": spec_id, "title": title, "license": "Apache-2.0", "ks-version": 0.11, "endian": "be",
         "xref": {"wikidata": "Q16235208"}}
    m["imports"] = imports or ["kafka_varint"]
    return m


def enum_name(msg: str) -> str:
    return snake(re.sub(r"(Key|Value|Record|Message)$", "", msg))


def write_yaml(path: Path, doc: dict) -> str:
    header = ("# Generated by scripts/message_specs.py from Kafka's message schemas; review it like any\n"
              "# other spec, and regenerate rather than edit.\n")
    return header + yaml.safe_dump(doc, sort_keys=False, width=100, allow_unicode=True)


def older_view(schemas: dict[str, dict], older: Path) -> dict:
    """What an older Kafka's decoders know of each message (its schema files in `older`): the newest version
    of each, and the tagged fields (by message, anywhere in it) that it does not have, which its
    JsonConverters do not print."""
    max_versions: dict[str, int] = {}
    unknown_tags: dict[str, tuple[str, ...]] = {}

    def tagged(fields: list[dict], common: dict[str, list]) -> set[str]:
        names = set()
        for f in fields:
            if "tag" in f:
                names.add(camel(f["name"]))
            inner = f.get("fields") or common.get(f["type"].removeprefix("[]"), [])
            names |= tagged(inner, common)
        return names

    for p in sorted(older.glob("*.json")):
        old = load_schema(p)
        name = old.get("name")
        if name not in schemas:
            continue
        new = schemas[name]
        versions = parse_versions(old.get("validVersions"))
        if versions and not name.endswith("Key") and versions[1] is not None:
            max_versions[name] = versions[1]
        common_old = {c["name"]: c.get("fields", []) for c in old.get("commonStructs", [])}
        common_new = {c["name"]: c.get("fields", []) for c in new.get("commonStructs", [])}
        missing = tagged(new.get("fields", []), common_new) - tagged(old.get("fields", []), common_old)
        if missing:
            unknown_tags[name] = tuple(sorted(missing))
    return {"max_versions": max_versions, "unknown_tags": unknown_tags}


def build(kafka: Path, extra: Path | None, older: Path | None = None) -> dict[str, str]:
    sources: dict[str, str] = {}
    schemas: dict[str, dict] = {}

    def add_dir(d: str, names: list[str] | None = None) -> list[str]:
        found = []
        files = {p.stem: p for p in sorted((kafka / d).glob("*.json"))}
        if extra:
            for p in sorted(extra.glob("*.json")):
                if EXTRA_COMMITS.get(p.name, (None,))[0] == d:
                    files[p.stem] = p
        for stem, p in files.items():
            if names is not None and stem not in names:
                continue
            schemas[stem] = key_versions_as_record_type(load_schema(p))
            commit = EXTRA_COMMITS.get(p.name, (d, KAFKA_COMMIT))[1] if p.parent == extra else KAFKA_COMMIT
            sources[stem] = f"https://github.com/apache/kafka/blob/{commit}/{d}/{p.name}"
            found.append(stem)
        return found

    out: dict[str, str] = {}
    catalog: dict = {"coordinator": {}, "framed": {}, "control": {}, "consumer_protocol": {}, "tagged": {}, "names": {},
                     "order": {}, "tagged_structs": {}}

    # Coordinator families: key = int16 record type + key message, value = int16 version + value.
    coord = [
        ("kafka_group_coordinator_record", "__consumer_offsets", GROUP_DIR,
         "Kafka group coordinator record (__consumer_offsets key and value)", None),
        ("kafka_transaction_log_record", "__transaction_state", TXN_DIR,
         "Kafka transaction coordinator record (__transaction_state key and value)", None),
        ("kafka_share_coordinator_record", "__share_group_state", SHARE_DIR,
         "Kafka share coordinator record (__share_group_state key and value)", None),
    ]
    for spec_id, topic, d, title, _ in coord:
        names = add_dir(d)
        keys = {}
        for n in names:
            if n.endswith("Key"):
                s = schemas[n]
                lo, hi = parse_versions(s["validVersions"])
                rt = s.get("apiKey")
                for r in ([rt] if rt is not None else range(lo, hi + 1)):
                    keys[r] = n
        fam = Family(spec_id, title, "")
        w = SpecWriter(fam, schemas, sources)
        types = {}
        key_cases, enum = {}, {}
        rtypes = {}
        for r, kname in sorted(keys.items()):
            vname = kname[:-3] + "Value"
            ek = enum_name(kname)
            # OffsetCommitKey is record types 0 (very old brokers) and 1.
            enum[r] = ek + "_legacy" if keys.get(r + 1) == kname else ek
            types.setdefault(snake(kname), w.message_type(kname))
            if vname in schemas:
                types.setdefault(snake(vname), w.message_type(vname))
            key_cases[f"record_type::{enum[r]}"] = f"{snake(kname)}({r})"
            rtypes[r] = (kname, vname if vname in schemas else None,
                         parse_versions(schemas[vname]["validVersions"])[1] if vname in schemas else None)
        value_cases = {r: f"{snake(rtypes[r][1])}(version)" for r in rtypes if rtypes[r][1]}
        types = {
            "value": {
                "doc": ("A record value: int16 version, then the value message the key's record type names. "
                        "A null value (a tombstone) deletes the key."),
                "doc-ref": f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorRecordSerde.java",
                "params": [{"id": "record_type", "type": "s2", "doc": "The record type, from the key."}],
                "-webide-representation": "v{version:dec}",
                "seq": [
                    {"id": "version", "type": "s2", "doc": "Version of the value message."},
                    {"id": "message", "type": {"switch-on": "record_type", "cases": value_cases},
                     "doc": "The value message."},
                ],
            },
            **types,
        }
        doc = {
            "meta": meta(spec_id, title, ["kafka_varint", COMMON]),
            "doc": (f"A record of Kafka's `{topic}` topic, as its coordinator writes it. The key is an int16 "
                    "record type followed by the key message (read with the record type as its version); "
                    "the value, of type `value` here, is an int16 version followed by the value message of "
                    "that record type, and a null value is a tombstone. This top-level type parses a key.\n\n"
                    f"Generated by scripts/message_specs.py from Kafka's message schemas ({d}/*.json)."),
            "doc-ref": [f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorRecordSerde.java",
                        f"https://github.com/apache/kafka/tree/{KAFKA_COMMIT}/{d}"],
            "-webide-representation": "{record_type}",
            "seq": [
                {"id": "record_type", "type": "s2", "enum": "record_type",
                 "doc": "Which record this is; also the version the key message is read with."},
                {"id": "message", "type": {"switch-on": "record_type", "cases": key_cases}, "doc": "The key message."},
            ],
            "types": types,
            "enums": {"record_type": enum},
        }
        out[spec_id] = write_yaml(SCHEMAS / f"{spec_id}.ksy", doc)
        catalog["coordinator"][spec_id] = {r: v for r, v in rtypes.items()}
        catalog["tagged"].update(w.tagged)
        catalog["names"].update(w.names)
        catalog["order"].update(w.order)
        catalog["tagged_structs"].update(w.tagged_structs)

    # Framed families: unsigned varint frame version, api key, version, then the record.
    framed = [
        ("kafka_metadata_record", METADATA_DIR, None, "Kafka KRaft metadata record (__cluster_metadata value)",
         "A record of the KRaft metadata log (`__cluster_metadata`) and of its snapshots (`*.checkpoint`, "
         "`bootstrap.checkpoint`): the value of a record in a data batch."),
        ("kafka_remote_log_metadata_record", STORAGE_DIR, REMOTE_LOG,
         "Kafka remote log metadata record (__remote_log_metadata value)",
         "A record of the `__remote_log_metadata` topic, which the topic-based remote log metadata manager "
         "of tiered storage writes: the value of a record."),
    ]
    for spec_id, d, only, title, what in framed:
        names = add_dir(d, only)
        w = SpecWriter(Family(spec_id, title, ""), schemas, sources)
        types, cases, enum, apis = {}, {}, {}, {}
        for n in sorted(names, key=lambda n: schemas[n]["apiKey"]):
            k = schemas[n]["apiKey"]
            enum[k] = enum_name(n)
            types[snake(n)] = w.message_type(n)
            cases[k] = f"{snake(n)}(version.unsigned_value)"
            apis[k] = (n, parse_versions(schemas[n]["validVersions"])[1])
        doc = {
            "meta": meta(spec_id, title, ["kafka_varint", COMMON]),
            "doc": (what + " An unsigned varint frame version (1), an unsigned varint API key "
                    "naming the record type, an unsigned varint record version, then the record; Kafka "
                    "rejects bytes after it.\n\n"
                    f"Generated by scripts/message_specs.py from Kafka's message schemas ({d}/*.json)."),
            "doc-ref": [f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/server-common/src/main/java/org/apache/kafka/server/common/serialization/AbstractApiMessageSerde.java",
                        f"https://github.com/apache/kafka/tree/{KAFKA_COMMIT}/{d}"],
            "-webide-representation": "{api_key_name} v{version.unsigned_value:dec}",
            "seq": [
                {"id": "frame_version", "type": "kafka_varint", "doc": "Frame version; 1 (Kafka rejects 0 and others)."},
                {"id": "api_key", "type": "kafka_varint", "doc": "The record type (unsigned varint)."},
                {"id": "version", "type": "kafka_varint", "doc": "Version of the record (unsigned varint)."},
                {"id": "message", "type": {"switch-on": "api_key.unsigned_value", "cases": cases},
                 "doc": "The record."},
                {"id": "trailing", "size-eos": True, "doc": "Bytes after the record: Kafka rejects a value that has any."},
            ],
            "instances": {"api_key_name": {"value": "api_key.unsigned_value", "enum": "api_key",
                                           "doc": "The record type by name."}},
            "types": types,
            "enums": {"api_key": enum},
        }
        out[spec_id] = write_yaml(SCHEMAS / f"{spec_id}.ksy", doc)
        catalog["framed"][spec_id] = apis
        catalog["tagged"].update(w.tagged)
        catalog["names"].update(w.names)
        catalog["order"].update(w.order)
        catalog["tagged_structs"].update(w.tagged_structs)

    # KRaft control records: value = int16 version + message; the type comes from the key.
    add_dir(CLIENTS_DIR, list(RAFT_CONTROL.values()) + CONSUMER_PROTOCOL)
    spec_id = "kafka_raft_control_record"
    w = SpecWriter(Family(spec_id, "", ""), schemas, sources)
    types = {snake(n): w.message_type(n) for n in RAFT_CONTROL.values()}
    doc = {
        "meta": meta(spec_id, "Kafka KRaft control record value (leader change, snapshot header and footer, "
                     "kraft.version, voters)", ["kafka_varint", COMMON, "kafka_control_record"]),
        "doc": ("The value of a KRaft control record, in a control batch of `__cluster_metadata` or of a "
                "snapshot: the message that the key's control type names (`kafka_control_record`), with "
                "no version prefix. Each of these messages starts with an int16 `version` field, which "
                "is the version it is read with. The top-level type takes the control type as a "
                "parameter.\n\n"
                "Generated by scripts/message_specs.py from Kafka's message schemas."),
        "doc-ref": [f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/clients/src/main/java/org/apache/kafka/common/record/ControlRecordUtils.java",
                    f"https://github.com/apache/kafka/tree/{KAFKA_COMMIT}/{CLIENTS_DIR}"],
        "-webide-representation": "v{version:dec}",
        "params": [{"id": "control_type", "type": "s2", "doc": "The control type from the record's key."}],
        "seq": [
            {"id": "message", "type": {"switch-on": "control_type",
                                       "cases": {k: f"{snake(n)}(version)" for k, n in RAFT_CONTROL.items()}},
             "doc": "The message."},
        ],
        "instances": {"version": {"pos": 0, "type": "s2",
                                  "doc": "The message's own leading `version` field: the version it is read with."}},
        "types": types,
    }
    out[spec_id] = write_yaml(SCHEMAS / f"{spec_id}.ksy", doc)
    catalog["control"] = {k: (n, parse_versions(schemas[n]["validVersions"])[1]) for k, n in RAFT_CONTROL.items()}
    catalog["tagged"].update(w.tagged)
    catalog["names"].update(w.names)
    catalog["order"].update(w.order)
    catalog["tagged_structs"].update(w.tagged_structs)

    # The classic consumer protocol's subscription and assignment (nested in GroupMetadataValue).
    spec_id = "kafka_consumer_protocol"
    w = SpecWriter(Family(spec_id, "", ""), schemas, sources)
    types = {snake(n): w.message_type(n) for n in CONSUMER_PROTOCOL}
    types["assignment"] = {
        "doc": "A member's assignment: int16 version, then ConsumerProtocolAssignment.",
        "doc-ref": sources["ConsumerProtocolAssignment"],
        "-webide-representation": "v{version:dec}",
        "seq": [{"id": "version", "type": "s2", "doc": "Version of the assignment."},
                {"id": "message", "type": "consumer_protocol_assignment(version)", "doc": "The assignment."}],
    }
    doc = {
        "meta": meta(spec_id, "Kafka consumer protocol subscription and assignment", ["kafka_varint", COMMON]),
        "doc": ("The bytes a classic consumer group's members exchange through the group coordinator "
                "(`subscription` and `assignment` of GroupMetadataValue's members when the protocol type "
                "is `consumer`): an int16 version, then the message. The top-level type parses a "
                "subscription; `assignment` parses an assignment.\n\n"
                "Generated by scripts/message_specs.py from Kafka's message schemas."),
        "doc-ref": [f"https://github.com/apache/kafka/blob/{KAFKA_COMMIT}/clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocol.java",
                    sources["ConsumerProtocolSubscription"]],
        "-webide-representation": "v{version:dec}",
        "seq": [{"id": "version", "type": "s2", "doc": "Version of the subscription."},
                {"id": "message", "type": "consumer_protocol_subscription(version)", "doc": "The subscription."}],
        "types": types,
    }
    out[spec_id] = write_yaml(SCHEMAS / f"{spec_id}.ksy", doc)
    catalog["consumer_protocol"] = {n: parse_versions(schemas[n]["validVersions"])[1] for n in CONSUMER_PROTOCOL}
    catalog["tagged"].update(w.tagged)
    catalog["names"].update(w.names)
    catalog["order"].update(w.order)
    catalog["tagged_structs"].update(w.tagged_structs)

    out[COMMON] = write_yaml(SCHEMAS / f"{COMMON}.ksy", common_spec())
    if older is not None:
        view = older_view(schemas, older)
        catalog["kafka_39_versions"] = view["max_versions"]
        catalog["kafka_39_unknown_tags"] = view["unknown_tags"]
    out["__fields__"] = field_lists(schemas, catalog)
    out["__catalog__"] = catalog_text(catalog)
    return out


def field_lists(schemas: dict[str, dict], catalog: dict) -> str:
    """Kafka's field lists of every message, common structs resolved, for the Java writer."""
    def resolve(fields, common):
        out = []
        for f in fields:
            g = {k: f[k] for k in ("name", "type", "versions", "nullableVersions", "tag", "taggedVersions", "default") if k in f}
            t = f["type"][2:] if f["type"].startswith("[]") else f["type"]
            sub = f.get("fields") or (common.get(t) or {}).get("fields")
            if sub is not None:
                g["fields"] = resolve(sub, common)
            out.append(g)
        return out

    def msg(name):
        s = schemas[name]
        common = {c["name"]: c for c in s.get("commonStructs", [])}
        return {"name": name, "validVersions": s["validVersions"], "flexibleVersions": s.get("flexibleVersions", "none"),
                "fields": resolve(s["fields"], common)}

    doc = {"_comment": "Generated by scripts/message_specs.py: field lists of Kafka's message schemas "
                       "(apache/kafka, Apache-2.0), for tests/kafka_writer/InternalTopics.java.",
           "coordinator": {spec: [{"recordType": r, "key": msg(k), "value": msg(v) if v else None}
                                  for r, (k, v, _) in sorted(types.items())]
                           for spec, types in catalog["coordinator"].items()},
           "framed": {spec: [{"apiKey": k, "message": msg(n)} for k, (n, _) in sorted(apis.items())]
                      for spec, apis in catalog["framed"].items()},
           "consumerProtocol": [msg(n) for n in CONSUMER_PROTOCOL]}
    return json.dumps(doc, indent=1) + "\n"


def catalog_text(catalog: dict) -> str:
    lines = ['"""Kafka\'s names for the internal-topic records the specs decode.',
             "",
             "Generated by scripts/message_specs.py from Kafka's message schemas, beside the specs it",
             "writes; regenerate rather than edit.",
             '"""', ""]
    for key in ("coordinator", "framed", "control", "consumer_protocol", "tagged", "names", "order", "tagged_structs",
                "kafka_39_versions", "kafka_39_unknown_tags"):
        if key not in catalog:
            continue
        lines.append(f"{key.upper()} = {{")
        by_name = key in ("tagged", "names", "order", "tagged_structs", "kafka_39_versions", "kafka_39_unknown_tags")
        for k, v in sorted(catalog[key].items(), key=lambda kv: str(kv[0]) if by_name else kv[0]):
            if isinstance(v, dict):
                lines.append(f"    {k!r}: {{")
                for k2, v2 in sorted(v.items()):
                    lines.append(f"        {k2!r}: {v2!r},")
                lines.append("    },")
            else:
                lines.append(f"    {k!r}: {v!r},")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kafka", type=Path, required=True, help="apache/kafka checkout")
    ap.add_argument("--extra", type=Path, help="folder of newer schema files (see EXTRA_COMMITS)")
    ap.add_argument("--kafka-39", type=Path,
                    help="folder of Kafka 3.9's schema files (its jars' common/message/*.json and common/metadata/*.json): "
                         "what `kafkalog dump --format kafka --kafka-version 3.9` leaves out")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    out = build(args.kafka, args.extra, args.kafka_39)
    special = {"__catalog__": CATALOG, "__fields__": FIELD_LISTS}
    targets = {name: special.get(name, SCHEMAS / f"{name}.ksy") for name in out}
    if args.check:
        stale = [str(p) for n, p in targets.items() if not p.exists() or p.read_text() != out[n]]
        if stale:
            print("out of date: " + ", ".join(stale), file=sys.stderr)
            return 1
        return 0
    for n, p in targets.items():
        p.write_text(out[n])
    print(f"wrote {len(out) - 2} specs, {CATALOG.relative_to(ROOT)} and {FIELD_LISTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
