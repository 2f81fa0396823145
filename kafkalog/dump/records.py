"""The JSON-lines and text forms of `kafkalog dump` for segment files."""
from __future__ import annotations

import base64
import json
from functools import partial
from typing import Any

from kafkalog.dump.run_lines import RunLines
from kafkalog.errors import DamagedDataError
from kafkalog.formats.internal_topics import CONTROL_ONLY
from kafkalog.formats.record_batch import coordinator_epoch
from kafkalog.model import Batch, Record


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def batch_json(batch: Batch) -> dict[str, Any]:
    return {
        "type": "batch",
        "position": batch.position,
        "size": batch.size,
        "magic": batch.magic,
        "base_offset": batch.base_offset,
        "last_offset": batch.last_offset,
        "count": batch.count,
        "compression": batch.compression,
        "crc": batch.crc,
        "crc_valid": batch.crc_valid,
        "timestamp_type": batch.timestamp_type,
        "max_timestamp": batch.max_timestamp,
        "producer_id": batch.producer_id,
        "producer_epoch": batch.producer_epoch,
        "base_sequence": batch.base_sequence,
        "last_sequence": batch.last_sequence,
        "partition_leader_epoch": batch.partition_leader_epoch,
        "is_transactional": batch.is_transactional,
        "is_control": batch.is_control,
        "delete_horizon_ms": batch.delete_horizon_ms,
    }


def _json_value(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=True)


def batch_json_line(batch: Batch) -> str:
    """`dumps(batch_json(batch))` written directly: the line of every batch, where `json`'s encoder would cost
    as much as the compiled lines of the batch's records."""
    b, v = batch, _json_value
    return (f'{{"type":"batch","position":{v(b.position)},"size":{v(b.size)},"magic":{v(b.magic)},'
            f'"base_offset":{v(b.base_offset)},"last_offset":{v(b.last_offset)},"count":{v(b.count)},'
            f'"compression":{v(b.compression)},"crc":{v(b.crc)},"crc_valid":{v(b.crc_valid)},'
            f'"timestamp_type":{v(b.timestamp_type)},"max_timestamp":{v(b.max_timestamp)},'
            f'"producer_id":{v(b.producer_id)},"producer_epoch":{v(b.producer_epoch)},'
            f'"base_sequence":{v(b.base_sequence)},"last_sequence":{v(b.last_sequence)},'
            f'"partition_leader_epoch":{v(b.partition_leader_epoch)},"is_transactional":{v(b.is_transactional)},'
            f'"is_control":{v(b.is_control)},"delete_horizon_ms":{v(b.delete_horizon_ms)}}}')


def record_json(record: Record) -> dict[str, Any]:
    return {
        "type": "record",
        "offset": record.offset,
        "timestamp": record.timestamp,
        "sequence": record.sequence,
        "key": _b64(record.key),
        "value": _b64(record.value),
        "headers": [[h.key, _b64(h.value)] for h in record.headers],
        "control_type": record.control_type,
    }


def json_run_lines() -> RunLines | None:
    """JSON record lines written a run at a time by `kafkalog.fast.json_lines` (the bytes `record_json` and
    `dumps` write); None where the compiled writers were not built (each record is printed by `record_json`)."""
    from kafkalog.fast import batch_lines, json_lines, line_parts  # (start-up: loaded only when the fast path runs)

    if not line_parts.AVAILABLE:
        return None
    return RunLines(json_lines.record_blocks,
                    partial(batch_lines.run_text, batch_lines.JSON_TEMPLATE, json_lines.record_blocks))


def text_run_lines(full: bool) -> RunLines | None:
    """Text record lines written a run at a time by `kafkalog.fast.text_lines` (the text `record_text`
    writes); `full`: keys and values whole. None where the compiled writers were not built."""
    from kafkalog.fast import batch_lines, line_parts, text_lines  # (start-up: loaded only when the fast path runs)

    if not line_parts.AVAILABLE:
        return None
    blocks = partial(text_lines.record_blocks, full=full)
    return RunLines(blocks, partial(batch_lines.run_text, batch_lines.TEXT_TEMPLATE, blocks))


def raw_records(batch: Batch, decoder: str | None) -> bool:
    """Whether a batch's record lines are `record_json` or `record_text` alone: data records, with no
    decoded key and value added (control records are written one by one)."""
    return not batch.is_control and raw_decoder(decoder)


def raw_decoder(decoder: str | None) -> bool:
    """Whether the record lines of data batches read with `decoder` are `record_json` or `record_text` alone."""
    return decoder is None or decoder == CONTROL_ONLY


def error_json(damage: DamagedDataError) -> dict[str, Any]:
    return {"type": "error", "position": damage.position, "message": damage.message}


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def escape(text: str) -> str:
    """`text` with control characters escaped, so that a value cannot break a line or drive the terminal."""
    return text.translate(_CONTROL)


def _preview(data: bytes | None, limit: int | None = 40) -> str:
    """A value as a quoted string with escapes (never raw control bytes); cut at `limit` bytes unless None."""
    if data is None:
        return "null"
    shown = data if limit is None else data[:limit]
    text = shown.decode("utf-8", "backslashreplace")
    return repr(text) + ("…" if len(data) > len(shown) else "")


def batch_text(batch: Batch) -> str:
    """One line per batch, in the spirit of kafka-dump-log.sh."""
    parts = [
        f"baseOffset: {batch.base_offset}", f"lastOffset: {batch.last_offset}",
        f"count: {batch.count if batch.count is not None else '-'}",
        f"magic: {batch.magic}", f"compression: {batch.compression}",
        f"position: {batch.position}", f"size: {batch.size}",
        f"CreateTime/LogAppendTime: {batch.timestamp_type}", f"maxTimestamp: {batch.max_timestamp}",
        f"crc: {batch.crc}", f"isValid: {str(batch.crc_valid).lower()}",
    ]
    if batch.magic >= 2:
        parts += [
            f"producerId: {batch.producer_id}", f"producerEpoch: {batch.producer_epoch}",
            f"baseSequence: {batch.base_sequence}", f"lastSequence: {batch.last_sequence}",
            f"partitionLeaderEpoch: {batch.partition_leader_epoch}",
            f"isTransactional: {str(batch.is_transactional).lower()}",
            f"isControl: {str(batch.is_control).lower()}",
        ]
        if batch.delete_horizon_ms is not None:
            parts.append(f"deleteHorizonMs: {batch.delete_horizon_ms}")
    return " ".join(parts)


def record_text(record: Record, full: bool = False) -> str:
    """One line per record; keys and values cut at 40 bytes, header values at 20, unless `full`."""
    parts = [f"| offset: {record.offset}", f"timestamp: {record.timestamp}"]
    if record.sequence != -1:
        parts.append(f"sequence: {record.sequence}")
    if record.control_type in ("COMMIT", "ABORT"):
        parts.append(f"endTxnMarker: {record.control_type} coordinatorEpoch: {coordinator_epoch(record.value)}")
    elif record.control_type is not None:
        parts.append(f"controlType: {record.control_type}")
    else:
        parts.append(f"key: {_preview(record.key, None if full else 40)}")
        parts.append(f"value: {_preview(record.value, None if full else 40)}")
    if record.headers:
        parts.append("headers: " + ", ".join(f"{escape(h.key)}={_preview(h.value, None if full else 20)}"
                                             for h in record.headers))
    return " ".join(parts)


def error_text(damage: DamagedDataError) -> str:
    if damage.position is None:  # a text file's damage, placed by the line its message names
        return f"ERROR: {damage.message}"
    return f"ERROR at byte {damage.position}: {damage.message}"
