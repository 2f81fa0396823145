#!/usr/bin/env python3
"""This checkout against another one (a baseline), side by side in one run (run by hand, not a test).

For each codec, alternately in fresh processes (the baseline's first), `--rounds` times: the GIL-held share of one
thread's `read_arrow` (as `threads.py` counts it, with the bounds it gives on 2 and 8 cores and on any number), the
planning's CPU on 1 and 2 threads (serial: done before the threads start) and the bound on 2 cores counting it, and
the CPU seconds, in a warm process, of one thread's `read_arrow`, `kafkalog verify` and `kafkalog dump` in each
format of the corpus's segment (`threads.py`'s readings; the fastest of 3).

The baseline is a directory holding a `kafkalog` package with its compiled modules, say main's:

    git archive main kafkalog | tar -x -C /tmp/base && cp /path/to/main/kafkalog/fast/*.so /tmp/base/kafkalog/fast/
    python benchmarks/before_after.py --baseline /tmp/base --work /tmp/kafkalog-fast-path

It is imported ahead of this checkout's (PYTHONPATH, from a neutral directory); the generated parsers are this
checkout's. The corpus is `fast_path.py`'s (built under --work when missing).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import alternate  # noqa: E402  (benchmarks/ is not a package)


def measure(codec: str, work: Path, records: int, batch_bytes: int) -> str:
    """One row: this process's kafkalog, on one codec's corpus."""
    import fast_path
    import threads

    partition = fast_path.corpus(work, codec, batch_bytes, records)
    segment = fast_path.segments(partition)[0]
    total, free, _held = threads.gil_held(partition)
    share = 1 - free / total
    plan_one, plan_two = threads.planning(partition, 1), threads.planning(partition, 2)

    def best(run) -> float:
        run()  # warm
        return min(run()[2] for _ in range(3))

    read = best(lambda: threads.read(partition, 1))
    check = best(lambda: threads.check(segment, 1))
    dumps = " / ".join(f"{best(lambda f=f: threads.dump(segment, f, 1)):.3f}" for f in threads.DUMP_FORMATS)
    bounds = f"{1 / (share + (1 - share) / 2):.2f}x / {1 / (share + (1 - share) / 8):.2f}x / {1 / share:.1f}x"
    planned = f"{plan_one:.3f} / {plan_two:.3f} | {threads.bound(total, share, plan_one, plan_two, 2):.2f}x"
    return f"{total:.3f} | {share:.0%} | {bounds} | {planned} | {read:.3f} | {check:.3f} | {dumps}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", type=Path, required=True, help="a directory holding the baseline's kafkalog")
    ap.add_argument("--codecs", default="none,lz4,zstd")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--row", help=argparse.SUPPRESS)  # (a worker: one codec's row)
    args = ap.parse_args(argv)
    if args.row:
        print(measure(args.row, args.work, args.records, args.batch_bytes))
        return 0
    print(f"{args.records:,} records per partition, producer batch.size {args.batch_bytes}\n")
    print("| codec | code | one thread's CPU s (profiled) | GIL held | at most, on 2 / 8 cores / any number "
          "| planning on 1 / 2 threads, CPU s (serial) | at most on 2 cores, planning counted "
          "| read_arrow CPU s | verify CPU s | dump json / text / kafka CPU s |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for codec, label, _load, row in alternate(str(Path(__file__).resolve()), args.codecs.split(","),
                                              args.rounds, args.baseline,
                                              ["--work", str(args.work.resolve()), "--records",
                                               str(args.records), "--batch-bytes", str(args.batch_bytes)]):
        print(f"| {codec} | {label} | {row} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
