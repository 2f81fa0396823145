"""Partition directories, segment names and index files: the little the Spark reader needs.

STOPGAP until the index/partition module of issue 3 lands: everything the
Spark reader knows about directory layout and index files is in this one
module, so that it can be swapped for that module without touching the rest.

- a partition directory is named ``topic-N``; its segments are ``<base offset:020d>.log``
  (``.log.deleted``, ``.log.cleaned`` and ``.log.swap`` leftovers are not segments);
- ``.index``: 8-byte big-endian entries (int32 offset relative to the base offset, int32
  position), ``.timeindex``: 12-byte entries (int64 timestamp, int32 relative offset); both
  preallocated on an active segment, so reading stops at the first zero-filled slot after
  entry 0 (Kafka's `OffsetIndex`/`TimeIndex`);
- entries are only trusted while they increase (and, for the offset index, point inside the
  log): the rest of a damaged index is ignored, never the data.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from kafkalog.spark import fs

SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")
PARTITION_DIR = re.compile(r"^(.+)-(\d+)$")
#: Partition directories Kafka is deleting, or moving between log dirs: not read when walking a log dir.
SKIPPED_DIR = re.compile(r"(-delete|-future|-stray)$")

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")
_READ_CHUNK = 64 * 1024


def segment_base_offset(name: str) -> int | None:
    """The base offset in a segment file name, None when it is not a Kafka segment name."""
    m = SEGMENT_NAME.match(name)
    return int(m.group(1)) if m else None


def topic_partition(directory_name: str) -> tuple[str | None, int | None]:
    """Topic and partition from a ``topic-N`` directory name, (None, None) for any other name."""
    m = PARTITION_DIR.match(directory_name)
    if not m or SKIPPED_DIR.search(directory_name):
        return None, None
    return m.group(1), int(m.group(2))


def is_segment_file(name: str) -> bool:
    return name.endswith(".log")


def skip_directory(name: str) -> bool:
    return bool(SKIPPED_DIR.search(name))


@dataclass(frozen=True)
class IndexEntry:
    offset: int  # absolute
    position: int


@dataclass(frozen=True)
class TimeIndexEntry:
    timestamp: int
    offset: int  # absolute


def _index_path(segment_location: str, suffix: str) -> str:
    return segment_location[: -len(".log")] + suffix


def _read_entries(location: str, entry_size: int):
    """Raw entries of an index file, up to the first zero-filled slot after entry 0."""
    info = fs.info(location)
    if info is None or info.is_dir:
        return
    zero = bytes(entry_size)
    with fs.open_binary(location) as f:
        index = 0
        chunk_entries = _READ_CHUNK // entry_size
        while True:
            chunk = f.read(chunk_entries * entry_size)
            if not chunk:
                return
            for i in range(0, len(chunk) - entry_size + 1, entry_size):
                raw = chunk[i:i + entry_size]
                if index > 0 and raw == zero:
                    return
                yield raw
                index += 1
            if len(chunk) < chunk_entries * entry_size:
                return


def read_offset_index(segment_location: str, base_offset: int, log_size: int) -> list[IndexEntry]:
    """The trustworthy entries of a segment's ``.index``: increasing offsets and positions inside the log."""
    out: list[IndexEntry] = []
    for raw in _read_entries(_index_path(segment_location, ".index"), 8):
        rel, pos = _OFFSET_ENTRY.unpack(raw)
        if rel == 0 and pos == 0 and not out:
            continue  # an empty (all-zero) first slot says nothing
        if rel < 0 or pos < 0 or pos >= log_size:
            break
        if out and (base_offset + rel <= out[-1].offset or pos <= out[-1].position):
            break
        out.append(IndexEntry(base_offset + rel, pos))
    return out


def read_time_index(segment_location: str, base_offset: int) -> list[TimeIndexEntry]:
    """The trustworthy entries of a segment's ``.timeindex``: increasing timestamps, non-decreasing offsets."""
    out: list[TimeIndexEntry] = []
    for raw in _read_entries(_index_path(segment_location, ".timeindex"), 12):
        ts, rel = _TIME_ENTRY.unpack(raw)
        if ts == 0 and rel == 0 and not out:
            continue
        if rel < 0:
            break
        if out and (ts <= out[-1].timestamp or base_offset + rel < out[-1].offset):
            break
        out.append(TimeIndexEntry(ts, base_offset + rel))
    return out
