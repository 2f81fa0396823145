"""Pieces of work done ahead on a pool of threads and handed out in their order, in bounded memory.

    for item in in_order([lambda: read(r) for r in ranges], threads=2, ahead_bytes=AHEAD_BYTES):
        ...   # every item of the first piece, then of the second, ..., as one thread would give them

Each piece is a function that yields (item, size in bytes). The pieces run on `threads` threads, the consumer's
one of them (it runs the piece it is to hand out when nobody started it, and works ahead while it waits), at most
`threads` of them past the one being handed out, each filling a queue of at most `ahead_bytes` (and
always one item, however large): memory is bounded by threads x `ahead_bytes`, whatever the data. What a
piece raises is raised to the consumer where its items would have come. Leaving the iteration early (or
`close()`) stops the threads and lets go of every piece started. `read_arrow` decodes a read's byte ranges this
way, and `kafkalog verify` and `kafkalog dump` a large segment's.
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

    def put_now(self, item: object, size: int) -> None:
        """`item` in, room or not (the consumer's own work ahead: it never waits for itself)."""
        with self.changed:
            self.items.append((item, size))
            self.bytes += size
            self.changed.notify_all()

    def full(self) -> bool:
        """Whether an item more would have to wait for room (there is one waiting, and `limit` bytes or more)."""
        return bool(self.items) and self.bytes >= self.limit

    def get_nowait(self) -> object:
        """The next item, or `_EMPTY` when none is waiting."""
        with self.changed:
            if not self.items:
                return _EMPTY
            item, size = self.items.popleft()
            self.bytes -= size
            self.changed.notify_all()
            return item

    def get(self) -> object:
        with self.changed:
            while not self.items:
                self.changed.wait()
            item, size = self.items.popleft()
            self.bytes -= size
            self.changed.notify_all()
            return item


def in_order(pieces: Sequence[Piece[T]], threads: int, ahead_bytes: int, name: str = "kafkalog") -> Generator[T]:
    """The items of `pieces`, piece after piece, their work done on `threads` threads: `threads` - 1 of them started
    (named `name`-N) and the consumer's own, which runs a piece nobody has started where it is to be handed out, and
    works ahead on the next one while it waits for a piece another thread is doing.

    (The consumer as one of the threads, not a third runnable thread beside two on two cores: a piece it runs hands
    its items over without a lock, a condition or a wake-up, and it waits only when the others are behind.)"""
    queues = [_Queue(ahead_bytes) for _ in pieces]
    stop = threading.Event()
    claims = _Claims(len(pieces), threads)
    # The pieces the consumer started ahead while waiting, their generators: continued where they are handed out.
    ahead: dict[int, Iterator[tuple[T, int]]] = {}

    def fill(piece: Piece[T], out: _Queue) -> None:
        try:
            for item, size in piece():
                if not out.put(item, size, stop):
                    return
        except BaseException as e:  # handed to the consumer, who raises it in order
            out.put(e, 0, stop)
            return
        out.put(_DONE, 0, stop)

    def work() -> None:
        while (k := claims.take(stop)) is not None:
            fill(pieces[k], queues[k])

    def help_once() -> bool:
        """One item of the piece the consumer works ahead on (the first it takes past the one it waits for) into
        that piece's queue, while the queue has room; False when there is nothing to do but wait."""
        k = next(iter(ahead), None)
        if k is None:
            if (k := claims.take_now()) is None:
                return False
            ahead[k] = iter(pieces[k]())
        elif queues[k].full():
            return False
        got: object
        try:
            got, size = next(ahead[k])
        except StopIteration:
            got, size = _DONE, 0
        except Exception as e:  # noqa: BLE001  (raised where the piece's items would have come, as a thread's)
            got, size = e, 0
        if got is _DONE or isinstance(got, BaseException):
            del ahead[k]
        queues[k].put_now(got, size)  # (never waits: only the consumer takes the items out)
        return True

    # (imported here: a read on one thread, or of one range, never starts a pool: start-up)
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    pool = None
    try:
        for i in range(len(pieces)):
            claims.hand_out(i)
            mine = claims.take_now(i)  # nobody started it: run here
            if pool is None and threads > 1:  # (after the consumer took the first piece)
                pool = ThreadPoolExecutor(threads - 1, thread_name_prefix=name)
                for _ in range(threads - 1):
                    pool.submit(work)
            if mine is not None:
                yield from (item for item, _ in pieces[i]())  # handed out as they come, without a queue
                continue
            queue = queues[i]
            while True:
                item = queue.get_nowait()
                if item is _EMPTY:
                    rest = ahead.pop(i, None)
                    if rest is not None:  # started ahead here, its queue handed out: the rest of it here
                        yield from (item for item, _ in rest)
                        break
                    item = queue.get_nowait() if help_once() else queue.get()
                    if item is _EMPTY:
                        continue
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item  # type: ignore[misc]
    finally:
        stop.set()  # pieces waiting for room, and threads waiting for a piece, see it and return
        claims.wake()
        for rest in ahead.values():
            close = getattr(rest, "close", None)
            if close is not None:
                close()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


_EMPTY = object()


class _Claims:
    """Which pieces are taken, in their order: each by the first thread to ask, at most `threads` past the one
    being handed out (the memory bound)."""

    def __init__(self, count: int, threads: int):
        self.count = count
        self.threads = threads
        self.next = 0  # the first piece nobody took
        self.handed_out = 0  # the piece being handed out
        self.changed = threading.Condition()

    def hand_out(self, i: int) -> None:
        with self.changed:
            self.handed_out = i
            self.changed.notify_all()

    def take_now(self, only: int | None = None) -> int | None:
        """The next piece, if there is one within reach (and it is `only`, when given), else None."""
        with self.changed:
            k = self.next
            if k >= self.count or k > self.handed_out + self.threads or (only is not None and k != only):
                return None
            self.next += 1
            return k

    def take(self, stop: threading.Event) -> int | None:
        """The next piece, once it is within reach; None when there are no more or the consumer left."""
        with self.changed:
            while not stop.is_set() and self.next < self.count and self.next > self.handed_out + self.threads:
                self.changed.wait()
            if stop.is_set() or self.next >= self.count:
                return None
            self.next += 1
            return self.next - 1

    def wake(self) -> None:
        with self.changed:
            self.changed.notify_all()
