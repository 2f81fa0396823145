"""A log directory's offset checkpoints: text, read as Kafka's `OffsetCheckpointFile` reads them through
`CheckpointFile` (`formats.checkpoint_file`).

No spec (the file is text, not bytes with a layout) and no fast-path twin.

    0          <- format version (OffsetCheckpointFile.CURRENT_VERSION)
    2          <- number of entries
    t 0 20     <- "topic partition offset", one line per partition
    t 1 32

Four files of a log directory have this format (`file_names.OFFSET_CHECKPOINTS`):

- `replication-offset-checkpoint`: each partition's high watermark;
- `recovery-point-offset-checkpoint`: the offset up to which each log is flushed (recovery starts there);
- `log-start-offset-checkpoint`: each log's start offset, written only where it is above the first segment's
  base offset;
- `cleaner-offset-checkpoint`: how far the cleaner has compacted each compacted log.

A partition named twice keeps its last offset, as the `HashMap` Kafka reads into.
(`storage/.../checkpoint/OffsetCheckpointFile.java`)
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from kafkalog.formats import text_files
from kafkalog.formats.checkpoint_file import entry_number, parse_checkpoint_lines

CURRENT_VERSION = 0

@dataclass
class OffsetCheckpoint:
    """An offset checkpoint: its version (None for an empty file) and an offset per (topic, partition)."""

    version: int | None
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)


def parse_offset_checkpoint(text: str, path: str | None = None) -> OffsetCheckpoint:
    """Parse the file's text; a `CorruptStructureError` (with the 1-based line in its message) where Kafka fails."""
    read = parse_checkpoint_lines(text, 3, "topic partition offset", path, CURRENT_VERSION)
    offsets = {}
    for n, (topic, partition, offset) in read.entries:
        offsets[(topic, entry_number(partition, n, path))] = entry_number(offset, n, path, text_files.INT64)
    return OffsetCheckpoint(version=read.version, offsets=offsets)


def read_offset_checkpoint(path: str | os.PathLike) -> OffsetCheckpoint:
    """Read one of a log directory's offset checkpoints (any of `file_names.OFFSET_CHECKPOINTS`)."""
    return parse_offset_checkpoint(text_files.read_utf8(path), os.fspath(path))
