"""Offset and timestamp lookups in a partition, as the broker does them, reading only what they need.

Offset (`UnifiedLog.read` -> `LogSegment.translateOffset`): the segment with
the largest base offset <= target; in its offset index the entry with the
largest offset <= target; from that entry's byte position, the batch headers
one by one up to the first batch whose last offset >= target (Kafka's
`FileRecords.searchForOffsetFromPosition` reads only headers too); that one
batch is decoded. When the segment ends before the target, the next segment
is searched from its start.

Timestamp (`UnifiedLog.fetchOffsetByTimestamp` -> `LogSegment.findOffsetByTimestamp`):
the first segment whose largest timestamp (its time index's last entry) is
>= target, or the last segment; in its time index the entry with the largest
timestamp <= target; the offset index position for that entry's offset;
from there the first batch whose max timestamp >= target, and in it the first
record whose timestamp >= target.

`bytes_read` in the results counts every byte read from index and log files.
"""
from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import BinaryIO, cast

from kafkalog.formats.framing import (
    HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD,
    MIN_ENTRY_SIZE,
    V2_HEADER_SIZE,
    EntryHeader,
    entry_header,
)
from kafkalog.formats.index import OffsetIndex, OffsetIndexEntry, TimeIndex, TimeIndexEntry
from kafkalog.log.segment import SegmentReader
from kafkalog.log.segment_files import SegmentFiles, segment_for
from kafkalog.model import Batch, Record
from kafkalog.sources import open_path
from kafkalog.uri_path import AnyPath, UriPath


@dataclass
class OffsetLookup:
    """Where an offset is: the segment, the index entry used, the batch and record (None past the end)."""

    target: int
    segment: SegmentFiles | None
    index_entry: OffsetIndexEntry | None
    batch: Batch | None
    record: Record | None
    bytes_read: int
    #: False when the index entry did not match the log (see `kafkalog verify`) and the segment was scanned instead.
    index_consistent: bool = True


@dataclass
class TimestampLookup:
    """The first record whose timestamp >= target (None when there is none)."""

    target: int
    segment: SegmentFiles | None
    time_index_entry: TimeIndexEntry | None
    index_entry: OffsetIndexEntry | None
    batch: Batch | None
    record: Record | None
    bytes_read: int
    index_consistent: bool = True


class CountingFile:
    """A read-only file, on the local disk or behind a URI (`kafkalog.uri_path.UriPath`), that counts the bytes
    read from it (through `read`, all its readers call); `size` is its length."""

    def __init__(self, path: str | os.PathLike[str]):
        # (a local file unbuffered, as it was read before URIs: the readers' small reads are counted as asked)
        self._file: BinaryIO = open_path(path) if isinstance(path, UriPath) else io.FileIO(os.fspath(path), "rb")
        self.size = self._file.seek(0, os.SEEK_END)
        self._file.seek(0)
        self.name = str(path)
        self.bytes_read = 0

    def read(self, n: int | None = -1, /) -> bytes:
        data = self._file.read(-1 if n is None else n)
        assert data is not None  # None only from a non-blocking file
        self.bytes_read += len(data)
        return data

    def seek(self, pos: int, whence: int = os.SEEK_SET, /) -> int:
        return self._file.seek(pos, whence)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _log_of(segment: SegmentFiles) -> AnyPath:
    """The `.log` file of a segment from `log_segments` (the lookups' callers give no others)."""
    assert segment.log is not None, f"segment {segment.base_offset} has no .log file"
    return segment.log


def find_offset(segments: Sequence[SegmentFiles], offset: int) -> OffsetLookup:
    """Find `offset` in a partition's log segments (in base-offset order), as the broker does."""
    first = segment_for(segments, offset)
    total = 0
    consistent = True
    if first is None:  # before the first segment: the log starts later
        first = 0
    for n in range(first, len(segments)):
        segment = segments[n]
        entry = OffsetIndexEntry(segment.base_offset, 0)
        if n == first and segment.index is not None:
            with OffsetIndex(segment.index, base_offset=segment.base_offset) as index:
                entry = index.lookup(offset)
                total += index.bytes_read
        with CountingFile(_log_of(segment)) as counting:
            f, size = cast(BinaryIO, counting), counting.size  # (it reads, seeks and tells: all that they call)
            if not _entry_consistent(f, size, segment, entry, offset):
                entry = OffsetIndexEntry(segment.base_offset, 0)  # a damaged index: scan the segment from its start
                consistent = False
            pos = _scan(f, entry.position, size, lambda header: _last_offset(header) >= offset)
            batch = _decode_at(f, pos, segment) if pos is not None else None
            total += counting.bytes_read
        if batch is not None:
            record = next((r for r in batch.records if r.offset >= offset), None)
            return OffsetLookup(offset, segment, entry, batch, record, total, consistent)
    return OffsetLookup(offset, None, None, None, None, total, consistent)


def find_timestamp(segments: Sequence[SegmentFiles], timestamp: int) -> TimestampLookup:
    """Find the first record at or after `timestamp` in a partition's log segments, as the broker does."""
    total = 0
    consistent = True
    start = len(segments) - 1
    for n, segment in enumerate(segments[:-1]):
        if segment.timeindex is None:
            start = n
            break
        with TimeIndex(segment.timeindex, base_offset=segment.base_offset) as tindex:
            last = tindex.last_entry()
            total += tindex.bytes_read
        if last is not None and last.timestamp >= timestamp:
            start = n
            break
    for n in range(max(start, 0), len(segments)):
        segment = segments[n]
        tentry = TimeIndexEntry(-1, segment.base_offset)
        entry = OffsetIndexEntry(segment.base_offset, 0)
        if n == start:
            if segment.timeindex is not None:
                with TimeIndex(segment.timeindex, base_offset=segment.base_offset) as tindex:
                    tentry = tindex.lookup(timestamp)
                    total += tindex.bytes_read
            if segment.index is not None:
                with OffsetIndex(segment.index, base_offset=segment.base_offset) as index:
                    entry = index.lookup(tentry.offset)
                    total += index.bytes_read
        with CountingFile(_log_of(segment)) as counting:
            f, size = cast(BinaryIO, counting), counting.size  # (it reads, seeks and tells: all that they call)
            if tentry.timestamp > timestamp or not _entry_consistent(f, size, segment, entry, tentry.offset):
                entry = OffsetIndexEntry(segment.base_offset, 0)  # a damaged index: scan the segment from its start
                consistent = False
            pos, found_batch, found_record = entry.position, None, None
            reaches = _reaches(f, segment, timestamp)
            while True:
                at = _scan(f, pos, size, reaches)
                if at is None:
                    break
                found_batch = _decode_at(f, at, segment)
                if found_batch is None:
                    break
                found_record = next((r for r in found_batch.records if r.timestamp >= timestamp), None)
                if found_record is not None:
                    break
                pos = found_batch.end_position  # a batch whose max timestamp no record reaches: go on
            total += counting.bytes_read
        if found_record is not None:
            return TimestampLookup(timestamp, segment, tentry, entry, found_batch, found_record, total, consistent)
    return TimestampLookup(timestamp, None, None, None, None, None, total, consistent)


# -- batch headers -------------------------------------------------------------
@dataclass
class _Header:
    """An entry's header (and a v2 batch's fields up to its max timestamp), read without the entry."""

    position: int
    fields: EntryHeader

    @classmethod
    def read(cls, f: BinaryIO, pos: int, size: int) -> _Header:
        f.seek(pos)
        return cls(pos, entry_header(f.read(min(V2_HEADER_SIZE, size - pos))))

    @property
    def offset(self) -> int:
        return self.fields.base_offset

    @property
    def size(self) -> int:
        return self.fields.len_rest

    @property
    def magic(self) -> int:
        return self.fields.magic


def _reaches(f: BinaryIO, segment: SegmentFiles, timestamp: int) -> Callable[[_Header], bool]:
    """Whether an entry's max timestamp reaches `timestamp` (`_scan`'s test, bound to this segment's file)."""
    return lambda header: _max_timestamp(f, header, segment) >= timestamp


def _scan(f: BinaryIO, pos: int, size: int, wanted: Callable[[_Header], bool]) -> int | None:
    """Position of the first entry from `pos` on whose header satisfies `wanted`, reading headers only."""
    while pos + HEADER_SIZE_UP_TO_MAGIC <= size:
        header = _Header.read(f, pos, size)
        length = header.size
        if length < MIN_ENTRY_SIZE or pos + LOG_OVERHEAD + length > size:
            return None  # damage or the end of a preallocated segment: stop, as Kafka's reader does
        if wanted(header):
            return pos
        pos += LOG_OVERHEAD + length
    return None


def _entry_consistent(f: BinaryIO, size: int, segment: SegmentFiles, entry: OffsetIndexEntry, target: int) -> bool:
    """The cheap checks a lookup makes of the index entry it uses: not past the target, a batch at its
    position whose last offset is the entry's offset (what kafka-dump-log.sh checks)."""
    if entry.position == 0 and entry.offset == segment.base_offset:
        return True  # the default of an empty index, or no entry at or below the target
    if entry.offset > target or not 0 <= entry.position < size:
        return False
    pos = _scan(f, entry.position, size, lambda header: True)
    if pos is None:
        return False
    return _last_offset(_Header.read(f, pos, size)) == entry.offset


def _last_offset(header: _Header) -> int:
    if header.fields.has_v2:
        return header.offset + header.fields.v2.last_offset_delta
    return header.offset  # a legacy entry's offset is its (last inner message's) offset


def _max_timestamp(f: BinaryIO, header: _Header, segment: SegmentFiles) -> int:
    if header.fields.has_v2:
        return header.fields.v2.max_timestamp
    batch = _decode_at(f, header.position, segment)  # legacy: the timestamp needs the message decoded
    return batch.max_timestamp if batch is not None else -1


def _decode_at(f: BinaryIO, pos: int, segment: SegmentFiles) -> Batch | None:
    reader = SegmentReader(f, name=str(segment.log), start=pos, end=pos + 1)
    return next(iter(reader), None)
