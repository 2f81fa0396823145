#!/usr/bin/env python3
"""Paired benchmark of issue 33 (run by hand, not a test): the compiled engine, before and after, and numba.

    python benchmarks/engine.py --records 1000000 --work /tmp/kafkalog-fast-path --before /work/main

Over the same segments, in one run, each reader alone in a fresh process after a warm-up read (numba's
kernels compiled and cached, the engine's module loaded), on the corpora `benchmarks/fast_path.py` has
Kafka's own encoder write (none/lz4/zstd, producer batch.size 16 KiB and 1 MiB, kept in --work):

1. `decode_runs` of the whole segment into Arrow tables (every column), as `read_arrow` reads a range:
   - with `--before CHECKOUT` (a checkout of session 35's code, its `.venv` set up, whose `decode_runs` takes
     `engine=`): `numba (before)`, its numba kernels (`engine=False`), and `engine (before)`, its engine
     (`engine=True`), each run by that checkout's Python in that checkout;
   - `engine`: this checkout's `decode_runs`, which has the engine alone;
   - `groups`: the engine alone, a group per `decode_group` call (a benchmark's reader of sound segments);
   on 1 thread (the whole segment) and on 2 threads (two byte ranges cut at an entry boundary, a thread
   each): wall and CPU seconds, records/s, and the ratios to numba;
2. `kafkalog verify SEGMENT` as a whole command (start-up included) on each uncompressed segment, before
   and after: wall and CPU seconds of the process (issue 33's target: at most 0.4 s for the 205 MB segment);
3. start-up in a fresh process, reading `samples/v2-none.log` to an Arrow table: CPU seconds and peak RSS
   - `read_table` as shipped;
   - the engine alone: batch headers, CRCs and the walk by `kafkalog.fast.engine` (`engine_only_read`
     below), its columns wrapped with `pa.Array.from_buffers` (`pa.array` of a numpy array imports pandas
     where it is installed).

Prints Markdown tables ready for docs/performance.md.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_path  # noqa: E402  (benchmarks/fast_path.py: the corpus)

SAMPLE = ROOT / "samples" / "v2-none.log"


def read_runs(segment: str, reader: str, threads: int) -> int:
    """Records read by `decode_runs` over the segment, in `threads` byte ranges read at once: `reader` "numba" or
    "engine" in a checkout whose `decode_runs` takes `engine=` (session 35's), "after" in this one."""
    from concurrent.futures import ThreadPoolExecutor

    from kafkalog.entries import EntryScanner
    from kafkalog.fast.segment import decode_runs
    from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES

    path = Path(segment)
    ranges = fast_path.entry_ranges(path, -(-path.stat().st_size // threads)) if threads > 1 else [(0, None)]

    def one(byte_range: tuple[int, int | None]) -> int:
        rows = 0
        with EntryScanner(segment, start=byte_range[0], end=byte_range[1], max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES,
                          damage=[]) as scanner:
            options = {} if reader == "after" else {"engine": reader == "engine"}
            for run in decode_runs(scanner, "corpus", 0, **options):
                rows += 0 if run.table is None else run.table.num_rows
        return rows

    with ThreadPoolExecutor(len(ranges)) as pool:
        return sum(pool.map(one, ranges))


GROUP_BYTES = 4 << 20


def read_groups(segment: str, threads: int) -> int:
    """Records read by the engine alone, a group of about 4 MiB of records per `engine.decode_group` call, into an
    Arrow table per group: the record columns (offset, timestamp, sequence, key, value, headers) and the batch
    columns (producer id, producer epoch, compression code, partition leader epoch) repeated on their rows.
    Sound Kafka-written segments only: a benchmark's reader, what the port's groups would cost without
    today's Python orchestration, not the product's."""
    import mmap
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import pyarrow as pa

    from kafkalog.fast import compiled

    engine = compiled.engine
    struct_type = pa.struct([("key", pa.string()), ("value", pa.binary())])
    path = Path(segment)
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    buf = np.frombuffer(data, dtype=np.uint8)
    ranges = fast_path.entry_ranges(path, -(-path.stat().st_size // threads)) if threads > 1 else [(0, len(buf))]

    def one(byte_range: tuple[int, int]) -> int:
        rows = 0
        out = np.empty(2 * GROUP_BYTES, dtype=np.uint8)
        table = np.empty((65536, 3), dtype=np.int64)
        pos = byte_range[0]
        while pos < byte_range[1]:
            n, pos, _why = engine.scan_entries(buf, pos, byte_range[1], 1 << 28, table)
            if n == 0:
                raise RuntimeError(f"{segment}: no entry at byte {pos}")
            starts = np.ascontiguousarray(table[:n, 0])
            sizes = 12 + table[:n, 1]
            # Groups of about GROUP_BYTES of batches (compressed: out holds what they decompress to).
            ends = np.searchsorted(np.cumsum(sizes), np.arange(GROUP_BYTES, int(sizes.sum()) + GROUP_BYTES,
                                                                GROUP_BYTES), side="right")
            i = 0
            for j in [*ends.tolist(), n]:
                while i < j:
                    group = engine.decode_group(buf, starts[i:j], sizes[i:j], out, GROUP_BYTES, 1 << 30)
                    if group.taken == 0:
                        raise RuntimeError(f"{segment}: a batch the engine does not take at byte {starts[i]}")
                    walked, headers = group.walked, group.headers
                    counts = group.columns[4]
                    batch = pa.table({
                        "offset": walked.offset, "timestamp": walked.timestamp, "sequence": walked.sequence,
                        "key": walked.key, "value": walked.value,
                        "headers": compiled.header_lists(walked, struct_type),
                        "producer_id": np.repeat(headers[:, 14], counts),
                        "producer_epoch": np.repeat(headers[:, 15].astype(np.int16), counts),
                        "compression": np.repeat(headers[:, 10].astype(np.int8), counts),
                        "partition_leader_epoch": np.repeat(headers[:, 2].astype(np.int32), counts),
                    })
                    rows += batch.num_rows
                    i += group.taken
        return rows

    with ThreadPoolExecutor(len(ranges)) as pool:
        return sum(pool.map(one, ranges))


def engine_only_read(segment: str):
    """A v2 segment's records as one Arrow table through `kafkalog.fast.engine` alone (no numba): sound batches
    only, a benchmark's reader, not the product's."""
    import numpy as np
    import pyarrow as pa

    from kafkalog.fast import compiled

    engine = compiled.engine
    data = Path(segment).read_bytes()
    buf = np.frombuffer(data, dtype=np.uint8)
    pos, size = [], []
    at = 0
    while at + 12 <= len(data):
        length = int.from_bytes(data[at + 8:at + 12], "big", signed=True)
        pos.append(at)
        size.append(12 + length)
        at += 12 + length
    positions, sizes = np.array(pos, dtype=np.int64), np.array(size, dtype=np.int64)
    headers = np.empty((len(pos), 20), dtype=np.int64)
    errors = np.empty(len(pos), dtype=np.int64)
    engine.parse_batch_headers(buf, positions, sizes, headers, errors)
    crc = compiled.crc32c_each(buf, positions + 21, sizes - 21)
    assert not errors.any() and (crc == headers[:, 4]).all()
    n = len(pos)
    state = np.array([0, headers[0, 18], 0], dtype=np.int64)
    results = [np.zeros(n, dtype=np.int64) for _ in range(3)]
    trailing = np.full(n, -1, dtype=np.int64)
    _why, walked = engine.walk(buf, np.ascontiguousarray(headers[:, 18]),
                               np.ascontiguousarray(headers[:, 18] + headers[:, 19]),
                               np.ascontiguousarray(headers[:, 17]), np.zeros(n, dtype=np.int64), state, headers,
                               *results, trailing, 1 << 30)
    # The numpy columns wrapped as they are: `pa.array` of a numpy array imports pandas where it is installed,
    # which is most of a start-up (0.2-0.3 s).
    def int64s(values: np.ndarray) -> pa.Array:
        return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])

    return pa.Table.from_arrays([int64s(walked.offset), int64s(walked.timestamp), walked.key, walked.value],
                                names=["offset", "timestamp", "key", "value"])


def reader_worker(spec: dict) -> dict:
    import resource

    if spec["reader"] == "groups":
        def read(segment: str, threads: int) -> int:
            return read_groups(segment, threads)
    else:
        def read(segment: str, threads: int) -> int:
            return read_runs(segment, spec["reader"], threads)
    read(str(SAMPLE), 1)  # warm-up: numba's kernels from their cache, the engine's module
    best = None
    for _ in range(spec["repeat"]):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        rows = read(spec["segment"], spec["threads"])
        result = {"wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0, "rows": rows}
        if best is None or result["wall"] < best["wall"]:
            best = result
    best["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return best


def _in_process(function: str, spec: dict, timeout: float, checkout: Path = ROOT) -> dict:
    """`function(spec)` of this module in a fresh process of `checkout`'s Python (its `.venv`), in `checkout`."""
    python = sys.executable if checkout == ROOT else str(checkout / ".venv" / "bin" / "python")
    code = f"import json, sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import engine; " \
           f"print(json.dumps(engine.{function}(json.loads(sys.argv[1]))))"
    out = subprocess.run([python, "-c", code, json.dumps(spec)], capture_output=True, text=True,
                         timeout=timeout, cwd=checkout)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def verify_worker(spec: dict) -> dict:
    """Wall and CPU seconds of a whole `kafkalog verify SEGMENT` process (the child's own rusage)."""
    import resource

    code = "import sys; from kafkalog.cli import main; sys.exit(main())"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, "verify", spec["segment"]], capture_output=True, text=True,
                         check=False)
    wall = time.perf_counter() - wall0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(out.stdout + out.stderr)
    return {"wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "rss_mib": after.ru_maxrss / 1024}


STARTUP = {
    "read_table as shipped":
        "import kafkalog; t = kafkalog.read_table('samples/v2-none.log')",
    "engine alone":
        "import sys; sys.path.insert(0, 'benchmarks'); import engine; t = engine.engine_only_read('samples/v2-none.log')",
}


def startup_worker(spec: dict) -> dict:
    """CPU seconds and peak RSS of a fresh interpreter running the snippet (the child's own rusage)."""
    import resource

    code = spec["code"] + "; import sys; assert t.num_rows == 6; print('numba' in sys.modules, 'pandas' in sys.modules)"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    wall = time.perf_counter() - wall0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "rss_mib": after.ru_maxrss / 1024, "numba": out.stdout.split()[0] == "True",
            "pandas": out.stdout.split()[1] == "True"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000, help="records per corpus (default 1000000)")
    ap.add_argument("--codecs", default="none,lz4,zstd")
    ap.add_argument("--batch-bytes", default="16384,1048576")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--repeat", type=int, default=3, help="reads per reader in its process; the fastest counts")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--startup-only", action="store_true", help="only the start-up table")
    ap.add_argument("--before", type=Path, help="a checkout of session 35's code (its .venv set up) to compare with")
    args = ap.parse_args(argv)
    if args.startup_only:
        args.codecs = ""
    # (reader, checkout): each in a fresh process of that checkout's Python.
    readers = [("numba", args.before), ("engine", args.before)] if args.before else []
    readers += [("after", ROOT), ("groups", ROOT)]
    names = {"numba": "numba (before)", "engine": "engine (before)", "after": "engine", "groups": "groups"}

    print("| codec | batch.size | threads | " + " | ".join(f"{names[r]} wall s | {names[r]} CPU s" for r, _ in readers)
          + " | " + " | ".join(f"{names[r]} rec/CPU s" for r, _ in readers)
          + (" | engine / numba (CPU) | groups / numba (CPU) |" if args.before else " |"))
    print("|" + " --- |" * (3 + 3 * len(readers) + (2 if args.before else 0)))
    verify_segments = []
    for codec in filter(None, args.codecs.split(",")):
        for batch_bytes in (int(b) for b in args.batch_bytes.split(",")):
            (segment,) = fast_path.segments(fast_path.corpus(args.work, codec, batch_bytes, args.records))
            if codec == "none":
                verify_segments.append((batch_bytes, segment))
            for threads in (int(t) for t in args.threads.split(",")):
                got = {reader: _in_process("reader_worker", {"segment": str(segment), "reader": reader,
                                                             "threads": threads, "repeat": args.repeat},
                                           args.timeout, checkout)
                       for reader, checkout in readers}
                assert all(r["rows"] == args.records for r in got.values()), got
                times = " | ".join(f"{got[r]['wall']:.3f} | {got[r]['cpu']:.3f}" for r, _ in readers)
                rates = " | ".join(f"{args.records / got[r]['cpu'] / 1e6:.2f} M" for r, _ in readers)
                ratios = (f" | {got['numba']['cpu'] / got['after']['cpu']:.2f}x | "
                          f"{got['numba']['cpu'] / got['groups']['cpu']:.2f}x |" if args.before else " |")
                print(f"| {codec} | {batch_bytes} | {threads} | {times} | {rates}{ratios}", flush=True)
    print()
    checkouts = ([("before", args.before)] if args.before else []) + [("after", ROOT)]
    if verify_segments:
        print("| `kafkalog verify` of the segment, whole command | batch.size | MB | "
              + " | ".join(f"{name} wall s | {name} CPU s" for name, _ in checkouts) + " |")
        print("|" + " --- |" * (3 + 2 * len(checkouts)))
        for batch_bytes, segment in verify_segments:
            cells = []
            for _name, checkout in checkouts:
                _in_process("verify_worker", {"segment": str(segment)}, args.timeout, checkout)  # warm: not counted
                runs = [_in_process("verify_worker", {"segment": str(segment)}, args.timeout, checkout)
                        for _ in range(args.repeat)]
                best = min(runs, key=lambda r: r["wall"])
                cells.append(f"{best['wall']:.2f} | {best['cpu']:.2f}")
            print(f"| {segment.name} | {batch_bytes} | {segment.stat().st_size / 1e6:.1f} | {' | '.join(cells)} |",
                  flush=True)
        print()
    print("| start-up: read samples/v2-none.log in a fresh process | checkout | wall s | CPU s | peak RSS MiB "
          "| numba imported | pandas imported |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, code in STARTUP.items():
        for where, checkout in checkouts:
            # Each in a process of its own, so that the peak RSS of its one child is that snippet's.
            _in_process("startup_worker", {"code": code}, args.timeout, checkout)  # warm caches: not counted
            runs = [_in_process("startup_worker", {"code": code}, args.timeout, checkout) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["cpu"])
            print(f"| {name} | {where} | {best['wall']:.2f} | {best['cpu']:.2f} | {best['rss_mib']:.0f} | "
                  f"{best['numba']} | {best['pandas']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
