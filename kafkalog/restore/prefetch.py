"""Reading ahead of the producer: an iterator run on a thread of its own, a few items ahead.

The reader's compiled engine (without the GIL), its file reads and Arrow's work go on while the main thread feeds
librdkafka, and the first topic's reading starts while the target's topics are prepared. What is read ahead is
bounded (`depth` items); an error of the reader is raised in the caller, at the item where it happened, after the
items before it.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_END = object()


class _Failed:
    def __init__(self, error: BaseException):
        self.error = error


class Prefetch(Generic[T]):
    """The items of `items`, read on a thread (started at once) up to `depth` ahead.

    Iterate it once; `close` (or leaving a `with` block) stops the thread, whether or not the items were all read.
    """

    def __init__(self, items: Iterator[T], depth: int = 4):
        self._items = items
        self._box: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="kafkalog-restore-read", daemon=True)
        self._thread.start()

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    return
        except BaseException as e:  # noqa: BLE001  (handed to the caller, raised there)
            self._put(_Failed(e))
            return
        self._put(_END)

    def __iter__(self) -> Iterator[T]:
        while True:
            item = self._box.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item  # type: ignore[misc]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        close = getattr(self._items, "close", None)
        if close is not None:
            close()  # the reader's generator: its files closed now, not at garbage collection

    def __enter__(self) -> Prefetch[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
