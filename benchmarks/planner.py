#!/usr/bin/env python3
"""The planner's walk over a segment's entries, windowed through the kernels against entry by entry (run by hand).

    python benchmarks/planner.py [--records 300000] [--batch-size 1] [--work .cache/bench-planner] [--repeat 3]

`read_arrow` plans before it reads: each cut of a segment is checked against the entries one reader from the
segment's start finds (`kafkalog.dataset.cuts.EntryWalk`). Issue 30 measured that walk at about 3 us an entry
when it read each entry's header with the generated parser, in Python: 300,000 one-record batches took
0.20 -> 0.71 s of CPU to plan. The walk now reads the segment a window at a time and finds the entries with
the fast path's kernels (`EntryScanner.entry_windows`). This script times, in one run, on one Kafka-written
segment (`scripts/kafka_fixtures.py corpus`: --records records in batches of --batch-size):

- `walk`: every entry walked (`at_or_after` past the end), the windowed walk and the walk entry by entry
  (`EntryScanner.entry_headers`, what the planner walked before, kept here as the reference);
- `plan`: `kafkalog.dataset.plan.plan` of the segment with maxPartitionBytes 1 MiB, with each walk.

Best of --repeat, CPU and wall seconds, after a warm-up (the kernels compiled and cached, the file in the
page cache). The planned ranges of the two walks are checked to be the same.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # noqa: E402  (benchmarks/ is not a package)


def corpus(work: Path, records: int, batch_size: int) -> Path:
    out = work / f"batches-of-{batch_size}-{records}"
    partition = out / "corpus-0"
    if not any(partition.glob("*.log")):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "corpus", "--out", str(out),
                        "--records", str(records), "--codec", "none", "--batch-size", str(batch_size),
                        "--value-bytes", "10", "--headers", "0", "--segment-bytes", str(1 << 30)],
                       check=True, stdout=subprocess.DEVNULL)
    return sorted(partition.glob("*.log"))[0]


class EntryByEntry:
    """The planner's walk before: each entry's header read by the generated parser, in Python (the reference)."""

    def __init__(self, location: str, private_keys: str | None = None, start: int = 0):
        from kafkalog.dataset import fs
        from kafkalog.entries import EntryScanner
        from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES

        self.start = start
        self._file = fs.open_binary(location, private_keys)
        scanner = EntryScanner(self._file, name=location, start=start, end=None,
                               max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=[])
        self._headers = scanner.entry_headers()
        self._next = next(self._headers, None)

    def __enter__(self) -> EntryByEntry:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def start_for(self, position: int, target: int) -> int:
        best = self.start
        while self._next is not None and self._next[0] <= position and self._next[1].base_offset <= target:
            best = self._next[0]
            self._next = next(self._headers, None)
        return best

    def at_or_after(self, position: int):
        from kafkalog.dataset.cuts import Entry

        while self._next is not None and self._next[0] < position:
            self._next = next(self._headers, None)
        if self._next is None:
            return None
        pos, header = self._next
        return Entry(pos, header.base_offset, header.magic)


def timed(run, repeat: int) -> tuple[float, float, object]:
    best = (float("inf"), float("inf"), None)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if wall < best[0]:
            best = (wall, cpu, out)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=300_000)
    ap.add_argument("--batch-size", type=int, default=1)
    ap.add_argument("--work", type=Path, default=ROOT / ".cache" / "bench-planner")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    from kafkalog.dataset import cuts, plan
    from kafkalog.dataset.options import parse_options

    segment = corpus(args.work, args.records, args.batch_size)
    size = segment.stat().st_size
    walks = {"windowed, kernels": cuts.EntryWalk, "entry by entry": EntryByEntry}
    options = parse_options({"maxPartitionBytes": str(1 << 20)})
    rows, planned = [], {}
    for name, walk in walks.items():
        def whole(walk=walk):
            with walk(str(segment)) as w:
                return w.at_or_after(size + 1), w.start_for(size, 1 << 62)

        def planning(walk=walk):
            saved, cuts.EntryWalk = cuts.EntryWalk, walk  # plan() walks with cuts.EntryWalk
            try:
                return [(r.start, r.end) for r in plan.plan(str(segment), options)]
            finally:
                cuts.EntryWalk = saved
        whole()  # warm-up: kernels, page cache
        planning()
        wall, cpu, _ = timed(whole, args.repeat)
        rows.append(["walk", name, f"{wall:.3f}", f"{cpu:.3f}"])
        wall, cpu, planned[name] = timed(planning, args.repeat)
        rows.append(["plan", name, f"{wall:.3f}", f"{cpu:.3f}"])
    assert planned["windowed, kernels"] == planned["entry by entry"], "the walks plan different ranges"
    print(f"# {segment.relative_to(ROOT) if segment.is_relative_to(ROOT) else segment}: {size:,} bytes, "
          f"{args.records:,} records in batches of {args.batch_size}; {len(planned['entry by entry'])} ranges\n")
    print(measure.table(["what", "walk", "wall s", "CPU s"], sorted(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
