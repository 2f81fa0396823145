"""Progress on a terminal: bytes read over the total, on one line of stderr.

    progress = ByteProgress.for_stderr(total_bytes)   # None unless stderr is a terminal
    progress.update(done_bytes, "orders-0/00000000000000000000.log")
    progress.close()                                   # clears the line
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

_INTERVAL = 0.2  # seconds between redraws


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


class ByteProgress:
    """One redrawn line: `label  12.0 MiB / 142.2 MiB (8%)`."""

    def __init__(self, total: int, stream: TextIO):
        self.total = max(total, 0)
        self.stream = stream
        self.base = 0  # bytes of the files already done
        self._last = 0.0

    @classmethod
    def for_stderr(cls, total: int) -> ByteProgress | None:
        """A progress line on stderr when it is a terminal, else None: pipes and logs stay quiet."""
        return cls(total, sys.stderr) if sys.stderr.isatty() else None

    def update(self, done_in_file: int, label: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < _INTERVAL:
            return
        self._last = now
        done = min(self.base + done_in_file, self.total) if self.total else self.base + done_in_file
        percent = f" ({100 * done // self.total}%)" if self.total else ""
        line = f"{label}  {_size(done)} / {_size(self.total)}{percent}"
        self.stream.write("\r\033[K" + line[-200:])
        self.stream.flush()

    def file_done(self, size: int) -> None:
        self.base += size

    def close(self) -> None:
        self.stream.write("\r\033[K")
        self.stream.flush()


class CountProgress:
    """One redrawn line of counts: `restore orders-3  120000 records delivered (41000/s)`."""

    def __init__(self, stream: TextIO, unit: str = "records"):
        self.stream = stream
        self.unit = unit
        self._start = time.monotonic()
        self._last = 0.0

    @classmethod
    def for_stderr(cls, unit: str = "records") -> CountProgress | None:
        """A progress line on stderr when it is a terminal, else None."""
        return cls(sys.stderr, unit) if sys.stderr.isatty() else None

    def update(self, done: int, label: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < _INTERVAL:
            return
        self._last = now
        rate = done / max(now - self._start, 1e-9)
        line = f"{label}  {done} {self.unit} ({rate:.0f}/s)"
        self.stream.write("\r\033[K" + line[-200:])
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\033[K")
        self.stream.flush()
