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
decoded as Java's `new String(bytes, UTF_8)` decodes them (`kafkalog.javatext`: one U+FFFD for
each malformed sequence as Java cuts them, not as Python's "replace" does); unlike
Kafka, control characters in them are escaped (`\\n`, `\\x1b`), so every record stays
on one line and cannot drive the terminal.
"""  # noqa: E501  (the tool's lines, verbatim)
from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kafkalog.dump.kafka_versions import DEFAULT_KAFKA_VERSION
from kafkalog.dump.records import escape
from kafkalog.dump.run_lines import BLOCK_ROWS, RunLines
from kafkalog.formats.internal_topics import (
    CONTROL_ONLY,
    METADATA,
    OFFSETS,
    REMOTE_LOG_METADATA,
    SHARE,
    TRANSACTIONS,
    decode_record,
    framed_record_type,
    record_type as coordinator_record_type,
    snake_case,
)
from kafkalog.formats.message_set import inner_checksums
from kafkalog.formats.record_batch import control_type_code, coordinator_epoch
from kafkalog.javatext import java_utf8
from kafkalog.log.file_kinds import BOOTSTRAP, KRAFT_SNAPSHOT, LOG, RSM_MANIFEST, kraft_snapshot_id
from kafkalog.log.record_list import TableRecords
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
    return escape(java_utf8(data))


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


def run_lines() -> RunLines | None:
    """`record_line`'s lines of v2 data batches, written a run at a time by `kafkalog.fast.kafka_lines`; None
    where the compiled writers were not built (each record is printed by `record_line`)."""
    # (start-up: loaded only when the fast path runs)
    from kafkalog.fast import batch_lines, kafka_lines, line_parts  # noqa: PLC0415

    if not line_parts.AVAILABLE:
        return None
    batch_text = functools.partial(batch_lines.run_text, batch_lines.KAFKA_TEMPLATE, kafka_lines.record_blocks,
                                   by_timestamp_type=True)
    return RunLines(kafka_lines.record_blocks, batch_text)


def raw_data_records(batch: Batch, decoder: str | None) -> bool:
    """Whether `record_line` prints a batch's records with their raw keys and values (v2 data, no decoder)."""
    return batch.magic >= 2 and not batch.is_control and raw_data(decoder)


def raw_data(decoder: str | None) -> bool:
    """Whether `record_line` prints the raw keys and values of v2 data batches read with `decoder`."""
    return decoder not in _RECORD_DECODERS


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
#: The decoders whose topics' records are printed decoded, not as raw keys and values.
_RECORD_DECODERS = (*_COORDINATOR_DECODERS, METADATA, REMOTE_LOG_METADATA)
_UNKNOWN_RECORD_TYPE = re.compile(r"^unknown record type (-?\d+) ")
#: The __consumer_offsets record types each version's decoder knows: Kafka 3.9's `GroupCoordinatorRecordSerde`
#: reads the classic and consumer-group ones (0-8); Kafka 4's `CoordinatorRecordType` has all but 9 (the share
#: group preview's ShareGroupPartitionMetadata, dropped) and 18 (never released).
_GROUP_RECORD_TYPES = {"3.9": frozenset(range(9)), "4": frozenset(range(24)) - {9, 18},
                       "4.4": frozenset(range(24)) - {9, 18}}
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
    if decoder == TRANSACTIONS and kafka_version == "3.9" and record.key is not None:
        return _transaction_log_39(record)
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
        if (decoder == OFFSETS and kafka_version != "3.9" and record_type == _LEGACY_OFFSET_COMMIT
                and decoded.value is not None and decoded.value["version"] != 0):
            return (f" key: Error at offset {record.offset}, skipping. Found an unknown record version "
                    f"{decoded.value['version']} for {record_type} type")
        # The key's envelope carries the record type where a value's carries its version.
        assert decoded.key is not None  # (a key decoded without error)
        key = _json({"type": str(decoded.key["version"]), "data": decoded.key["data"]})
        data = decoded.value and decoded.value["data"]
        if decoder == TRANSACTIONS and kafka_version == "4.4" and data is not None:
            data = {**data, "transactionStatus": _transaction_state_name(data["transactionStatus"])}
        payload = "<DELETE>" if decoded.value is None else _json(
            {"version": str(decoded.value["version"]), "data": data})
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
    if decoder == REMOTE_LOG_METADATA and record.value is not None:
        return " payload: " + _remote_log_metadata(record, kafka_version)
    return None


#: Kafka's TransactionState names by id (`TransactionState.fromId`, Scala case objects in 3.9, a Java enum's
#: `stateName()` in 4.4: the same names).
_TRANSACTION_STATES = ("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort",
                          "Dead", "PrepareEpochFence")


def _transaction_state_name(status: int) -> str:
    """Kafka 4.4's `TransactionLogMessageParser.valueAsJson`: `TransactionState.fromId(status).stateName()`,
    or the id as a string where it is no state."""
    return _TRANSACTION_STATES[status] if 0 <= status < len(_TRANSACTION_STATES) else str(status)


def _transaction_log_39(record: Record) -> str:
    """Kafka 3.9's `--transaction-log-decoder` (core's `TransactionLog.formatRecordKeyAndValue`, Scala)."""
    decoded = decode_record(TRANSACTIONS, record.key, record.value, as_kafka_prints="3.9")
    if decoded.key is None:
        version = coordinator_record_type(record.key)
        return f" key: unknown::version={version}" if version is not None else ""
    key = f" key: transaction_metadata::transactionalId={escape(decoded.key['data']['transactionalId'])}"
    if decoded.error is not None:
        return f"{key} payload: Error: {escape(decoded.error)}"
    if decoded.value is None:
        return f"{key} payload: <DELETE>"
    d = decoded.value["data"]
    status = d["transactionStatus"]
    if not 0 <= status < len(_TRANSACTION_STATES):
        # Kafka 3.9's tool dies here (IllegalStateException); kafkalog says so and goes on.
        return f"{key} payload: Error: Unknown transaction state id {status} from the transaction status message"
    state = _TRANSACTION_STATES[status]
    partitions = [] if state == "Empty" else _scala_hash_set_order(d["transactionPartitions"] or [])
    return (f"{key} payload: producerId:{d['producerId']},producerEpoch:{d['producerEpoch']},state={state},"
            f"partitions=[{','.join(escape(f'{t}-{p}') for t, p in partitions)}],"
            f"txnLastUpdateTimestamp={d['transactionLastUpdateTimestampMs']},txnTimeoutMs={d['transactionTimeoutMs']}")


def _scala_hash_set_order(topics: list[dict]) -> list[tuple[str, int]]:
    """The order a Scala 2.13 `mutable.HashSet[TopicPartition]` iterates the partitions in, as
    `TransactionMetadata.addPartitions` fills it topic by topic (`++=` of an immutable set): buckets by
    improved hash, each bucket's nodes by hash. `addAll` first takes the topic's size as a hint; a set of
    up to 4 (Set1..Set4) is added one `add` at a time, which grows the table at 3/4 full, a larger one
    (an immutable HashSet) node by node without growing it."""
    table_size, size = 16, 0
    nodes: list[tuple[int, int, tuple[str, int]]] = []  # (improved hash, insertion order, partition)
    for entry in topics:
        group = [(entry["topic"], p) for p in dict.fromkeys(entry["partitionIds"])]
        table_size = max(table_size, _table_size_for(int((len(group) + 1) / 0.75)))  # sizeHint
        for tp in group:
            h = _java_int(31 * _java_int(31 + tp[1]) + _java_string_hash(tp[0]))
            h = _java_int(h ^ ((h & 0xFFFFFFFF) >> 16))
            if any(n[0] == h and n[2] == tp for n in nodes):
                continue
            if len(group) <= 4 and size + 1 >= int(table_size * 0.75):
                table_size *= 2
            nodes.append((h, len(nodes), tp))
            size += 1
    return [tp for _, _, tp in sorted(nodes, key=lambda n: (n[0] & (table_size - 1), n[0], n[1]))]


def _table_size_for(capacity: int) -> int:
    n = max(capacity - 1, 4)
    return min(1 << n.bit_length(), 1 << 30)  # Integer.highestOneBit(n) * 2


def _java_int(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _java_string_hash(s: str) -> int:
    """Java's String.hashCode: over UTF-16 code units."""
    units = s.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return _java_int(h)


#: RemoteLogSegmentState and RemotePartitionDeleteState by id (`forId`; an unknown id is null).
_SEGMENT_STATES = {0: "COPY_SEGMENT_STARTED", 1: "COPY_SEGMENT_FINISHED", 2: "DELETE_SEGMENT_STARTED",
                   3: "DELETE_SEGMENT_FINISHED"}
_PARTITION_DELETE_STATES = {0: "DELETE_PARTITION_MARKED", 1: "DELETE_PARTITION_STARTED", 2: "DELETE_PARTITION_FINISHED"}


class _JavaError(Exception):
    """What a Java constructor of the remote-log metadata classes throws, with its message."""


def _remote_log_metadata(record: Record, kafka_version: str) -> str:
    """`--remote-log-metadata-decoder`: the toString() of what `RemoteLogMetadataSerde.deserialize` makes of the
    record (kafka-storage-api's RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
    RemotePartitionDeleteMetadata, RemoteLogSegmentMetadataSnapshot), or the message of what it throws."""
    decoded = decode_record(REMOTE_LOG_METADATA, record.key, record.value, as_kafka_prints=kafka_version)
    if decoded.error is not None or decoded.value is None:
        return f"Error at offset {record.offset}, skipping. {escape(decoded.error or 'no value')}"
    kind, d = decoded.value["type"], decoded.value["data"]
    try:
        if kind == "RemoteLogSegmentMetadataRecord":
            text = _segment_metadata(d, kafka_version)
        elif kind == "RemoteLogSegmentMetadataUpdateRecord":
            state = _state(d["remoteLogSegmentState"], "state can not be null")
            text = (f"RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={_segment_id(d['remoteLogSegmentId'])}, "
                    f"customMetadata={_custom(d.get('customMetadata'))}, state={state}, "
                    f"eventTimestampMs={d['eventTimestampMs']}, brokerId={d['brokerId']}}}")
        elif kind == "RemotePartitionDeleteMetadataRecord":
            delete_state = _PARTITION_DELETE_STATES.get(d["remotePartitionDeleteState"])
            if delete_state is None:
                raise _JavaError("null")  # Objects.requireNonNull(state): no message
            text = (f"RemotePartitionDeleteMetadata{{topicPartition={_topic_id_partition(d['topicIdPartition'])}, "
                    f"state={delete_state}, eventTimestampMs={d['eventTimestampMs']}, brokerId={d['brokerId']}}}")
        else:  # RemoteLogSegmentMetadataSnapshotRecord
            state = _state(d["remoteLogSegmentState"], "state can not be null")
            epochs = _epochs(d["segmentLeaderEpochs"])
            text = (f"RemoteLogSegmentMetadataSnapshot{{segmentId={d['segmentId']}, startOffset={d['startOffset']}, "
                    f"endOffset={d['endOffset']}, maxTimestampMs={d['maxTimestampMs']}, segmentLeaderEpochs={epochs}, "
                    f"segmentSizeInBytes={d['segmentSizeInBytes']}, customMetadata={_custom(d.get('customMetadata'))}, "
                    f"state={state}{_txn_idx_empty(d, kafka_version)}}}")
    except _JavaError as e:
        return f"Error at offset {record.offset}, skipping. {e}"
    return escape(text)


def _segment_metadata(d: dict, kafka_version: str) -> str:
    # RemoteLogSegmentMetadataTransform: the metadata first (its checks), then the update's state.
    start, end = d["startOffset"], d["endOffset"]
    if start < 0:
        raise _JavaError(f"Unexpected start offset = {start}. StartOffset for a remote segment cannot be negative")
    if end < start:
        raise _JavaError(f"Unexpected end offset = {end}. EndOffset for a remote segment cannot be less than "
                         f"startOffset = {start}")
    epochs = _epochs(d["segmentLeaderEpochs"])
    state = _state(d["remoteLogSegmentState"], "state can not be null")
    return (f"RemoteLogSegmentMetadata{{remoteLogSegmentId={_segment_id(d['remoteLogSegmentId'])}, "
            f"startOffset={start}, "
            f"endOffset={end}, brokerId={d['brokerId']}, maxTimestampMs={d['maxTimestampMs']}, "
            f"eventTimestampMs={d['eventTimestampMs']}, segmentLeaderEpochs={epochs}, "
            f"segmentSizeInBytes={d['segmentSizeInBytes']}, customMetadata={_custom(d.get('customMetadata'))}, "
            f"state={state}{_txn_idx_empty(d, kafka_version)}}}")


def _state(state_id: int, message: str) -> str:
    state = _SEGMENT_STATES.get(state_id)
    if state is None:
        raise _JavaError(message)
    return state


def _epochs(entries: list[dict]) -> str:
    """A HashMap of leader epoch -> start offset, shown as the TreeMap the metadata keeps: {0=0, 3=150}."""
    by_epoch = {e["leaderEpoch"]: e["offset"] for e in entries}
    if not by_epoch:
        raise _JavaError("segmentLeaderEpochs can not be null or empty")
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(by_epoch.items())) + "}"


def _segment_id(d: dict) -> str:
    return f"RemoteLogSegmentId{{topicIdPartition={_topic_id_partition(d['topicIdPartition'])}, id={d['id']}}}"


def _topic_id_partition(d: dict) -> str:
    return f"{d['id']}:{d['name']}-{d['partition']}"


def _custom(data: str | None) -> str:
    return "Optional.empty" if data is None else f"Optional[CustomMetadata{{{len(base64.b64decode(data))} bytes}}]"


def _txn_idx_empty(d: dict, kafka_version: str) -> str:
    """Kafka 4's toString() ends in txnIdxEmpty (the tagged TxnIndexEmpty, false when absent); 3.9's has none."""
    return "" if kafka_version == "3.9" else f", txnIdxEmpty={_bool(bool(d.get('txnIndexEmpty', False)))}"


def _json(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def legacy_lines(batch: Batch, entry: bytes, kafka_version: str = DEFAULT_KAFKA_VERSION,
                 decoder: str | None = None) -> Iterator[memoryview] | None:
    """`record_line`'s lines of a magic 0/1 entry the fast path read, each with its message's checksum, written
    by `kafkalog.fast.kafka_lines` a block of rows at a time; None for one the object path read, whose
    records an internal topic's decoder prints, or where the compiled writers were not built."""
    records = batch.records
    if not isinstance(records, TableRecords) or not len(records) or decoder in _RECORD_DECODERS:
        return None
    # (start-up: loaded only when the fast path runs)
    from kafkalog.fast import (
        kafka_lines,  # noqa: PLC0415
        line_parts,  # noqa: PLC0415
        message_set as fast_legacy,  # noqa: PLC0415
    )

    if not line_parts.AVAILABLE:
        return None

    n = len(records)
    found = fast_legacy.inner_checksums(entry) if batch.compression != "none" else None
    if found is not None and len(found[0]) == n:
        crc, valid = found
    else:  # an uncompressed message, or inner messages that do not read whole: the entry's own, as Kafka prints
        crc, valid = np.full(n, batch.crc, dtype=np.int64), np.full(n, batch.crc_valid, dtype=np.bool_)

    def blocks() -> Iterator[memoryview]:
        for a in range(0, n, BLOCK_ROWS):
            b = min(n, a + BLOCK_ROWS)
            yield kafka_lines.legacy_record_lines(records.source_table.slice(records.start + a, b - a),
                                                  batch.timestamp_type, crc[a:b], valid[a:b],
                                                  kafka_version == "3.9").data
    return blocks()


def legacy_checksums(entry: bytes, batch: Batch) -> list[tuple[int, bool]]:
    """(crc, isValid) of each record of a magic 0/1 entry, as Kafka's deep iteration reports them:
    the message's own for an uncompressed one, each inner message's for a compressed wrapper."""
    if batch.compression == "none":
        return [(batch.crc, batch.crc_valid)]
    return inner_checksums(entry)
