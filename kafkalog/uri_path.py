"""A file or directory behind a URI (``s3://bucket/disks/broker-1/orders-0``), answering as `pathlib.Path` does.

kafkalog's readers of a log directory and its partitions (`kafkalog.log.partition`, `kafkalog.log.log_dir`,
`kafkalog.log.served_log`, `kafkalog.cluster`) walk directories and open files through `pathlib.Path`'s methods.
A `UriPath` answers the same methods (`/`, `name`, `parent`, `iterdir`, `is_dir`, `is_file`, `exists`, `glob`,
`stat().st_size`, `open("rb")`) through `pyarrow.fs`, so that those readers read a broker's disk copied to object
storage as they read it from the local disk. `as_path` gives one for a URI and a `Path` for anything else.

Every `UriPath` walked from one given keeps that one's filesystem (one client, made once), and what a listing
said of each entry (its kind and size): walking a directory costs one listing, not a request per entry. A file
opens as a `ReadAheadFile`, which fetches 8 MiB blocks: the segment reader's small reads are not a request each.

    disk = as_path("s3://bucket/disks/broker-1")
    [p.name for p in disk.iterdir()]          # ['meta.properties', 'orders-0', ...]
    (disk / "orders-0").is_dir()              # True
"""
from __future__ import annotations

import errno
import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast
from urllib.parse import urlparse

from kafkalog.location import SCHEME, name_suffix

_GLOB_CHARS = re.compile(r"[*?\[]")
READ_AHEAD_BYTES = 8 * 1024 * 1024


def is_uri(text: str | os.PathLike) -> bool:
    """Whether `text` is a URI (read through `pyarrow.fs`) rather than a local path."""
    return isinstance(text, UriPath) or (isinstance(text, str) and bool(SCHEME.match(text)))


def split_uri(uri: str) -> tuple[Any, str, str]:  # (pyarrow is untyped)
    """(pyarrow filesystem, path inside it, URI prefix that turns such a path back into a URI)."""
    from pyarrow import fs as pafs

    parsed = urlparse(uri)
    filesystem, path = pafs.FileSystem.from_uri(uri)
    # s3://bucket/key -> "bucket/key"; hdfs://host:port/p -> "/p"; file:///p -> "/p"
    if parsed.netloc and path.startswith(parsed.netloc):
        prefix = f"{parsed.scheme}://"
    else:
        prefix = f"{parsed.scheme}://{parsed.netloc}"
    return filesystem, path, prefix


@dataclass(frozen=True)
class UriStat:
    """What `UriPath.stat` answers: the size, as `os.stat_result.st_size`."""

    st_size: int


class UriPath(os.PathLike):
    """A file or directory behind a URI. `str()` and `os.fspath()` give the URI."""

    __slots__ = ("_filesystem", "_kind", "_path", "_prefix", "_size")

    def __init__(self, uri: str, *, _at: tuple[Any, str, str] | None = None, _kind: str | None = None,
                 _size: int = 0):
        filesystem, path, prefix = _at if _at is not None else split_uri(uri)
        self._filesystem = filesystem
        self._path = path.rstrip("/") or path
        self._prefix = prefix
        #: "file", "dir" or "none" once known (from a listing, or asked once).
        self._kind = _kind
        self._size = _size

    def _child(self, path: str, kind: str | None = None, size: int = 0) -> UriPath:
        return UriPath("", _at=(self._filesystem, path, self._prefix), _kind=kind, _size=size)

    # -- names --
    @property
    def uri(self) -> str:
        return self._prefix + self._path

    def __fspath__(self) -> str:
        return self.uri

    def __str__(self) -> str:
        return self.uri

    def __repr__(self) -> str:
        return f"UriPath({self.uri!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UriPath) and other.uri == self.uri

    def __hash__(self) -> int:
        return hash(self.uri)

    def __lt__(self, other: UriPath) -> bool:
        return self.uri < other.uri

    @property
    def name(self) -> str:
        return self._path.rsplit("/", 1)[-1]

    @property
    def suffix(self) -> str:
        return name_suffix(self.name)

    @property
    def stem(self) -> str:
        suffix = self.suffix
        return self.name[: -len(suffix)] if suffix else self.name

    @property
    def parent(self) -> UriPath:
        head = self._path.rsplit("/", 1)[0] if "/" in self._path.strip("/") else self._path
        return self._child(head, "dir")

    def __truediv__(self, name: str) -> UriPath:
        return self._child(f"{self._path}/{name}")

    def joinpath(self, *names: str) -> UriPath:
        out = self
        for name in names:
            out = out / name
        return out

    def with_suffix(self, suffix: str) -> UriPath:
        old = self.suffix
        return self._child((self._path[: -len(old)] if old else self._path) + suffix)

    # -- what is there --
    def _info(self) -> str:
        if self._kind is None:
            from pyarrow import fs as pafs

            found = self._filesystem.get_file_info(self._path)
            self._kind = ("none" if found.type == pafs.FileType.NotFound
                          else "dir" if found.type == pafs.FileType.Directory else "file")
            self._size = found.size or 0
        return self._kind

    def exists(self) -> bool:
        return self._info() != "none"

    def is_dir(self) -> bool:
        return self._info() == "dir"

    def is_file(self) -> bool:
        return self._info() == "file"

    def is_symlink(self) -> bool:
        return False  # (object stores have none)

    def stat(self) -> UriStat:
        if self._info() == "none":
            raise FileNotFoundError(2, "no such file or directory", self.uri)
        return UriStat(self._size)

    def iterdir(self) -> list[UriPath]:
        """The directory's entries (one listing; each entry knows its kind and size)."""
        from pyarrow import fs as pafs

        if self._info() != "dir":
            raise NotADirectoryError(20, "not a directory", self.uri)
        infos = self._filesystem.get_file_info(pafs.FileSelector(self._path, recursive=False))
        return sorted(self._child(i.path, "dir" if i.type == pafs.FileType.Directory else "file", i.size or 0)
                      for i in infos)

    def glob(self, pattern: str) -> list[UriPath]:
        """The entries whose names match `pattern` (one level: no `/` or `**`), as `Path.glob` gives them."""
        if "/" in pattern:
            raise ValueError(f"{pattern}: a pattern of one name only")
        return [p for p in self.iterdir() if fnmatch.fnmatchcase(p.name, pattern)]

    # -- reading --
    def open(self, mode: str = "rb") -> BinaryIO:
        if mode != "rb":
            raise ValueError(f"{self.uri}: opened for reading only ('rb'), not {mode!r}")
        try:
            raw = self._filesystem.open_input_file(self._path)
        except OSError as e:  # (pyarrow's errors name no file: the user is told which)
            raise OSError(e.errno or errno.EIO, f"cannot open it: {e}", self.uri) from None
        # (a ReadAheadFile reads, seeks, tells and closes as a binary file does: all that its readers call)
        return cast(BinaryIO, ReadAheadFile(raw, name=self.uri))

    def read_bytes(self) -> bytes:
        with self.open() as f:
            return f.read()


#: A local path or a path behind a URI.
AnyPath = Path | UriPath


def as_path(value: str | os.PathLike) -> AnyPath:
    """A `UriPath` for a URI (or the `UriPath` given), a `Path` for a local path."""
    if isinstance(value, UriPath):
        return value
    text = os.fspath(value)
    return UriPath(text) if isinstance(text, str) and SCHEME.match(text) else Path(text)


def local_path(path: AnyPath) -> Path:
    """`path`, which the caller reads on the local disk only (a ValueError for a `UriPath`)."""
    if isinstance(path, UriPath):
        raise ValueError(f"{path}: a URI, not a local path")
    return path


def glob_uri(pattern: str) -> list[UriPath]:
    """What a URI with glob characters (`*`, `?`, `[`) names: listed from the deepest directory without them and
    matched component by component (`*` does not cross a `/`, as in a shell); the URI itself when it has none and
    exists."""
    parts = pattern.rstrip("/").split("/")
    fixed = next((i for i, part in enumerate(parts) if _GLOB_CHARS.search(part)), None)
    if fixed is None:
        one = UriPath(pattern)
        return [one] if one.exists() else []
    level = [UriPath("/".join(parts[:fixed]))]
    for part in parts[fixed:]:
        level = [e for d in level if d.is_dir() for e in d.iterdir() if fnmatch.fnmatchcase(e.name, part)]
    return sorted(level)


class ReadAheadFile:
    """A seekable reader over a pyarrow `RandomAccessFile` that fetches big blocks.

    The segment reader reads each entry with two small reads; on an object store
    each read would be a request, so reads are served from an 8 MiB block. Blocks are
    aligned to their size: the reads of an index's binary search, back and forth in
    one block, are one request, not one each.
    """

    def __init__(self, raw: Any, block_size: int = READ_AHEAD_BYTES, name: str | None = None):
        self._raw = raw
        self._size = raw.size()
        self._block_size = block_size
        self._block = b""
        self._block_start = 0
        self._pos = 0
        self.name = name or getattr(raw, "path", None)

    def _read_at(self, n: int, at: int) -> bytes:
        try:
            return cast(bytes, self._raw.read_at(n, at))
        except OSError as e:  # (a store's error mid-read names no file or position: say both)
            raise OSError(e.errno or errno.EIO, f"cannot read bytes {at} to {at + n}: {e}", self.name) from None

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_SET:
            self._pos = offset
        elif whence == os.SEEK_CUR:
            self._pos += offset
        else:
            self._pos = self._size + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:
            n = self._size - self._pos
        end = min(self._pos + n, self._size)
        if end <= self._pos:
            return b""
        offset = self._pos - self._block_start
        if offset < 0 or end > self._block_start + len(self._block):
            if end - self._pos > self._block_size:
                data = self._read_at(end - self._pos, self._pos)
                self._pos = end
                return data
            start = self._pos - self._pos % self._block_size
            if end > start + self._block_size:  # (across two blocks: from here)
                start = self._pos
            self._block_start = start
            self._block = self._read_at(min(self._block_size, self._size - start), start)
            offset = self._pos - start
        data = self._block[offset:offset + (end - self._pos)]
        self._pos = end
        return data

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> ReadAheadFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
