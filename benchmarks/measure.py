"""Measuring one reader in a process of its own: wall and CPU time, peak RSS above the baseline.

Used by `fast_path.py` and `hostile_inputs.py` (`alternate`, a baseline's code against this checkout's: by
`before_after.py` and `walk.py`). The parent starts the benchmark
script again with `--worker SPEC` (JSON); the worker imports what it needs,
warms up, takes its baseline, runs the read once or more and prints one
`RESULT {json}` line. The parent enforces a timeout and, by polling the
worker's resident set, a memory limit (plus `RLIMIT_AS` as a backstop), so that
a reader that blows up is reported, not allowed to take the machine down.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

RESULT = "RESULT "
MIB = 1 << 20


def peak_rss_bytes() -> int:
    """This process's peak resident set so far (`ru_maxrss` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(run: Callable[[], dict], repeat: int = 1) -> dict:
    """In a worker: time `run` (best wall time of `repeat` runs) and report peak RSS above the baseline.

    The baseline is the peak RSS before the first run, i.e. after imports and warm-up.
    `run` returns a dict of its own results (record counts and so on), merged into the answer.
    """
    baseline = peak_rss_bytes()
    best: dict | None = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = run()
        out["wall"], out["cpu"] = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or out["wall"] < best["wall"]:
            best = out
    assert best is not None
    best["baseline_rss"], best["peak_rss"] = baseline, peak_rss_bytes()
    return best


def report(result: dict) -> None:
    """In a worker: hand the result to the parent."""
    print(RESULT + json.dumps(result), flush=True)


@dataclass
class Outcome:
    """What became of one worker: `status` is ok, timeout, over memory limit or failed."""

    status: str
    result: dict
    detail: str = ""
    max_rss_seen: int = 0


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_worker(script: str, spec: dict, *, timeout: float, memory_limit: int | None = None,
               address_space: int | None = None, cwd: str | None = None, env: dict | None = None) -> Outcome:
    """Run `python script --worker SPEC` and collect its RESULT line, within the limits.

    `memory_limit` (bytes of resident memory, polled every 20 ms) and `timeout` (s)
    kill the worker; `address_space` is set as its RLIMIT_AS.
    """
    def limit() -> None:
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    # Files, not pipes: a worker that writes much to stderr must not block while it is polled.
    out_file, err_file = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")  # noqa: SIM115  (outlive the call)
    proc = subprocess.Popen([sys.executable, script, "--worker", json.dumps(spec)], stdout=out_file,
                            stderr=err_file, text=True, cwd=cwd, env=env, preexec_fn=limit)
    start, status, seen = time.monotonic(), None, 0
    while proc.poll() is None:
        seen = max(seen, _rss(proc.pid))
        if memory_limit and seen > memory_limit:
            status = "over memory limit"
        elif time.monotonic() - start > timeout:
            status = "timeout"
        if status:
            proc.kill()
            break
        time.sleep(0.02)
    proc.wait()
    with out_file, err_file:
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    lines = [line for line in out.splitlines() if line.startswith(RESULT)]
    if status:
        return Outcome(status, {}, f"after {time.monotonic() - start:.1f} s", seen)
    if proc.returncode != 0 or not lines:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        if "MemoryError" in err or "bad_alloc" in err or "Cannot allocate memory" in err:
            return Outcome("over memory limit", {}, tail[:200], seen)
        if proc.returncode < 0:
            return Outcome(f"killed by signal {-proc.returncode}", {}, tail[:200], seen)
        return Outcome("failed", {}, tail[:200], seen)
    return Outcome("ok", json.loads(lines[-1][len(RESULT):]), "", seen)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (right-aligned columns except the first)."""
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def mb(n: float) -> str:
    return f"{n / 1e6:.1f}"


def mib(n: float) -> str:
    return f"{n / MIB:.0f}"


def worker_main(argv: list[str] | None, workers: dict[str, Callable[[dict], dict]]) -> int | None:
    """If argv (default: the command line) is `--worker SPEC`, run the worker SPEC names and return 0; else None."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "--worker":
        spec = json.loads(argv[1])
        report(workers[spec["kind"]](spec))
        return 0
    return None



def alternate(script: str, codecs: list[str], rounds: int, baseline: Path, row_args: list[str]
              ) -> Iterator[tuple[str, str, float, str]]:
    """A benchmark's `--row CODEC` worker run with a baseline's code and this checkout's alternately (the baseline's
    first), `rounds` times a codec: (codec, "baseline" or "this checkout", the load average as it started, the
    worker's last line). The baseline, a directory holding a `kafkalog` package with its compiled modules, is
    imported ahead of this checkout's (PYTHONPATH, from a neutral directory)."""
    for codec in codecs:
        for _ in range(rounds):
            for label, path in (("baseline", str(baseline.resolve())), ("this checkout", None)):
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = path
                load = os.getloadavg()[0]
                row = subprocess.run([sys.executable, script, "--row", codec, *row_args, "--baseline", str(baseline)],
                                     env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True)
                yield codec, label, load, row.stdout.strip().splitlines()[-1]
