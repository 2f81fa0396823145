"""Kafka's `CheckpointFile` text format, which the leader-epoch checkpoint and the log directory's offset
checkpoints share: read as `CheckpointFile.CheckpointReadBuffer` reads it.

    0          <- format version (each file's CURRENT_VERSION; 0 for all of today's)
    2          <- number of entries
    t 0 20     <- one entry a line, its fields split on whitespace (the file's EntryFormatter)
    t 1 32

Where Kafka fails, a `CorruptStructureError` names the file and the 1-based line:
- a version or count that is not an int (`Integer.parseInt`), or a version other than the file's;
- an entry line with the wrong number of fields, or a field that is not a number;
- a count other than the number of entry lines.

An empty file, or one that ends after the version line, holds no entries, as for Kafka.
(`server-common/.../common/CheckpointFile.java`)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kafkalog.errors import CorruptStructureError
from kafkalog.formats import text_files

CURRENT_VERSION = 0


@dataclass
class CheckpointLines:
    """A checkpoint's version (None for an empty file) and its entry lines, each split into its fields."""

    version: int | None
    #: (1-based line number, fields) of each entry line, in the file's order.
    entries: list[tuple[int, list[str]]] = field(default_factory=list)


def parse_checkpoint_lines(text: str, num_fields: int, shape: str, path: str | None = None,
                           version: int = CURRENT_VERSION) -> CheckpointLines:
    """The version and entry lines of a checkpoint whose entries have `num_fields` fields (`shape` names them,
    for messages: "epoch startOffset")."""
    lines = text_files.lines(text)
    if not lines:
        return CheckpointLines(version=None)
    found = _int(lines[0], 1, path)
    if found != version:
        raise CorruptStructureError(f"line 1: unrecognised version {found}, expected {version}", path=path)
    if len(lines) < 2:
        return CheckpointLines(version=found)
    expected = _int(lines[1], 2, path)
    entries = []
    for n, line in enumerate(lines[2:], start=3):
        parts = text_files.fields(line)
        if len(parts) != num_fields:
            raise CorruptStructureError(f"line {n}: malformed entry {line!r} (expected '{shape}')", path=path)
        entries.append((n, parts))
    if len(entries) != expected:
        raise CorruptStructureError(f"expected {expected} entries (line 2), found {len(entries)}", path=path)
    return CheckpointLines(version=found, entries=entries)


def entry_number(text: str, line: int, path: str | None, bounds: tuple[int, int] = text_files.INT32) -> int:
    """A field of an entry line as `Integer.parseInt` (or `Long.parseLong`, bounds INT64) reads it."""
    value = text_files.java_int(text, bounds)
    if value is None:
        kind = "an int" if bounds == text_files.INT32 else "a long"
        raise CorruptStructureError(f"line {line}: {text!r} is not a number ({kind})", path=path)
    return value


def _int(text: str, line: int, path: str | None) -> int:
    return entry_number(text, line, path)
