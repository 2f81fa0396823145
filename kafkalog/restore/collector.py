"""Python's cyclic garbage collector paused while a restore produces, and given back as it was.

The records' lists and tuples are made by the hundred thousand and hold no cycles: the cyclic collector, run every
few hundred of them, would cost more than the rest of the conversion. CPython has one collector for the whole
process, so the pause is process-wide: restores running at once (in threads of one process, or nested) share one
pause, and the last one out gives the collector back in the state the first one found it (a caller that had
disabled it keeps it disabled).
"""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
#: Pauses open now (restores producing at once).
_open = 0
#: Whether the collector was enabled when the first of them began.
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; on the last open pause's end, put it back as it was before the
    first one."""
    global _open, _was_enabled
    with _lock:
        if _open == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _was_enabled:
                gc.enable()
