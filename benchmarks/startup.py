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

A second table is `read_table` of the small file in a fresh process (issue 33's start-up target: 0.25 s CPU,
90 MB peak RSS): CPU seconds and peak RSS as the child itself counts them at its end, and whether numba and
pandas were imported; beside it `import kafkalog` alone, and, with `--before CHECKOUT` (another checkout whose
engine is built in place, such as the main worktree), the same read by that checkout's package, in the same run.
`--read-table-only` prints that table alone.

`--crossover` prints where the kernels overtake the Kaitai parsers, which `FAST_PATH_MIN_BYTES` is set from: `dump`
(text and json) and `verify` of segments of 6 to 5,000 records (`samples/v2-none.log`, then `fast_path.py`'s corpus
segments, each copied alone: a corpus's preallocated 10 MiB index files would put `verify` on the kernels anyway),
with the threshold at 0 (the kernels) and at 2^62 (the Kaitai parsers), alternating; CPU seconds, median and fastest.

The children run the package from bytecode, as an installed package does (pip compiles it at install, so the
first run after install is as fast as later ones): PYTHONDONTWRITEBYTECODE is dropped from their environment and
their bytecode kept under a pycache prefix in the temporary directory, filled by the first, uncounted run.
`--from-source` keeps the environment as it is (with PYTHONDONTWRITEBYTECODE=1, every module compiled from its
source in every process: 0.05-0.1 s more).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import fast_path  # noqa: E402  (benchmarks/fast_path.py: the corpus)

FORCED = "import sys\nfrom kafkalog import cli\ncli.FAST_PATH_MIN_BYTES = 0\nsys.exit(cli.main(sys.argv[1:]))"
#: The same with the Kaitai parsers forced (for a file of fewer than `segment.MANY_RECORDS` records a batch).
OBJECT_PATH = FORCED.replace("= 0", "= 1 << 62")
#: Records of the corpus segments `--crossover` measures (with the 6 of samples/v2-none.log).
CROSSOVER_RECORDS = (50, 200, 1000, 5000)


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU) of a whole command, output to /dev/null; in `env`, else `CHILD_ENV`; from `cwd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=cwd,
                   env=CHILD_ENV if env is None else env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


READ_TABLE = f"import kafkalog; t = kafkalog.read_table({str(ROOT / 'samples' / 'v2-none.log')!r}); assert t.num_rows == 6"
IMPORT_ONLY = "import kafkalog, pyarrow, numpy"
# The child's own count at its end: CPU seconds, peak RSS (KiB on Linux), the heavy modules it imported.
REPORT = ("; import json, resource, sys; r = resource.getrusage(resource.RUSAGE_SELF); "
          "print(json.dumps([r.ru_utime + r.ru_stime, r.ru_maxrss, 'numba' in sys.modules, 'pandas' in sys.modules]))")


#: The children's environment: bytecode as an install has it, unless --from-source (see the docstring).
CHILD_ENV: dict[str, str] = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "kafkalog-startup-pycache")


def measure(code: str, package_dir: Path | None = None) -> tuple[float, float, float, bool, bool]:
    """Wall s, CPU s, peak RSS MiB, numba imported, pandas imported, of a fresh interpreter running `code`;
    with `package_dir`, its `kafkalog` package imported instead of the installed one."""
    env = dict(CHILD_ENV)
    if package_dir is not None:  # (run there: the working directory comes first on the path, then the editable finder)
        env["PYTHONPATH"] = str(package_dir)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code + REPORT], capture_output=True, text=True,
                         cwd=package_dir or ROOT, env=env, check=True)
    wall = time.perf_counter() - t
    cpu, rss, numba, pandas = json.loads(out.stdout.strip().splitlines()[-1])
    return wall, cpu, rss / 1024, numba, pandas


def package_of(checkout: Path, into: Path) -> Path:
    """A `kafkalog` package assembled from a checkout (its kafkalog/, built engine included, and generated/ as
    kafkalog._generated, as the install maps it), in `into`."""
    shutil.copytree(checkout / "kafkalog", into / "kafkalog", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(checkout / "generated", into / "kafkalog" / "_generated",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return into


def read_table_rows(repeat: int, before: Path | None) -> None:
    print("| start-up: samples/v2-none.log in a fresh process | wall s | CPU s | peak RSS MiB | numba imported "
          "| pandas imported |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    with tempfile.TemporaryDirectory(prefix="kafkalog-before-") as tmp:
        rows: list[tuple[str, str, Path | None]] = [("python -c pass", "pass", None),
                                                    ("import kafkalog, pyarrow, numpy", IMPORT_ONLY, None),
                                                    ("read_table (this tree)", READ_TABLE, None)]
        if before is not None:
            rows.append((f"read_table ({before})", READ_TABLE, package_of(before, Path(tmp))))
        for label, code, package in rows:
            origin = f"import kafkalog; assert kafkalog.__file__.startswith({str(package or ROOT)!r})"
            subprocess.run([sys.executable, "-c", origin], cwd=package or ROOT, check=True,
                           env={**CHILD_ENV, "PYTHONPATH": str(package or "")})
            measure(code, package)  # warm: the page cache, numba's cache
            wall, cpu, rss, numba, pandas = min((measure(code, package) for _ in range(repeat)), key=lambda r: r[1])
            print(f"| {label} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {numba} | {pandas} |", flush=True)


def crossover_rows(work: Path, repeat: int) -> None:
    """Whole commands on segments of a few records to a few thousand, the Kaitai parsers against the kernels."""
    print("| records | bytes | command | Kaitai parsers, CPU s (median, fastest) | kernels | kernels / parsers (median) |")
    print("| ---: | ---: | --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="kafkalog-crossover-") as tmp:
        segments = [(6, ROOT / "samples" / "v2-none.log")]
        for n in CROSSOVER_RECORDS:
            alone = Path(tmp) / str(n) / "00000000000000000000.log"
            alone.parent.mkdir()
            shutil.copyfile(fast_path.segments(fast_path.corpus(work, "none", 16384, n))[0], alone)
            segments.append((n, alone))
        for n, path in segments:
            for command in (["dump", "--format", "text"], ["dump", "--format", "json"], ["verify"]):
                cmds = [[sys.executable, "-c", code, *command, str(path)] for code in (OBJECT_PATH, FORCED)]
                for cmd in cmds:
                    run(cmd)  # warm: the page cache and the bytecode
                cpu: list[list[float]] = [[], []]
                for _ in range(repeat):
                    for i, cmd in enumerate(cmds):
                        cpu[i].append(run(cmd)[1])
                parsers, kernels = (statistics.median(c) for c in cpu)
                print(f"| {n:,} | {path.stat().st_size:,} | {' '.join(command)} | {parsers:.3f}, {min(cpu[0]):.3f} "
                      f"| {kernels:.3f}, {min(cpu[1]):.3f} | {kernels / parsers:.2f} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/kafkalog-fast-path"))
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest counts")
    ap.add_argument("--before", type=Path, help="a checkout to compare read_table with (its engine built in place)")
    ap.add_argument("--read-table-only", action="store_true", help="only the read_table table")
    ap.add_argument("--from-source", action="store_true", help="the environment as it is (see the docstring)")
    ap.add_argument("--crossover", action="store_true",
                    help="only the table FAST_PATH_MIN_BYTES is set from (see the docstring)")
    args = ap.parse_args(argv)
    if args.from_source:
        CHILD_ENV.clear()
        CHILD_ENV.update(os.environ)
    if args.crossover:
        crossover_rows(args.work, args.repeat)
        return 0
    read_table_rows(args.repeat, args.before)
    print()
    if args.read_table_only:
        return 0
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
