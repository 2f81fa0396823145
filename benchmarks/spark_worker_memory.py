#!/usr/bin/env python3
"""The memory of Spark's Python workers reading with kafkalog, against the same workers reading nothing (by hand).

    python benchmarks/spark_worker_memory.py --records 1000000 --work /tmp/kafkalog-fast-path

Issue 33: every Python worker of a Spark executor carried numba and its cached kernels (about 190 MB, and a
second to load them). Here each case runs in a SparkSession of its own (`--master`, local[2] by default), in
the same run, and the peak resident memory (`VmHWM`) of every Python process Spark started for it is read
from /proc once its query has ended (the workers are reused, so they are still there):

- `floor`: `spark.range().mapInArrow(...)` passing Arrow batches through, the worker's own start-up with pyarrow;
- `kafkalog, a 6-record segment`: `samples/v2-none.log` read and counted: the code's load alone;
- `kafkalog`: `spark.read.format("kafkalog").load(partition)` counted, on the corpus `fast_path.py` writes
  with Kafka's encoder (all columns, CRC checks);
- `kafkalog, headers and kafkalog columns`: the same with includeHeaders and includeKafkalogColumns, written to
  Spark's `noop` sink (every column materialised).

The largest worker and the sum of all of them are given; `above floor` is the largest worker's peak minus the
floor's. Linux only (/proc).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_path  # the corpus builder beside this script

CASES = ("floor", "kafkalog, a 6-record segment", "kafkalog", "kafkalog, headers and kafkalog columns")
SMALL = Path(__file__).resolve().parents[1] / "samples" / "v2-none.log"


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            out.setdefault(ppid, []).append(int(entry))
    return out


def _python_descendants(root: int) -> list[tuple[int, int, str, bool]]:
    """(pid, VmHWM KiB, its module, whether numba's LLVM is loaded in it) of every Python process below `root`
    (Spark's workers and their daemon)."""
    children = _children()
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        stack += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{pid}/status", encoding="utf-8") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            with open(f"/proc/{pid}/maps", encoding="utf-8") as f:
                llvm = "llvmlite" in f.read()
        except OSError:
            continue
        # (the JVM's command line names pyspark's jars: only Python processes count)
        if os.path.basename(cmd[0]).startswith(b"python") and b"pyspark" in b" ".join(cmd) and "VmHWM" in status:
            module = next((c.decode() for c in cmd if c.startswith(b"pyspark.")), "?")
            found.append((pid, int(status["VmHWM"].split()[0]), module, llvm))
    return found


def worker(case: str, partition: str, master: str) -> dict:
    """One case in a SparkSession of its own: the peaks of its Python workers, in MiB."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName("kafkalog-worker-memory")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.python.worker.reuse", "true").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    if case == "floor":
        rows = spark.range(1_000_000, numPartitions=8).mapInArrow(lambda it: it, "id bigint").count()
    else:
        import kafkalog.spark

        kafkalog.spark.register(spark)
        reader = spark.read.format("kafkalog")
        if case != "kafkalog":
            reader = reader.option("includeHeaders", "true").option("includeKafkalogColumns", "true")
        df = reader.load(str(SMALL) if case == CASES[1] else partition)
        rows = df.count()
        if case != "kafkalog":
            df.write.format("noop").mode("overwrite").save()
    peaks = _python_descendants(os.getpid())
    spark.stop()
    largest = max(peaks, key=lambda p: p[1], default=(0, 0, "", False))
    return {"rows": rows, "workers": len(peaks), "largest": largest[1] / 1024, "sum": sum(p[1] for p in peaks) / 1024,
            "largest_is": largest[2], "numba": sum(p[3] for p in peaks)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--codec", default="none")
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # (a worker: one case, its result as JSON)
    args = ap.parse_args(argv)
    partition = fast_path.corpus(args.work, args.codec, args.batch_bytes, args.records)
    if args.case is not None:
        print(json.dumps(worker(args.case, str(partition), args.master)))
        return 0
    print(f"Spark {args.master}, {args.records:,} records ({args.codec}, batch.size {args.batch_bytes}); peak RSS "
          "(VmHWM) of the Spark Python processes of each case, MiB\n")
    print("| case | rows | Python processes | with numba loaded | largest peak (which) | sum of peaks "
          "| largest, above floor |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    floor = None
    for case in CASES:
        done = subprocess.run([sys.executable, __file__, "--case", case, "--records", str(args.records), "--codec",
                               args.codec, "--batch-bytes", str(args.batch_bytes), "--work", str(args.work),
                               "--master", args.master], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"| {case} | failed: {done.stderr.strip().splitlines()[-1:]} | | | | | |")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        floor = r["largest"] if case == "floor" else floor
        above = f"{r['largest'] - floor:.0f}" if floor is not None and case != "floor" else ""
        print(f"| {case} | {r['rows']:,} | {r['workers']} | {r['numba']} | {r['largest']:.0f} ({r['largest_is']}) "
              f"| {r['sum']:.0f} | {above} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
