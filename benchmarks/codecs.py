#!/usr/bin/env python3
"""snappy and gzip through `read_arrow`, before and after they moved into the engine (run by hand, not a
test): one thread's CPU time and the share of it that holds the GIL, side by side in one run.

    python benchmarks/codecs.py --before /work/main --records 1000000 --work /tmp/kafkalog-fast-path

The corpus is `fast_path.py`'s (Kafka's own encoder, values 100-200 bytes, 1-2 headers), a partition per codec
and producer batch.size, built once under --work. Each side reads it in a fresh process of its own checkout
(`--before`: a checkout of the code before, its `.venv` set up; "after": this one), alternately, --repeat
times; the fastest reading counts:
- `read_arrow(partition, includeHeaders=True, threads=1)`, every Arrow batch consumed: CPU seconds of the
  process (`time.process_time`, after a warm-up reading) and records/s;
- the GIL-held share of one such reading, as `threads.py` counts it (`threads.gil_held`: what runs inside
  the engine's calls and file reads is GIL-free, the rest is counted as held), with what it bounds two
  and 16 threads to (Amdahl).

Then the decoders alone, in this process, on the first 3,000 batches of each 16 KiB corpus: the engine's
(`engine.decompress_batches`, a call for them all) against the library the object path calls, a batch (gzip)
or a raw block (snappy: cramjam, which python-snappy wraps, into a buffer) a call from Python: CPU seconds,
fastest of --repeat, and MB/s of output.

Prints Markdown tables ready for docs/performance.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_path  # noqa: E402  (benchmarks/fast_path.py: the corpus)

#: Run in the checkout's own directory by its own Python: its `threads.read` and `threads.gil_held`.
WORKER = """
import json, sys, time
sys.path.insert(0, "benchmarks")
import threads
from pathlib import Path
partition = Path(sys.argv[1])
threads.read(partition, 1)  # warm: the engine loaded, the files in the page cache
rows, wall, cpu = threads.read(partition, 1)
total, free, held = threads.gil_held(partition)
print(json.dumps({"rows": rows, "wall": wall, "cpu": cpu, "held": 1 - free / total}))
"""


def run_side(checkout: Path, partition: Path, timeout: float) -> dict:
    python = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # (nothing written into the other checkout)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(python), "-c", WORKER, str(partition)], cwd=checkout, env=env, capture_output=True,
                          text=True, timeout=timeout, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def decoders(partition: Path, codec: str, repeat: int, batches: int = 3000) -> None:
    """The engine's decoder against the library's, on the first `batches` batches of the partition."""
    import time

    import cramjam
    import numpy as np
    from isal import isal_zlib

    from kafkalog.fast import engine
    from kafkalog.log.segment import SegmentReader
    from kafkalog.model import Decoder

    segment = fast_path.segments(partition)[0]
    data = segment.read_bytes()
    spans: list[tuple[int, int]] = []
    with SegmentReader(str(segment), decode_records=False, decoder=Decoder.OBJECT) as reader:
        for batch in reader:
            spans.append((batch.position + 61, batch.position + batch.size))  # (the compressed records)
            if len(spans) == batches:
                break
    pieces = [data[a:b] for a, b in spans]
    if codec == "snappy":  # snappy-java's framing: the raw blocks, each with its length
        pieces = [p[at + 4:at + 4 + int.from_bytes(p[at:at + 4], "big")] for p in pieces
                  for at in _block_starts(p)]
        outs = [bytes(cramjam.snappy.decompress_raw(p)) for p in pieces]
    else:
        outs = [isal_zlib.decompress(p, wbits=31) for p in pieces]
    total = sum(map(len, outs))
    buf = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    size = np.array([len(p) for p in pieces], dtype=np.int64)
    pos = np.concatenate(([0], np.cumsum(size)[:-1])).astype(np.int64)
    out, lengths = np.empty(total + 1, dtype=np.uint8), np.empty(len(pieces), dtype=np.int64)
    code = engine.SNAPPY if codec == "snappy" else engine.GZIP

    def engine_run() -> None:
        assert engine.decompress_batches(code, buf, pos, size, out, 0, 4 << 20, total + 1, lengths) == len(pieces)

    target = bytearray(total)

    def library_run() -> None:
        at = 0
        with memoryview(target) as view:
            for piece, expected in zip(pieces, outs, strict=True):
                if codec == "snappy":
                    cramjam.snappy.decompress_raw_into(piece, view[at:at + len(expected)])
                else:
                    view[at:at + len(expected)] = isal_zlib.decompressobj(wbits=31).decompress(piece)
                at += len(expected)

    for name, run in (("engine", engine_run), ("cramjam" if codec == "snappy" else "python-isal", library_run)):
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            run()
            best = min(best, time.process_time() - start)
        print(f"| {codec} | {name} | {len(pieces):,} | {total / 1e6:.0f} | {best:.3f} | {total / best / 1e6:,.0f} |")
    assert out[:total].tobytes() == b"".join(outs) == bytes(target)


def _block_starts(payload: bytes) -> list[int]:
    """Where each [int32 length][raw block] of snappy-java's framing starts (after the 16-byte header)."""
    starts, at = [], 16
    while at + 4 <= len(payload):
        starts.append(at)
        at += 4 + int.from_bytes(payload[at:at + 4], "big")
    return starts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code before, its .venv set up")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--codecs", default="snappy,gzip")
    ap.add_argument("--batch-bytes", default="16384,1048576")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--decoders-only", action="store_true", help="only the decoders alone, not read_arrow")
    args = ap.parse_args(argv)
    sides = {"before": args.before.resolve(), "after": ROOT}
    if not args.decoders_only:
        print(f"{args.records:,} records per partition, one thread, fastest of {args.repeat} fresh processes a side")
        print()
        print("| codec | batch.size | side | records/s (CPU) | CPU s | GIL held | at most, 2 / 16 threads |")
        print("| --- | ---: | --- | ---: | ---: | ---: | --- |")
    for codec in args.codecs.split(",") if not args.decoders_only else ():
        for batch_bytes in (int(b) for b in args.batch_bytes.split(",")):
            partition = fast_path.corpus(args.work, codec, batch_bytes, args.records)
            best: dict[str, dict] = {}
            for _ in range(args.repeat):
                for side, checkout in sides.items():  # alternately, so that a disturbance hits both alike
                    got = run_side(checkout, partition, args.timeout)
                    assert got["rows"] == args.records, (codec, side, got)
                    if side not in best or got["cpu"] < best[side]["cpu"]:
                        best[side] = got
            for side, got in best.items():
                held = got["held"]
                bounds = " / ".join(f"{1 / (held + (1 - held) / n):.2f}x" for n in (2, 16))
                print(f"| {codec} | {batch_bytes} | {side} | {got['rows'] / got['cpu'] / 1e6:.2f} M | "
                      f"{got['cpu']:.3f} | {held:.0%} | {bounds} |", flush=True)
    print()
    print("| codec | decoder | batches or blocks | MB out | CPU s | MB/s |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for codec in args.codecs.split(","):
        decoders(fast_path.corpus(args.work, codec, 16384, args.records), codec, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
