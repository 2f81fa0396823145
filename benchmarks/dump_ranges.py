#!/usr/bin/env python3
"""How far `kafkalog dump --threads N` of one large segment can go past one thread on N free cores, whatever else
the machine runs (run by hand, not a test): its ranges' work measured on one thread, their schedule replayed.

Each range of the segment (cut as dump cuts it, every `--range-mib` at the offset index's entries) is printed by
`kafkalog.dump.segment_lines._range_lines`, one after the other on this thread, and the CPU time (`time.thread_time`:
the machine's other load does not count) and bytes of each block it hands out are recorded. Then the way
`kafkalog.threads.in_order` runs them is replayed on N workers: a range starts at most N past the one being written
out, and waits while the blocks it holds ahead reach `--ahead-mib` (and it holds one); the writing out costs
nothing (/dev/null). What comes out is N workers' time against one's: what the ranges' sizes and the bound on what
they hold ahead allow, the GIL left out (`threads.py --gil-only` measures what it takes). A range whose lines pass
what it may hold ahead makes the next one wait: JSON's lines are 2 (none) to 8 (zstd) times the bytes they print.

    python benchmarks/dump_ranges.py --work /tmp/kafkalog-fast-path --codecs none,lz4,zstd --range-mib 16,4
"""
from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

from kafkalog.dataset import layout
from kafkalog.dump import segment_lines
from kafkalog.log.segment import SegmentReader


def range_blocks(segment: Path, fmt: str, range_bytes: int) -> list[list[tuple[float, int]]]:
    """Each range's blocks of lines as (CPU seconds it took to make, bytes), the ranges printed one after the other."""
    cuts = layout.index_cuts(str(segment), 0, segment.stat().st_size, range_bytes)
    ends: list[int | None] = [*cuts[1:], None]
    opts = segment_lines.DumpOptions(format=fmt, threads=2)
    printer = segment_lines._printer(segment, "log", opts, io.BytesIO())  # (the file's; each range's is a copy)
    ranges = []
    for start, end in zip(cuts, ends, strict=True):
        blocks = []
        with SegmentReader(segment, start=start, end=end, batch_parts=True) as reader:
            last = time.thread_time()
            for _printed, size in segment_lines._range_lines(printer, segment, reader):
                now = time.thread_time()
                blocks.append((now - last, size))
                last = now
        ranges.append(blocks)
    return ranges


def replay(ranges: list[list[tuple[float, int]]], workers: int, ahead: int) -> float:
    """Seconds `workers` threads take over `ranges` as `in_order` schedules them (the consumer costs nothing)."""
    held = [0] * len(ranges)  # bytes of each range's blocks made and not yet written out
    ready: list[list[int]] = [[] for _ in ranges]  # sizes of each range's blocks made, in order
    work: list[list | None] = [None] * workers  # each worker's [range, block, when that block is made]
    now, writing, written, started = 0.0, 0, 0, 0
    while writing < len(ranges):
        for w in range(workers):
            if work[w] is None and started < len(ranges) and started <= writing + workers:
                work[w] = [started, 0, now + ranges[started][0][0]]
                started += 1
        if ready[writing]:  # the consumer writes out what is there
            held[writing] -= ready[writing].pop(0)
            written += 1
            if written == len(ranges[writing]):
                writing, written = writing + 1, 0
            continue
        # the next block made that has room (a worker whose range holds enough ahead waits for the consumer)
        can = [w for w in range(workers) if work[w] is not None
               and not (held[work[w][0]] and held[work[w][0]] + ranges[work[w][0]][work[w][1]][1] > ahead)]
        w = min(can, key=lambda w: work[w][2])
        r, b, made = work[w]
        now = max(now, made)
        size = ranges[r][b][1]
        ready[r].append(size)
        held[r] += size
        work[w] = [r, b + 1, now + ranges[r][b + 1][0]] if b + 1 < len(ranges[r]) else None
    return now


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--codecs", default="none,lz4,zstd")
    ap.add_argument("--formats", default="json,kafka,text")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--range-mib", default=f"16,{segment_lines.RANGE_BYTES >> 20}")
    ap.add_argument("--ahead-mib", type=int, default=segment_lines.AHEAD_BYTES >> 20)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    print(f"{args.threads} threads; a range holds at most {args.ahead_mib} MiB ahead, hand-outs of "
          f"{segment_lines.BLOCK_BYTES >> 20} MiB; load average {os.getloadavg()[0]:.2f}\n")
    print("| codec | format | range MiB | ranges | most lines of a range, MiB | one thread's CPU s | "
          f"{args.threads} threads, s | x one thread |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for codec in args.codecs.split(","):
        partition = args.work / f"{codec}-{args.batch_bytes}-{args.records}"
        segment = next(partition.rglob("*.log"))
        for fmt in args.formats.split(","):
            for mib in (int(m) for m in args.range_mib.split(",")):
                ranges = range_blocks(segment, fmt, mib << 20)
                one = replay(ranges, 1, args.ahead_mib << 20)
                many = replay(ranges, args.threads, args.ahead_mib << 20)
                most = max(sum(size for _, size in r) for r in ranges) / (1 << 20)
                print(f"| {codec} | {fmt} | {mib} | {len(ranges)} | {most:.1f} | {one:.3f} | {many:.3f} | "
                      f"{one / many:.2f}x |")


if __name__ == "__main__":
    main()
