"""Legacy messages (magic 0 and 1): from the generated parser to `Batch` and `Record`.

Spec: `kafka_message_set.ksy`. Twin: `kafkalog.fast.message_set`.

Each shallow entry of a segment becomes one `Batch`, as Kafka's
`AbstractLegacyRecordBatch` presents it: an uncompressed message is a batch
of one record; a compressed wrapper is a batch of its inner messages, with
offsets and timestamps resolved the way `DeepRecordsIterator` does.
"""
from __future__ import annotations

from typing import TypeAlias

from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated.kafka_message_set import KafkaMessageSet
from kafkalog.checksums import legacy_crc
from kafkalog.compression import CODEC_NAMES, NONE
from kafkalog.errors import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    DecompressionError,
    DecompressionLimitError,
)
from kafkalog.formats.parse_errors import PARSE_ERRORS, describe
from kafkalog.javaint import s64
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
    Record,
)

Entry: TypeAlias = KafkaMessageSet.Entry  # the generated parsers are untyped: Any to mypy
_OFFSET_SIZE = 8
_MIN_MESSAGE_SIZE = 14  # LegacyRecord.RECORD_OVERHEAD_V0


def decode_entry(entry: bytes, position: int, path: str | None, decode_records: bool = True) -> Batch:
    """Decode one v0/v1 entry; `entry` is its bytes from the offset field on."""
    try:
        parsed = Entry(KaitaiStream(BytesIO(entry)))
    except PARSE_ERRORS as exc:
        raise CorruptStructureError(f"message does not parse: {describe(exc)}", path=path,
                                    position=position) from exc

    message = parsed.message
    magic = message.magic
    codec = int(message.attributes.compression)
    timestamp_type = _timestamp_type(message)
    timestamp = message.timestamp if magic > 0 else NO_TIMESTAMP
    actual_crc = legacy_crc(entry)
    batch = Batch(
        position=position,
        size=len(entry),
        magic=magic,
        base_offset=parsed.offset,
        last_offset=parsed.offset,
        count=None,
        compression=CODEC_NAMES.get(codec, f"unknown({codec})"),
        crc=message.crc,
        crc_valid=message.crc == actual_crc,
        timestamp_type=timestamp_type,
        max_timestamp=timestamp,
        producer_id=NO_PRODUCER_ID,
        producer_epoch=NO_PRODUCER_EPOCH,
        base_sequence=NO_SEQUENCE,
        last_sequence=NO_SEQUENCE,
        partition_leader_epoch=NO_PARTITION_LEADER_EPOCH,
        is_transactional=False,
        is_control=False,
        delete_horizon_ms=None,
    )
    if not batch.crc_valid:
        batch.damage.append(ChecksumError(
            f"message CRC-32 is {actual_crc}, the message says {message.crc}", path=path, position=position))
    if not decode_records:
        return batch
    if codec == NONE:
        batch.records = [_record(parsed.offset, message, timestamp)]
        return batch
    _decode_wrapper(parsed, batch, path)
    if batch.records:
        batch.base_offset = batch.records[0].offset
    return batch


def _timestamp_type(message: KafkaMessageSet.Message) -> str:
    if message.magic == 0:
        return NO_TIMESTAMP_TYPE
    return LOG_APPEND_TIME if int(message.attributes.timestamp_type) == 1 else CREATE_TIME


def _record(offset: int, message: KafkaMessageSet.Message, timestamp: int) -> Record:
    return Record(
        offset=offset,
        timestamp=timestamp,
        sequence=NO_SEQUENCE,
        key=message.key if message.len_key >= 0 else None,
        value=message.value if message.len_value >= 0 else None,
    )


def _decode_wrapper(parsed: Entry, batch: Batch, path: str | None) -> None:
    wrapper = parsed.message
    if wrapper.len_value < 0:
        batch.damage.append(CorruptStructureError(
            f"compressed message with a null value (magic {wrapper.magic})", path=path, position=batch.position))
        return
    try:
        inner = list(wrapper.compressed_value.messages.entries)
        failure: DamagedDataError | None = None
    except DecompressionError as exc:
        if wrapper.magic > 0:
            batch.damage.append(exc.with_location(path, batch.position))
            return
        # A v0 wrapper streams: Kafka hands out the messages decompressed before the damage
        # (none past the decompression limit, which refuses the wrapper whole).
        inner = [] if isinstance(exc, DecompressionLimitError) else _parse_one_by_one(exc.partial)[0]
        failure = exc.with_location(path, batch.position)
    except PARSE_ERRORS:
        inner, problem = _parse_one_by_one(wrapper.compressed_value.messages_data)
        failure = _inner_failure(problem, batch, path) if problem is not None else None

    if wrapper.magic > 0:
        # Kafka reads every inner message of a v1 wrapper before handing out
        # any (it needs the last one to resolve relative offsets).
        if failure is not None:
            batch.damage.append(failure)
            return
        if not inner:
            batch.damage.append(CorruptStructureError(
                "compressed message set with no inner messages", path=path, position=batch.position))
            return
        absolute_base = s64(parsed.offset - inner[-1].offset)
    else:
        absolute_base = -1

    log_append_time = batch.timestamp_type == LOG_APPEND_TIME
    records: list[Record] = []
    batch.records = records  # (the object path's records: a list, filled here)
    for entry in inner:
        message = entry.message
        if int(message.attributes.compression) != NONE:
            batch.damage.append(CorruptStructureError(
                "compressed message inside a compressed message", path=path, position=batch.position))
            return
        if message.magic == 0:
            timestamp = NO_TIMESTAMP
        elif log_append_time:
            timestamp = batch.max_timestamp
        else:
            timestamp = message.timestamp
        offset = s64(absolute_base + entry.offset) if absolute_base >= 0 else entry.offset
        records.append(_record(offset, message, timestamp))
    if failure is not None:
        batch.damage.append(failure)


def inner_checksums(entry: bytes) -> list[tuple[int, bool]]:
    """(stored CRC, whether it matches) of each inner message of a compressed wrapper entry, as Kafka's deep
    iteration reports them; [] when the wrapper or its inner messages do not read whole."""
    try:
        value = Entry(KaitaiStream(BytesIO(entry))).message.compressed_value
        data = value.messages_data if value is not None else b""
    except (DamagedDataError, *PARSE_ERRORS):
        return []
    io = KaitaiStream(BytesIO(data))
    out = []
    while not io.is_eof():
        start = io.pos()
        try:
            inner = Entry(io)
        except PARSE_ERRORS:
            return []
        out.append((inner.message.crc, inner.message.crc == legacy_crc(data[start:io.pos()])))
    return out


def _inner_failure(failure: tuple[int, Exception], batch: Batch, path: str | None) -> DamagedDataError:
    index, exc = failure
    return CorruptStructureError(
        f"inner message {index} of the compressed message set does not parse: {describe(exc)}",
        path=path, position=batch.position)


def _parse_one_by_one(data: bytes) -> tuple[list[Entry], tuple[int, Exception] | None]:
    """Inner entries up to the first damaged one, read as Kafka's `DataLogInputStream` reads them."""
    io = KaitaiStream(BytesIO(data))
    out: list[Entry] = []
    while True:
        remaining = io.size() - io.pos()
        if remaining < _OFFSET_SIZE:
            # DataLogInputStream stops quietly where not even an offset is left.
            return out, None
        try:
            out.append(Entry(io))
        except PARSE_ERRORS as exc:
            return out, (len(out), exc)
