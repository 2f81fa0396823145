#!/usr/bin/env python3
"""Every target of issue 33, each beside its reference, in one run (by hand, not a test).

    python benchmarks/targets.py --work /tmp/kafkalog-fast-path --out /tmp/issue33-targets.md

The corpora are `fast_path.py`'s (Kafka's encoder, values 100-200 bytes, 1-2 headers), written once under
--work. Each target runs the benchmark that holds it, one after the other (never two at once), and its table is
copied into the report under the command that made it:

| target (issue 33) | benchmark | its reference, in the same run |
| --- | --- | --- |
| `read_table` of `samples/v2-none.log` in a fresh process: 0.25 s CPU, 90 MB | `startup.py --read-table-only` | `python -c pass`; `import kafkalog, pyarrow, numpy` |
| `kafkalog verify` of the 205 MB segment, whole command: 0.4 s | `targets.py` itself (below) | `kafkalog verify` of a 6-record segment; `python -c pass` |
| two threads 1.8x one (read_arrow, dump, verify), and the GIL-held share | `threads.py --codecs none` | two processes at once; a GIL-free compiled loop on two threads |
| hostile inputs within 256 MiB above a tiny dump | `hostile_inputs.py` | each worker's own baseline after a tiny read |
| Spark's Python worker memory | `spark_worker_memory.py` | a worker passing Arrow batches through |
| `kafkalog dump` 5x kafka-dump-log.sh (200k and 1M records) | `dump_speed.py` | kafka-dump-log.sh on the same file |
| `read_arrow` 1.5x Kafka's warm Java reader (none, lz4, zstd; 16 KiB and 1 MiB batches) | `fast_path.py --readers kafkalog,kafka-java --repeat 5` (both warm: the fastest of 5 reads in one process) | Kafka's own reader, warm, in the same run |

Every child runs the package from bytecode, as an installed package does (pip compiles it at install): the
environment's PYTHONDONTWRITEBYTECODE is dropped and a pycache prefix under the temporary directory is used,
filled by the first (not counted) run of each command.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import fast_path  # noqa: E402  (the corpus builder beside this script)
import startup  # noqa: E402  (its `run`: a whole command's wall and CPU time)


def child_env(pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def verify_rows(segment: Path, repeat: int, env: dict[str, str], baseline: Path | None = None) -> str:
    """The whole commands' rows; with a `baseline` (a directory holding another checkout's `kafkalog` with its
    compiled modules, as `before_after.py` takes it), its runs and this checkout's alternate, each command's
    baseline row first."""
    py = sys.executable
    codes: list[tuple[str, dict[str, str], Path]] = [("", env, ROOT)]
    if baseline is not None:
        # (imported ahead of this checkout's: PYTHONPATH, from a directory without a `kafkalog` of its own)
        codes = [("baseline: ", {**env, "PYTHONPATH": str(baseline.resolve())}, Path(tempfile.gettempdir())),
                 ("this checkout: ", env, Path(tempfile.gettempdir()))]
    rows = ["| command | wall s | CPU s |", "| --- | ---: | ---: |"]
    for label, cmd in (("python -c pass", [py, "-c", "pass"]),
                       ("kafkalog verify samples/v2-none.log (6 records)",
                        [py, "-m", "kafkalog.cli", "verify", str(ROOT / "samples" / "v2-none.log")]),
                       (f"kafkalog verify {segment.stat().st_size / 1e6:.0f} MB segment (1,000,000 records)",
                        [py, "-m", "kafkalog.cli", "verify", str(segment)])):
        runs: dict[str, list[tuple[float, float]]] = {code: [] for code, _, _ in codes}
        for _code, code_env, cwd in codes:
            startup.run(cmd, code_env, cwd)  # warm: the page cache, the bytecode
        for _ in range(repeat):
            for code, code_env, cwd in codes:
                runs[code].append(startup.run(cmd, code_env, cwd))
        for code, _, _ in codes:
            wall, cpu = min(runs[code], key=lambda r: r[1])
            rows.append(f"| {code}{label} | {wall:.2f} | {cpu:.2f} |")
    return "\n".join(rows)


def section(out, title: str, cmd: list[str] | None, env: dict[str, str], timeout: float, text: str | None = None):
    print(f"\n## {title}\n", file=out, flush=True)
    if cmd is not None:
        shown = " ".join(["python", *(str(c) for c in cmd[1:])]).replace(str(ROOT) + "/", "")
        print(f"`{shown}`\n", file=out, flush=True)
        start = time.perf_counter()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout, check=False)
            body = done.stdout.strip() + (f"\n\n(exit {done.returncode}: {done.stderr.strip()[-800:]})"
                                          if done.returncode else "")
        except subprocess.TimeoutExpired:
            body = f"(stopped after {timeout:.0f} s)"
        print(body, file=out, flush=True)
        print(f"\n({time.perf_counter() - start:.0f} s)", file=out, flush=True)
    if text is not None:
        print(text, file=out, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--dump-records", default="200000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per benchmark")
    ap.add_argument("--skip", default="", help="sections to leave out: startup,verify,threads,hostile,spark,dump,java")
    ap.add_argument("--out", type=Path, help="the report (markdown); standard output by default")
    ap.add_argument("--baseline", type=Path, help="verify's section: another checkout's `kafkalog` (a directory, as "
                    "before_after.py takes it) run alternately with this one")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    py = sys.executable
    w = str(args.work)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    with tempfile.TemporaryDirectory(prefix="kafkalog-targets-") as tmp:
        env = child_env(Path(tmp) / "pycache")
        print(f"# Issue 33's targets, one run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", file=out, flush=True)
        segment = fast_path.segments(fast_path.corpus(args.work, "none", 16384, args.records))[0]
        if "startup" not in skip:
            section(out, "Start-up: read_table of samples/v2-none.log in a fresh process",
                    [py, str(HERE / "startup.py"), "--read-table-only", "--repeat", str(args.repeat * 2)],
                    env, args.timeout)
        if "verify" not in skip:
            section(out, "kafkalog verify, whole command (fastest of the runs by CPU)", None, env, args.timeout,
                    verify_rows(segment, args.repeat, env, args.baseline))
        if "threads" not in skip:
            section(out, "Two threads against one, the GIL-held share, and the machine's ceiling",
                    [py, str(HERE / "threads.py"), "--codecs", "none", "--records", str(args.records), "--work", w,
                     "--repeat", str(args.repeat)], env, args.timeout)
        if "hostile" not in skip:
            section(out, "Hostile inputs: peak RSS above each worker's baseline",
                    [py, str(HERE / "hostile_inputs.py")], env, args.timeout)
        if "spark" not in skip:
            section(out, "Spark: the Python workers' memory",
                    [py, str(HERE / "spark_worker_memory.py"), "--records", str(args.records), "--work", w],
                    env, args.timeout)
        if "dump" not in skip:
            for n in args.dump_records.split(","):
                section(out, f"kafkalog dump against kafka-dump-log.sh, {int(n):,} records",
                        [py, str(HERE / "dump_speed.py"), "--records", n, "--codecs", "none,lz4", "--work", w],
                        env, args.timeout)
        if "java" not in skip:
            section(out, "read_arrow on one core against Kafka's warm Java reader",
                    # (both warm, the fastest of 5 reads in one process: Kafka's reader is always given at least
                    # 5; given 1, kafkalog's was its first read of the corpus in its process, pools still empty)
                    [py, str(HERE / "fast_path.py"), "--records", str(args.records), "--codecs", "none,lz4,zstd",
                     "--batch-bytes", "16384,1048576", "--readers", "kafkalog,kafka-java", "--skip-spark",
                     "--work", w, "--repeat", "5"], env, args.timeout)
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
