"""`kafkalog dump`'s compiled record lines are the bytes its one-record printers write.

`--format json`: the reference is `kafkalog.dump.records.record_json` through `dumps` (Python's
`json.dumps`, ASCII), one record at a time; `kafkalog.fast.json_lines` writes a run of batches at once
from the columns. `--format kafka`: `kafkalog.dump.kafka_dump_log.record_line` (`kafkalog.javatext`'s decoder, Java's
rules, then `escape`) against `kafkalog.fast.kafka_lines`; both are held to Java itself in test_java_text.py.
"""
from __future__ import annotations

import dataclasses
import io
import random
import sys

import numpy as np
import pyarrow as pa
import pytest
from kafkalog._generated import kafka_kernel_columns as k

from kafkalog import cli
from kafkalog.dump import kafka_dump_log, kafka_versions, run_lines
from kafkalog.dump.json_line import dumps
from kafkalog.dump.records import (
    batch_json,
    batch_json_line,
    batch_text,
    json_run_lines,
    raw_records,
    record_json,
    record_text,
    text_run_lines,
)
from kafkalog.fast import batch_lines, json_lines, kafka_lines, line_parts, runs, text_lines
from kafkalog.fast.columns import SCHEMA
from kafkalog.fast.runs import Items, Run
from kafkalog.javaint import increment_sequence
from kafkalog.log.record_list import TableRecords
from kafkalog.log.segment import SegmentReader, batch_runs
from kafkalog.model import Batch
from tests.fresh_home import run_in_empty_home
from tests.paths import FIXTURES, SAMPLES

FILES = sorted([*SAMPLES.glob("*.log"), *SAMPLES.glob("*/*.log"), *(FIXTURES / "segments").glob("*.log"),
                *(FIXTURES / "partitions").glob("*/*.log"), *(FIXTURES / "internal").glob("*/*.log")])


def _reference(records) -> str:
    return "".join(dumps(record_json(r)) + "\n" for r in records)


def _joined(blocks) -> bytes | None:
    return None if blocks is None else b"".join(blocks)


# Every file a run at a time; the samples and segment fixtures also in blocks of 2 rows.
BLOCKS = [(p, run_lines.BLOCK_ROWS) for p in FILES] + [(p, 2) for p in FILES
                                                       if p.parent in (SAMPLES, FIXTURES / "segments")]


@pytest.mark.parametrize(("path", "block"), BLOCKS, ids=lambda c: f"{c.parent.name}/{c.name}" if hasattr(c, "name")
                         else str(c))
def test_every_batch_of_every_fixture(monkeypatch, path, block):
    """A batch's lines, from a block of its run's lines, or in blocks of a few of its rows (and bytes) at a time."""
    monkeypatch.setattr(run_lines, "BLOCK_ROWS", block)
    if block == 2:
        monkeypatch.setattr(batch_lines, "BLOCK_BYTES", 100)
    json, kafka = json_run_lines(), kafka_dump_log.run_lines()
    text, full = text_run_lines(False), text_run_lines(True)
    compiled = 0
    with SegmentReader(path) as reader:
        for batch in reader:
            assert batch_json_line(batch) == dumps(batch_json(batch)), (path, batch.position)
            if raw_records(batch, None):
                for lines, whole in ((text, False), (full, True)):
                    got = _joined(lines.of(batch.records))
                    if got is not None:
                        assert str(got, "utf-8") == "".join(record_text(r, whole) + "\n" for r in batch.records)
            got = _joined(json.of(batch.records))
            if got is not None:
                assert str(got, "ascii") == _reference(batch.records), (path, batch.position)
                compiled += len(batch.records)
            if kafka_dump_log.raw_data_records(batch, None):
                got = _joined(kafka.of(batch.records, batch.timestamp_type))
                if got is not None:
                    assert str(got, "utf-8") == "".join(kafka_dump_log.record_line(batch, r) + "\n"
                                                        for r in batch.records), (path, batch.position)
    assert compiled or not path.stat().st_size or path.name.startswith("damaged"), path


@pytest.mark.parametrize("block", [run_lines.BLOCK_ROWS, 2])
def test_legacy_lines_are_the_one_record_printers(monkeypatch, block):
    """`--format kafka`'s lines of magic 0/1 entries, each record with its message's checksum, written by the
    compiled loop: the lines `record_line` writes with the object path's checksums, in both Kafka versions."""
    monkeypatch.setattr(run_lines, "BLOCK_ROWS", block)
    written = 0
    for path in FILES:
        data = path.read_bytes()
        with SegmentReader(path) as reader:
            for batch in reader:
                if batch.magic >= 2:
                    continue
                entry = data[batch.position:batch.end_position]
                checks = kafka_dump_log.legacy_checksums(entry, batch)
                for version in kafka_versions.KAFKA_VERSIONS:
                    got = _joined(kafka_dump_log.legacy_lines(batch, entry, version))
                    if got is None:
                        continue
                    want = "".join(kafka_dump_log.record_line(
                        batch, r, checks[n] if len(checks) == len(batch.records) else (batch.crc, batch.crc_valid),
                        version) + "\n" for n, r in enumerate(batch.records))
                    assert str(got, "utf-8") == want, (path, batch.position, version)
                    written += len(batch.records)
    assert written > 100


def _plain_runs():
    """(path, reader, run) for every run of plain batches of every fixture, its reader open while the run is used."""
    for path in FILES:
        with SegmentReader(path) as reader:
            for part in batch_runs(reader):
                if isinstance(part, Run):
                    yield path, reader, part


def _text(rng: random.Random) -> str:
    """Header keys with what JSON must escape: quotes, backslashes, controls, DEL, non-ASCII, astral."""
    pool = ['"', "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "\x80", "é", "中", "\u2028", "\uffff",
            "😀", "\U0010ffff", "a", "Z", " ", "~", "/"]
    return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 8)))


def _bytes(rng: random.Random) -> bytes | None:
    """Bytes that are often almost UTF-8: cut, overlong, surrogate and out-of-range sequences among text."""
    if rng.random() < 0.2:
        return None
    pool = [b"a", b"\n", b"\x00", b"\x7f", b"\xc2\x85", b"\xc3\xa9", b"\xe4\xb8\xad", b"\xf0\x9f\x98\x80", b"\xe4\xb8",
            b"\xe4", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xf0\x80", b"\xff", b"\x80", b"\xbf\xbf",
            # what repr escapes or quotes differently: quotes, backslashes, characters Python does not print
            b"'", b'"', b"\\", b"\t", b"\xc2\xa0", b"\xc2\xad", b"\xe2\x80\xa8", b"\xef\xbf\xbf", b"\xf3\xa0\x80\x81",
            b"\xcd\xb8", b"\xf0\x90\x80\x80"]
    parts = rng.randrange(0, 9) if rng.random() < 0.8 else rng.randrange(20, 60)  # some past the 40-byte cut
    return b"".join(rng.choice(pool) if rng.random() < 0.7 else bytes([rng.randrange(256)]) for _ in range(parts))


def _table(rng: random.Random, n: int) -> pa.Table:
    ints = [-(2 ** 63), 2 ** 63 - 1, -1, 0, 9, 10, 99, 100, 1700000000000]
    rows = {name: [] for name in SCHEMA.names}
    for _ in range(n):
        for name in SCHEMA.names:
            rows[name].append(None)
        rows["offset"][-1] = rng.choice([*ints, rng.randrange(-2 ** 63, 2 ** 63)])
        rows["timestamp"][-1] = rng.choice(ints)
        rows["sequence"][-1] = rng.choice([-(2 ** 31), 2 ** 31 - 1, -1, 0, 7])
        rows["key"][-1] = _bytes(rng)
        rows["value"][-1] = _bytes(rng)
        rows["headers"][-1] = [{"key": _text(rng), "value": _bytes(rng)} for _ in range(rng.randrange(0, 4))]
        rows["control_type"][-1] = rng.choice([None, None, "COMMIT", "ABORT", "LEADER_CHANGE"])
    return pa.table(rows, schema=SCHEMA)


@pytest.mark.parametrize("seed", range(20))
def test_escapes_integers_nulls_and_slices_as_json_dumps(seed):
    rng = random.Random(seed)
    table = _table(rng, 60)
    # a slice whose arrays start past their buffers' first row, as the fast path's batches do
    start = rng.randrange(0, 20)
    part = table.slice(start, 40)
    text, starts = json_lines.record_lines(part)
    records = TableRecords(part, 0, part.num_rows)
    assert bytes(text).decode("ascii") == _reference(records)
    assert [bytes(text[starts[i]:starts[i + 1]]).decode() for i in range(3)] == \
        [dumps(record_json(r)) + "\n" for r in records[:3]]
    # text lines are written compiled for data records only (control records: record_text alone)
    data = part.set_column(part.schema.get_field_index("control_type"), "control_type",
                           pa.nulls(part.num_rows, pa.string()))
    for full in (False, True):
        text, starts = text_lines.record_lines(data, full)
        expected = "".join(record_text(r, full) + "\n" for r in TableRecords(data, 0, data.num_rows))
        assert bytes(text).decode("utf-8") == expected, full
    for ts_type, magic in (("CreateTime", 2), ("LogAppendTime", 2)):
        text, starts = kafka_lines.record_lines(part, ts_type)
        batch = Batch(position=0, size=0, magic=magic, base_offset=0, last_offset=0, count=None, compression="none",
                      crc=0, crc_valid=True, timestamp_type=ts_type, max_timestamp=0, producer_id=-1,
                      producer_epoch=-1, base_sequence=-1, last_sequence=-1, partition_leader_epoch=0,
                      is_transactional=False, is_control=False, delete_horizon_ms=None)
        assert bytes(text).decode("utf-8") == "".join(kafka_dump_log.record_line(batch, r) + "\n" for r in records)


def _long_table(rng: random.Random, n: int) -> pa.Table:
    """Rows whose keys, values and header keys are long (what `_bytes` and `_text` make, repeated): their lines
    outgrow the writers' first buffer many times over."""
    table = _table(rng, n)
    values = [None if rng.random() < 0.1 else (_bytes(rng) or b"x") * rng.randrange(40, 400) for _ in range(n)]
    keys = [None if rng.random() < 0.1 else (_bytes(rng) or b"k") * rng.randrange(1, 60) for _ in range(n)]
    headers = [[{"key": _text(rng) * rng.randrange(1, 40), "value": _bytes(rng)} for _ in range(rng.randrange(0, 6))]
               for _ in range(n)]
    table = table.set_column(table.schema.get_field_index("value"), "value", pa.array(values, pa.binary()))
    table = table.set_column(table.schema.get_field_index("key"), "key", pa.array(keys, pa.binary()))
    return table.set_column(table.schema.get_field_index("headers"), "headers",
                            pa.array(headers, SCHEMA.field("headers").type))


def test_lines_longer_than_the_first_buffer_are_the_one_record_printers():
    """The compiled writers grow their buffer as they go: lines of long keys, values and header keys, many times
    the first buffer, in a table of two chunks, are still the bytes of the one-record printers, in every format."""
    rng = random.Random(33)
    # two chunks, sliced across both, as a run's table comes: each chunk written where the last ended
    table = pa.concat_tables([_long_table(rng, 200), _long_table(rng, 200)]).slice(7, 380)
    assert table.column("value").num_chunks == 2
    records = TableRecords(table, 0, table.num_rows)
    text, starts = json_lines.record_lines(table)
    assert len(text) > 1 << 20 and starts[-1] == len(text)
    assert bytes(text).decode("ascii") == _reference(records)
    data = table.set_column(table.schema.get_field_index("control_type"), "control_type",
                            pa.nulls(table.num_rows, pa.string()))
    for full in (False, True):
        text, starts = text_lines.record_lines(data, full)
        assert starts[-1] == len(text)
        assert bytes(text).decode("utf-8") == "".join(record_text(r, full) + "\n"
                                                      for r in TableRecords(data, 0, data.num_rows)), full
    text, starts = kafka_lines.record_lines(table, "CreateTime")
    assert len(text) > 1 << 20 and starts[-1] == len(text)
    batch = Batch(position=0, size=0, magic=2, base_offset=0, last_offset=0, count=None, compression="none", crc=0,
                  crc_valid=True, timestamp_type="CreateTime", max_timestamp=0, producer_id=-1, producer_epoch=-1,
                  base_sequence=-1, last_sequence=-1, partition_leader_epoch=0, is_transactional=False,
                  is_control=False, delete_horizon_ms=None)
    assert bytes(text).decode("utf-8") == "".join(kafka_dump_log.record_line(batch, r) + "\n" for r in records)
    crc = np.array([rng.randrange(2 ** 32) for _ in range(table.num_rows)], dtype=np.int64)
    valid = np.array([rng.random() < 0.5 for _ in range(table.num_rows)])
    legacy = dataclasses.replace(batch, magic=1)
    for brace, version in ((True, "3.9"), (False, "4.4")):
        text = kafka_lines.legacy_record_lines(table, "CreateTime", crc, valid, brace)
        assert bytes(text).decode("utf-8") == "".join(
            kafka_dump_log.record_line(legacy, r, (int(crc[n]), bool(valid[n])), version) + "\n"
            for n, r in enumerate(records))


LINE_WRITERS = """
import pyarrow as pa
from kafkalog.dump import kafka_dump_log, records
from kafkalog.fast import json_lines, kafka_lines, text_lines
from kafkalog.fast.columns import SCHEMA
rows = {name: [None] * 3 for name in SCHEMA.names}
rows.update(offset=[0, 1, 2], timestamp=[5, 6, 7], sequence=[-1, 0, 1], key=[b"k", None, b"\\xed\\xa0\\x80"],
            value=[b"v" * 50, b"w", None], headers=[[], [{"key": "h", "value": b"x"}], []])
table = pa.table(rows, schema=SCHEMA)
assert records.json_run_lines() and records.text_run_lines(False) and kafka_dump_log.run_lines()
written = [json_lines.record_lines(table)[0], text_lines.record_lines(table, False)[0],
           kafka_lines.record_lines(table, "CreateTime")[0]]
print(sum(len(w) for w in written))
"""


def test_the_line_writers_write_nothing_into_the_home_or_cache_directory(tmp_path):
    """dump's line writers are compiled at install (issue 33): writing every format compiles and caches
    nothing at run time."""
    assert int(run_in_empty_home(LINE_WRITERS, tmp_path).stdout) > 500


def test_the_command_writes_the_same_lines_to_a_text_and_a_binary_stream(monkeypatch):
    path = SAMPLES / "v2-gzip.log"
    text = io.StringIO()
    monkeypatch.setattr(sys, "stdout", text)
    assert cli.main(["dump", "--format", "json", str(path)]) == 0
    raw = io.BytesIO()
    binary = io.TextIOWrapper(raw, encoding="utf-8")
    binary.write("before\n")
    monkeypatch.setattr(sys, "stdout", binary)
    assert cli.main(["dump", "--format", "json", str(path)]) == 0
    binary.flush()
    assert raw.getvalue().decode() == "before\n" + text.getvalue()
    with SegmentReader(path) as reader:
        records = [r for b in reader for r in b.records]
    assert all(dumps(record_json(r)) in text.getvalue() for r in records)


_TEMPLATES = {"json": (batch_lines.JSON_BATCH, batch_json_line), "text": (batch_lines.TEXT_BATCH, batch_text),
              "kafka": (batch_lines.KAFKA_BATCH, kafka_dump_log.batch_line)}


def _batch_lines(items) -> dict[str, list[str]] | None:
    fields = batch_lines.fields(items)
    if fields is None:
        return None
    out = {}
    for name, (steps, _) in _TEMPLATES.items():
        text, starts = batch_lines.batch_lines(batch_lines.Template.of(steps), fields)
        out[name] = [bytes(text[starts[i]:starts[i + 1]]).decode("ascii") for i in range(len(items))]
    return out


def test_batch_lines_are_the_one_batch_printers():
    """Every plain v2 batch of every fixture, through the kernels: its line from the parts, in each format, is
    the line of the one-batch printer of its `Batch`."""
    checked = 0
    for path, reader, part in _plain_runs():
        got = _batch_lines(part.items)
        assert got is not None, path
        for i, batch in enumerate(reader._plain_batches(part)):
            for name, (_, printer) in _TEMPLATES.items():
                assert got[name][i] == printer(batch) + "\n", (path, batch.position, name)
            checked += 1
    assert checked > 400


@pytest.mark.parametrize("seed", range(3))
def test_batch_lines_take_every_branch_of_the_header(seed):
    """Headers made to take every branch (delete horizons, LogAppendTime, transactions, control batches, every
    codec, sequences that wrap, Java's extremes), each line against the one-batch printer of `runs.batch_of`."""
    rng = random.Random(seed)
    with SegmentReader(SAMPLES / "v2-none.log") as reader:
        run = next(p for p in batch_runs(reader) if isinstance(p, Run))
    n = 200
    h = np.repeat(run.items.header[:1], n, axis=0)
    longs = [-(2 ** 63), 2 ** 63 - 1, -1, 0, 1700000000000]
    for row in h:
        row[k.KAFKA_RECORD_BATCH__BASE_OFFSET] = rng.choice([*longs, rng.randrange(-2 ** 63, 2 ** 63)])
        row[k.KAFKA_RECORD_BATCH__LAST_OFFSET_DELTA] = rng.choice([0, 1, 2 ** 31 - 1, rng.randrange(2 ** 31)])
        row[k.KAFKA_RECORD_BATCH__BASE_SEQUENCE] = rng.choice([-1, 0, 2 ** 31 - 1, 2 ** 31 - 5, rng.randrange(2 ** 31)])
        row[k.KAFKA_RECORD_BATCH__PRODUCER_ID] = rng.choice(longs)
        row[k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH] = rng.choice([-1, 0, 2 ** 15 - 1, -(2 ** 15)])
        row[k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH] = rng.choice([-1, 0, 2 ** 31 - 1, -(2 ** 31)])
        row[k.KAFKA_RECORD_BATCH__MAX_TIMESTAMP] = rng.choice(longs)
        row[k.KAFKA_RECORD_BATCH__BASE_TIMESTAMP] = rng.choice(longs)
        row[k.KAFKA_RECORD_BATCH__CRC] = rng.choice([0, 2 ** 32 - 1, rng.randrange(2 ** 32)])
        row[k.KAFKA_RECORD_BATCH__NUM_RECORDS] = rng.choice([0, 1, 2 ** 31 - 1, -1])
        row[k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION] = rng.randrange(5)
        for flag in (k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE, k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL,
                     k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL, k.KAFKA_RECORD_BATCH__ATTRIBUTES__HAS_DELETE_HORIZON):
            row[flag] = rng.randrange(2)
    zeros = np.zeros(n, dtype=np.int64)
    position = np.array([rng.choice([0, 2 ** 31 - 1, rng.randrange(2 ** 31)]) for _ in range(n)], dtype=np.int64)
    size = np.array([rng.randrange(61, 2 ** 31) for _ in range(n)], dtype=np.int64)
    items = Items(position, size, zeros + 2, h[:, k.KAFKA_RECORD_BATCH__BASE_OFFSET], zeros, zeros, h, {})
    got = _batch_lines(items)
    for i in range(n):
        batch = runs.batch_of(items[i], "x")
        for name, (_, printer) in _TEMPLATES.items():
            assert got[name][i] == printer(batch) + "\n", (name, i, h[i].tolist())


def test_a_run_is_printed_whole_as_batch_by_batch(monkeypatch):
    """`dump` of every fixture through the kernels, in every format: runs of plain batches written whole (their
    batch lines from the parts) print the bytes the batch-by-batch printers print."""
    monkeypatch.setattr(cli, "FAST_PATH_MIN_BYTES", 0)
    whole_runs = 0
    real = run_lines.RunLines.whole

    def counted(self, run):
        nonlocal whole_runs
        text = real(self, run)
        whole_runs += text is not None
        return text
    for args in (["--format", "json"], ["--format", "text"], ["--format", "text", "--full"], ["--format", "kafka"]):
        for path in FILES:
            monkeypatch.setattr(run_lines.RunLines, "whole", counted)
            whole = _command_output(monkeypatch, [*args, str(path)])
            monkeypatch.setattr(run_lines.RunLines, "whole", lambda self, run: None)
            assert whole == _command_output(monkeypatch, [*args, str(path)]), (args, path)
    assert whole_runs > 100


def _command_output(monkeypatch, args: list[str]) -> tuple[int, bytes]:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    status = cli.main(["dump", "--threads", "1", *args])
    out.flush()
    return status, raw.getvalue()


def test_without_the_compiled_writers_dump_prints_the_same_lines_record_by_record(monkeypatch):
    """An install that did not build `kafkalog.fast.lines` (a source tree never installed) prints every record with
    the one-record printers: the same bytes, in every format, the legacy wrappers' lines included."""
    from kafkalog.fast import line_parts

    monkeypatch.setattr(cli, "FAST_PATH_MIN_BYTES", 0)
    paths = [p for p in FILES if p.parent == SAMPLES]
    assert any(p.name.startswith("v1-") for p in paths) and any(p.name.startswith("v2-") for p in paths)
    for args in (["--format", "json"], ["--format", "text"], ["--format", "kafka"],
                 ["--format", "kafka", "--kafka-version", "3.9"]):
        for path in paths:
            compiled = _command_output(monkeypatch, [*args, str(path)])
            monkeypatch.setattr(line_parts, "AVAILABLE", False)
            assert compiled == _command_output(monkeypatch, [*args, str(path)]), (args, path)
            monkeypatch.setattr(line_parts, "AVAILABLE", True)


@pytest.mark.parametrize(("budget", "rows"), [(1, 8192), (700, 3), (50_000, 8192), (1 << 20, 1), (0, 8192)])
def test_blocks_of_rows_are_the_lines_of_the_whole_table(budget, rows):
    """A run's lines a block at a time (`record_blocks`: from a row, at most `rows` rows, up to the row that brings
    them to `budget` bytes; 0: no bound), block after block, are the whole table's lines, each block's starts
    those of its lines, in every format: on a table of two chunks, sliced across both."""
    rng = random.Random(budget + rows)
    table = pa.concat_tables([_long_table(rng, 60), _table(rng, 60)]).slice(5, 110)
    data = table.set_column(table.schema.get_field_index("control_type"), "control_type",
                            pa.nulls(table.num_rows, pa.string()))
    writers = [(json_lines.record_lines(table), json_lines.record_blocks(table)),
               (text_lines.record_lines(data, False), text_lines.record_blocks(data, False)),
               (text_lines.record_lines(data, True), text_lines.record_blocks(data, True)),
               (kafka_lines.record_lines(table, "LogAppendTime"), kafka_lines.record_blocks(table, "LogAppendTime"))]
    for (whole, whole_starts), blocks in writers:
        got, first, calls = b"", 0, 0
        while first < table.num_rows:
            text, starts, written, batch = blocks(first, min(rows, table.num_rows - first), budget, 0)
            assert batch == 0  # (no batch lines)
            assert 1 <= written <= rows
            assert budget < 1 or written == 1 or starts[written - 1] < budget  # (stopped at the row past the budget)
            assert starts[0] == 0 and starts[written] == len(text)
            assert list(np.diff(starts[:written + 1])) == list(np.diff(whole_starts[first:first + written + 1]))
            got += bytes(text)
            first += written
            calls += 1
        assert got == bytes(whole)
        assert calls > 1 or (budget < 1 and rows >= table.num_rows)


@pytest.mark.parametrize(("block_bytes", "block_rows"), [(1, 8192), (300, 2), (batch_lines.BLOCK_BYTES, 1),
                                                         (batch_lines.BLOCK_BYTES, batch_lines.BLOCK_ROWS)])
def test_a_run_written_a_block_at_a_time_is_its_batches_lines(monkeypatch, block_bytes, block_rows):
    """Every run of plain batches of every fixture, written whole (`RunLines.whole`) in blocks that end anywhere,
    inside a batch's records too: each batch's line, then its records', as the one-batch and one-record printers
    write them, in every format."""
    monkeypatch.setattr(batch_lines, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(batch_lines, "BLOCK_ROWS", block_rows)
    json, text, full, kafka = json_run_lines(), text_run_lines(False), text_run_lines(True), kafka_dump_log.run_lines()
    checked = 0
    for path, reader, part in _plain_runs():
        batches = list(reader._plain_batches(part))
        expected = {
            "json": "".join(batch_json_line(b) + "\n" + _reference(b.records) for b in batches),
            "text": "".join(batch_text(b) + "\n" + "".join(record_text(r) + "\n" for r in b.records)
                            for b in batches),
            "full": "".join(batch_text(b) + "\n" + "".join(record_text(r, True) + "\n" for r in b.records)
                            for b in batches),
            "kafka": "".join(kafka_dump_log.batch_line(b) + "\n"
                             + "".join(kafka_dump_log.record_line(b, r) + "\n" for r in b.records)
                             for b in batches)}
        for name, lines in (("json", json), ("text", text), ("full", full), ("kafka", kafka)):
            views = lines.whole(part)
            if views is None:
                continue
            assert b"".join(views).decode("utf-8") == expected[name], (path, name)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("seed", range(6))
def test_batch_lines_go_among_the_records_lines_block_by_block(seed):
    """A run's batch lines (`line_parts.BatchLines`) are written each before its batch's first record's line, in
    blocks that end anywhere, batches of no records too (first, among others and last): the lines a batch at a time."""
    rng = random.Random(seed)
    table = pa.concat_tables([_long_table(rng, 30), _table(rng, 50)]).slice(3, 70)
    data = table.set_column(table.schema.get_field_index("control_type"), "control_type",
                            pa.nulls(table.num_rows, pa.string()))
    cuts = sorted([0, 0, table.num_rows, *(rng.randrange(table.num_rows + 1) for _ in range(12))])
    if seed % 2:
        cuts.append(table.num_rows)  # a batch of no records after every row
    row_start, row_end = cuts[:-1], cuts[1:]
    spans = list(zip(row_start, row_end, strict=True))
    lines = [f"batch {i} of rows {a} to {b}\n".encode() for i, (a, b) in enumerate(spans)]
    batches = line_parts.BatchLines(np.frombuffer(b"".join(lines), dtype=np.uint8),
                                    np.cumsum([0, *map(len, lines)], dtype=np.int64),
                                    np.array(row_start, dtype=np.int64))
    for whole, blocks in [(json_lines.record_lines(table), json_lines.record_blocks(table, batches=batches)),
                          (text_lines.record_lines(data, False), text_lines.record_blocks(data, False, batches)),
                          (kafka_lines.record_lines(table, "CreateTime"),
                           kafka_lines.record_blocks(table, "CreateTime", batches))]:
        text, starts = whole
        expected = b"".join(lines[i] + bytes(text[starts[a]:starts[b]]) for i, (a, b) in enumerate(spans))
        for budget, most in ((1, 8192), (2000, 5), (0, 8192)):
            got, first, batch = b"", 0, 0
            while first < table.num_rows or batch < len(lines):
                block, _, written, batch = blocks(first, min(most, table.num_rows - first), budget, batch)
                got += bytes(block)
                first += written
            assert got == expected, budget


@pytest.mark.parametrize(("column", "type_"), [("key", pa.large_binary()), ("value", pa.binary_view()),
                                              ("sequence", pa.int64()), ("offset", pa.int32())])
def test_a_table_whose_columns_are_not_the_fast_paths_is_refused(column, type_):
    """The writers read a run's columns in place (Arrow's C data interface) as the fast path's types: a column of
    another layout is refused with a ValueError naming it, never read as if it were of those."""
    table = _table(random.Random(3), 20)
    other = table.set_column(table.schema.get_field_index(column), column,
                             table.column(column).cast(type_, safe=False))
    for make in (json_lines.record_blocks, lambda t: text_lines.record_blocks(t, False),
                 lambda t: kafka_lines.record_blocks(t, "CreateTime")):
        with pytest.raises(ValueError, match=column):
            make(other)


def test_last_sequences_of_a_run_are_kafkas_increment_sequence():
    """A run's last sequences (`batch_lines.fields`, every batch of a run in one compiled call) are
    `javaint.increment_sequence` (`DefaultRecordBatch.incrementSequence`), at the wrap and around it; a batch of no
    sequence has none; and its last offsets wrap as Java's long does."""
    edges = [0, 1, 2, 5, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 30, -(2 ** 31)]
    rng = random.Random(7)
    pairs = [(s, d) for s in edges for d in [0, 1, 2, 7, 2 ** 31 - 1, 2 ** 31 - 2]]
    pairs += [(rng.randrange(-(2 ** 31), 2 ** 31), rng.randrange(0, 2 ** 31)) for _ in range(2000)]
    pairs += [(-1, 0), (-1, 5)]
    n = len(pairs)
    header = np.zeros((n, k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)
    sequence, delta = zip(*pairs, strict=True)
    header[:, k.KAFKA_RECORD_BATCH__BASE_SEQUENCE], header[:, k.KAFKA_RECORD_BATCH__LAST_OFFSET_DELTA] = sequence, delta
    header[:, k.KAFKA_RECORD_BATCH__BASE_OFFSET] = 2 ** 63 - 3
    zeros = np.zeros(n, dtype=np.int64)
    fields = batch_lines.fields(Items(zeros, zeros, zeros + 2, zeros, zeros, zeros, header, {}))
    assert fields is not None
    row = {name: fields[i].tolist() for i, name in enumerate(batch_lines.FIELDS)}
    assert row["last_sequence"] == [increment_sequence(s, d) if s != -1 else -1 for s, d in pairs]
    assert row["last_offset"] == [(2 ** 63 - 3 + d + 2 ** 63) % 2 ** 64 - 2 ** 63 for _, d in pairs]


def test_integers_at_every_count_of_digits_are_python_s():
    """Offsets, timestamps and sequences at every power of ten and one below it, both signs, and int64's ends: the
    writers' digits (two at a time) are Python's `str`, in every format."""
    rng = random.Random(10)
    values = sorted({s * v for k in range(19) for v in (10 ** k - 1, 10 ** k, 10 ** k + 1) for s in (1, -1)}
                    | {-(2 ** 63), 2 ** 63 - 1})
    table = _table(rng, len(values))
    for name in ("offset", "timestamp"):
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.int64()))
    sequences = [max(-(2 ** 31), min(2 ** 31 - 1, v)) for v in values]
    table = table.set_column(table.schema.get_field_index("sequence"), "sequence", pa.array(sequences, pa.int32()))
    records = TableRecords(table, 0, table.num_rows)
    assert bytes(json_lines.record_lines(table)[0]).decode("ascii") == _reference(records)
    batch = Batch(position=0, size=0, magic=2, base_offset=0, last_offset=0, count=None, compression="none", crc=0,
                  crc_valid=True, timestamp_type="CreateTime", max_timestamp=0, producer_id=-1, producer_epoch=-1,
                  base_sequence=-1, last_sequence=-1, partition_leader_epoch=0, is_transactional=False,
                  is_control=False, delete_horizon_ms=None)
    assert bytes(kafka_lines.record_lines(table, "CreateTime")[0]).decode() == "".join(
        kafka_dump_log.record_line(batch, r) + "\n" for r in records)
