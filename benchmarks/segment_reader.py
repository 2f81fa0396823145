#!/usr/bin/env python3
"""Throughput and memory of kafkalog's segment reader (a benchmark run by hand, not a test).

    python benchmarks/segment_reader.py [--records 1000000] [--codecs none,lz4,zstd] [--work DIR]

Kafka's own writer makes a corpus per codec (scripts/kafka_fixtures.py corpus), then every
segment is read with `SegmentReader` (all records decoded, CRCs checked). Peak memory is the
process's maximum resident set size, to show that a read streams rather than loading a segment.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafkalog import SegmentReader

ROOT = Path(__file__).resolve().parent.parent


def corpus(work: Path, records: int, codec: str) -> Path:
    out = work / f"corpus-{codec}-{records}"
    if not out.exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "corpus", "--out", str(out),
                        "--records", str(records), "--codec", codec], check=True, stdout=subprocess.DEVNULL)
    return out


def read_all(directory: Path) -> tuple[int, int, int, float]:
    segments = sorted(directory.rglob("*.log"))
    count = damage = size = 0
    start = time.perf_counter()
    for segment in segments:
        size += segment.stat().st_size
        with SegmentReader(segment) as reader:
            for batch in reader:
                count += len(batch.records)
            damage += len(reader.damage)
    return count, damage, size, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--codecs", default="none,lz4,zstd")
    ap.add_argument("--work", type=Path, help="where to keep the corpora (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        print(f"{'codec':6} {'records':>9} {'MB':>8} {'seconds':>8} {'records/s':>10} {'MB/s':>7}")
        for codec in args.codecs.split(","):
            count, damage, size, seconds = read_all(corpus(work, args.records, codec))
            assert damage == 0, f"{damage} damage reports in a Kafka-written corpus"
            print(f"{codec:6} {count:9d} {size / 1e6:8.1f} {seconds:8.1f} {count / seconds:10.0f} "
                  f"{size / 1e6 / seconds:7.1f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
