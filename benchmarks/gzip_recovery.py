#!/usr/bin/env python3
"""Time and memory of reading a gzip payload that breaks after many MiB (a benchmark run by hand).

    python benchmarks/gzip_recovery.py [--mib 32,128]

Java's GZIPInputStream hands out every byte inflated before a bad deflate block, and so does
kafkalog (kafkalog/compression.py, `_salvage`): zlib drops the output of the call that fails, so
the input is replayed in shrinking slices from the last good state. This builds, for each size, a
gzip member whose deflate stream holds that many MiB of record-like text, flushed to a byte
boundary, followed by a block of the reserved type; it checks that every byte before the damage
comes back and prints the time and the process's peak resident memory.
"""
from __future__ import annotations

import argparse
import random
import resource
import time
import zlib

from kafkalog.compression import GZIP, decompress
from kafkalog.errors import DecompressionError


def damaged_gzip(size: int) -> tuple[bytes, bytes]:
    rng = random.Random(size)
    lines = []
    total = 0
    while total < size:
        line = b"record %d %s\n" % (len(lines), rng.randbytes(8).hex().encode())
        lines.append(line)
        total += len(line)
    raw = b"".join(lines)[:size]
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    member = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + deflate.compress(raw) + deflate.flush(zlib.Z_FULL_FLUSH)
              + b"\x07" + bytes(64))
    return raw, member


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", default="32,128", help="comma-separated sizes before the damage, in MiB")
    args = parser.parse_args()
    print(f"{'MiB':>5} {'compressed MiB':>15} {'seconds':>8} {'peak RSS MiB':>13}  every byte kept")
    for mib in (int(x) for x in args.mib.split(",")):
        raw, member = damaged_gzip(mib << 20)
        start = time.perf_counter()
        try:
            decompress(GZIP, member, limit=1 << 31)
            kept = False
        except DecompressionError as exc:
            kept = exc.partial == raw
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{mib:>5} {len(member) / 2**20:>15.1f} {seconds:>8.2f} {peak:>13.0f}  {kept}")


if __name__ == "__main__":
    main()
