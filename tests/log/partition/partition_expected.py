"""The Kafka-written partition fixtures (tests/fixtures/partitions) and what their writer recorded.

`expected.json` was written by tests/kafka_writer (PartitionWriter.java, on
Kafka 3.9's jars) together with the files, so it is an account of the files
that does not come from kafkalog.
"""
from __future__ import annotations

import json
import shutil
import struct
from functools import cache
from pathlib import Path
from typing import Any

from tests.paths import FIXTURES

PARTITIONS = FIXTURES / "partitions"
HEALTHY = ("orders-0", "orders-1", "payments-0")
ALL = (*HEALTHY, "broken-index-0")


@cache
def expected() -> dict[str, Any]:
    return json.loads((PARTITIONS / "expected.json").read_text())


def partition(name: str) -> dict[str, Any]:
    return expected()["partitions"][name]


def copy_partition(name: str, tmp_path: Path) -> Path:
    """A scratch copy to damage."""
    return Path(shutil.copytree(PARTITIONS / name, tmp_path / name))


def entry_starts(data: bytes) -> list[int]:
    """Where each entry of a segment's bytes starts, by the size field after its offset (to damage one in the
    middle of a scratch copy)."""
    starts, pos = [], 0
    while pos + 12 <= len(data):
        starts.append(pos)
        pos += 12 + struct.unpack_from(">i", data, pos + 8)[0]
    return starts


def count_ranges(monkeypatch, module) -> list[int]:
    """Large segments made small for `module` (`kafkalog.verify`, `kafkalog.dump.segment_lines`): every segment of a
    few index entries is read in 1 KiB ranges on threads, and the number of ranges of each ranged read is recorded,
    so that a test can see it happened."""
    counts: list[int] = []
    real = module.read_in_ranges

    def read_in_ranges(path, cuts, *args, **kwargs):
        counts.append(len(cuts))
        return real(path, cuts, *args, **kwargs)
    monkeypatch.setattr(module, "RANGE_BYTES", 1024)
    monkeypatch.setattr(module, "read_in_ranges", read_in_ranges)
    return counts


#: The damage `damaged_segment` makes.
DAMAGE = ("length", "crc", "index entry inside a batch", "partial entry at the end")


def damaged_segment(tmp_path: Path, damage: str) -> Path:
    """The `.log` of segment 207 in a scratch copy of orders-0, with one `DAMAGE`: a middle entry's size that
    cannot be (reading stops there), a byte of a middle batch flipped (its checksum fails, reading goes on), the
    index's entry 2 moved 20 bytes into its batch (a range cut there would start inside it), or the last 30 bytes
    cut off."""
    log = copy_partition("orders-0", tmp_path) / "00000000000000000207.log"
    data = bytearray(log.read_bytes())
    starts = entry_starts(data)
    middle = starts[len(starts) // 2]
    if damage == "length":
        struct.pack_into(">i", data, middle + 8, 3)
    elif damage == "crc":
        data[middle + 70] ^= 0xFF
    elif damage == "partial entry at the end":
        data = data[:-30]
    else:
        index = log.with_suffix(".index")
        slots = bytearray(index.read_bytes())
        relative, position = struct.unpack_from(">ii", slots, 16)
        struct.pack_into(">ii", slots, 16, relative, position + 20)
        index.write_bytes(bytes(slots))
    log.write_bytes(bytes(data))
    return log
