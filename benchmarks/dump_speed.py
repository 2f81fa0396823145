#!/usr/bin/env python3
"""`kafkalog dump` against Kafka's own kafka-dump-log.sh on the same records (run by hand, not a test).

The corpus is `fast_path.py`'s: one segment of Kafka-written records (Kafka's encoder, values 100-200
bytes, 1-2 headers) per codec. Each printer writes every record to /dev/null, in one run:

- `kafkalog dump --format F --threads N` for F in json, text and kafka, as a whole command (start-up
  included); N is --threads, 1 by default (the target is one core's);
- the same dump in a warmed process (`kafkalog.cli.main`, kernels loaded), the printing alone;
- Kafka 4.3.1's `DumpLogSegments --deep-iteration --print-data-log` (kafka-dump-log.sh), whose lines
  `--format kafka` prints, as a whole command: the JVM's start-up included, as a user runs it.

Wall and CPU time (children's for commands, the process's for the warm runs); records/s from wall time.

With `--baseline DIR` (a directory holding another checkout's `kafkalog` with its compiled modules, as
`before_after.py` takes it), each command is run with the baseline's code and this checkout's alternately, the
baseline's first, and both rows are printed (warm rows are this checkout's only).

    python benchmarks/dump_speed.py --records 1000000 --work /tmp/kafkalog-fast-path
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import fast_path  # the corpus builder beside this script
import kafka_jars

from kafkalog import cli

FORMATS = ("json", "text", "kafka")
KAFKA = "4.3.1"


def command(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[float, float]:
    """(wall, CPU of the child) of a command whose output goes to /dev/null."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    with open(os.devnull, "wb") as null:
        subprocess.run(cmd, stdout=null, check=True, env=env, cwd=cwd)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def warm(segment: Path, fmt: str, threads: int) -> tuple[float, float]:
    """(wall, CPU) of the dump in this process, kernels already loaded."""
    real = sys.stdout
    with open(os.devnull, "w", encoding="utf-8") as null:
        sys.stdout = null
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            cli.main(["dump", "--threads", str(threads), "--format", fmt, str(segment)])
            return time.perf_counter() - wall, time.process_time() - cpu
        finally:
            sys.stdout = real


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--codecs", default="none,lz4")
    ap.add_argument("--batch-bytes", type=int, default=16384)
    ap.add_argument("--repeat", type=int, default=2, help="runs of each; the fastest counts")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--threads", type=int, default=1, help="kafkalog dump --threads (default 1: one core)")
    ap.add_argument("--baseline", type=Path, help="another checkout's `kafkalog` (a directory), run alternately")
    args = ap.parse_args(argv)
    # (code label, environment, working directory): the baseline imported ahead of this checkout (PYTHONPATH, from
    # a directory without a `kafkalog` of its own)
    # Each command runs from bytecode, as an installed package does (pip compiles it at install): the environment's
    # PYTHONDONTWRITEBYTECODE is dropped and a pycache prefix is used, filled by a first run that is not counted.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "kafkalog-dump-speed-pycache")
    codes: list[tuple[str, dict[str, str] | None, str | None]] = [("", env, None)]
    if args.baseline is not None:
        codes = [("baseline: ", {**env, "PYTHONPATH": str(args.baseline.resolve())}, tempfile.gettempdir()),
                 ("this checkout: ", env, tempfile.gettempdir())]
    java = [str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "java"), "-Xmx1g", "-cp",
            os.pathsep.join(kafka_jars.classpath(KAFKA)), "org.apache.kafka.tools.DumpLogSegments",
            "--deep-iteration", "--print-data-log", "--files"]
    kafkalog = [sys.executable, "-m", "kafkalog.cli", "dump", "--threads", str(args.threads), "--format"]
    print(f"{args.records:,} records, producer batch.size {args.batch_bytes}, best of {args.repeat}, output to /dev/null, "
          f"kafkalog dump --threads {args.threads}")
    print("| codec | printer | wall s | CPU s | records/s (wall) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for codec in args.codecs.split(","):
        segment = fast_path.segments(fast_path.corpus(args.work, codec, args.batch_bytes, args.records))[0]
        rows: list[tuple[str, float, float]] = []
        for fmt in FORMATS:
            warm(segment, fmt, args.threads)  # kernels compiled and loaded, the file in the page cache
            runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in codes}
            for _label, env, cwd in codes:
                command([*kafkalog, fmt, str(segment)], env, cwd)  # (not counted: the bytecode written)
            for _ in range(args.repeat):
                for label, env, cwd in codes:
                    runs[label].append(command([*kafkalog, fmt, str(segment)], env, cwd))
            for label, _, _ in codes:
                rows.append((f"{label}kafkalog dump --format {fmt} (command)", *min(runs[label], key=lambda r: r[1])))
            rows.append((f"kafkalog dump --format {fmt} (warm process)",
                         *min(warm(segment, fmt, args.threads) for _ in range(args.repeat))))
        rows.append((f"kafka-dump-log.sh {KAFKA} --deep-iteration --print-data-log (command)",
                     *min(command([*java, str(segment)]) for _ in range(args.repeat))))
        for name, wall, cpu in rows:
            print(f"| {codec} | {name} | {wall:.2f} | {cpu:.2f} | {args.records / wall / 1e6:.2f} M |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
