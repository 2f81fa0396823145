"""`kafkalog dump --threads`: a large segment printed by readers of its byte ranges at once prints the bytes
one reader prints, in every format, whatever its index says and wherever it is damaged.

"Large" is made small here (ranges of 1 KiB, cut at the offset index's entries of the broker-written
partitions), so that every segment of a few index entries is printed in ranges.
"""
from __future__ import annotations

import io
import sys

import pytest

from kafkalog import cli
from kafkalog.dump import run_lines, segment_lines
from tests.log.partition.partition_expected import DAMAGE, PARTITIONS, count_ranges, damaged_segment

FORMATS = (["--format", "json"], ["--format", "text"], ["--format", "text", "--full"], ["--format", "kafka"],
           ["--format", "kafka", "--shallow"])


def _dump(monkeypatch, capsys, args: list[str]) -> tuple[int, bytes, str]:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    status = cli.main(["dump", *args])
    out.flush()
    return status, raw.getvalue(), capsys.readouterr().err


@pytest.fixture(params=["kernels", "small-input path", "kernels, small blocks"])
def ranged(monkeypatch, request) -> list[int]:
    """Ranges of 1 KiB (`count_ranges`), read by the kernels, or as a small input is (the Kaitai parsers until a
    batch holds many records); and with blocks of lines handed out a few records at a time, as a large batch's are."""
    if request.param.startswith("kernels"):
        monkeypatch.setattr(cli, "FAST_PATH_MIN_BYTES", 0)
    if request.param.endswith("small blocks"):
        monkeypatch.setattr(segment_lines, "BLOCK_BYTES", 64)
        monkeypatch.setattr(segment_lines, "RECORDS_BETWEEN_BLOCKS", 3)
        monkeypatch.setattr(run_lines, "BLOCK_ROWS", 2)
    return count_ranges(monkeypatch, segment_lines)


def _same_as_one_thread(monkeypatch, capsys, ranged, args: list[str]) -> tuple[int, bytes, str]:
    one = _dump(monkeypatch, capsys, [*args, "--threads", "1"])
    assert not ranged
    got = _dump(monkeypatch, capsys, [*args, "--threads", "2"])
    assert got[0] == one[0] and got[2] == one[2]
    assert got[1] == one[1]
    assert ranged and max(ranged) > 2
    return one


@pytest.mark.parametrize("fmt", FORMATS, ids=" ".join)
@pytest.mark.parametrize("name", ["orders-0", "payments-0", "broken-index-0"])
def test_every_partition_prints_the_lines_of_one_thread(monkeypatch, capsys, ranged, name, fmt):
    status, out, _ = _same_as_one_thread(monkeypatch, capsys, ranged, [*fmt, str(PARTITIONS / name)])
    assert status == 0 and out.count(b"\n") > 100


@pytest.mark.parametrize("fmt", FORMATS[:2] + FORMATS[3:4], ids=" ".join)
@pytest.mark.parametrize("damage", DAMAGE)
def test_damage_prints_what_one_thread_prints(monkeypatch, capsys, ranged, tmp_path, damage, fmt):
    log = damaged_segment(tmp_path, damage)
    status, _out, _err = _same_as_one_thread(monkeypatch, capsys, ranged, [*fmt, str(log)])
    assert status == (0 if damage.startswith("index") else 1)
