"""Offset (`.index`) and time (`.timeindex`) indexes, read as Kafka's `OffsetIndex` and `TimeIndex` do.

Specs: `kafka_offset_index.ksy`, `kafka_time_index.ksy`. Twin: `kafkalog.fast.index` (whole-file reads).

    with OffsetIndex("00000000000000000106.index") as index:
        index.lookup(150)        # OffsetIndexEntry(offset=144, position=5648)
        list(index)              # every entry, absolute offsets

An index is read slot by slot (each slot parsed with the generated parser),
so a lookup touches only the slots its binary search visits: `bytes_read`
counts them.

Where the entries end: Kafka's `AbstractIndex` takes every slot of the file
(`length / entry size`); the active segment's file is preallocated and ends in
zero-filled slots, which kafka-dump-log.sh skips by stopping at the first
entry after entry 0 whose relative offset is 0. kafkalog applies that rule,
and takes an all-zero first slot as an index with no entries (kafka-dump-log.sh
would print it as an entry (base offset, position 0); Kafka never writes that
entry, the first one comes after `index.interval.bytes`):
`len(index)` is the number of entries before that slot (found by a binary
search over the slots, since an index of increasing offsets has all its
zero-offset slots at the end), `unused_slots` the slots after it.
"""
from __future__ import annotations

import errno
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Generic, TypeVar

import numpy as np
from kaitaistruct import KaitaiStream

from kafkalog import file_names
from kafkalog._generated.kafka_offset_index import KafkaOffsetIndex
from kafkalog._generated.kafka_time_index import KafkaTimeIndex
from kafkalog.model import NO_TIMESTAMP
from kafkalog.sources import Source, open_source

OFFSET_ENTRY_SIZE = 8  # OffsetIndex.ENTRY_SIZE
TIME_ENTRY_SIZE = 12  # TimeIndex.ENTRY_SIZE
#: Bytes of slots `first_nonzero_slot` reads at a time: small enough for the allocator to reuse (no fresh pages).
_ZERO_CHECK_BYTES = 64 * 1024

# `<base>.index`, or a remote segment's `<base>-<segment id>.index` (LocalTieredStorage)


@dataclass(frozen=True)
class OffsetIndexEntry:
    """An offset index entry with its absolute offset (Kafka's `OffsetPosition`)."""

    offset: int
    position: int


@dataclass(frozen=True)
class TimeIndexEntry:
    """A time index entry with its absolute offset (Kafka's `TimestampOffset`)."""

    timestamp: int
    offset: int


def base_offset_of(path: str | os.PathLike) -> int:
    """The base offset in a segment file's name (`00000000000000000106.index` -> 106)."""
    name = os.path.basename(os.fspath(path))
    base = file_names.base_offset_of(name)
    if base is None:
        raise ValueError(f"{name}: not a segment file name (20-digit base offset, then a suffix)")
    return base


E = TypeVar("E")


class _Index(Generic[E]):
    entry_size: int
    #: The spec's fields of an entry, in order (each kind of index names its own).
    fields: tuple[str, ...]

    def __init__(self, source: Source, *, base_offset: int | None = None, name: str | None = None):
        self._file, self._owns, default_name = open_source(source)
        self.name = name if name is not None else default_name
        if base_offset is None:
            if self.name is None:
                raise ValueError("base_offset is required when the index has no file name")
            base_offset = base_offset_of(self.name)
        self.base_offset = base_offset
        self._file.seek(0, os.SEEK_END)
        #: Size of the file in bytes.
        self.file_size = self._file.tell()
        #: Slots in the file (Kafka's `maxEntries` for an index opened from disk).
        self.slots = self.file_size // self.entry_size
        #: Bytes after the last whole slot (Kafka's sanity check calls the index corrupt when there are any).
        self.trailing_bytes = self.file_size - self.slots * self.entry_size
        #: Bytes read from the file so far.
        self.bytes_read = 0
        self._entries: int | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns:
            self._file.close()

    # -- slots -------------------------------------------------------------
    def _read_slot(self, n: int):
        self._file.seek(n * self.entry_size)
        data = self._file.read(self.entry_size)
        self.bytes_read += len(data)
        return self._parse_slot(data)

    def _parse_slot(self, data: bytes):
        raise NotImplementedError

    def _relative_offset(self, slot) -> int:
        return slot.relative_offset

    def _entry(self, slot) -> E:
        raise NotImplementedError

    def _is_end(self, n: int) -> bool:
        """Whether slot n is preallocated space: after the first slot, a relative offset of 0 (the
        DumpLogSegments rule); the first slot when it is all zeros (an index with no entries yet)."""
        slot = self._read_slot(n)
        if n == 0:
            return not any(getattr(slot, f) for f in self.fields)
        return self._relative_offset(slot) == 0

    def __len__(self) -> int:
        """The number of entries: slots up to the first preallocated (zero) slot."""
        if self._entries is None:
            if self.slots == 0 or not self._is_end(self.slots - 1):
                self._entries = self.slots
            else:
                lo, hi = 0, self.slots - 1  # slot hi ends the index; find the first slot that does
                while lo < hi:
                    mid = (lo + hi) // 2
                    if self._is_end(mid):
                        hi = mid
                    else:
                        lo = mid + 1
                self._entries = lo
        return self._entries

    @property
    def unused_slots(self) -> int:
        """Slots after the last entry: the zero-filled end of a preallocated index."""
        return self.slots - len(self)

    def entry(self, n: int) -> E:
        if not 0 <= n < len(self):
            raise IndexError(f"entry {n} of an index with {len(self)} entries")
        return self._entry(self._read_slot(n))

    def __iter__(self) -> Iterator[E]:
        """Every entry, read in one pass."""
        count = len(self)
        self._file.seek(0)
        data = self._file.read(count * self.entry_size)
        self.bytes_read += len(data)
        for n in range(count):
            yield self._entry(self._parse_slot(data[n * self.entry_size:(n + 1) * self.entry_size]))

    def slot_bytes(self, count: int | None = None) -> bytes:
        """The bytes of every slot of the file, preallocated ones included (for `kafkalog.fast.index`); or of its
        first `count` slots."""
        self._file.seek(0)
        data = self._file.read(self._count(count) * self.entry_size)
        self.bytes_read += len(data)
        return data

    def slot(self, n: int) -> tuple[int, ...]:
        """Slot `n`'s fields (`fields` order), a preallocated slot as well as an entry, read by the generated parser."""
        slot = self._read_slot(n)
        return tuple(getattr(slot, name) for name in self.fields)

    def first_nonzero_slot(self, start: int) -> int | None:
        """The first slot from `start` on that holds a byte other than zero, or None: whether the end of a
        preallocated index is zero-filled, as Kafka leaves it, checked on its bytes a block at a time (no slot of
        it parsed: a fresh 10 MiB offset index has a million). Of a sparse file on a disk (Kafka preallocates an
        index by setting its length), only the parts that hold data are read: a hole reads as zeros."""
        pos, end = max(start, 0) * self.entry_size, self.slots * self.entry_size
        for data_start, data_end in self._data_parts(pos, end):
            found = self._first_nonzero_byte(data_start, data_end)
            if found is not None:
                return found // self.entry_size
        return None

    def _data_parts(self, pos: int, end: int) -> list[tuple[int, int]]:
        """The parts of bytes `pos` to `end` that may hold data: the whole, unless the file is on a disk whose file
        system says where its holes are (`SEEK_DATA`, `SEEK_HOLE`)."""
        seek_data, seek_hole = getattr(os, "SEEK_DATA", None), getattr(os, "SEEK_HOLE", None)
        try:
            fd = self._file.fileno()
        except (AttributeError, OSError, ValueError):  # (io.UnsupportedOperation is an OSError and a ValueError)
            fd = None
        if fd is None or seek_data is None or seek_hole is None or pos >= end:
            return [(pos, end)]
        parts: list[tuple[int, int]] = []
        try:
            was = os.lseek(fd, 0, os.SEEK_CUR)  # (given back: the buffered file reads on from where it left the fd)
        except OSError:
            return [(pos, end)]
        try:
            while pos < end:
                try:
                    data = os.lseek(fd, pos, seek_data)
                    hole = os.lseek(fd, data, seek_hole) if data < end else end
                except OSError as e:
                    if e.errno == errno.ENXIO:
                        break  # a hole to the end of the file
                    return [*parts, (pos, end)]  # (a file system that cannot say: the rest read whole)
                if data >= end:
                    break
                parts.append((data, min(hole, end)))
                pos = hole
        finally:
            os.lseek(fd, was, os.SEEK_SET)
        return parts

    def _first_nonzero_byte(self, pos: int, end: int) -> int | None:
        """Where the first byte other than zero of bytes `pos` to `end` is, or None."""
        while pos < end:
            self._file.seek(pos)
            data = self._file.read(min(_ZERO_CHECK_BYTES, end - pos))
            self.bytes_read += len(data)
            if not data:
                return None  # (the file shrank under us: no byte left to check)
            values = np.frombuffer(data, dtype=np.uint8)
            if np.count_nonzero(values):
                return pos + int(np.flatnonzero(values)[0])
            pos += len(data)
        return None

    def slot_table(self, count: int | None = None) -> np.ndarray:
        """Every slot of the file (or its first `count`) as the spec's fields by column (`fields`), each slot read
        by the Kaitai parser: the object path's twin of `kafkalog.fast.index.slot_columns`, for small files."""
        count = self._count(count)
        data = self.slot_bytes(count)
        table = np.empty((len(self.fields), count), dtype=np.int64)
        for n in range(count):
            slot = self._parse_slot(data[n * self.entry_size:(n + 1) * self.entry_size])
            table[:, n] = [getattr(slot, name) for name in self.fields]
        return table

    def _count(self, count: int | None) -> int:
        return self.slots if count is None else max(0, min(count, self.slots))

    def entries_of(self, columns: np.ndarray) -> list[E]:
        """Entries from the slots' fields by column (`fields` order), as `kafkalog.fast.index` reads them."""
        return [self._entry(SimpleNamespace(**dict(zip(self.fields, values, strict=True))))
                for values in columns.T.tolist()]

    def last_entry(self) -> E | None:
        count = len(self)
        return self.entry(count - 1) if count else None

    def _largest_lower_bound(self, target: int) -> int:
        """Slot of the largest entry whose key is <= target, or -1 (AbstractIndex.largestLowerBoundSlotFor)."""
        count = len(self)
        if count == 0 or self._key(self.entry(0)) > target:
            return -1
        lo, hi = 0, count - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            key = self._key(self.entry(mid))
            if key > target:
                hi = mid - 1
            elif key < target:
                lo = mid
            else:
                return mid
        return lo

    def _key(self, entry: E) -> int:
        raise NotImplementedError


class OffsetIndex(_Index[OffsetIndexEntry]):
    """A `.index` file: entries (offset, position), offsets absolute."""

    entry_size = OFFSET_ENTRY_SIZE
    #: The spec's fields of an entry, in order.
    fields = ("relative_offset", "ofs_log_entry")

    def _parse_slot(self, data: bytes):
        return KafkaOffsetIndex.IndexEntry(KaitaiStream(io.BytesIO(data)))

    def _entry(self, slot) -> OffsetIndexEntry:
        return OffsetIndexEntry(self.base_offset + slot.relative_offset, slot.ofs_log_entry)

    def _key(self, entry: OffsetIndexEntry) -> int:
        return entry.offset

    def lookup(self, target_offset: int) -> OffsetIndexEntry:
        """The entry with the largest offset <= target, or (base offset, 0) as `OffsetIndex.lookup`."""
        slot = self._largest_lower_bound(target_offset)
        return OffsetIndexEntry(self.base_offset, 0) if slot < 0 else self.entry(slot)


class TimeIndex(_Index[TimeIndexEntry]):
    """A `.timeindex` file: entries (timestamp, offset), offsets absolute."""

    entry_size = TIME_ENTRY_SIZE
    #: The spec's fields of an entry, in order.
    fields = ("timestamp", "relative_offset")

    def _parse_slot(self, data: bytes):
        return KafkaTimeIndex.TimeIndexEntry(KaitaiStream(io.BytesIO(data)))

    def _entry(self, slot) -> TimeIndexEntry:
        return TimeIndexEntry(slot.timestamp, self.base_offset + slot.relative_offset)

    def _key(self, entry: TimeIndexEntry) -> int:
        return entry.timestamp

    def lookup(self, target_timestamp: int) -> TimeIndexEntry:
        """The entry with the largest timestamp <= target, or (-1, base offset) as `TimeIndex.lookup`."""
        slot = self._largest_lower_bound(target_timestamp)
        return TimeIndexEntry(NO_TIMESTAMP, self.base_offset) if slot < 0 else self.entry(slot)
