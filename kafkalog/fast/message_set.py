"""The fast path for message format v0 and v1 (magic 0 and 1): entries and wrappers into Arrow columns.

Spec: `kafka_message_set.ksy`. Twin: `kafkalog.formats.message_set`.

Each entry is read by the generated `parse_kafka_message_set__entry`, compiled in the engine
(`kafkalog.fast.compiled`); a compressed wrapper's inner message set is decompressed and walked by
the same parser (`compiled.walk_messages`). Kafka's rules, as `AbstractLegacyRecordBatch`
and its `DeepRecordsIterator` apply them (and `kafkalog.formats.message_set` for the
object path):

* an uncompressed message is a batch of one record at the entry's offset;
* inside a magic 1 wrapper offsets are relative: absolute = wrapper offset -
  last inner offset + inner offset (gaps after compaction are kept);
* a magic 0 message has no timestamp (-1); a magic 1 wrapper with
  LogAppendTime gives every inner message its own timestamp.

An entry whose CRC does not match, that does not decompress or parse whole, or
that nests compression, is left to the object path (returned as None), so
every damage report comes from there.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.checksums import LEGACY_CRC_START
from kafkalog.compression import CODEC_NAMES, NONE, decompress
from kafkalog.errors import DamagedDataError
from kafkalog.fast import arrays, compiled
from kafkalog.fast.columns import HEADERS_TYPE, SCHEMA, binary_arrays
from kafkalog.fast.options import WalkOptions
from kafkalog.formats.framing import LOG_OVERHEAD
from kafkalog.model import (
    CREATE_TIME,
    LOG_APPEND_TIME,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    NO_TIMESTAMP_TYPE,
    Batch,
)

OFFSET = k.KAFKA_MESSAGE_SET__ENTRY__OFFSET
CRC = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__CRC
MAGIC = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__MAGIC
TIMESTAMP_TYPE = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__ATTRIBUTES__TIMESTAMP_TYPE
CODEC = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__ATTRIBUTES__COMPRESSION
TIMESTAMP = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__TIMESTAMP
KEY_POS, KEY_SIZE = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__KEY__POS, k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__KEY__SIZE
VALUE_POS = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__VALUE__POS
VALUE_SIZE = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__VALUE__SIZE
VALUE_LENGTH = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__LEN_VALUE
WRAPPED_POS = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__COMPRESSED_VALUE__POS
WRAPPED_SIZE = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__COMPRESSED_VALUE__SIZE
MESSAGE_POS = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__POS
MESSAGE_SIZE = k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__SIZE
WIDTH = k.KAFKA_MESSAGE_SET__ENTRY__WIDTH
#: Inner messages parsed per engine call (not a power of two: the table is column-major).
WALK_ROWS = (1 << 15) + 61

#: timestamp_type column values, by index: magic 1 CreateTime, LogAppendTime; magic 0 none.
TIMESTAMP_TYPES = arrays.strings([CREATE_TIME, LOG_APPEND_TIME, NO_TIMESTAMP_TYPE])
CODECS = arrays.strings([CODEC_NAMES[c] for c in sorted(CODEC_NAMES)])
_EMPTY_HEADERS = pa.StructArray.from_arrays([arrays.strings([]), arrays.strings([], pa.binary())],
                                            fields=list(HEADERS_TYPE.value_type))


def crc_matches(view: memoryview, pos: int, end: int, entry: np.ndarray) -> bool:
    return zlib.crc32(view[pos + LEGACY_CRC_START:end]) & 0xFFFFFFFF == int(entry[CRC])


def timestamp_type_index(entry: np.ndarray) -> int:
    if entry[MAGIC] == 0:
        return 2
    return 1 if entry[TIMESTAMP_TYPE] else 0


@dataclass(slots=True)
class _Messages:
    """Legacy messages to become rows: per message, its offset, timestamp and where its key and value are;
    per entry, how many of the messages are its records, and its position, magic, timestamp type and codec."""

    offset: np.ndarray
    timestamp: np.ndarray
    key_pos: np.ndarray
    key_size: np.ndarray
    value_pos: np.ndarray
    value_size: np.ndarray
    counts: np.ndarray
    positions: list[int]
    magics: np.ndarray
    timestamp_types: np.ndarray  # index into TIMESTAMP_TYPES
    codecs: np.ndarray


def plain_rows(buf: np.ndarray, table: np.ndarray, positions: list[int], options: WalkOptions) -> pa.Table:
    """Uncompressed messages (columns of `table`), one record each."""
    magic = table[MAGIC]
    timestamp = np.where(magic > 0, table[TIMESTAMP], NO_TIMESTAMP)
    ts_type = np.where(magic == 0, 2, table[TIMESTAMP_TYPE])
    counts = np.ones(table.shape[1], dtype=np.int64)
    return _rows(buf, _Messages(table[OFFSET], timestamp, table[KEY_POS], table[KEY_SIZE], table[VALUE_POS],
                                table[VALUE_SIZE], counts, positions, magic, ts_type, table[CODEC]), options)


def wrapper_rows(view: memoryview, entry: np.ndarray, position: int, options: WalkOptions
                 ) -> tuple[pa.Table, int] | None:
    """The inner messages of a compressed wrapper and the batch's base offset; None where the reference must look."""
    codec = int(entry[CODEC])
    magic = int(entry[MAGIC])
    if entry[VALUE_LENGTH] < 0:
        return None
    start = int(entry[WRAPPED_POS])
    try:
        data = decompress(codec, view[start:start + int(entry[WRAPPED_SIZE])], magic, options.limit)
    except DamagedDataError:
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    inner = np.empty((WIDTH, WALK_ROWS), dtype=np.int64)
    # First pass: every inner message parses, none is compressed, and (for magic 1) the last one's offset.
    count, last_offset, pos = 0, 0, 0
    while True:
        n, err, pos = compiled.walk_messages(buf, pos, len(data), inner)
        if n:
            if (inner[CODEC, :n] != NONE).any():
                return None
            count += n
            last_offset = int(inner[OFFSET, n - 1])
        if err != 1:
            break
    if err != 0 or (magic > 0 and count == 0):
        return None
    with np.errstate(over="ignore"):
        absolute_base = np.int64(entry[OFFSET]) - np.int64(last_offset) if magic > 0 else np.int64(-1)
    # Second pass: the rows, a table of inner messages at a time.
    pieces, first, pos = [], None, 0
    while True:
        n, err, pos = compiled.walk_messages(buf, pos, len(data), inner)
        if n:
            cols = inner[:, :n]
            offsets = cols[OFFSET]
            if absolute_base >= 0:
                with np.errstate(over="ignore"):
                    offsets = absolute_base + offsets
            source = entry[TIMESTAMP] if magic > 0 and entry[TIMESTAMP_TYPE] else cols[TIMESTAMP]
            timestamp = np.where(cols[MAGIC] == 0, NO_TIMESTAMP, source)
            first = int(offsets[0]) if first is None else first
            pieces.append(_rows(buf, _Messages(offsets, timestamp, cols[KEY_POS], cols[KEY_SIZE], cols[VALUE_POS],
                                               cols[VALUE_SIZE], np.array([n]), [position], np.array([magic]),
                                               np.array([timestamp_type_index(entry)]), np.array([codec])), options))
        if err != 1:
            break
    table = pa.concat_tables(pieces) if pieces else SCHEMA.empty_table()
    return table, first if first is not None else int(entry[OFFSET])


def inner_checksums(entry: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """(stored CRC, whether it matches) of each inner message of a compressed wrapper entry, as Kafka's deep
    iteration reports them: the twin of `kafkalog.formats.message_set.inner_checksums`, which says [] where
    this says None (the wrapper or its inner messages do not read whole)."""
    buf = np.frombuffer(entry, dtype=np.uint8)
    wrapper, errors = compiled.parse_legacy_entries(buf, np.array([[0, len(entry) - LOG_OVERHEAD, 0]], dtype=np.int64),
                                                    np.zeros(1, dtype=np.int64))
    if errors[0] != 0 or wrapper[VALUE_LENGTH, 0] < 0:
        return None
    start = int(wrapper[WRAPPED_POS, 0])
    try:
        data = decompress(int(wrapper[CODEC, 0]), buf[start:start + int(wrapper[WRAPPED_SIZE, 0])].data,
                          int(wrapper[MAGIC, 0]))
    except DamagedDataError:
        return None
    inner = np.empty((WIDTH, WALK_ROWS), dtype=np.int64)
    view = memoryview(data)
    crcs, valid, pos = [], [], 0
    while True:
        n, err, pos = compiled.walk_messages(np.frombuffer(data, dtype=np.uint8), pos, len(data), inner)
        stored = inner[CRC, :n].copy()
        at, size = inner[MESSAGE_POS, :n].tolist(), inner[MESSAGE_SIZE, :n].tolist()
        # CRC-32 from each message's magic byte to its end (after its own CRC field)
        computed = [zlib.crc32(view[a + 4:a + z]) for a, z in zip(at, size, strict=True)]
        crcs.append(stored)
        valid.append(np.array(computed, dtype=np.int64) == stored)
        if err != 1:
            break
    if err != 0 or pos != len(data):  # (the Kaitai parsers read to the end: a few trailing bytes do not parse)
        return None
    return np.concatenate(crcs), np.concatenate(valid)


def batch_of(entry: np.ndarray, position: int, size: int, base_offset: int) -> Batch:
    """The `Batch` of a legacy entry the fast path decoded, as `message_set.decode_entry` has it."""
    magic = int(entry[MAGIC])
    codec = int(entry[CODEC])
    return Batch(
        position=position, size=size, magic=magic, base_offset=base_offset, last_offset=int(entry[OFFSET]),
        count=None, compression=CODEC_NAMES.get(codec, f"unknown({codec})"), crc=int(entry[CRC]), crc_valid=True,
        timestamp_type=TIMESTAMP_TYPES[timestamp_type_index(entry)].as_py(),
        max_timestamp=int(entry[TIMESTAMP]) if magic > 0 else NO_TIMESTAMP,
        producer_id=NO_PRODUCER_ID, producer_epoch=NO_PRODUCER_EPOCH, base_sequence=NO_SEQUENCE,
        last_sequence=NO_SEQUENCE, partition_leader_epoch=NO_PARTITION_LEADER_EPOCH, is_transactional=False,
        is_control=False, delete_horizon_ms=None)


def _rows(buf: np.ndarray, m: _Messages, options: WalkOptions) -> pa.Table:
    n = int(m.counts.sum())
    repeated, topic, partition, path = options.repeated, options.topic, options.partition, options.path

    def per_batch(values, type_: pa.DataType, names: pa.Array | None = None) -> pa.Array:
        return repeated.per_batch(np.asarray(values), m.counts, n, type_, names)

    key, value, _ = binary_arrays(buf, np.ascontiguousarray(m.key_pos), np.ascontiguousarray(m.key_size),
                                  np.ascontiguousarray(m.value_pos), np.ascontiguousarray(m.value_size))
    columns = {
        "topic": repeated.column(topic, pa.string(), n),
        "partition": repeated.column(partition, pa.int32(), n),
        "offset": arrays.from_numpy(np.asarray(m.offset, dtype=np.int64)),
        "timestamp": arrays.from_numpy(np.asarray(m.timestamp, dtype=np.int64)),
        "timestamp_type": per_batch(m.timestamp_types, pa.string(), TIMESTAMP_TYPES),
        "key": key,
        "value": value,
        "headers": pa.ListArray.from_arrays(arrays.from_numpy(np.zeros(n + 1, dtype=np.int32)), _EMPTY_HEADERS),
        "magic": per_batch(m.magics, pa.int32()),
        "compression": per_batch(m.codecs, pa.string(), CODECS),
        # What legacy messages do not have, the same on every row.
        "producer_id": repeated.column(NO_PRODUCER_ID, pa.int64(), n),
        "producer_epoch": repeated.column(NO_PRODUCER_EPOCH, pa.int32(), n),
        "sequence": repeated.column(NO_SEQUENCE, pa.int32(), n),
        "is_transactional": repeated.column(False, pa.bool_(), n),
        "is_control": repeated.column(False, pa.bool_(), n),
        "control_type": repeated.column(None, pa.string(), n),
        "partition_leader_epoch": repeated.column(NO_PARTITION_LEADER_EPOCH, pa.int32(), n),
        "segment": repeated.column(path, pa.string(), n),
        "batch_position": arrays.from_numpy(np.repeat(np.asarray(m.positions, dtype=np.int64), m.counts)),
        "damage": repeated.column(None, pa.string(), n),
    }
    return pa.Table.from_arrays([columns[f.name] for f in SCHEMA], schema=SCHEMA)
