#!/usr/bin/env python3
"""The engine's `decode_group` alone (headers, CRC-32C, decompression and the walk into Arrow's buffers), this
checkout against a baseline, side by side in one run (run by hand, not a test).

For each codec's corpus (`fast_path.py`'s, 1M records), the segment is read into memory once and cut into groups
of about 4 MiB of records as `kafkalog.fast.record_batch.BatchWalker.plain_batches` cuts them; then, in a warm
process, every group is decoded (the copying walk, and `--check`'s walk, which copies nothing), the fastest of
`--repeat` passes, in CPU seconds (one thread), and in user CPU seconds alone (the kernel's share is mostly the
page faults of the walk's new buffers). Alternately the baseline's process and this checkout's,
`--rounds` times. The baseline is a directory holding a `kafkalog` package with its compiled modules
(`before_after.py` says how to make one from main):

    python benchmarks/walk.py --baseline /tmp/base --work /tmp/kafkalog-fast-path --codecs none,lz4
"""
from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import alternate  # noqa: E402  (benchmarks/ is not a package)

GROUP_BYTES = 4 * 1024 * 1024
MAX_ROWS = (1 << 15) + 61  # record_batch.TABLE_ROWS


def measure(codec: str, work: Path, batch_bytes: int, repeat: int) -> str:
    """One row: this process's engine over the segment's groups: (records, copying walk s, check s)."""
    import numpy as np

    from kafkalog.fast import engine

    segment = next((work / f"{codec}-{batch_bytes}-1000000").glob("corpus-0/*.log"))
    buf = np.fromfile(segment, dtype=np.uint8)
    table = np.zeros((buf.size // engine.MIN_ENTRY_SIZE + 1, 3), dtype=np.int64)
    n, _, _ = engine.scan_entries(buf, 0, buf.size, 1 << 30, table)
    pos = np.ascontiguousarray(table[:n, engine.ENTRY_POS])
    size = engine.LOG_OVERHEAD + table[:n, engine.ENTRY_LENGTH]
    out = np.empty(0 if codec == "none" else 2 * GROUP_BYTES, dtype=np.uint8)
    # Groups of about GROUP_BYTES of records; for the compressed corpora, the batches of about 1.25 groups by the
    # last group's compression ratio are given and decode_group stops at GROUP_BYTES decompressed, as the product.
    ends = np.cumsum(size)

    def run(check: bool) -> tuple[int, float, float]:
        rows = 0
        start, user = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
        i, ratio = 0, 1.0
        while i < n:
            want = GROUP_BYTES if codec == "none" else 1.25 * GROUP_BYTES / ratio
            j = min(n, int(np.searchsorted(ends, (ends[i - 1] if i else 0) + want)) + 1)
            group = engine.decode_group(buf, pos[i:j], size[i:j], out, GROUP_BYTES, MAX_ROWS, GROUP_BYTES, check)
            if group.taken == 0:
                raise SystemExit(f"a group was not taken at entry {i}")
            rows += int(group.walked.rows)
            if group.why != engine.WALK_DONE:
                raise SystemExit("a group was cut (more rows than MAX_ROWS)")
            if codec != "none":
                ratio = max(1.0, int(group.columns[1, group.taken - 1]) / int(size[i:i + group.taken].sum()))
            i += group.taken
        return rows, time.process_time() - start, resource.getrusage(resource.RUSAGE_SELF).ru_utime - user

    run(False)
    walked = [run(False) for _ in range(repeat)]
    checked = [run(True) for _ in range(repeat)]
    return (f"{walked[0][0]} | {min(t for _, t, _ in walked):.3f} ({min(u for _, _, u in walked):.3f}) "
            f"| {min(t for _, t, _ in checked):.3f} ({min(u for _, _, u in checked):.3f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", type=Path, required=True, help="a directory holding the baseline's kafkalog")
    ap.add_argument("--codecs", default="none")
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--row", help=argparse.SUPPRESS)  # (a worker: one codec's row)
    args = ap.parse_args(argv)
    if args.row:
        print(measure(args.row, args.work, args.batch_bytes, args.repeat))
        return 0
    print(f"1M records, producer batch.size {args.batch_bytes}; CPU s (in parentheses: user CPU s, without the "
          f"kernel's page faults), fastest of {args.repeat}\n")
    print("| codec | code | load average | records | decode_group | decode_group, check |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for codec, label, load, row in alternate(str(Path(__file__).resolve()), args.codecs.split(","),
                                             args.rounds, args.baseline,
                                             ["--work", str(args.work.resolve()), "--batch-bytes",
                                              str(args.batch_bytes), "--repeat", str(args.repeat)]):
        print(f"| {codec} | {label} | {load:.1f} | {row} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
