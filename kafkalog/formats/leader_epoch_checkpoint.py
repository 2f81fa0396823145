"""The `leader-epoch-checkpoint` file: text, read as Kafka's `CheckpointFile` reads it.

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
import re
from dataclasses import dataclass, field

from kafkalog.errors import CorruptStructureError

CURRENT_VERSION = 0

_WHITESPACE = re.compile(r"\s+")


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
    lines = text.splitlines()
    if not lines:
        return LeaderEpochCheckpoint(version=None)
    version = _int(lines[0], 1, path)
    if version != CURRENT_VERSION:
        raise CorruptStructureError(f"unrecognised version {version}, expected {CURRENT_VERSION}", path=path)
    if len(lines) < 2:
        return LeaderEpochCheckpoint(version=version)
    expected = _int(lines[1], 2, path)
    entries = []
    for n, line in enumerate(lines[2:], start=3):
        parts = _WHITESPACE.split(line)
        if len(parts) != 2:
            raise CorruptStructureError(f"line {n}: malformed entry {line!r} (expected 'epoch startOffset')", path=path)
        entries.append(EpochEntry(_int(parts[0], n, path), _int(parts[1], n, path)))
    if len(entries) != expected:
        raise CorruptStructureError(f"expected {expected} entries, found {len(entries)}", path=path)
    return LeaderEpochCheckpoint(version=version, entries=entries)


def read_leader_epoch_checkpoint(path: str | os.PathLike) -> LeaderEpochCheckpoint:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_leader_epoch_checkpoint(f.read(), os.fspath(path))


def _int(text: str, line: int, path: str | None) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise CorruptStructureError(f"line {line}: {text!r} is not a number", path=path) from None
