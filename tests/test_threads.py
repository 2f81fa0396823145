"""`kafkalog.threads.in_order`: pieces done on threads, one of them the consumer's, handed out in their order, in
bounded memory; what a piece raises comes where its items would have; leaving early stops every piece."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from kafkalog.threads import in_order


def _pieces(counts: list[int], ran: dict[int, str], delay: float = 0.0, size: int = 1):
    def piece(k: int) -> Iterator[tuple[tuple[int, int], int]]:
        ran[k] = threading.current_thread().name
        for j in range(counts[k]):
            if delay:
                time.sleep(delay)
            yield (k, j), size
    return [lambda k=k: piece(k) for k in range(len(counts))]


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_items_come_in_the_pieces_order_and_the_consumer_runs_pieces(threads):
    counts = [3, 0, 5, 1, 7, 2, 4, 6, 3, 1, 0, 2]
    ran: dict[int, str] = {}
    got = list(in_order(_pieces(counts, ran, delay=0.001), threads, ahead_bytes=4))
    assert got == [(k, j) for k, n in enumerate(counts) for j in range(n)]
    assert sorted(ran) == list(range(len(counts)))
    # The consumer's thread is one of the threads: it runs the first piece, and the others start no more than
    # threads - 1 of their own.
    assert ran[0] == threading.current_thread().name
    assert len({name for name in ran.values() if name != threading.current_thread().name}) <= threads - 1


@pytest.mark.parametrize("failing", [0, 1, 4])
def test_what_a_piece_raises_comes_where_its_items_would_have(failing):
    def piece(k: int) -> Iterator[tuple[int, int]]:
        yield k * 10, 1
        if k == failing:
            raise ValueError(f"piece {k}")
        yield k * 10 + 1, 1

    got = []
    with pytest.raises(ValueError, match=f"piece {failing}"):
        for item in in_order([lambda k=k: piece(k) for k in range(6)], 2, ahead_bytes=1):
            got.append(item)
    assert got == [x for k in range(failing) for x in (k * 10, k * 10 + 1)] + [failing * 10]


def test_pieces_ahead_hold_at_most_their_bytes():
    # The consumer holds the first piece's items while the others run ahead: each queue stops at its bytes.
    made: dict[int, int] = {}
    lock = threading.Lock()

    def piece(k: int) -> Iterator[tuple[int, int]]:
        for j in range(100):
            with lock:
                made[k] = j + 1
            yield j, 10

    items = in_order([lambda k=k: piece(k) for k in range(4)], 2, ahead_bytes=50)
    assert next(items) == 0
    time.sleep(0.5)  # (the threads ahead stop at their bound, whenever they get there)
    with lock:
        ahead = {k: n for k, n in made.items() if k > 0}
    assert ahead and all(n <= 6 for n in ahead.values()), ahead  # 50 bytes of 10-byte items and one being put
    assert 3 not in made  # at most `threads` pieces past the one handed out
    items.close()


def test_leaving_early_stops_every_piece():
    closed: list[int] = []
    ran: dict[int, str] = {}

    def piece(k: int) -> Iterator[tuple[int, int]]:
        ran[k] = threading.current_thread().name
        try:
            for j in range(1000):
                time.sleep(0.001)
                yield j, 1
        finally:
            closed.append(k)

    before = set(threading.enumerate())
    items = in_order([lambda k=k: piece(k) for k in range(5)], 3, ahead_bytes=8, name="kafkalog-test")
    for _ in range(20):
        next(items)
    items.close()
    assert sorted(closed) == sorted(ran), (closed, ran)  # every piece started was let go of, wherever it ran
    deadline = time.monotonic() + 30
    while any(t.name.startswith("kafkalog-test") for t in set(threading.enumerate()) - before):
        assert time.monotonic() < deadline, "threads still running after the consumer left"
        time.sleep(0.05)
