"""The walk's Arrow buffers reuse the memory of blocks let go (`kafkalog/fast/buffers.pxi`'s pool, issue 33): a
buffer taken from the pool holds what an earlier walk wrote and, past that, pages given back to the kernel. Reads
of Kafka-written segments, one after the other with their results let go (so that every walk after the first
writes into pooled blocks) and on two threads at once, give what the first read gave: nothing of an earlier walk
shows through, and no thread's buffers are given back or handed out while another writes them."""
from __future__ import annotations

import threading

import pyarrow as pa

from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import engine
from tests.paths import FIXTURES, SAMPLES

#: Large enough for the pool (buffers of 256 KiB and more), with nulls and headers of their own.
SEGMENTS = [FIXTURES / "hostile" / "v2-none-1m-records.log", FIXTURES / "hostile" / "v2-zstd-1m-empty-headers.log",
            SAMPLES / "v2-none.log"]


def _read(path) -> pa.Table:
    return read_segment_table(path)


def test_reads_into_pooled_blocks_give_what_the_first_read_gave():
    first = {path: _read(path) for path in SEGMENTS}
    hits = engine.pool_counts()["hits"]
    for _ in range(2):
        for path in [*SEGMENTS, *reversed(SEGMENTS)]:
            assert _read(path).equals(first[path]), path.name
    assert engine.pool_counts()["hits"] > hits  # (the walks did write into pooled blocks)


def test_two_threads_reading_into_pooled_blocks_give_what_one_gives():
    first = {path: _read(path) for path in SEGMENTS}
    wrong: list[str] = []

    def reader(order):
        for path in order * 2:
            if not _read(path).equals(first[path]):
                wrong.append(path.name)

    threads = [threading.Thread(target=reader, args=(order,)) for order in (SEGMENTS, SEGMENTS[::-1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
