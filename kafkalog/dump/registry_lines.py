"""`kafkalog dump --decode-values`: registry-framed keys and values added to the record lines.

JSON lines get `key_decoded` / `key_schema` and `value_decoded` / `value_schema` on every data record of
an ordinary topic (null where the bytes name no schema); text lines end in `key_decoded: ...`,
`value_decoded: ... value_schema: ...` where a schema is named. A key or value that names a schema but
does not decode is an error line after its record, naming the record's offset (`UndecodableValueError`);
its raw bytes are in the record line as always.
"""
from __future__ import annotations

import json
from typing import Any

from kafkalog.errors import UndecodableValueError
from kafkalog.model import Record
from kafkalog.registry.values import DecodedValue, ValueDecoder


def add_values(line: dict[str, Any] | str, record: Record, decoder: ValueDecoder, topic: str | None,
               path: str | None, batch_position: int) -> tuple[dict[str, Any] | str, list[UndecodableValueError]]:
    """The record line with its decoded key and value, and an error for each that names a schema and does not decode."""
    headers = [(h.key, h.value) for h in record.headers]
    key = decoder.decode(record.key, headers, topic=topic, is_key=True)
    value = decoder.decode(record.value, headers, topic=topic, is_key=False)
    if isinstance(line, dict):
        line = {**line, **_fields("key", key), **_fields("value", value)}
    else:
        line += _text("key", key) + _text("value", value)
    problems = [UndecodableValueError(f"record at offset {record.offset}: {side}: {got.error}", path=path,
                                      position=batch_position)
                for side, got in (("key", key), ("value", value)) if got.error is not None]
    return line, problems


def _fields(side: str, got: DecodedValue) -> dict[str, Any]:
    return {f"{side}_decoded": got.decoded if got.error is None else None,
            f"{side}_schema": got.schema.as_json() if got.schema else None}


def _text(side: str, got: DecodedValue) -> str:
    if got.schema is None or got.error is not None:
        return ""
    return (f" {side}_decoded: {json.dumps(got.decoded, ensure_ascii=False)}"
            f" {side}_schema: {json.dumps(got.schema.as_json(), ensure_ascii=False)}")
