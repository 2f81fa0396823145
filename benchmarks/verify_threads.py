#!/usr/bin/env python3
"""`kafkalog verify` of the corpus's segment on one thread and on two, this checkout against a baseline, side by
side in one run (run by hand, not a test; issue 33's target: two threads at 1.8x one).

For each codec, alternately in fresh processes (the baseline's first), `--rounds` times: the GIL-held share of one
thread's verify (as `threads.py` counts it: `time.thread_time`, so independent of the machine's load; and counted
without cProfile, whose cost per Python call is held time too: `threads.gil_held_unprofiled`), the functions that hold it most
(with --top N), and the wall and CPU seconds of verify on 1 and 2 threads in a warm
process (interleaved, the fastest of --repeat each), with the two-thread wall ratio and the load average as the
row started; beside it, what two threads give for the file's reading alone (`readinto` into 8 MiB buffers, the
kernel's copy from the page cache: GIL-free, and most of an uncompressed verify's CPU), which bounds verify's. The baseline is a directory holding a `kafkalog` package with its compiled modules
(`before_after.py` says how to make one).

    python benchmarks/verify_threads.py --baseline /tmp/base39 --codecs none --work /tmp/kafkalog-fast-path
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import alternate  # noqa: E402  (benchmarks/ is not a package)


def held_by_function(segment: Path, top: int) -> str:
    """The `top` functions (file:name) with the most GIL-held own time of one thread's verify, in ms."""
    import threads

    from kafkalog.fast import compiled

    originals = {name: f for name in dir(compiled.engine)
                 if type(f := getattr(compiled.engine, name)).__name__.startswith("cython_function")}
    for name, f in originals.items():
        setattr(compiled.engine, name, threads._in_engine(f))
    try:
        threads.check(segment, 1)  # warm
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        threads.check(segment, 1)
        profile.disable()
    finally:
        for name, f in originals.items():
            setattr(compiled.engine, name, f)
    held: collections.Counter[str] = collections.Counter()
    for (file, _line, name), (_cc, _nc, own, _cum, _callers) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if (name == "call" and file == threads._in_engine.__code__.co_filename) or name in threads.FILE_READS:
            continue
        held[f"{Path(file).name}:{name}"] += own
    return ", ".join(f"{k} {v * 1000:.1f}" for k, v in held.most_common(top))


def measure(codec: str, work: Path, records: int, batch_bytes: int, repeat: int, top: int) -> str:
    """One row: this process's kafkalog, on one codec's corpus."""
    import fast_path
    import threads

    partition = fast_path.corpus(work, codec, batch_bytes, records)
    segment = fast_path.segments(partition)[0]
    total, free, _held = threads.gil_held(partition, lambda: threads.check(segment, 1)[0])
    share = 1 - free / total
    plain_total, plain_share = threads.gil_held_unprofiled(partition, lambda: threads.check(segment, 1)[0], repeat)
    best = {1: (float("inf"), float("inf")), 2: (float("inf"), float("inf"))}
    reads = (float("inf"), float("inf"))
    threads.check(segment, 2)  # warm
    for _ in range(repeat):
        for n in (1, 2):
            _records, wall, cpu = threads.check(segment, n)
            best[n] = (min(best[n][0], wall), min(best[n][1], cpu))
        alone, together = threads.alone_and_together(threads.read_part, (segment, 0, 1),
                                                     [(segment, i, 2) for i in range(2)], 1)
        reads = (min(reads[0], alone), min(reads[1], together))
    row = (f"{total:.3f} | {share:.0%} | {plain_total:.3f} | {plain_share:.0%} | {best[1][0]:.3f} | {best[1][1]:.3f} | {best[2][0]:.3f} | {best[2][1]:.3f} "
           f"| {best[1][0] / best[2][0]:.2f}x | {reads[0] / reads[1]:.2f}x")
    return row + (f" | {held_by_function(segment, top)}" if top else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", type=Path, required=True, help="a directory holding the baseline's kafkalog")
    ap.add_argument("--codecs", default="none,lz4")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--top", type=int, default=0, help="also the N functions holding the GIL most (ms)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--row", help=argparse.SUPPRESS)  # (a worker: one codec's row)
    args = ap.parse_args(argv)
    if args.row:
        print(measure(args.row, args.work, args.records, args.batch_bytes, args.repeat, args.top))
        return 0
    print(f"{args.records:,} records per partition, producer batch.size {args.batch_bytes}, verify of its segment, "
          f"best of {args.repeat}\n")
    print("| codec | code | load | one thread's CPU s (profiled) | GIL held | CPU s (unprofiled) | GIL held "
          "| 1 thread wall s | CPU s "
          "| 2 threads wall s | CPU s | 2 threads, x one (wall) | the file read on 2 threads, x one (wall) |"
          + (" held most (ms) |" if args.top else ""))
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
          + (" --- |" if args.top else ""))
    for codec, label, load, row in alternate(str(Path(__file__).resolve()), args.codecs.split(","), args.rounds,
                                             args.baseline,
                                             ["--work", str(args.work.resolve()), "--records", str(args.records),
                                              "--batch-bytes", str(args.batch_bytes), "--repeat", str(args.repeat),
                                              "--top", str(args.top)]):
        print(f"| {codec} | {label} | {load:.2f} | {row} |", flush=True)
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
