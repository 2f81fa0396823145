"""Benchmark (run by hand, not a test): what a whole `kafkalog dump` or `verify` command costs, small file and large.

    python benchmarks/startup.py --work /tmp/kafkalog-fast-path

Each command runs in a fresh process (warm page cache and numba cache: one run first, not counted); wall
time and CPU time (the child's). Side by side in the same run:

- `python -c pass`, the floor of any Python command;
- `kafkalog dump` / `verify` as shipped: the Kaitai parsers alone below `FAST_PATH_MIN_BYTES`, the kernels
  from there on;
- the same command with the kernels forced (`FAST_PATH_MIN_BYTES = 0`), which is what every command did
  before the threshold.

The small file is `samples/v2-none.log` (6 records); the large one the 1,000,000-record uncompressed corpus
segment `benchmarks/fast_path.py` writes with Kafka's own encoder.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import fast_path  # noqa: E402  (benchmarks/fast_path.py: the corpus)

FORCED = "import sys\nfrom kafkalog import cli\ncli.FAST_PATH_MIN_BYTES = 0\nsys.exit(cli.main(sys.argv[1:]))"


def run(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/kafkalog-fast-path"))
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest counts")
    args = ap.parse_args(argv)
    large = fast_path.segments(fast_path.corpus(args.work, "none", 16384, args.records))[0]
    small = ROOT / "samples" / "v2-none.log"
    py = sys.executable
    print("| file | command | wall s | CPU s |")
    print("| --- | --- | ---: | ---: |")
    rows = [("", "python -c pass", [py, "-c", "pass"])]
    for name, path in (("samples/v2-none.log", small), (f"{large.stat().st_size / 1e6:.0f} MB, {args.records:,} "
                                                          "records", large)):
        for command in (["dump", "--format", "json"], ["verify"]):
            words = " ".join(command)
            rows.append((name, f"kafkalog {words}", [py, "-m", "kafkalog.cli", *command, str(path)]))
            rows.append((name, f"kafkalog {words}, kernels forced", [py, "-c", FORCED, *command, str(path)]))
    for name, label, cmd in rows:
        run(cmd)  # warm: the page cache, numba's cache
        wall, cpu = min(run(cmd) for _ in range(args.repeat))
        print(f"| {name} | {label} | {wall:.2f} | {cpu:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
