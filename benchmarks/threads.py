#!/usr/bin/env python3
"""Thread scaling of `kafkalog.read_arrow` (run by hand, not a test): one thread against N on the same
partition, in the same process and run, wall and CPU time.

The corpus is the one `fast_path.py` reads: a partition of Kafka-written records (Kafka's encoder,
values 100-200 bytes, 1-2 headers) per codec, built once under --work. Each reading consumes every
Arrow batch of `read_arrow(partition, includeHeaders=True, threads=N)`; the fastest of --repeat runs
counts. The target (issue 19): 2 threads at least 1.7x one thread on this 2-core machine.

Then `kafkalog verify` and `kafkalog dump --format F` of the partition's segment on N threads
(`verify_path`, `dump_segment` to /dev/null, warm, in this process), which read a large segment's byte
ranges at once.

Beside it, what the machine itself allows: the same one-thread reading in N processes at once
(each its own interpreter and GIL, started together at a barrier), as N x one process's time over
the slowest of them; and a compiled loop without the GIL (a byte transform over 64 MiB) on N threads
at once against one. Threads cannot scale past that.

    python benchmarks/threads.py --records 1000000 --work /tmp/kafkalog-fast-path
"""
from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_path  # the corpus builder beside this script

import kafkalog
from kafkalog import verify
from kafkalog.dump.segment_lines import DumpOptions, dump_segment

DUMP_FORMATS = ("json", "text", "kafka")


def read(partition: Path, threads: int) -> tuple[int, float, float]:
    """(records, wall seconds, CPU seconds of this process) of one whole reading."""
    wall, cpu = time.perf_counter(), time.process_time()
    rows = sum(b.num_rows for b in kafkalog.read_arrow(partition, includeHeaders=True, threads=threads))
    return rows, time.perf_counter() - wall, time.process_time() - cpu


def check(segment: Path, threads: int) -> tuple[int, float, float]:
    """(records, wall, CPU) of `kafkalog verify` of a segment."""
    wall, cpu = time.perf_counter(), time.process_time()
    report = verify.verify_path(segment, report=verify.VerifyReport(threads=threads))
    return report.records, time.perf_counter() - wall, time.process_time() - cpu


def dump(segment: Path, fmt: str, threads: int) -> tuple[int, float, float]:
    """(records, wall, CPU) of `kafkalog dump --format fmt` of a segment to /dev/null."""
    with open(os.devnull, "w", encoding="utf-8") as null:
        wall, cpu = time.perf_counter(), time.process_time()
        dump_segment(segment, "log", DumpOptions(format=fmt, threads=threads), null)
        null.flush()
        return -1, time.perf_counter() - wall, time.process_time() - cpu


def commands(segment: Path, counts: list[int], repeat: int, records: int, codec: str) -> None:
    """verify's and dump's rows: one thread against N, interleaved, the fastest of `repeat`."""
    for name, run in [("verify", functools.partial(check, segment)),
                      *[(f"dump --format {f}", functools.partial(dump, segment, f)) for f in DUMP_FORMATS]]:
        run(max(counts))  # warm
        best: dict[int, tuple[int, float, float]] = {}
        for _ in range(repeat):
            for n in counts:
                got = run(n)
                if n not in best or got[1] < best[n][1]:
                    best[n] = got
        one = best[counts[0]][1]
        for n in counts:
            rows, wall, cpu = best[n]
            assert rows in (-1, records), (codec, name, n, rows)
            print(f"| {codec} | {name} | {n} | {records / wall / 1e6:.2f} M | {wall:.3f} | {cpu:.3f} | {one / wall:.2f} |")


def _process(partition: str, repeat: int, barrier, out) -> None:
    read(Path(partition), 1)  # warm
    walls = []
    for _ in range(repeat):
        barrier.wait()
        walls.append(read(Path(partition), 1)[1])
    out.put(walls)


def processes(partition: Path, n: int, repeat: int) -> float:
    """The best, over `repeat` rounds started together, of the slowest of `n` processes' one-thread readings."""
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(n), ctx.Queue()
    workers = [ctx.Process(target=_process, args=(str(partition), repeat, barrier, out)) for _ in range(n)]
    for w in workers:
        w.start()
    walls = [out.get() for _ in workers]
    for w in workers:
        w.join()
    return min(max(round_) for round_ in zip(*walls))


def compiled_loop(n: int, repeat: int) -> float:
    """N x the time of one thread running a GIL-free compiled loop, over the time of N running it at once."""
    import numba
    import numpy as np

    @numba.njit(nogil=True)
    def transform(a, b):
        for i in range(len(a)):
            b[i] = a[i] ^ (i & 0xFF)

    arrays = [(np.ones(64 << 20, np.uint8), np.zeros(64 << 20, np.uint8)) for _ in range(n)]
    transform(arrays[0][0][:8], arrays[0][1][:8])
    alone = together = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        transform(*arrays[0])
        alone = min(alone, time.perf_counter() - start)
        workers = [threading.Thread(target=transform, args=pair) for pair in arrays]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        together = min(together, time.perf_counter() - start)
    return n * alone / together


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--codecs", default="none,lz4,zstd")
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--skip-commands", action="store_true", help="read_arrow only, not verify and dump")
    ap.add_argument("--skip-read", action="store_true", help="verify and dump only, not read_arrow")
    args = ap.parse_args(argv)
    counts = [int(n) for n in args.threads.split(",")]
    print(f"{args.records:,} records per partition, producer batch.size {args.batch_bytes}, best of {args.repeat}")
    for n in counts[1:]:
        print(f"A compiled loop without the GIL on {n} threads at once: {compiled_loop(n, args.repeat):.2f}x one thread")
    print()
    print("| codec | threads | records/s (wall) | wall s | CPU s | x one thread (wall) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for codec in args.codecs.split(",") if not args.skip_read else ():
        partition = fast_path.corpus(args.work, codec, args.batch_bytes, args.records)
        read(partition, max(counts))  # warm: kernels loaded, files in the page cache
        best: dict[int, tuple[int, float, float]] = {}
        for _ in range(args.repeat):
            for n in counts:  # interleaved, so that a disturbance hits every count alike
                got = read(partition, n)
                if n not in best or got[1] < best[n][1]:
                    best[n] = got
        one = best[counts[0]][1]
        for n in counts:
            rows, wall, cpu = best[n]
            assert rows == args.records, (codec, n, rows)
            print(f"| {codec} | {n} | {rows / wall / 1e6:.2f} M | {wall:.3f} | {cpu:.3f} | {one / wall:.2f} |")
        alone = processes(partition, 1, args.repeat)
        for n in counts[1:]:
            together = processes(partition, n, args.repeat)
            print(f"| {codec} | {n} processes at once, 1 thread each (the machine's ceiling) | "
                  f"{n * args.records / together / 1e6:.2f} M | {together:.3f} each | | {n * alone / together:.2f} |")
    if args.skip_commands:
        return 0
    print()
    print("| codec | command | threads | records/s (wall) | wall s | CPU s | x one thread (wall) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for codec in args.codecs.split(","):
        partition = fast_path.corpus(args.work, codec, args.batch_bytes, args.records)
        commands(fast_path.segments(partition)[0], counts, args.repeat, args.records, codec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
