"""Partition directories, segment names and index files, as the dataset reader needs them.

Names and index files are read by kafkalog's own modules (`kafkalog.log.partition`,
`kafkalog.formats.index`, whose slots the generated kernels decode through `kafkalog.fast.index`); what this module
adds is the dataset reader's policy:

- a partition directory is named ``topic-N``; directories Kafka is deleting or moving
  (``-delete``, ``-future``, ``-stray``) are not read when walking a log dir;
- segments are ``<base offset:020d>.log`` (``.log.deleted``, ``.log.cleaned`` and
  ``.log.swap`` leftovers are not segments);
- index entries are only trusted while they increase (and, for the offset index, point inside
  the log): the rest of a damaged index is ignored, never the data.

Files are opened through `kafkalog.dataset.fs`, so the same code reads local paths and URIs.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from kafkalog import file_names
from kafkalog.dataset import fs
from kafkalog.errors import KafkalogError, RemoteObjectError
from kafkalog.file_names import INDEX_SUFFIX, INDEXES_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, parse_partition_dir_name
from kafkalog.formats.index import OffsetIndex, OffsetIndexEntry, TimeIndex, TimeIndexEntry
from kafkalog.log.segment_ranges import range_starts

IndexEntry = OffsetIndexEntry

__all__ = [
    "IndexColumns",
    "IndexEntry",
    "TimeIndexEntry",
    "offset_index_columns",
    "read_time_index",
    "segment_base_offset",
    "topic_partition",
]


def segment_base_offset(name: str) -> int | None:
    """The base offset in a segment file name, None when it is not a Kafka segment name. A Kafka 0.7 segment
    has none here: its offsets are bytes, it has no index to plan with, and it is read whole."""
    if file_names.is_kafka07_name(name):
        return None
    return file_names.base_offset_of(name) if file_names.is_segment_name(name) else None


def topic_partition(directory_name: str, renamed: bool = False) -> tuple[str | None, int | None]:
    """Topic and partition from a ``topic-N`` directory name, (None, None) for any other name; `renamed`: from a
    directory Kafka renamed (``topic-N.<uuid>-delete``, ``-future``, ``-stray``) too. Kafka cuts the topic of a
    ``-delete`` or ``-stray`` name so that the name stays within 255 characters (`LocalLog.logDeleteDirName`):
    the topic is then the name's, a prefix of the topic's."""
    parsed = parse_partition_dir_name(directory_name)
    if parsed is None or (parsed.state is not None and not renamed):
        return None, None
    return parsed.topic, parsed.partition


def renamed_state(directory_name: str) -> str | None:
    """'delete', 'future' or 'stray' for a partition directory Kafka renamed, None for any other name."""
    parsed = parse_partition_dir_name(directory_name)
    return parsed.state if parsed is not None else None


def _index_location(segment_location: str, suffix: str) -> str | None:
    location = segment_location[: -len(LOG_SUFFIX)] + suffix
    found = fs.info(location)
    return None if found is None or found.is_dir else location


#: An Aiven segment's index files, by their names in its manifest.
_AIVEN_INDEXES = {INDEX_SUFFIX: "offset", TIME_INDEX_SUFFIX: "timestamp"}


def _open_index(segment_location: str, suffix: str, private_keys: str | None = None) -> tuple[BinaryIO, str] | None:
    """A segment's index file and its name; an Aiven segment's from its `.indexes` object, decrypted with
    `private_keys` when it is encrypted. None when there is none to trust: missing, or an Aiven index that does
    not read (no key, a wrong key, damage: the segment is then read whole, and reading it reports what is
    wrong)."""
    if file_names.is_manifest_name(segment_location):
        # (imported here: Aiven's objects, which a read of Kafka's own files never loads)
        from kafkalog.remote import aiven_object  # noqa: PLC0415
        from kafkalog.remote.aiven_keys import keyring  # noqa: PLC0415

        name = _AIVEN_INDEXES[suffix]
        try:
            manifest = aiven_object.read_manifest(segment_location, fs.open_object)
            data = aiven_object.read_index(segment_location, name, fs.open_object, keyring(private_keys),
                                           manifest=manifest)
        except RemoteObjectError:
            return None
        where = aiven_object.sibling(segment_location, INDEXES_SUFFIX)
        return (io.BytesIO(data), f"{where} ({name} index)") if data else None
    location = _index_location(segment_location, suffix)
    return None if location is None else (fs.open_binary(location), location)


@dataclass(frozen=True)
class IndexColumns:
    """A segment's trusted offset-index entries as two int64 columns: planning a large segment looks at
    thousands of entries, and makes an `IndexEntry` only of those it uses."""

    offsets: np.ndarray
    positions: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets)

    def entry(self, i: int) -> IndexEntry:
        return IndexEntry(int(self.offsets[i]), int(self.positions[i]))

    def floor(self, offset: int) -> int:
        """The index of the last entry whose offset is <= `offset`, -1 when there is none."""
        return int(np.searchsorted(self.offsets, offset, side="right")) - 1


def offset_index_columns(segment_location: str, base_offset: int, log_size: int,
                         private_keys: str | None = None) -> IndexColumns:
    """The trustworthy entries of a segment's ``.index``: increasing offsets and positions inside the log."""
    opened = _open_index(segment_location, INDEX_SUFFIX, private_keys)
    if opened is None:
        return IndexColumns(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    from kafkalog.fast import index as fast_index  # the fast path: not at the start-up of a command that plans nothing

    f, location = opened
    with f, OffsetIndex(f, base_offset=base_offset, name=location) as index:
        slots = fast_index.entry_columns(index)
    return trusted_offset_entries(slots, base_offset, log_size)


def trusted_offset_entries(slots: np.ndarray, base_offset: int, log_size: int) -> IndexColumns:
    """The trustworthy entries of an offset index's entry columns (`kafkalog.fast.index.entry_columns`)."""
    offsets, positions = base_offset + slots[0], slots[1]
    sound = (offsets >= base_offset) & (positions >= 0) & (positions < log_size)
    sound[1:] &= (offsets[1:] > offsets[:-1]) & (positions[1:] > positions[:-1])
    n = _sound_prefix(sound)
    return IndexColumns(offsets[:n], positions[:n])


def index_cuts(segment_location: str, base_offset: int, log_size: int, range_bytes: int) -> list[int]:
    """Where a segment may be cut into byte ranges of about `range_bytes` to read on threads
    (`kafkalog.log.segment_ranges`): at its offset index's trustworthy entries; [0], one range, when it is no
    larger than two ranges or its index cannot be read (reading the log reports what is wrong)."""
    if log_size <= 2 * range_bytes:
        return [0]
    try:
        index = offset_index_columns(segment_location, base_offset, log_size)
    except (KafkalogError, OSError):
        return [0]
    return range_starts(index.positions, 0, log_size, range_bytes)


def read_time_index(segment_location: str, base_offset: int, private_keys: str | None = None) -> list[TimeIndexEntry]:
    """The trustworthy entries of a segment's ``.timeindex``: increasing timestamps, non-decreasing offsets."""
    opened = _open_index(segment_location, TIME_INDEX_SUFFIX, private_keys)
    if opened is None:
        return []
    from kafkalog.fast import index as fast_index  # (start-up: as above)

    f, location = opened
    with f, TimeIndex(f, base_offset=base_offset, name=location) as index:
        slots = fast_index.entry_columns(index)
    timestamps, offsets = slots[0], base_offset + slots[1]
    sound = offsets >= base_offset
    sound[1:] &= (timestamps[1:] > timestamps[:-1]) & (offsets[1:] >= offsets[:-1])
    n = _sound_prefix(sound)
    return [TimeIndexEntry(t, o) for t, o in zip(timestamps[:n].tolist(), offsets[:n].tolist(), strict=True)]


def _sound_prefix(sound: np.ndarray) -> int:
    """How many entries are trusted: those before the first that is not (the rest of a damaged index is ignored)."""
    bad = np.flatnonzero(~sound)
    return int(bad[0]) if len(bad) else len(sound)
