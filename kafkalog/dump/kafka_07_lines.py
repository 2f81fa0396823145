"""`kafkalog dump` of a Kafka 0.7 segment (`.kafka`): text, JSON lines, and 0.7's own DumpLogSegments lines.

Text: a line per entry, then (unless --shallow) a `|` line per message of 0.7's deep iteration, with the
offset 0.7's iterator gives it (see `kafkalog.formats.kafka_07_log`):

    Dumping tests/fixtures/kafka07/logs/events-0/00000000000000000225.kafka
    offset: 225 position: 0 size: 71 magic: 1 compression: gzip crc: 1258333069 isValid: true nextOffset: 296
    | offset: 225 magic: 1 crc: 339617379 payload: 'nested a'

JSON: `{"type":"entry",...}` and `{"type":"message",...}` lines (payload in base64), `{"type":"error",...}`.

`--format kafka`: the lines of 0.7's `kafka.tools.DumpLogSegments` (core/src/main/scala/kafka/tools/ at the
0.7 tags): each shallow message at the offset of its first byte, its payload as text (a wrapper's payload
is its compressed bytes, as 0.7 printed it), and the offset where its file iterator stopped. What that
tool could not print (damage that stopped or crashed it) goes to standard error.
"""
from __future__ import annotations

import base64
import sys
from collections.abc import Iterator
from typing import TextIO

from kafkalog import file_names
from kafkalog.dump.json_line import dumps
from kafkalog.dump.records import error_json, error_text, escape
from kafkalog.errors import DamagedDataError
from kafkalog.formats.kafka_07_log import LOG_OVERHEAD, Entry07, Message07
from kafkalog.log.kafka_07_segment import read_entries
from kafkalog.uri_path import AnyPath

#: `CompressionCodec`'s case objects, as Scala prints them.
_CODECS = {"none": "NoCompressionCodec", "gzip": "GZIPCompressionCodec", "snappy": "SnappyCompressionCodec"}


def dump_kafka07(path: AnyPath, fmt: str, out: TextIO, *, full: bool = False, shallow: bool = False) -> bool:
    """Print a 0.7 segment in `fmt` (text, json or kafka); True when it was whole and every checksum held."""
    damage: list[DamagedDataError] = []
    whole = True
    if fmt != "json":
        out.write(f"Dumping {path}\n")
    entries = read_entries(path, name=str(path), damage=damage)
    if fmt == "kafka":
        return _dump_log_segments(path, entries, damage, out)
    for entry in entries:
        if fmt == "json":
            out.write(dumps(_entry_json(entry)) + "\n")
        else:
            out.write(_entry_text(entry) + "\n")
        for message in [] if shallow else entry.messages:
            out.write((dumps(_message_json(message)) if fmt == "json" else _message_text(message, full)) + "\n")
        for problem in entry.damage:
            out.write((dumps(error_json(problem)) if fmt == "json" else error_text(problem)) + "\n")
        whole = whole and not entry.damage
    for problem in damage:
        out.write((dumps(error_json(problem)) if fmt == "json" else error_text(problem)) + "\n")
    return whole and not damage


def _entry_text(entry: Entry07) -> str:
    return (f"offset: {entry.offset} position: {entry.position} size: {entry.size} magic: {entry.magic} "
            f"compression: {entry.compression} crc: {entry.crc} isValid: {str(entry.crc_valid).lower()} "
            f"nextOffset: {entry.next_offset}")


def _message_text(message: Message07, full: bool) -> str:
    payload = message.payload if full else message.payload[:40]
    cut = "…" if len(payload) < len(message.payload) else ""
    return (f"| offset: {message.offset} magic: {message.magic} crc: {message.crc} "
            f"payload: {payload.decode('utf-8', 'backslashreplace')!r}{cut}")


def _entry_json(entry: Entry07) -> dict:
    return {"type": "entry", "position": entry.position, "offset": entry.offset, "size": entry.size,
            "next_offset": entry.next_offset, "magic": entry.magic, "compression": entry.compression,
            "crc": entry.crc, "crc_valid": entry.crc_valid}


def _message_json(message: Message07) -> dict:
    return {"type": "message", "offset": message.offset, "magic": message.magic, "crc": message.crc,
            "crc_valid": message.crc_valid, "payload": base64.b64encode(message.payload).decode("ascii")}


def _dump_log_segments(path: AnyPath, entries: Iterator[Entry07], damage: list[DamagedDataError], out: TextIO) -> bool:
    """0.7's DumpLogSegments: `offset` is the start of each message, then the tail where iteration stopped."""
    start = file_names.base_offset_of(path.name) or 0  # (the tool: the name up to its first dot)
    out.write(f"Starting offset: {start}\n")
    whole = True
    tail = start
    for entry in entries:
        if entry.magic not in (0, 1) or entry.compression not in _CODECS:
            # 0.7's tool throws here (UnknownMagicByteException, UnknownCodecException) and prints no more.
            for problem in entry.damage:
                print(f"kafkalog dump: {problem}", file=sys.stderr)
            return False
        payload_size = entry.size - LOG_OVERHEAD - (6 if entry.magic == 1 else 5)
        out.write(f"offset: {entry.offset} isvalid: {str(entry.crc_valid).lower()} payloadsize: {payload_size} "
                  f"magic: {entry.magic} compresscodec: {_CODECS[entry.compression]}\n")
        out.write(f"payload:\t{escape(entry.payload.decode('utf-8', 'replace'))}\n")
        tail = entry.next_offset
        whole = whole and not entry.damage
    out.write(f"tail of the log is at offset: {tail}\n")
    for problem in damage:
        print(f"kafkalog dump: {problem}", file=sys.stderr)
    return whole and not damage
