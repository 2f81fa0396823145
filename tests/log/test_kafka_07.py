"""Kafka 0.7 segments (`.kafka`) in every door: the reader, read_arrow, dump (text, json, kafka) and verify.

The fixtures (tests/fixtures/kafka07) are written by 0.7-era clients, franz-kafka 0.7.5 and brod 0.4.3
(scripts/kafka07_fixtures.py); their payloads are checked against what those clients were asked to write.
The offsets expected here are those 0.7's `ByteBufferMessageSet` iterator gives (docs/kafka-07.md): an
uncompressed message gets the offset after its entry; a wrapper's messages get the wrapper's offset, its
last message the offset after the wrapper. Damaged inputs are byte edits of the fixtures, and hostile
ones (nesting, bombs) are built here.
"""
from __future__ import annotations

import base64
import gzip
import json
import shutil
import struct
import sys
import zlib
from pathlib import Path

import pytest

import kafkalog
from kafkalog.cli import main
from kafkalog.compression import decompression_limit
from kafkalog.errors import DamagedDataError
from kafkalog.log.kafka_07_segment import read_entries
from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import kafka07_fixtures  # (what the clients were asked to write)

LOGS = ROOT / "tests" / "fixtures" / "kafka07" / "logs"
FIRST = LOGS / "events-0" / "00000000000000000000.kafka"
SECOND = LOGS / "events-0" / "00000000000000000225.kafka"


def _asked(partition: str) -> list[bytes]:
    def payloads(request: dict) -> list[str]:
        return request.get("brod") or (payloads(request["nested"]) if "nested" in request else request["payloads"])
    return [base64.b64decode(p) for part, r in kafka07_fixtures.REQUESTS if part == partition for p in payloads(r)]


def _messages(path: Path) -> list[tuple[int, bytes]]:
    damage: list[DamagedDataError] = []
    out = [(m.offset, m.payload) for e in read_entries(path, damage=damage) for m in e.messages]
    assert damage == []
    return out


def test_every_payload_the_clients_wrote_reads_back_in_order():
    for partition in ("events-0", "events-1"):
        files = sorted((LOGS / partition).glob("*.kafka"))
        assert [p for f in files for _, p in _messages(f)] == _asked(partition)


def test_offsets_are_those_of_0_7s_iterator():
    # events-0's first file: plain (19 B, 24 B), a gzip wrapper of 3 at 43 (76 B), two magic 0 messages from
    # brod at 119 and 148, a snappy wrapper of 2 at 175 (50 B); the next file starts at 225.
    assert [o for o, _ in _messages(FIRST)] == [19, 43, 43, 43, 119, 148, 175, 175, 225]
    # A gzip wrapper of a snappy wrapper at 225 (71 B): both inner messages count as the outer wrapper's.
    assert [o for o, _ in _messages(SECOND)] == [225, 296, 315, 325, 359]
    entries = list(read_entries(FIRST))
    assert [(e.position, e.offset, e.next_offset, e.magic, e.compression) for e in entries] == [
        (0, 0, 19, 1, "none"), (19, 19, 43, 1, "none"), (43, 43, 119, 1, "gzip"), (119, 119, 148, 0, "none"),
        (148, 148, 175, 0, "none"), (175, 175, 225, 1, "snappy")]


def test_read_arrow_reads_a_directory_of_0_7_partitions():
    table = kafkalog.read_table(str(LOGS), includeKafkalogColumns=True)
    rows = table.to_pylist()
    assert [(r["topic"], r["partition"]) for r in rows] == [("events", 0)] * 14 + [("events", 1)] * 13
    assert [r["value"] for r in rows] == _asked("events-0") + _asked("events-1")
    assert [r["offset"] for r in rows[:14]] == [o for f in (FIRST, SECOND) for o, _ in _messages(f)]
    assert {r["key"] for r in rows} == {None} and {r["timestampType"] for r in rows} == {-1}
    assert [r["magic"] for r in rows[4:7]] == [1, 0, 0] and rows[2]["compression"] == "gzip"
    assert rows[9]["segment"].endswith("00000000000000000225.kafka") and rows[9]["batch_position"] == 0
    # Offsets filter as a Kafka source's do: here in 0.7's byte offsets.
    later = kafkalog.read_table(str(LOGS), startingOffsets='{"events":{"0":300}}', endingOffsets='{"events":{"0":330}}')
    assert later.column("offset").to_pylist() == [315, 325] + [0] * 11 + [177, 210]


def _damaged(tmp_path: Path, source: Path, edit) -> Path:
    target = tmp_path / "events-0" / source.name
    target.parent.mkdir(exist_ok=True)
    data = bytearray(source.read_bytes())
    edit(data)
    target.write_bytes(bytes(data))
    return target


def test_a_crc_mismatch_is_damage_and_the_read_goes_on(tmp_path):
    path = _damaged(tmp_path, FIRST, lambda d: d.__setitem__(10, d[10] ^ 0x20))  # in "hello 0.7"
    damage: list[DamagedDataError] = []
    entries = list(read_entries(path, damage=damage))
    assert damage == [] and len(entries) == 6
    assert not entries[0].crc_valid and entries[0].damage[0].kind == "checksum"
    assert entries[0].damage[0].position == 0 and str(path) in str(entries[0].damage[0])
    permissive = kafkalog.read_table(str(path), includeKafkalogColumns=True, mode="PERMISSIVE")
    assert permissive.column("damage").to_pylist()[1].startswith("ChecksumError: message CRC-32")
    dropped = kafkalog.read_table(str(path), mode="DROPMALFORMED")
    assert dropped.num_rows == 8
    with pytest.raises(DamagedDataError, match="byte 0"):
        kafkalog.read_table(str(path), mode="FAILFAST")


@pytest.mark.parametrize("cut, position, text", [
    (119 + 2, 119, "partial entry at the end: 2 bytes left"),
    (119 + 20, 119, "partial entry at the end: its size is 25 bytes, 16 remain"),
])
def test_a_torn_tail_ends_the_read_where_0_7s_recovery_truncates(tmp_path, cut, position, text):
    path = _damaged(tmp_path, FIRST, lambda d: d.__delitem__(slice(cut, None)))
    damage: list[DamagedDataError] = []
    assert len(list(read_entries(path, damage=damage))) == 3
    assert [(d.kind, d.position) for d in damage] == [("truncated", position)]
    assert text in damage[0].message and "0.7's recovery truncates the log here" in damage[0].message


def test_bad_sizes_magic_and_codec_are_worded(tmp_path):
    small = _damaged(tmp_path, FIRST, lambda d: d.__setitem__(slice(19, 23), struct.pack(">i", 3)))
    damage: list[DamagedDataError] = []
    assert len(list(read_entries(small, damage=damage))) == 1
    assert "entry size 3 is below the minimum of 5 bytes" in damage[0].message and damage[0].position == 19
    magic = _damaged(tmp_path, FIRST, lambda d: d.__setitem__(4, 7))
    entry = next(read_entries(magic))
    assert "magic" in entry.damage[0].message and "7" in entry.damage[0].message
    codec = _damaged(tmp_path, FIRST, lambda d: d.__setitem__(43 + 5, 3))  # the gzip wrapper's attributes
    entry = list(read_entries(codec))[2]
    assert entry.messages == [] and "compression codec 3 is not one of 0.7's" in entry.damage[0].message


def _message(payload: bytes, codec: int = 0) -> bytes:
    body = bytes([1, codec]) + struct.pack(">I", zlib.crc32(payload)) + payload
    return struct.pack(">i", len(body)) + body


def test_deeply_nested_wrappers_read_without_recursion(tmp_path):
    data = _message(b"at the bottom")
    for _ in range(1200):  # (past Python's recursion limit)
        data = _message(gzip.compress(data, mtime=0), codec=1)
    path = tmp_path / "00000000000000000000.kafka"
    path.write_bytes(data)
    (entry,) = read_entries(path)
    assert [(m.offset, m.payload) for m in entry.messages] == [(len(data), b"at the bottom")]


def test_decompression_is_bounded_across_nesting_levels(tmp_path):
    inner = _message(gzip.compress(_message(b"\0" * 600_000), mtime=0), codec=1)
    path = tmp_path / "00000000000000000000.kafka"
    path.write_bytes(_message(gzip.compress(inner + inner, mtime=0), codec=1))
    with decompression_limit(1_000_000):
        (entry,) = read_entries(path)
    assert len(entry.messages) == 1 and entry.damage[0].kind == "decompression"
    assert "1000000" in entry.damage[0].message or "limit" in entry.damage[0].message


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_dump_text_json_and_0_7s_dump_log_segments(capsys):
    code, out, _ = _cli(capsys, "dump", str(SECOND))
    assert code == 0
    assert out.splitlines()[:3] == [
        f"Dumping {SECOND}",
        "offset: 225 position: 0 size: 71 magic: 1 compression: gzip crc: 1258333069 isValid: true nextOffset: 296",
        "| offset: 225 magic: 1 crc: 339617379 payload: 'nested a'"]
    code, out, _ = _cli(capsys, "dump", "--format", "json", str(LOGS / "events-1"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines[0] == {"type": "file", "path": str(LOGS / "events-1" / "00000000000000000000.kafka")}
    assert [line["offset"] for line in lines if line["type"] == "message"] == [0] * 11 + [177, 210]
    code, out, _ = _cli(capsys, "dump", "--format", "kafka", str(SECOND))
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == [f"Dumping {SECOND}", "Starting offset: 225",
                         "offset: 225 isvalid: true payloadsize: 61 magic: 1 compresscodec: GZIPCompressionCodec"]
    assert lines[-1] == "tail of the log is at offset: 359"
    assert "offset: 325 isvalid: true payloadsize: 24 magic: 1 compresscodec: SnappyCompressionCodec" in lines


def test_verify_checks_crcs_tails_and_that_segments_meet(tmp_path, capsys):
    code, out, _ = _cli(capsys, "verify", str(LOGS))
    assert code == 0 and out.strip() == ("2 partition(s), 3 segment(s), 0 file(s), 12 batches, 27 records, "
                                         "0 index entries: OK")
    copy = tmp_path / "logs"
    shutil.copytree(LOGS, copy)
    first = copy / "events-0" / FIRST.name
    first.write_bytes(first.read_bytes()[:200])  # torn: and the next segment no longer meets it
    code, out, _ = _cli(capsys, "verify", str(copy))
    assert code == 1
    assert f"{first}: byte 175: truncated: partial entry at the end: its size is 46 bytes, 21 remain" in out
    assert f"{first}: segments_do_not_meet: it starts at byte offset 0 and holds 200 bytes" in out
    code, out, _ = _cli(capsys, "dump", str(first))
    assert code == 1 and out.splitlines()[-1].startswith("ERROR at byte 175: partial entry at the end")
