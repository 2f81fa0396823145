"""`kafkalog dump --format kafka`: the lines of `kafka-dump-log.sh --deep-iteration --print-data-log`.

The lines are those of Kafka 4's `org.apache.kafka.tools.DumpLogSegments` (the Java port, in
kafka-tools), or with `--kafka-version 3.9` those of Kafka 3.9's `kafka.tools.DumpLogSegments`
(Scala; its `printBatchLevel` is unchanged since 3.2, the record line since 3.1). The two differ
where Kafka 4 prints a leader-change control record as JSON, and ends a legacy record's
`crc:` without Kafka 3's stray brace; `tests/dump/test_dump_log_segments.py` holds kafkalog to
both tools, run from Maven Central's jars:

    Dumping 00000000000000000000.log
    Log starting offset: 0
    baseOffset: 0 lastOffset: 2 count: 3 baseSequence: 0 lastSequence: 2 producerId: 4000 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000002 size: 207 magic: 2 compresscodec: none crc: 3252688611 isvalid: true
    | offset: 0 CreateTime: 1700000000000 keySize: 5 valueSize: 30 sequence: 0 headerKeys: [txn] key: key-0 payload: hello apple (in a transaction)

Magic 0 and 1 entries print `offset: <last offset>` in place of the v2 fields, and each
record ` isValid: <bool> crc: <crc>` (`crc: <crc>}` in Kafka 3). Keys and values are
decoded as UTF-8 (bad bytes as U+FFFD, as Java's `new String(bytes, UTF_8)`); unlike
Kafka, control characters in them are escaped (`\\n`, `\\x1b`), so every record stays
on one line and cannot drive the terminal.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from kafkalog.dump.records import escape
from kafkalog.dump.run_lines import RunLines
from kafkalog.fast import kafka_lines
from kafkalog.formats.internal_topics import (
    CONTROL_ONLY,
    METADATA,
    OFFSETS,
    SHARE,
    TRANSACTIONS,
    decode_record,
    framed_record_type,
    record_type as coordinator_record_type,
    snake_case,
)
from kafkalog.formats.message_set import inner_checksums
from kafkalog.formats.record_batch import control_type_code, coordinator_epoch
from kafkalog.log.file_kinds import BOOTSTRAP, KRAFT_SNAPSHOT, LOG, RSM_MANIFEST, kraft_snapshot_id
from kafkalog.model import Batch, Record

RECORD_INDENT = "|"  # DumpLogSegments.RecordIndent
#: The KRaft control records DumpLogSegments prints as JSON, by the name it prints before them.
_RAFT_JSON_LABELS = {"SNAPSHOT_HEADER": "SnapshotHeader", "SNAPSHOT_FOOTER": "SnapshotFooter",
                     "KRAFT_VERSION": "KRaftVersion", "KRAFT_VOTERS": "KRaftVoters"}
#: ... and from Kafka 4 on, a leader change too.
_LEADER_CHANGE_LABEL = {"LEADER_CHANGE": "LeaderChange:"}


def file_lines(path: Path, kind: str) -> list[str]:
    """What DumpLogSegments prints after `Dumping <file>` for a record-batch file."""
    if kind == LOG:
        stem = path.name.split(".")[0]
        return [f"Log starting offset: {int(stem)}"] if stem.isdigit() else []
    if kind == RSM_MANIFEST:  # the lines of the segment it stands for: `<base offset>-<segment id>.rsm-manifest`
        stem = path.name.split("-")[0]
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


#: The Kafka versions whose kafka-dump-log.sh lines kafkalog prints: "4" (the default) and "3.9".
KAFKA_VERSIONS = ("4", "3.9")
DEFAULT_KAFKA_VERSION = "4"


def record_line(batch: Batch, record: Record, legacy_check: tuple[int, bool] | None = None,
                kafka_version: str = DEFAULT_KAFKA_VERSION, decoder: str | None = None) -> str:
    """The record line of `DumpLogSegments.dumpLog` with deep iteration and --print-data-log.

    `legacy_check` is the (crc, isValid) of a magic 0/1 record (see `legacy_checksums`); `decoder`
    the internal topic's (`kafkalog.formats.internal_topics`), whose records print as the matching
    `--offsets-decoder`, `--transaction-log-decoder`, `--share-group-state-decoder` or
    `--cluster-metadata-decoder` prints them."""
    key_size = -1 if record.key is None else len(record.key)
    value_size = -1 if record.value is None else len(record.value)
    line = (f"{RECORD_INDENT} offset: {record.offset} {batch.timestamp_type}: {record.timestamp} "
            f"keySize: {key_size} valueSize: {value_size}")
    if batch.magic >= 2:
        line += f" sequence: {record.sequence} headerKeys: [{','.join(escape(h.key) for h in record.headers)}]"
    elif legacy_check is not None:
        brace = "}" if kafka_version == "3.9" else ""  # Kafka 3's Scala tool printed a stray brace here
        line += f" isValid: {_bool(legacy_check[1])} crc: {legacy_check[0]}{brace}"
    if batch.is_control:
        return line + _control(record, kafka_version)
    decoded = _decoded_contents(record, decoder, kafka_version)
    if decoded is not None:
        return line + decoded
    if record.key is not None:
        line += f" key: {_text(record.key)}"
    if record.value is not None:
        line += f" payload: {_text(record.value)}"
    return line


def run_lines() -> RunLines:
    """`record_line`'s lines of v2 data batches, written a run at a time by `kafkalog.fast.kafka_lines`."""
    return RunLines(kafka_lines.record_lines)


def raw_data_records(batch: Batch, decoder: str | None) -> bool:
    """Whether `record_line` prints a batch's records with their raw keys and values (v2 data, no decoder)."""
    return batch.magic >= 2 and not batch.is_control and decoder not in (*_COORDINATOR_DECODERS, METADATA)


def _control(record: Record, kafka_version: str) -> str:
    name = record.control_type or "UNKNOWN"
    if name in ("ABORT", "COMMIT"):
        return f" endTxnMarker: {name} coordinatorEpoch: {coordinator_epoch(record.value)}"
    # The KRaft control records Kafka prints with their JsonConverter; decoded by their spec
    # (kafka_raft_control_record.ksy), as `kafkalog dump --format json` decodes them.
    label = _RAFT_JSON_LABELS.get(name) or (_LEADER_CHANGE_LABEL.get(name) if kafka_version != "3.9" else None)
    if label is not None and record.value is not None:
        decoded = decode_record(CONTROL_ONLY, record.key, record.value, name, as_kafka_prints=True)
        if decoded.error is None and decoded.value is not None:
            return f" {label} " + _json(decoded.value["data"])
    return f" controlType: {name}({control_type_code(record.key)})"


_COORDINATOR_DECODERS = (OFFSETS, TRANSACTIONS, SHARE)
_UNKNOWN_RECORD_TYPE = re.compile(r"^unknown record type (-?\d+) ")
#: The __consumer_offsets record types each version's decoder knows: Kafka 3.9's `GroupCoordinatorRecordSerde`
#: reads the classic and consumer-group ones (0-8); Kafka 4's `CoordinatorRecordType` has all but 9 (the share
#: group preview's ShareGroupPartitionMetadata, dropped) and 18 (never released).
_GROUP_RECORD_TYPES = {"3.9": frozenset(range(9)), "4": frozenset(range(24)) - {9, 18}}
#: Kafka 4's record type 0 is LegacyOffsetCommitKey, whose value it reads at version 0 only.
_LEGACY_OFFSET_COMMIT = 0
#: A value whose bytes end too soon, as Kafka's `CoordinatorRecordSerde.readMessage` words the
#: BufferUnderflowException (which has no message).
_TRUNCATED_VALUE = re.compile(r"^\w+Value version (\d+): the bytes end before the message does")
#: MetadataRecordType's constants where Kafka's name (the schema's `name`) is not the schema file's.
_METADATA_TYPE_NAMES = {"ZkMigrationRecord": "ZK_MIGRATION_STATE_RECORD"}
#: The metadata record types Kafka 3.9's `MetadataRecordSerde` knows (ClearElrRecord, 28, came in 4.0).
_METADATA_TYPES_39 = frozenset(range(28))


def _decoded_contents(record: Record, decoder: str | None, kafka_version: str) -> str | None:
    """` key: ... payload: ...` of an internal topic's record as DumpLogSegments' decoders print them
    (`CoordinatorRecordMessageParser`, `ClusterMetadataLogMessageParser`) in `kafka_version`; None where
    the raw bytes are printed. Where Kafka's decoder says an exception's message, kafkalog says Kafka's
    words for a value cut short, and its own reason otherwise."""
    if decoder in _COORDINATOR_DECODERS and record.key is not None:
        record_type = coordinator_record_type(record.key)
        if decoder == OFFSETS and record_type is not None and record_type not in _GROUP_RECORD_TYPES[kafka_version]:
            return f" key: Unknown record type {record_type} at offset {record.offset}, skipping."
        decoded = decode_record(decoder, record.key, record.value, as_kafka_prints=kafka_version)
        if decoded.error is not None:
            unknown = _UNKNOWN_RECORD_TYPE.match(decoded.error)
            if unknown:
                return f" key: Unknown record type {unknown.group(1)} at offset {record.offset}, skipping."
            cut = _TRUNCATED_VALUE.match(decoded.error)
            if cut:
                return (f" key: Error at offset {record.offset}, skipping. Could not read record with version "
                        f"{cut.group(1)} from value's buffer due to: null.")
            return f" key: Error at offset {record.offset}, skipping. {escape(decoded.error)}"
        if (decoder == OFFSETS and kafka_version == "4" and record_type == _LEGACY_OFFSET_COMMIT
                and decoded.value is not None and decoded.value["version"] != 0):
            return (f" key: Error at offset {record.offset}, skipping. Found an unknown record version "
                    f"{decoded.value['version']} for {record_type} type")
        # The key's envelope carries the record type where a value's carries its version.
        key = _json({"type": str(decoded.key["version"]), "data": decoded.key["data"]})
        payload = "<DELETE>" if decoded.value is None else _json(
            {"version": str(decoded.value["version"]), "data": decoded.value["data"]})
        return f" key: {key} payload: {payload}"
    if decoder == METADATA and record.value is not None:
        api_key = framed_record_type(record.value)
        if kafka_version == "3.9" and api_key is not None and api_key not in _METADATA_TYPES_39:
            return (f" payload: Error at {record.offset}, skipping. org.apache.kafka.common.errors."
                    f"UnsupportedVersionException: Unknown metadata id {api_key}")
        decoded = decode_record(decoder, record.key, record.value, as_kafka_prints=kafka_version)
        if decoded.error is not None or decoded.value is None:
            return f" payload: Error at {record.offset}, skipping. {escape(decoded.error or 'no value')}"
        # MetadataRecordType's constant: RegisterBrokerRecord -> REGISTER_BROKER_RECORD
        name = decoded.value["type"]
        return " payload: " + _json({"type": _METADATA_TYPE_NAMES.get(name) or snake_case(name).upper(),
                                     "version": decoded.value["version"], "data": decoded.value["data"]})
    return None


def _json(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def legacy_checksums(entry: bytes, batch: Batch) -> list[tuple[int, bool]]:
    """(crc, isValid) of each record of a magic 0/1 entry, as Kafka's deep iteration reports them:
    the message's own for an uncompressed one, each inner message's for a compressed wrapper."""
    if batch.compression == "none":
        return [(batch.crc, batch.crc_valid)]
    return inner_checksums(entry)
