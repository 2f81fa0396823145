"""What a reader can read from: a path, bytes, or an open seekable binary file."""
from __future__ import annotations

import io
import os
from typing import BinaryIO

Source = str | os.PathLike | bytes | bytearray | memoryview | BinaryIO


def open_source(source: Source) -> tuple[BinaryIO, bool, str | None]:
    """A binary file for `source`, whether the caller must close it, and its name when it has one."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source)), True, None
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), True, os.fspath(source)
    return source, False, getattr(source, "name", None)
