"""Pieces of work done ahead on a pool of threads and handed out in their order, in bounded memory.

    for item in in_order([lambda: read(r) for r in ranges], threads=2, ahead_bytes=AHEAD_BYTES):
        ...   # every item of the first piece, then of the second, ..., as one thread would give them

Each piece is a function that yields (item, size in bytes). The pieces run on `threads` threads, at most
`threads` of them past the one being handed out, each filling a queue of at most `ahead_bytes` (and
always one item, however large): memory is bounded by threads x `ahead_bytes`, whatever the data. What a
piece raises is raised to the consumer where its items would have come. Leaving the iteration early (or
`close()`) stops the threads. `read_arrow` decodes a read's byte ranges this way, and `kafkalog verify`
and `kafkalog dump` a large segment's.
"""
from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

Piece = Callable[[], Iterator[tuple[T, int]]]


def cores() -> int:
    """The cores this process may run on (a container's or a `taskset`'s, where the platform says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


#: The cores, at most 8: each thread's piece holds up to its `ahead_bytes` ahead of the consumer.
DEFAULT_THREADS = min(8, cores())

_DONE = object()


class _Queue:
    """The items of one piece waiting for the consumer: at most `limit` bytes of them (and always one, however
    large), so that a piece ahead can do most of its work while the one before is handed out."""

    def __init__(self, limit: int):
        self.limit = limit
        self.items: deque[tuple[object, int]] = deque()
        self.bytes = 0
        self.changed = threading.Condition()

    def put(self, item: object, size: int, stop: threading.Event) -> bool:
        with self.changed:
            while self.items and self.bytes + size > self.limit:
                if stop.is_set():
                    return False
                self.changed.wait(0.1)
            if stop.is_set():
                return False
            self.items.append((item, size))
            self.bytes += size
            self.changed.notify_all()
            return True

    def get(self) -> object:
        with self.changed:
            while not self.items:
                self.changed.wait()
            item, size = self.items.popleft()
            self.bytes -= size
            self.changed.notify_all()
            return item


def in_order(pieces: Sequence[Piece[T]], threads: int, ahead_bytes: int, name: str = "kafkalog") -> Generator[T]:
    """The items of `pieces`, piece after piece, each piece's work done on one of `threads` threads (named
    `name`-N) while the pieces before it are handed out."""
    queues = [_Queue(ahead_bytes) for _ in pieces]
    stop = threading.Event()

    def fill(piece: Piece[T], out: _Queue) -> None:
        try:
            for item, size in piece():
                if not out.put(item, size, stop):
                    return
        except BaseException as e:  # handed to the consumer, who raises it in order
            out.put(e, 0, stop)
            return
        out.put(_DONE, 0, stop)

    # (imported here: a read on one thread, or of one range, never starts a pool: start-up)
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    pool = ThreadPoolExecutor(threads, thread_name_prefix=name)
    started = 0
    try:
        for i in range(len(pieces)):
            while started < len(pieces) and started <= i + threads:
                pool.submit(fill, pieces[started], queues[started])
                started += 1
            while True:
                item = queues[i].get()
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item  # type: ignore[misc]
    finally:
        stop.set()  # pieces waiting for room see it and return
        pool.shutdown(wait=True, cancel_futures=True)
