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
the slowest of them; a compiled loop without the GIL (the engine's CRC-32C over 64 MiB) on N threads
at once against one; and the segment's reading alone (`readinto` into 8 MiB buffers, as the scanner reads its
chunks: the kernel's copy from the page cache, GIL-free, a third to a half of an uncompressed read's CPU) in N
parts on N threads at once against one thread reading it whole. Threads cannot scale past those.

And the share of one thread's reading that holds the GIL (issue 33), which bounds how threads scale on any
number of cores (Amdahl: N threads reach at most 1 / (held + (1 - held) / N) times one). It is counted in
the reading's own CPU time (`time.thread_time`, so the machine's other load does not count): what runs
inside the engine's functions (`kafkalog.fast.engine`, whose work is done in `with nogil` blocks; each is
wrapped for the count, wherever it is called from) and inside file reads is GIL-free, but for the engine's short
calls, which keep the GIL below the sizes the engine says (`engine.RELEASE_ROWS`, `RELEASE_ENTRIES`,
`RELEASE_BYTES`; `released` tells them apart by the same rule, from the call's arguments): those count as held
(layer `engine, GIL kept`); everything else is
counted as held, by layer: the methods of the engine's classes too (`Group.record_batch`, which hands a usual group's
buffers to Arrow, and `Group.walked`, which wraps any other's, hold the GIL; they are not wrapped, so their time is
their caller's; `engine.walk`, which wraps its rows itself, is counted GIL-free whole) (an upper bound: Arrow's and numpy's
kernels inside it release the GIL too; cProfile's own cost, about 1 us a call, is in it as well). Beside it, the
same share counted without a profiler (`held, unprofiled`): the thread's CPU less what it spends inside the
engine's and the line writers' functions and the scanner's file reads, each wrapped by a function that only adds
up `time.thread_time` (about 1 us an engine call or read, a few hundred of them, where cProfile adds 1 us to every
Python call, thousands of them); the bounds on 2 to 16 cores are given from that share. The same count
for one thread's `kafkalog verify` and `kafkalog dump` of the segment (dump's compiled line writers,
`kafkalog.fast.lines`, counted as GIL-free as the engine's functions are), unless --skip-commands.
Beside it, the planning's CPU on 1 and on 2 threads: `read_arrow` plans before its threads start (on 2 threads
and more it cuts a large segment every 16 MiB and checks each cut against the entries walked from the segment's
start), so that part is serial whatever the GIL does; the last column counts it in the bound on 2 cores.

    python benchmarks/threads.py --records 1000000 --work /tmp/kafkalog-fast-path
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import functools
import multiprocessing
import os
import pstats
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
    return min(max(round_) for round_ in zip(*walls, strict=True))


def compiled_loop(n: int, repeat: int) -> float:
    """N x the time of one thread running a GIL-free compiled loop, over the time of N running it at once."""
    import numpy as np

    from kafkalog.fast import compiled

    def transform(buf: np.ndarray, whole: np.ndarray) -> None:
        for _ in range(4):
            compiled.crc32c_each(buf, whole, np.array([len(buf)], dtype=np.int64))

    zero = np.zeros(1, dtype=np.int64)
    arrays = [(np.full(64 << 20, i, np.uint8), zero) for i in range(n)]
    alone, together = alone_and_together(transform, arrays[0], arrays, repeat)
    return n * alone / together


def alone_and_together(target, alone: tuple, together: list[tuple], repeat: int) -> tuple[float, float]:
    """(wall seconds of `target(*alone)` on this thread, of `target(*args)` for every args of `together` at once, a
    thread each): the fastest of `repeat` rounds of each."""
    best_alone = best_together = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        target(*alone)
        best_alone = min(best_alone, time.perf_counter() - start)
        workers = [threading.Thread(target=target, args=args) for args in together]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        best_together = min(best_together, time.perf_counter() - start)
    return best_alone, best_together


def gil_held(partition: Path, work=None) -> tuple[float, float, dict[str, float]]:
    """(CPU seconds of one thread's reading, its GIL-free seconds, the held seconds by layer), as the module's
    docstring counts them; `work`: another one-thread job than the reading (verify's, dump's), whose compiled line
    writers (`kafkalog.fast.lines`, also GIL-free) count as the engine's do."""
    from kafkalog.fast import compiled, line_parts

    modules = [compiled.engine, *([line_parts.compiled] if line_parts.compiled is not None else [])]
    originals = {(m, name): f for m in modules for name in dir(m)
                 if type(f := getattr(m, name)).__name__.startswith("cython_function")}
    for (m, name), f in originals.items():
        setattr(m, name, _in_engine(name, f))
    if work is None:
        def work():
            return sum(b.num_rows for b in kafkalog.read_arrow(partition, includeHeaders=True, threads=1))
    work()  # warm
    profile = cProfile.Profile(time.thread_time)
    start = time.thread_time()
    profile.enable()
    rows = work()
    profile.disable()
    total = time.thread_time() - start
    for (m, name), f in originals.items():
        setattr(m, name, f)
    assert rows != 0
    free = 0.0
    held: collections.Counter[str] = collections.Counter()
    for (file, _line, name), (_cc, _nc, own, _cum, _callers) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if (name == "call" and file == _in_engine.__code__.co_filename) or name in FILE_READS:
            free += own
            continue
        if name == "held_call" and file == _in_engine.__code__.co_filename:
            held["engine, GIL kept"] += own
            continue
        where = file.split(os.sep + "kafkalog" + os.sep, 1)[1].split(os.sep)[0] if os.sep + "kafkalog" + os.sep in file \
            else "pyarrow" if "pyarrow" in file else "numpy" if "numpy" in file else "other"
        held[where.removesuffix(".py")] += own
    return total, free, dict(held)


def gil_held_unprofiled(partition: Path, work=None, repeat: int = 3) -> tuple[float, float]:
    """(CPU seconds of one thread's reading, its GIL-held share) counted without a profiler: the thread's CPU
    less what it spends inside the engine's and the line writers' module functions and the scanner's file reads
    (`EntryScanner`'s `_read*` methods, which wrap `readinto`/`read`), each timed by a wrapper that only adds up
    `time.thread_time`. The fastest of `repeat` runs."""
    from kafkalog import entries
    from kafkalog.fast import compiled, line_parts

    free = [0.0]
    inside = [False]  # (a read inside a read, `_read_chunk` calling `_read`: counted once)

    def timed(f, name=None):
        def call(*args, **kwargs):
            if inside[0] or (name is not None and not released(name, args)):
                return f(*args, **kwargs)  # (a short engine call: the GIL kept)
            start = time.thread_time()
            inside[0] = True
            try:
                return f(*args, **kwargs)
            finally:
                inside[0] = False
                free[0] += time.thread_time() - start
        return call

    modules = [compiled.engine, *([line_parts.compiled] if line_parts.compiled is not None else [])]
    wrapped = [(m, name) for m in modules for name in dir(m)
               if type(getattr(m, name)).__name__.startswith("cython_function")]
    wrapped += [(entries.EntryScanner, name) for name in dir(entries.EntryScanner)
                if name.startswith("_read") and callable(getattr(entries.EntryScanner, name))]
    originals = [(owner, name, getattr(owner, name)) for owner, name in wrapped]
    for owner, name, f in originals:
        setattr(owner, name, timed(f, name if owner is compiled.engine else None))
    if work is None:
        def work():
            return sum(b.num_rows for b in kafkalog.read_arrow(partition, includeHeaders=True, threads=1))
    best = (float("inf"), 0.0)
    try:
        work()  # warm
        for _ in range(repeat):
            free[0] = 0.0
            start = time.thread_time()
            work()
            total = time.thread_time() - start
            best = min(best, (total, free[0]))
    finally:
        for owner, name, f in originals:
            setattr(owner, name, f)
    return best[0], 1 - best[1] / best[0]


def read_part(segment: Path, part: int, parts: int) -> None:
    """Part `part` of `parts` of the file read into an 8 MiB buffer, as the scanner reads its chunks."""
    size = segment.stat().st_size
    start, end = size * part // parts, size * (part + 1) // parts
    buffer = memoryview(bytearray(8 << 20))
    with open(segment, "rb", buffering=0) as f:
        f.seek(start)
        while start < end:
            start += f.readinto(buffer[:min(len(buffer), end - start)])


def file_reads(segment: Path, n: int, repeat: int) -> float:
    """N x the time of one thread reading the segment whole, over the time of N threads reading a part each."""
    alone, together = alone_and_together(read_part, (segment, 0, 1), [(segment, i, n) for i in range(n)], repeat)
    return alone / together


def _in_engine(name, f):
    """An engine function as a Python frame, so that cProfile counts its time apart from its caller's (a
    compiled function makes no frame of its own: its time would be its caller's): `call` where it releases the GIL,
    `held_call` where it is short enough to keep it (`released`)."""
    def call(*args, **kwargs):
        return f(*args, **kwargs)

    def held_call(*args, **kwargs):
        return f(*args, **kwargs)

    def either(*args, **kwargs):
        return (call if released(name, args) else held_call)(*args, **kwargs)
    return either


def released(name: str, args: tuple) -> bool:
    """Whether the engine's call `name(*args)` released the GIL: its short calls keep it, by their input's size
    (the rule of each, in `kafkalog/fast/engine.pyx`, from `engine.RELEASE_*`); every other call releases it."""
    import numpy as np

    from kafkalog.fast import compiled

    e = compiled.engine
    if not hasattr(e, "RELEASE_ROWS"):  # (an engine before these sizes, a baseline's: every call releases it)
        return True
    if name in ("kafka_columns", "scaled_in_range"):
        return len(args[0]) >= e.RELEASE_ROWS
    if name == "ids_by_length":
        return len(args[2]) >= e.RELEASE_ROWS
    if name == "repeat_each":
        return args[2] >= e.RELEASE_ROWS
    if name == "parse_batch_headers":
        return len(args[1]) >= e.RELEASE_ENTRIES
    if name == "crc32c_each":
        return int(np.sum(args[2])) >= e.RELEASE_BYTES
    if name == "scan_entries":
        buf, pos, _limit, _most, out = args
        return min(len(out), (len(buf) - pos) // (e.LOG_OVERHEAD + e.MIN_ENTRY_SIZE)) >= e.RELEASE_ENTRIES
    return True


#: cProfile's names of a file's reads (C methods: their time is their own).
FILE_READS = {"<method 'read' of '_io.BufferedReader' objects>", "<method 'readinto' of '_io.BufferedReader' objects>",
              "<method 'readinto' of '_io.FileIO' objects>", "<method 'read' of '_io.FileIO' objects>"}


def planning(partition: Path, threads: int) -> float:
    """CPU seconds (this thread's, the best of 3) of planning `read_arrow` on `threads` threads: done before they
    start, so it is serial whatever the GIL does (on 2 threads and more, the segment is cut every 16 MiB, each cut
    checked by the planner's walk of the entries from the segment's start)."""
    from kafkalog.dataset import reader

    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        reader.plan_read(partition, {"includeHeaders": True}, threads=threads)
        best = min(best, time.thread_time() - start)
    return best


def bound(total: float, share: float, plan_one: float, plan_n: int | float, n: int) -> float:
    """At most how many times one thread's speed N threads reach (Amdahl): the planning on N threads is serial, and of
    the rest of one thread's reading (its own planning taken out) the GIL-held share is."""
    rest = total - plan_one
    return total / (plan_n + rest * (share + (1 - share) / n))


def gil_rows(partition: Path, codec: str, name: str = "read_arrow", work=None) -> None:
    total, free, held = gil_held(partition, work)
    share = 1 - free / total
    layers = ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(held.items(), key=lambda kv: -kv[1]) if v / total >= 0.01)
    plain_total, plain_share = gil_held_unprofiled(partition, work)
    bounds = " / ".join(f"{1 / (plain_share + (1 - plain_share) / n):.2f}x" for n in (2, 4, 8, 16))
    planned = " | "  # (read_arrow's planning; verify and dump cut a large segment at its offset index, not measured)
    if work is None:
        plan_one, plan_two = planning(partition, 1), planning(partition, 2)
        planned = f"{plan_one:.3f} / {plan_two:.3f} | {bound(plain_total, plain_share, plan_one, plan_two, 2):.2f}x"
    print(f"| {codec} | {name} | {total:.3f} | {free:.3f} | {share:.0%} | {layers} | {plain_total:.3f} "
          f"| {plain_share:.0%} | {bounds} | {1 / plain_share:.1f}x | {planned} |")


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
    ap.add_argument("--gil-only", action="store_true", help="only the GIL-held share of one thread's reading")
    args = ap.parse_args(argv)
    counts = [int(n) for n in args.threads.split(",")]
    print(f"{args.records:,} records per partition, producer batch.size {args.batch_bytes}, best of {args.repeat}")
    print()
    print("| codec | work | one thread's CPU s (profiled) | GIL-free s | GIL held (profiled) | held, by layer (of the "
          "CPU) | one thread's CPU s (unprofiled) | held, unprofiled | at most, on 2 / 4 / 8 / 16 cores (unprofiled) "
          "| on any number | planning on 1 / 2 threads, CPU s (serial) | at most on 2 cores, planning counted |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for codec in args.codecs.split(","):
        partition = fast_path.corpus(args.work, codec, args.batch_bytes, args.records)
        if not args.skip_read:
            gil_rows(partition, codec)
        if args.skip_commands:
            continue
        segment = fast_path.segments(partition)[0]
        gil_rows(partition, codec, "verify", lambda s=segment: check(s, 1)[0])
        for f in DUMP_FORMATS:
            gil_rows(partition, codec, f"dump --format {f}", lambda s=segment, f=f: dump(s, f, 1)[0])
    print()
    if args.gil_only:
        return 0
    for n in counts[1:]:
        print(f"A compiled loop without the GIL on {n} threads at once: {compiled_loop(n, args.repeat):.2f}x one thread")
        for codec in args.codecs.split(","):
            segment = fast_path.segments(fast_path.corpus(args.work, codec, args.batch_bytes, args.records))[0]
            print(f"The {codec} segment's reading alone (readinto, 8 MiB at a time) on {n} threads at once: "
                  f"{file_reads(segment, n, args.repeat):.2f}x one thread")
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
