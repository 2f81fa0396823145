"""What a reader can read from: a path, bytes, or an open seekable binary file."""
from __future__ import annotations

import io
import os
from typing import BinaryIO, cast

Source = str | os.PathLike | bytes | bytearray | memoryview | BinaryIO


def open_path(path: str | os.PathLike) -> BinaryIO:
    """A path's file opened for reading: a path object through its own `open` (`pathlib.Path`, or a
    `kafkalog.uri_path.UriPath` behind a URI), a string through the OS."""
    opener = getattr(path, "open", None)
    if isinstance(path, os.PathLike) and callable(opener):
        return cast(BinaryIO, opener("rb"))
    return open(path, "rb")


def open_source(source: Source) -> tuple[BinaryIO, bool, str | None]:
    """A binary file for `source`, whether the caller must close it, and its name when it has one."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source)), True, None
    if isinstance(source, (str, os.PathLike)):
        return open_path(source), True, os.fspath(source)
    return source, False, getattr(source, "name", None)
