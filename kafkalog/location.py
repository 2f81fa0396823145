"""Where a file or directory is: a path on the local disk or a URI (``s3://bucket/logs/orders-0/...``).

    Location("/var/lib/kafka/orders-0/00000000000000000000.log").name     # '00000000000000000000.log'
    Location("s3://bucket/orders-0/00000000000000000000.log").parent      # Location('s3://bucket/orders-0')
    Location("s3://bucket/orders-0").join("00000000000000000000.index")

A URI is not a `Path` (`Path("s3://b/k")` is `s3:/b/k`), and a local path is not a URI: a `Location` keeps
the string as it was given (str() gives it back) and answers for both. It is a frozen dataclass over that
string, so it pickles to Spark's executors and sorts as its string does. What is behind a location (listing,
opening) is `kafkalog.dataset.fs`'s: URIs are read through `pyarrow.fs`, local paths through the OS.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

#: A URI's scheme, as `pyarrow.fs.FileSystem.from_uri` takes it (s3://, gs://, hdfs://, file://...).
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def name_suffix(name: str) -> str:
    """A file name's last suffix (`.log`), '' when it has none: as `PurePath.suffix` (before Python 3.14, which
    counts a trailing dot as one)."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


@dataclass(frozen=True, order=True)
class Location:
    """A local path or a URI, as the user (or a listing) gave it."""

    text: str

    @classmethod
    def of(cls, value: str | os.PathLike | Location) -> Location:
        return value if isinstance(value, Location) else cls(os.fspath(value))

    def __str__(self) -> str:
        return self.text

    @property
    def is_uri(self) -> bool:
        """Behind a URI (read through `pyarrow.fs`) rather than on the local disk."""
        return bool(SCHEME.match(self.text))

    @property
    def path(self) -> Path:
        """The local path; a ValueError for a URI (which no `Path` can stand for)."""
        if self.is_uri:
            raise ValueError(f"{self.text}: a URI, not a local path")
        return Path(self.text)

    @property
    def name(self) -> str:
        """The last part: a file's or directory's name, a URI's last key part."""
        if self.is_uri:
            return self.text.rstrip("/").rsplit("/", 1)[-1]
        return os.path.basename(self.text.rstrip(os.sep))

    @property
    def suffix(self) -> str:
        """The name's last suffix (`.log`), '' when it has none: as `PurePath.suffix`."""
        return name_suffix(self.name)

    @property
    def parent(self) -> Location:
        if self.is_uri:
            return Location(self.text.rstrip("/").rsplit("/", 1)[0])
        return Location(os.path.dirname(self.text.rstrip(os.sep)))

    def join(self, name: str) -> Location:
        """The file or directory `name` in this directory."""
        if self.is_uri:
            return Location(f"{self.text.rstrip('/')}/{name}")
        return Location(os.path.join(self.text, name))

    def with_suffix(self, suffix: str) -> Location:
        """The name's last suffix replaced by `suffix` (the index beside a segment, the manifest beside a `.log`)."""
        old = self.suffix
        return Location((self.text[: -len(old)] if old else self.text) + suffix)


def broken_link(path: str | os.PathLike) -> str | None:
    """What is wrong with a local path that is a symbolic link leading nowhere (to nothing, or round a loop of
    links), as a sentence; None for any other path. The OS says only "no such file" or "too many levels"."""
    if not os.path.islink(path):
        return None
    try:
        os.stat(path)
    except FileNotFoundError:
        return f"a symbolic link to {os.readlink(os.fspath(path))}, which does not exist"
    except OSError:
        return "a symbolic link that leads round a loop of links (back to itself), never to a file"
    return None
