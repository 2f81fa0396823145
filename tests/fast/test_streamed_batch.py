"""A batch whose records decompress past a window, read a window at a time (`kafkalog.fast.streamed_batch`).

Kafka's reader streams a compressed batch and returns every record, however many. kafkalog reads one
past `max_decompressed_bytes` (and, in `read_arrow`, one past a window of 4 MiB) the same way: a window of
its decompressed records at a time, a record cut at a window's end read again in the next.

Oracles: Kafka's own reading of the hostile fixtures (`tests/fixtures/hostile/index.json`: 40,000,000
records in one gzip batch of 400 KB), and the reading of each batch whole, which the other tests hold to
Kafka's: with windows of a few bytes, every record of every fixture is cut at a window's end somewhere,
and what comes out must not change, damage and its wording included.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pyarrow as pa
import pytest

from kafkalog import cli
from kafkalog.compression import decompression_limit
from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import streamed_batch
from kafkalog.log.segment import SegmentReader
from tests.paths import FIXTURES, ROOT, SAMPLES

HOSTILE = FIXTURES / "hostile"
INDEX = {entry["name"]: entry for entry in json.loads((HOSTILE / "index.json").read_text())}
PAST_THE_LIMIT = HOSTILE / "v2-gzip-past-256mib.log"
FILES = sorted([*SAMPLES.glob("*.log"), *(FIXTURES / "segments").glob("*.log"),
                *(p for p in HOSTILE.glob("*.log") if p != PAST_THE_LIMIT)])
LIMIT_MIB = 256


SMALL = [p for p in FILES if p.parent != HOSTILE]
# Windows of 7 bytes cut every record of the small files; the hostile files' millions of records, 64 KiB (the
# bad deflate block's 4.8 million records in windows: test_a_damaged_batch_read_in_windows_keeps_its_mode).
CASES = [(p, 7) for p in SMALL] + [(p, 1 << 16) for p in FILES
                                   if p.parent == HOSTILE and p.name != "v2-gzip-bad-deflate-block.log"]


@pytest.mark.parametrize(("path", "window"), CASES, ids=lambda c: f"{c.parent.name}/{c.name}" if hasattr(c, "name")
                         else str(c))
def test_small_windows_read_what_the_whole_batch_reads(monkeypatch, path, window):
    whole = read_segment_table(path)
    monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", window)
    assert read_segment_table(path).equals(whole), path
    # and without columns: verify's reading, every record parsed and counted
    with SegmentReader(path) as reader:
        scanned = [(b.position, b.base_offset, b.last_offset, n, controls, [str(d) for d in b.damage])
                   for b, n, controls in reader.scan()]
    monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1 << 30)
    with SegmentReader(path) as reader:
        assert scanned == [(b.position, b.base_offset, b.last_offset, n, controls, [str(d) for d in b.damage])
                           for b, n, controls in reader.scan()]


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"])
def test_a_damaged_batch_read_in_windows_keeps_its_mode(monkeypatch, mode):
    """The bad deflate block ends 4.8 million records in: the rows before it, then the damage, as read whole."""
    path = HOSTILE / "v2-gzip-bad-deflate-block.log"
    if mode == "FAILFAST":
        with pytest.raises(Exception) as whole:
            read_segment_table(path, mode=mode)
        monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1 << 16)
        with pytest.raises(type(whole.value)) as windowed:
            read_segment_table(path, mode=mode)
        assert str(windowed.value) == str(whole.value)
        return
    whole = read_segment_table(path, mode=mode)
    monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1 << 16)
    assert read_segment_table(path, mode=mode).equals(whole)
    assert (whole.num_rows == 0) == (mode == "DROPMALFORMED")


def test_the_object_api_streams_a_batch_only_past_the_limit(monkeypatch):
    path = HOSTILE / "v2-zstd-1m-records.log"
    with SegmentReader(path) as reader:
        (batch,) = list(reader)
        assert len(batch.records) == 1_000_000  # held whole: a sequence
    with decompression_limit(1 << 20), SegmentReader(path) as reader:
        batches = list(reader)
        assert len(batches) == 1 and not batches[0].damage
    with decompression_limit(1 << 20), SegmentReader(path) as reader:
        for batch in reader:
            parts = [len(p) for p in batch.records.parts()]
            assert len(parts) > 1 and sum(parts) == 1_000_000
            with pytest.raises(RuntimeError):
                list(batch.records)  # read once
        assert reader.position == path.stat().st_size and not reader.damage


def _dump(monkeypatch, args: list[str]) -> tuple[int, bytes]:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    code = cli.main(args)
    out.flush()
    return code, raw.getvalue()


@pytest.mark.parametrize(("name", "formats"), [("v2-gzip-1m-records", ("json", "text", "kafka")),
                                               ("v2-zstd-count-2g", ("json", "text", "kafka")),
                                               ("v2-gzip-bad-deflate-block", ("json",))])
def test_dump_prints_a_batch_in_parts_as_one(monkeypatch, name, formats):
    """A batch dumped in parts prints the lines of the batch read whole, its damage after them."""
    path = str(HOSTILE / f"{name}.log")
    for fmt in formats:
        monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1 << 30)
        whole = _dump(monkeypatch, ["dump", "--format", fmt, path])
        monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1 << 16)
        assert _dump(monkeypatch, ["dump", "--format", fmt, path]) == whole, fmt


READ = r"""
import json, resource, sys
import kafkalog
from kafkalog import cli
api, path, sample = sys.argv[1:4]
# the imports and the kernels loaded, the output to nowhere
cli.FAST_PATH_MIN_BYTES = 0
real, sys.stdout = sys.stdout, open("/dev/null", "w")
cli.main(["dump", "--format", "kafka", sample]); kafkalog.read_table(sample)
sys.stdout = real
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if api == "read_arrow":  # (damage would raise: failOnDataLoss is true)
    result = {"records": sum(batch.num_rows for batch in kafkalog.read_arrow(path))}
else:
    code = cli.main(["dump", "--format", "kafka", path])
    sys.stdout.flush()
    result = {"code": code}
result["mib"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(result), file=sys.stderr)
"""


def _read(api: str) -> tuple[dict, int]:
    """(what the reading says, the lines it printed)."""
    proc = subprocess.Popen([sys.executable, "-c", READ, api, str(PAST_THE_LIMIT), str(SAMPLES / "v2-gzip.log")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    lines = 0
    while chunk := proc.stdout.read(1 << 20):
        lines += chunk.count(b"\n")
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err[-3000:]
    return json.loads(err.strip().splitlines()[-1]), lines


def test_read_arrow_reads_every_record_of_a_batch_past_the_limit_in_bounded_memory():
    got, _ = _read("read_arrow")
    assert got["records"] == INDEX["v2-gzip-past-256mib"]["kafka"]["records"] == 40_000_000
    assert got["mib"] < LIMIT_MIB, f"{got['mib']:.0f} MiB above the baseline"


def test_dump_prints_every_record_of_a_batch_past_the_limit_in_bounded_memory():
    got, lines = _read("dump")
    assert got["code"] == 0
    # "Dumping <file>", the batch line, then one line per record Kafka returns
    assert lines == 2 + INDEX["v2-gzip-past-256mib"]["kafka"]["records"]
    assert got["mib"] < LIMIT_MIB, f"{got['mib']:.0f} MiB above the baseline"


def test_a_record_larger_than_the_limit_is_said_to_be(monkeypatch):
    """The one thing the limit still refuses: a record that no window under it holds whole."""
    monkeypatch.setattr(streamed_batch, "WINDOW_BYTES", 1)
    table = read_segment_table(HOSTILE / "v2-gzip-1m-records.log", max_decompressed_bytes=4)
    damage = [d for d in table.column("damage").to_pylist() if d is not None]
    assert len(damage) == 1 and damage[0].startswith("DecompressionLimitError: record 0 of the 1000000 the batch "
                                                     "declares does not parse")
    assert "in the 4 bytes the max_decompressed_bytes limit lets one record take" in damage[0]
    assert table.num_rows == 1 and isinstance(table, pa.Table)
