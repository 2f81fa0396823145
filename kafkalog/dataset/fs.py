"""Files on the local disk (through the OS) or behind a URI (through `pyarrow.fs`), at a `kafkalog.location.Location`.

A segment is known everywhere in the dataset reader (the `segment` column, the input partitions) by its
location's string: an absolute local path, or a URI such as
``s3://bucket/logs/orders-0/00000000000000000000.log``. The driver lists locations and every executor opens
them again from the string, so nothing unpicklable travels with a task. Every function here takes a
`Location` or that string.
"""
from __future__ import annotations

import fnmatch
import glob as _glob
import os
import re
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

from kafkalog import file_names
from kafkalog.errors import UsageError
from kafkalog.location import Location, broken_link
from kafkalog.uri_path import ReadAheadFile, list_uri, open_uri, split_uri, stat_uri

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class FileInfo:
    #: The location's string: an absolute local path, or the URI.
    location: str
    size: int
    is_dir: bool
    #: When the file was last written (ns; 0 where the filesystem does not say): a preallocated segment a broker
    #: appends to keeps its size.
    mtime_ns: int = 0

    @property
    def where(self) -> Location:
        return Location(self.location)

    @property
    def name(self) -> str:
        return self.where.name


def _split_uri(location: Location) -> tuple[Any, str, str]:  # (pyarrow is untyped)
    """(pyarrow filesystem, path inside it, URI prefix that turns such a path back into a location)."""
    return split_uri(location.text)


def info(location: Location | str) -> FileInfo | None:
    """The file or directory at `location`, None when there is none."""
    location = Location.of(location)
    if not location.is_uri:
        local = location.text
        if os.path.isdir(local):
            return FileInfo(os.path.abspath(local), 0, True)
        if os.path.isfile(local):
            return FileInfo(os.path.abspath(local), os.path.getsize(local), False)
        return None
    found = stat_uri(*_split_uri(location))
    if found.kind == "none":
        return None
    return FileInfo(found.uri, found.size, found.kind == "dir")


def listdir(location: Location | str) -> list[FileInfo]:
    """The entries of a directory, sorted by location."""
    location = Location.of(location)
    if not location.is_uri:
        out = []
        with os.scandir(location.text) as entries:
            for entry in sorted(entries, key=lambda e: e.name):  # (the first broken link named, as dump names it)
                path = os.path.abspath(entry.path)
                broken = broken_link(path)
                if broken is not None:
                    # Refused where Kafka would read it, as dump and verify refuse it; passed by otherwise.
                    if file_names.is_kafka_name(entry.name):
                        raise UsageError(f"{path}: {broken}")
                    continue
                is_dir = entry.is_dir()
                stat = entry.stat()
                out.append(FileInfo(path, 0 if is_dir else stat.st_size, is_dir, stat.st_mtime_ns))
        return sorted(out, key=lambda f: f.location)
    return [FileInfo(e.uri, e.size, e.kind == "dir", e.mtime_ns) for e in list_uri(*_split_uri(location))]


def expand(pattern: Location | str) -> list[FileInfo]:
    """What a path or glob names: the file or directory itself, or every match of the glob."""
    pattern = Location.of(pattern)
    if not is_glob(pattern):
        found = info(pattern)
        return [found] if found is not None else []
    if not pattern.is_uri:
        return [i for i in (info(p) for p in sorted(_glob.glob(pattern.text))) if i is not None]
    # A glob under a URI: list from the deepest directory without glob characters and match
    # component by component (so that `*` does not cross a `/`, as in a shell).
    parts = pattern.text.rstrip("/").split("/")
    fixed = next(i for i, part in enumerate(parts) if _GLOB_CHARS.search(part))
    level = [info("/".join(parts[:fixed]))]
    for part in parts[fixed:]:
        nxt: list[FileInfo | None] = []
        for directory in level:
            if directory is None or not directory.is_dir:
                continue
            nxt.extend(e for e in listdir(directory.location) if fnmatch.fnmatchcase(e.name, part))
        level = nxt
    return sorted((i for i in level if i is not None), key=lambda f: f.location)


def is_glob(pattern: Location | str) -> bool:
    """Whether a path or URI holds glob characters (`*`, `?`, `[`)."""
    return bool(_GLOB_CHARS.search(str(pattern)))


def open_binary(location: Location | str, private_keys: str | None = None) -> BinaryIO:
    """A seekable binary file object for reading `location`; an Aiven remote segment's `.rsm-manifest`
    opens as the segment, read from the `.log` object beside it (`kafkalog.remote.aiven_object`), decrypted
    with `private_keys` (`kafkalog.remote.aiven_keys.keyring`) when it is encrypted."""
    location = Location.of(location)
    if file_names.is_manifest_name(location.text):
        # (imported here: Aiven's objects, which a read of Kafka's own files never loads)
        from kafkalog.remote import aiven_object  # noqa: PLC0415
        from kafkalog.remote.aiven_keys import keyring  # noqa: PLC0415

        return aiven_object.open_segment(location.text, open_object, keyring(private_keys))  # type: ignore[return-value]
    return open_object(location)


def open_object(location: Location | str) -> BinaryIO:
    """The bytes at `location` as they are stored."""
    location = Location.of(location)
    if not location.is_uri:
        return open(location.text, "rb")
    filesystem, path, prefix = _split_uri(location)
    # (a ReadAheadFile reads, seeks, tells and closes as a binary file does: all that its readers call)
    return cast(BinaryIO, ReadAheadFile(open_uri(filesystem, path, prefix), name=prefix + path))


def read_bytes(location: Location | str, start: int = 0, length: int | None = None) -> bytes:
    with open_binary(location) as f:
        f.seek(start)
        return f.read() if length is None else f.read(length)
