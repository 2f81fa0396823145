"""Record batches (magic 2): from the generated parser to `Batch` and `Record`.

Specs: `kafka_record_batch.ksy`, `kafka_record.ksy`, `kafka_control_record.ksy`. Twin: `kafkalog.fast.record_batch`.

Offsets, timestamps and sequences follow Kafka's `DefaultRecordBatch` and
`DefaultRecord`, including Java's wrapping arithmetic.
"""
from __future__ import annotations

from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated.kafka_control_record import KafkaControlRecord
from kafkalog._generated.kafka_record import KafkaRecord
from kafkalog._generated.kafka_record_batch import KafkaRecordBatch
from kafkalog.checksums import v2_crc
from kafkalog.compression import CODEC_NAMES, NONE, decompress
from kafkalog.errors import (
    ChecksumError,
    CorruptStructureError,
    DamagedDataError,
    DecompressionError,
    DecompressionLimitError,
)
from kafkalog.formats.parse_errors import PARSE_ERRORS, describe
from kafkalog.javaint import increment_sequence, s64
from kafkalog.javatext import java_utf8
from kafkalog.model import CREATE_TIME, LOG_APPEND_TIME, NO_SEQUENCE, Batch, Header, Record


def records_extent(entry: bytes) -> tuple[int, int] | None:
    """What reading a v2 batch's records would take: the count its header declares, and the bytes of its records
    once decompressed (none of them parsed); None when the header does not parse or the records do not
    decompress."""
    try:
        parsed = KafkaRecordBatch(KaitaiStream(BytesIO(entry)))
        codec = int(parsed.attributes.compression)
        data = parsed.records_data.data
        return parsed.num_records, len(data) if codec == NONE else len(decompress(codec, data))
    except (*PARSE_ERRORS, DecompressionError):
        return None


def decode_batch(entry: bytes, position: int, path: str | None, decode_records: bool = True) -> Batch:
    """Decode one v2 batch; `entry` is the whole batch, `position` where it starts in the file."""
    try:
        parsed = KafkaRecordBatch(KaitaiStream(BytesIO(entry)))
    except PARSE_ERRORS as exc:
        raise CorruptStructureError(f"record batch header does not parse: {describe(exc)}", path=path,
                                    position=position) from exc

    attrs = parsed.attributes
    codec = int(attrs.compression)
    log_append_time = int(attrs.timestamp_type) == 1
    actual_crc = v2_crc(entry)
    base_sequence = parsed.base_sequence
    batch = Batch(
        position=position,
        size=len(entry),
        magic=parsed.magic,
        base_offset=parsed.base_offset,
        last_offset=s64(parsed.base_offset + parsed.last_offset_delta),
        count=parsed.num_records,
        compression=CODEC_NAMES.get(codec, f"unknown({codec})"),
        crc=parsed.crc,
        crc_valid=parsed.crc == actual_crc,
        timestamp_type=LOG_APPEND_TIME if log_append_time else CREATE_TIME,
        max_timestamp=parsed.max_timestamp,
        producer_id=parsed.producer_id,
        producer_epoch=parsed.producer_epoch,
        base_sequence=base_sequence,
        last_sequence=NO_SEQUENCE if base_sequence == NO_SEQUENCE
        else increment_sequence(base_sequence, parsed.last_offset_delta),
        partition_leader_epoch=parsed.partition_leader_epoch,
        is_transactional=bool(attrs.is_transactional),
        is_control=bool(attrs.is_control),
        delete_horizon_ms=parsed.base_timestamp if attrs.has_delete_horizon else None,
    )
    if parsed.magic != 2:
        batch.damage.append(magic_damage(parsed.magic, path, position))
    if not batch.crc_valid:
        batch.damage.append(crc_damage(actual_crc, parsed.crc, path, position))
    if decode_records:
        _decode_records(parsed, batch, path)
    return batch


def _decode_records(parsed: KafkaRecordBatch, batch: Batch, path: str | None) -> None:
    # Damage inside a batch is reported at the batch's position, as Kafka reports it.
    section = parsed.records_data
    codec = int(section.codec)
    count = parsed.num_records
    failure: DamagedDataError | None = None
    try:
        record_list = section.uncompressed if codec == NONE else section.decompressed
        parsed_records, trailing = record_list.records, record_list.trailing
    except DecompressionError as exc:
        # Kafka's streaming decoders hand out the records before the damage;
        # damage after the last declared record surfaces in Kafka's check for
        # remaining bytes, which throws in place of returning that record. A
        # batch over the decompression limit is refused whole: its partial
        # output could hold tens of millions of records.
        parsed_records = [] if isinstance(exc, DecompressionLimitError) else _parse_one_by_one(exc.partial, count)[0]
        if count and len(parsed_records) == count:
            parsed_records.pop()
        trailing, failure = b"", exc.with_location(path, batch.position)
    except PARSE_ERRORS:
        # Kafka hands out the records before a damaged one: parse one at a time to keep them.
        data = section.data if codec == NONE else section.decompressed_data
        parsed_records, problem = _parse_one_by_one(data, count)
        trailing = b""
        if problem is not None:
            index, cause = problem
            failure = record_parse_damage(index, count, cause, path, batch.position)

    records: list[Record] = []
    batch.records = records  # (the object path's records: a list, filled here)
    for index, rec in enumerate(parsed_records):
        if rec.body.trailing:
            failure = record_trailing_damage(index, len(rec.body.trailing), rec.len_body.value, path, batch.position)
            break
        record = _record(rec, parsed, batch)
        if batch.is_control:
            record.control_type = _control_type(record.key, batch, path)
        records.append(record)
    if trailing and failure is None:
        # Kafka's RecordIterator throws in place of returning the last declared record.
        withheld = records.pop() if records else None
        failure = declared_count_damage(len(trailing), count, withheld.offset if withheld else None, path,
                                        batch.position)
    if failure is not None:
        batch.damage.append(failure)


def _parse_one_by_one(data: bytes, count: int) -> tuple[list[KafkaRecord], tuple[int, Exception] | None]:
    """The records before the first one that does not parse, and what went wrong with it."""
    io = KaitaiStream(BytesIO(data))
    out: list[KafkaRecord] = []
    for index in range(count):
        try:
            out.append(KafkaRecord(io))
        except PARSE_ERRORS as exc:
            return out, (index, exc)
    return out, None


def _record(rec: KafkaRecord, parsed: KafkaRecordBatch, batch: Batch) -> Record:
    body = rec.body
    offset_delta = body.offset_delta.value
    if batch.timestamp_type == LOG_APPEND_TIME:
        timestamp = parsed.max_timestamp
    else:
        timestamp = s64(parsed.base_timestamp + body.timestamp_delta.value)
    return Record(
        offset=s64(parsed.base_offset + offset_delta),
        timestamp=timestamp,
        sequence=increment_sequence(parsed.base_sequence, offset_delta) if parsed.base_sequence >= 0 else NO_SEQUENCE,
        key=body.key if body.len_key.value >= 0 else None,
        value=body.value if body.len_value.value >= 0 else None,
        headers=[
            Header(java_utf8(h.key), h.value if h.len_value.value >= 0 else None)
            for h in body.headers
        ],
    )


def coordinator_epoch(marker_value: bytes | None) -> int | None:
    """The coordinator epoch of a COMMIT or ABORT marker's value, None when it does not parse."""
    try:
        return KafkaControlRecord.EndTxnMarker(KaitaiStream(BytesIO(marker_value or b""))).coordinator_epoch
    except PARSE_ERRORS:
        return None


def control_type_code(key: bytes | None) -> int:
    """The type number of a control record's key (`ControlRecordType`'s id), -1 when the key does not parse."""
    try:
        kind = KafkaControlRecord(KaitaiStream(BytesIO(key or b""))).type
    except PARSE_ERRORS:
        return -1
    return kind.value if isinstance(kind, KafkaControlRecord.ControlType) else kind


def _control_type(key: bytes | None, batch: Batch, path: str | None) -> str:
    """`ControlRecordType.parse`: the type from a control record's key, UNKNOWN when Kafka does not know it."""
    try:
        parsed = KafkaControlRecord(KaitaiStream(BytesIO(key or b"")))
    except PARSE_ERRORS as exc:
        batch.damage.append(control_key_damage(exc, path, batch.position))
        return "UNKNOWN"
    kind = parsed.type
    return kind.name.upper() if isinstance(kind, KafkaControlRecord.ControlType) else "UNKNOWN"


# What is wrong with a batch, in the words both paths use (this module and `kafkalog.fast.record_batch`).

def magic_damage(magic: int, path: str | None, position: int) -> CorruptStructureError:
    # Kafka's FileLogInputStream reads any magic above 2 as a v2 batch; so do we, and say so.
    return CorruptStructureError(
        f"magic byte {magic} is not a format Kafka writes; read as magic 2, as Kafka reads it",
        path=path, position=position)


def crc_damage(actual: int, stated: int, path: str | None, position: int) -> ChecksumError:
    return ChecksumError(f"batch CRC-32C is {actual}, the header says {stated}", path=path, position=position)


def record_parse_damage(index: int, count: int, exc: BaseException, path: str | None,
                        position: int) -> CorruptStructureError:
    return CorruptStructureError(f"record {index} of the {count} the batch declares does not parse: {describe(exc)}",
                                 path=path, position=position)


def record_trailing_damage(index: int, trailing: int, length: int, path: str | None,
                           position: int) -> CorruptStructureError:
    return CorruptStructureError(f"record {index} has {trailing} bytes after its last header "
                                 f"(its length says {length})", path=path, position=position)


def declared_count_damage(trailing: int, count: int, withheld_offset: int | None, path: str | None,
                          position: int) -> CorruptStructureError:
    # Kafka's RecordIterator throws in place of returning the last declared record.
    return CorruptStructureError(
        f"{trailing} bytes follow the {count} records the batch declares (incorrect declared batch size)"
        + (f"; the last declared record (offset {withheld_offset}) is left out, as Kafka leaves it out"
           if withheld_offset is not None else ""), path=path, position=position)


def control_key_damage(exc: BaseException, path: str | None, position: int) -> CorruptStructureError:
    return CorruptStructureError(f"control record key does not parse: {describe(exc)}", path=path, position=position)
