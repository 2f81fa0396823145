"""`kafkalog dump --format json`'s compiled record lines are the bytes Python's json module writes.

The reference is `kafkalog.dump.records.record_json` through `dumps` (`json.dumps`, ASCII), one record
at a time; `kafkalog.fast.json_lines` writes a run of batches at once from the columns.
"""
from __future__ import annotations

import io
import random
import sys

import pyarrow as pa
import pytest

from kafkalog import cli
from kafkalog.dump.records import JsonRecordLines, dumps, record_json
from kafkalog.fast import json_lines
from kafkalog.fast.columns import SCHEMA
from kafkalog.log.record_list import TableRecords
from kafkalog.log.segment import SegmentReader
from tests.paths import FIXTURES, SAMPLES

FILES = sorted([*SAMPLES.glob("*.log"), *SAMPLES.glob("*/*.log"), *(FIXTURES / "segments").glob("*.log"),
                *(FIXTURES / "partitions").glob("*/*.log"), *(FIXTURES / "internal").glob("*/*.log")])


def _reference(records) -> str:
    return "".join(dumps(record_json(r)) + "\n" for r in records)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_batch_of_every_fixture(path):
    lines = JsonRecordLines()
    compiled = 0
    with SegmentReader(path) as reader:
        for batch in reader:
            got = lines.of(batch, None)
            if got is not None:
                assert str(got, "ascii") == _reference(batch.records), (path, batch.position)
                compiled += len(batch.records)
    assert compiled or not path.stat().st_size or path.name.startswith("damaged"), path


def _text(rng: random.Random) -> str:
    """Header keys with what JSON must escape: quotes, backslashes, controls, DEL, non-ASCII, astral."""
    pool = ['"', "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "\x80", "é", "中", "\u2028", "\uffff",
            "😀", "\U0010ffff", "a", "Z", " ", "~", "/"]
    return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 8)))


def _bytes(rng: random.Random) -> bytes | None:
    return None if rng.random() < 0.2 else bytes(rng.randrange(256) for _ in range(rng.randrange(0, 9)))


def _table(rng: random.Random, n: int) -> pa.Table:
    ints = [-(2 ** 63), 2 ** 63 - 1, -1, 0, 9, 10, 99, 100, 1700000000000]
    rows = {name: [] for name in SCHEMA.names}
    for _ in range(n):
        for name in SCHEMA.names:
            rows[name].append(None)
        rows["offset"][-1] = rng.choice(ints + [rng.randrange(-(2 ** 63), 2 ** 63)])
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
