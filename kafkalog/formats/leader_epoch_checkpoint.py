"""The `leader-epoch-checkpoint` file: text, read as Kafka's `CheckpointFile` reads it
(`formats.checkpoint_file`).

No spec (the file is text, not bytes with a layout) and no fast-path twin.

    0          <- format version (LeaderEpochCheckpointFile.CURRENT_VERSION)
    3          <- number of entries
    0 0        <- "epoch startOffset", one line per entry
    1 170
    3 337

An empty file, or one that ends after the version line, holds no entries, as
for Kafka. (`server-common/.../CheckpointFile.java`,
`storage/.../checkpoint/LeaderEpochCheckpointFile.java`)
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from kafkalog.formats import text_files
from kafkalog.formats.checkpoint_file import entry_number, parse_checkpoint_lines

CURRENT_VERSION = 0


@dataclass(frozen=True)
class EpochEntry:
    epoch: int
    start_offset: int


@dataclass
class LeaderEpochCheckpoint:
    version: int | None
    entries: list[EpochEntry] = field(default_factory=list)


def parse_leader_epoch_checkpoint(text: str, path: str | None = None) -> LeaderEpochCheckpoint:
    """Parse the file's text; a `CorruptStructureError` (with the 1-based line in its message) where Kafka fails."""
    read = parse_checkpoint_lines(text, 2, "epoch startOffset", path, CURRENT_VERSION)
    entries = [EpochEntry(entry_number(epoch, n, path), entry_number(offset, n, path, text_files.INT64))
               for n, (epoch, offset) in read.entries]
    return LeaderEpochCheckpoint(version=read.version, entries=entries)


def read_leader_epoch_checkpoint(path: str | os.PathLike) -> LeaderEpochCheckpoint:
    return parse_leader_epoch_checkpoint(text_files.read_utf8(path), os.fspath(path))
