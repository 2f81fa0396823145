"""The walk's Arrow buffers reuse the memory of blocks let go (`kafkalog/fast/buffers.pxi`'s pool, issue 33): a
buffer taken from the pool holds what an earlier walk wrote and, past that, pages given back to the kernel. Reads
of Kafka-written segments, one after the other with their results let go (so that every walk after the first
writes into pooled blocks) and on two threads at once, give what the first read gave: nothing of an earlier walk
shows through, and no thread's buffers are given back or handed out while another writes them."""
from __future__ import annotations

import subprocess
import sys
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


def test_what_a_read_keeps_does_not_hold_each_walk_s_reservation_of_address_space():
    # Each walk reserves room for the most its sections' bytes could give; the arrays kept give back what they did
    # not use (past a bounded slack), or the object path's many walks of a batch of 4.8 million small records
    # spanned more than 8 GiB of address space (a MemoryError under a limit of it) for 270 MiB in memory.
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))\n"
        "import kafkalog\n"
        "n = 0\n"
        "with kafkalog.SegmentReader(sys.argv[1]) as reader:\n"
        "    for batch in reader:\n"
        "        n += sum(1 for _ in batch.records)\n"
        "print(n, len(reader.damage))\n")
    path = FIXTURES / "hostile" / "v2-gzip-bad-deflate-block.log"
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["4830350", "1"]


def test_a_walker_gives_back_the_buffer_it_decompressed_into_for_the_next():
    # A read on threads makes a walker a byte range: each would fault in a fresh 8 MiB to decompress groups into.
    from kafkalog import entries
    from kafkalog.fast.record_groups import GROUP_BYTES

    def decompressed_into():
        with entries._pooled_lock:
            return [b for b in entries._pooled if len(b) == 2 * GROUP_BYTES]

    path = SAMPLES / "v2-lz4.log"
    with entries._pooled_lock:
        entries._pooled.clear()
    first = _read(path)
    given_back = decompressed_into()
    assert len(given_back) == 1
    # the next read takes it again (the walker, or the scanner for its chunk: chunk buffers are of that size too),
    # reads the same rows, and gives it back again
    assert _read(path).equals(first)
    assert id(given_back[0]) in [id(b) for b in decompressed_into()]


def test_codec_contexts_are_kept_from_run_to_run_bounded_and_never_reused_mid_frame():
    # The engine keeps LZ4F's and zstd's decompression contexts from one run of batches to the next (engine.pyx's
    # `_context`): a context is held only inside one call without the GIL, and one left mid-frame by a damaged LZ4
    # frame is freed, not kept (the next frame would go on from it). Reads after the damaged one, one after the
    # other and on two threads, give what the first reads gave; every context made is kept (at most 16 a codec) or
    # freed.
    good = [FIXTURES / "segments" / "v2-lz4.log", FIXTURES / "segments" / "v2-zstd.log",
            FIXTURES / "hostile" / "v2-zstd-1m-empty-headers.log", SAMPLES / "v2-lz4.log"]
    damaged = FIXTURES / "segments" / "damaged-lz4-block-size.log"  # (a frame that ends inside a block)
    first = {path: _read(path) for path in [*good, damaged]}
    before = engine.context_counts()
    for path in [damaged, *good, damaged, *reversed(good)]:
        assert _read(path).equals(first[path]), path.name
    wrong: list[str] = []

    def reader(order):
        for path in order * 2:
            if not _read(path).equals(first[path]):
                wrong.append(path.name)

    threads = [threading.Thread(target=reader, args=(order,)) for order in ([damaged, *good], [*good[::-1], damaged])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    after = engine.context_counts()
    assert after["freed"] > before["freed"]  # (the contexts the damaged frame left mid-frame)
    assert after["reused"] > before["reused"]
    assert after["made"] - after["freed"] == after["kept"] <= 2 * 16
