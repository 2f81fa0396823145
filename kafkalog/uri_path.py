"""A file or directory behind a URI (``s3://bucket/disks/broker-1/orders-0``), answering as `pathlib.Path` does.

kafkalog's readers of a log directory and its partitions (`kafkalog.log.partition`, `kafkalog.log.log_dir`,
`kafkalog.log.served_log`, `kafkalog.cluster`) walk directories and open files through `pathlib.Path`'s methods.
A `UriPath` answers the same methods (`/`, `name`, `parent`, `iterdir`, `is_dir`, `is_file`, `exists`, `glob`,
`stat().st_size`, `open("rb")`) through `pyarrow.fs`, so that those readers read a broker's disk copied to object
storage as they read it from the local disk. `as_path` gives one for a URI and a `Path` for anything else.

Every `UriPath` walked from one given keeps that one's filesystem (one client, made once), and what a listing
said of each entry (its kind and size): walking a directory costs one listing, not a request per entry. A file
opens as a `ReadAheadFile`, which fetches 8 MiB blocks: the segment reader's small reads are not a request each.

Inside `requests_once()` (a command, a read's planning), what the store said is kept for the whole of it, whoever
asks (a `UriPath`, `kafkalog.dataset.fs`): each directory is listed once, a file or directory a listing named is
known without asking again (kind, size; absent when its directory's listing does not name it), and a file opened
again reuses its handle (opening one asks for its size: a request). Outside it, every call asks the store.

    disk = as_path("s3://bucket/disks/broker-1")
    [p.name for p in disk.iterdir()]          # ['meta.properties', 'orders-0', ...]
    (disk / "orders-0").is_dir()              # True
"""
from __future__ import annotations

import contextlib
import contextvars
import errno
import fnmatch
import os
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
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
class UriEntry:
    """What the store says of a path: its URI, "file", "dir" or "none", its size and modification time (ns, 0
    where the store does not say)."""

    uri: str
    kind: str
    size: int = 0
    mtime_ns: int = 0


#: The most file handles `requests_once` keeps open (each is a path, a size and the client: no connection).
MAX_HANDLES = 256
#: The most bytes of blocks read (`ReadAheadFile`'s) that `requests_once` keeps, the least recently read dropped first.
MAX_KEPT_BYTES = 64 * 1024 * 1024


@dataclass
class _Asked:
    """What the store said during one `requests_once`: listings and entries by URI, file handles by URI."""

    listings: dict[str, list[UriEntry]] = field(default_factory=dict)
    entries: dict[str, UriEntry] = field(default_factory=dict)
    handles: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    blocks: OrderedDict[tuple[str, int, int], bytes] = field(default_factory=OrderedDict)
    kept_bytes: int = 0

    def keep(self, key: tuple[str, int, int], data: bytes) -> None:
        self.blocks[key] = data
        self.kept_bytes += len(data)
        while self.kept_bytes > MAX_KEPT_BYTES and self.blocks:
            _, dropped = self.blocks.popitem(last=False)
            self.kept_bytes -= len(dropped)

    def known(self, uri: str) -> UriEntry | None:
        """An entry asked before, or one its directory's listing answers (absent from it: "none")."""
        if uri in self.entries:
            return self.entries[uri]
        parent, _, _ = uri.rstrip("/").rpartition("/")
        if parent in self.listings:
            return UriEntry(uri, "none")
        return None


_ASKED: contextvars.ContextVar[_Asked | None] = contextvars.ContextVar("kafkalog_uri_requests", default=None)


@contextlib.contextmanager
def requests_once() -> Iterator[None]:
    """Within: what the store said of a directory or file is kept, and asked once (see the module's doc). Nested,
    the outermost one keeps it; files may change meanwhile, so a stream's trigger is one (its next one asks again)."""
    if _ASKED.get() is not None:
        yield
        return
    token = _ASKED.set(_Asked())
    try:
        yield
    finally:
        asked = _ASKED.get()
        _ASKED.reset(token)
        for raw in asked.handles.values() if asked is not None else ():
            with contextlib.suppress(OSError):
                raw.close()


def _entry(prefix: str, info: Any) -> UriEntry:  # (a pyarrow FileInfo)
    from pyarrow import fs as pafs

    kind = ("none" if info.type == pafs.FileType.NotFound
            else "dir" if info.type == pafs.FileType.Directory else "file")
    return UriEntry(prefix + info.path, kind, info.size or 0 if kind == "file" else 0, info.mtime_ns or 0)


def stat_uri(filesystem: Any, path: str, prefix: str) -> UriEntry:
    """What is at `path` in `filesystem` (a request, unless `requests_once` knows it)."""
    path = path.rstrip("/") or path
    asked = _ASKED.get()
    known = asked.known(prefix + path) if asked is not None else None
    if known is not None:
        return known
    found = _entry(prefix, filesystem.get_file_info(path))
    found = UriEntry(prefix + path, found.kind, found.size, found.mtime_ns)
    if asked is not None:
        asked.entries[found.uri] = found
    return found


def list_uri(filesystem: Any, path: str, prefix: str) -> list[UriEntry]:
    """The entries of the directory `path` in `filesystem`, sorted by URI (a listing, unless `requests_once` has
    it). Raises what pyarrow raises where it is no directory."""
    from pyarrow import fs as pafs

    path = path.rstrip("/") or path
    asked = _ASKED.get()
    uri = prefix + path
    if asked is not None and uri in asked.listings:
        return asked.listings[uri]
    infos = filesystem.get_file_info(pafs.FileSelector(path, recursive=False))
    found = sorted((_entry(prefix, i) for i in infos), key=lambda e: e.uri)
    if asked is not None:
        asked.listings[uri] = found
        asked.entries[uri] = UriEntry(uri, "dir")
        asked.entries.update((e.uri, e) for e in found)
    return found


def open_uri(filesystem: Any, path: str, prefix: str) -> Any:
    """`filesystem`'s handle on the file `path` (a pyarrow RandomAccessFile; opening asks the store for its size),
    the one opened before within `requests_once`. Close it with `close_uri`."""
    asked = _ASKED.get()
    uri = prefix + path
    if asked is not None and uri in asked.handles:
        asked.handles.move_to_end(uri)
        return asked.handles[uri]
    raw = filesystem.open_input_file(path)
    if asked is not None:
        asked.handles[uri] = raw
        if len(asked.handles) > MAX_HANDLES:
            _, oldest = asked.handles.popitem(last=False)
            with contextlib.suppress(OSError):
                oldest.close()
    return raw


def _close_uri(uri: str, raw: Any) -> None:
    """Close a handle from `open_uri`, unless `requests_once` keeps it for the next opening."""
    asked = _ASKED.get()
    if asked is None or asked.handles.get(uri) is not raw:
        raw.close()


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
            found = stat_uri(self._filesystem, self._path, self._prefix)
            self._kind, self._size = found.kind, found.size
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
        if self._info() != "dir":
            raise NotADirectoryError(20, "not a directory", self.uri)
        return sorted(self._child(e.uri[len(self._prefix):], e.kind, e.size)
                      for e in list_uri(self._filesystem, self._path, self._prefix))

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
            raw = open_uri(self._filesystem, self._path, self._prefix)
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

    def _read_block(self, n: int, at: int) -> bytes:
        """A block, read once within `requests_once` (a file that several readers open is fetched once)."""
        asked = _ASKED.get()
        if asked is None or self.name is None:
            return self._read_at(n, at)
        key = (self.name, at, n)
        if key in asked.blocks:
            asked.blocks.move_to_end(key)
            return asked.blocks[key]
        data = self._read_at(n, at)
        asked.keep(key, data)
        return data

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
            self._block = self._read_block(min(self._block_size, self._size - start), start)
            offset = self._pos - start
        data = self._block[offset:offset + (end - self._pos)]
        self._pos = end
        return data

    def close(self) -> None:
        _close_uri(self.name or "", self._raw)

    def __enter__(self) -> ReadAheadFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
