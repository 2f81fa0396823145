"""`kafkalog dump --format kafka`: the lines of `kafka-dump-log.sh --deep-iteration --print-data-log`.

The format is that of Kafka 3.9's `kafka.tools.DumpLogSegments` (Scala; its
`printBatchLevel` is unchanged since 3.2, the record line since 3.1, and the
Java port in `org.apache.kafka.tools` keeps it):

    Dumping 00000000000000000000.log
    Log starting offset: 0
    baseOffset: 0 lastOffset: 2 count: 3 baseSequence: 0 lastSequence: 2 producerId: 4000 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000002 size: 207 magic: 2 compresscodec: none crc: 3252688611 isvalid: true
    | offset: 0 CreateTime: 1700000000000 keySize: 5 valueSize: 30 sequence: 0 headerKeys: [txn] key: key-0 payload: hello apple (in a transaction)

Magic 0 and 1 entries print `offset: <last offset>` in place of the v2 fields, and each
record ` isValid: <bool> crc: <crc>}` (with Kafka's stray brace). Keys and values are
decoded as UTF-8 (bad bytes as U+FFFD, as Java's `new String(bytes, UTF_8)`); unlike
Kafka, control characters in them are escaped (`\\n`, `\\x1b`), so every record stays
on one line and cannot drive the terminal.
"""
from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated.kafka_message_set import KafkaMessageSet
from kafkalog.dump.records import escape
from kafkalog.errors import DamagedDataError
from kafkalog.formats.parse_errors import PARSE_ERRORS
from kafkalog.formats.record_batch import coordinator_epoch
from kafkalog.log.file_kinds import BOOTSTRAP, KRAFT_SNAPSHOT, LOG, kraft_snapshot_id
from kafkalog.model import Batch, Record

RECORD_INDENT = "|"  # DumpLogSegments.RecordIndent
_CONTROL_TYPES = {0: "ABORT", 1: "COMMIT", 2: "LEADER_CHANGE", 3: "SNAPSHOT_HEADER", 4: "SNAPSHOT_FOOTER",
                  5: "KRAFT_VERSION", 6: "KRAFT_VOTERS"}  # ControlRecordType


def file_lines(path: Path, kind: str) -> list[str]:
    """What DumpLogSegments prints after `Dumping <file>` for a record-batch file."""
    if kind == LOG:
        stem = path.name.split(".")[0]
        return [f"Log starting offset: {int(stem)}"] if stem.isdigit() else []
    if kind == BOOTSTRAP:
        return ["KRaft bootstrap snapshot"]
    if kind == KRAFT_SNAPSHOT:
        offset, epoch = kraft_snapshot_id(path) or (0, 0)
        return [f"Snapshot end offset: {offset}, epoch: {epoch}"]
    return []


def _bool(value: bool) -> str:
    return "true" if value else "false"


def batch_line(batch: Batch) -> str:
    """`DumpLogSegments.printBatchLevel`."""
    if batch.magic >= 2:
        horizon = ("OptionalLong.empty" if batch.delete_horizon_ms is None
                   else f"OptionalLong[{batch.delete_horizon_ms}]")
        head = (f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} count: {batch.count} "
                f"baseSequence: {batch.base_sequence} lastSequence: {batch.last_sequence} "
                f"producerId: {batch.producer_id} producerEpoch: {batch.producer_epoch} "
                f"partitionLeaderEpoch: {batch.partition_leader_epoch} "
                f"isTransactional: {_bool(batch.is_transactional)} isControl: {_bool(batch.is_control)} "
                f"deleteHorizonMs: {horizon}")
    else:
        head = f"offset: {batch.last_offset}"
    return (f"{head} position: {batch.position} {batch.timestamp_type}: {batch.max_timestamp} "
            f"size: {batch.size} magic: {batch.magic} compresscodec: {batch.compression} "
            f"crc: {batch.crc} isvalid: {_bool(batch.crc_valid)}")


def _text(data: bytes) -> str:
    return escape(data.decode("utf-8", "replace"))


def record_line(batch: Batch, record: Record, legacy_check: tuple[int, bool] | None = None) -> str:
    """The record line of `DumpLogSegments.dumpLog` with deep iteration and --print-data-log.

    `legacy_check` is the (crc, isValid) of a magic 0/1 record (see `legacy_checksums`)."""
    key_size = -1 if record.key is None else len(record.key)
    value_size = -1 if record.value is None else len(record.value)
    line = (f"{RECORD_INDENT} offset: {record.offset} {batch.timestamp_type}: {record.timestamp} "
            f"keySize: {key_size} valueSize: {value_size}")
    if batch.magic >= 2:
        line += f" sequence: {record.sequence} headerKeys: [{','.join(escape(h.key) for h in record.headers)}]"
    elif legacy_check is not None:
        line += f" isValid: {_bool(legacy_check[1])} crc: {legacy_check[0]}}}"
    if batch.is_control:
        return line + _control(record)
    if record.key is not None:
        line += f" key: {_text(record.key)}"
    if record.value is not None:
        line += f" payload: {_text(record.value)}"
    return line


def _control(record: Record) -> str:
    key = record.key or b""
    type_id = struct.unpack_from(">h", key, 2)[0] if len(key) >= 4 else -1
    name = _CONTROL_TYPES.get(type_id, "UNKNOWN")
    value = record.value or b""
    if name in ("ABORT", "COMMIT"):
        return f" endTxnMarker: {name} coordinatorEpoch: {coordinator_epoch(record.value)}"
    # The KRaft control records Kafka prints with their JsonConverter (fields of common/message/*.json,
    # each a flexible version 0 message: int16 fields, then an empty tagged-field section).
    if name == "SNAPSHOT_HEADER" and len(value) >= 10:
        version, timestamp = struct.unpack_from(">hq", value)
        return " SnapshotHeader " + _json({"version": version, "lastContainedLogTimestamp": timestamp})
    if name == "SNAPSHOT_FOOTER" and len(value) >= 2:
        return " SnapshotFooter " + _json({"version": struct.unpack_from(">h", value)[0]})
    if name == "KRAFT_VERSION" and len(value) >= 4:
        version, kraft_version = struct.unpack_from(">hh", value)
        return " KRaftVersion " + _json({"version": version, "kRaftVersion": kraft_version})
    if name == "KRAFT_VOTERS":
        voters = _voters(value)
        if voters is not None:
            return " KRaftVoters " + _json(voters)
    return f" controlType: {name}({type_id})"


def _json(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class _Flexible:
    """Reads the fields of a flexible-version Kafka message (common/message/*.json): compact strings and
    arrays with unsigned-varint lengths + 1, and a tagged-field section after each struct, skipped by size."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("the record ends early")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def uvarint(self) -> int:
        n = shift = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7
            if shift > 28:
                raise ValueError("varint is too long")

    def int(self, fmt: str) -> int:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        return self.take(self.uvarint() - 1).decode("utf-8", "replace")

    def array_length(self) -> int:
        return self.uvarint() - 1

    def tagged_fields(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def _voters(value: bytes) -> dict | None:
    """`VotersRecordJsonConverter.write` of a KRaft voters control record (VotersRecord.json, version 0)."""
    r = _Flexible(value)
    try:
        out = {"version": r.int(">h"), "voters": []}
        for _ in range(r.array_length()):
            voter = {"voterId": r.int(">i"),
                     # Uuid.toString: URL-safe base64 without padding
                     "voterDirectoryId": base64.urlsafe_b64encode(r.take(16)).decode().rstrip("="),
                     "endpoints": []}
            for _ in range(r.array_length()):
                voter["endpoints"].append({"name": r.string(), "host": r.string(), "port": r.int(">H")})
                r.tagged_fields()
            voter["kRaftVersionFeature"] = {"minSupportedVersion": r.int(">h"), "maxSupportedVersion": r.int(">h")}
            r.tagged_fields()
            r.tagged_fields()
            out["voters"].append(voter)
        r.tagged_fields()
        return out
    except ValueError:
        return None


def legacy_checksums(entry: bytes, batch: Batch) -> list[tuple[int, bool]]:
    """(crc, isValid) of each record of a magic 0/1 entry, as Kafka's deep iteration reports them:
    the message's own for an uncompressed one, each inner message's for a compressed wrapper."""
    if batch.compression == "none":
        return [(batch.crc, batch.crc_valid)]
    try:
        wrapper = KafkaMessageSet.Entry(KaitaiStream(BytesIO(entry)))
        inner = wrapper.message.compressed_value.messages.entries
    except (DamagedDataError, *PARSE_ERRORS):  # damaged: the records were reported with their damage
        return []
    return [(e.message.crc, e.message.crc == zlib.crc32(e._raw_message[4:]) & 0xFFFFFFFF) for e in inner]
