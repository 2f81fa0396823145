"""What Kafka's small text files have in common: their text, lines, numbers and ids, read as Kafka's Java reads
them.

- Text: UTF-8, refused where it is not, as `Files.newBufferedReader(path, UTF_8)` refuses it.
- Lines: split as `BufferedReader.readLine` splits them, at `\\n`, `\\r` or `\\r\\n`; a last line end
  starts no line.
- Fields: split as `Pattern.compile("\\\\s+").split(line)`: Java's `\\s` (ASCII whitespace), a leading
  empty field kept, trailing empty ones dropped.
- Numbers: `Integer.parseInt` and `Long.parseLong`: an optional sign and decimal digits, nothing else (no
  spaces, no `_`), within the type's range.
- Ids: Kafka's `Uuid.fromString`: URL-safe base64 of 16 bytes; kept in the form `Uuid.toString` writes.

No spec: these files are text, not bytes with a layout.
"""
from __future__ import annotations

import base64
import binascii
import os
import re

from kafkalog.errors import CorruptStructureError
from kafkalog.sources import open_path

#: A text file larger than this is not one Kafka wrote (its checkpoints hold a line per partition of a log
#: directory: a million partitions fit in well under this); reading stops there rather than filling memory.
MAX_TEXT_BYTES = 256 * 1024 * 1024

_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_JAVA_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]+")
_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")
_BASE64_URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")

INT32 = (-(2 ** 31), 2 ** 31 - 1)
INT64 = (-(2 ** 63), 2 ** 63 - 1)


def read_bytes(path: str | os.PathLike) -> bytes:
    """A text file's bytes, refused (CorruptStructureError) past `MAX_TEXT_BYTES`."""
    with open_path(path) as f:
        data = f.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise CorruptStructureError(f"larger than {MAX_TEXT_BYTES} bytes: not a file Kafka writes here",
                                    path=os.fspath(path), position=MAX_TEXT_BYTES)
    return data


def read_utf8(path: str | os.PathLike) -> str:
    """A text file's text, decoded as UTF-8; bytes that are not UTF-8 are a CorruptStructureError at their position."""
    return decode_utf8(read_bytes(path), os.fspath(path))


def decode_utf8(data: bytes, path: str | None = None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptStructureError(f"bytes that are not UTF-8 ({e.reason}); Kafka reads this file as UTF-8",
                                    path=path, position=e.start) from None


def lines(text: str) -> list[str]:
    """The lines `BufferedReader.readLine` returns, one after another."""
    found = _LINE_ENDS.split(text)
    if found and found[-1] == "":
        found.pop()  # the text ended with a line end: no further line
    return found


def fields(line: str) -> list[str]:
    """`line` split on whitespace as Java's `Pattern.split` splits it."""
    parts = _JAVA_WHITESPACE.split(line)
    if len(parts) == 1:
        return parts  # no whitespace: Java gives the line itself, even an empty one
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def java_int(text: str, bounds: tuple[int, int] = INT32) -> int | None:
    """`text` as `Integer.parseInt` (or, with INT64, `Long.parseLong`) reads it; None where Java throws."""
    if _JAVA_INTEGER.fullmatch(text) is None:
        return None
    value = int(text)
    return value if bounds[0] <= value <= bounds[1] else None


def kafka_uuid(text: str) -> str | None:
    """`text` as Kafka's `Uuid.fromString` reads it, in the form `Uuid.toString` writes; None where it throws."""
    if len(text) > 24 or _BASE64_URL.fullmatch(text) is None:
        return None
    body = text.rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 16:
        return None
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


#: Kafka's `Uuid.ZERO_UUID`, as written.
ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"
