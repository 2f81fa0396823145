#!/usr/bin/env python3
"""Dump every fixture, sample and partition in every format, to compare two versions of kafkalog.

    python scripts/dump_all.py OUT              # one file of output per (path, options) under OUT
    python scripts/dump_all.py --compare A B    # exit 1 if two such folders differ anywhere
    python scripts/dump_all.py --against A      # dump again and compare with folder A as it is written

A refactoring that must not change what users see is checked by running the first command before and
after it, then the second; or the first before it and `--against` after it, which keeps nothing on disk
(the dumps of the hostile fixtures take about 18 GB). Each output file holds the exit status, stdout and stderr of
`kafkalog dump` (run in-process), so a changed message or exit status counts as a difference too.
"""
from __future__ import annotations

import argparse
import contextlib
import filecmp
import io
import sys
from pathlib import Path
from typing import TextIO

from kafkalog.cli import main as kafkalog_main

ROOT = Path(__file__).resolve().parent.parent
TREES = ["samples", "tests/fixtures"]
VARIANTS = [
    ["--format", "text"],
    ["--format", "text", "--full"],
    ["--format", "text", "--shallow"],
    ["--format", "json"],
    ["--format", "kafka"],
    ["--format", "kafka", "--shallow"],
]


def targets() -> list[Path]:
    """Every file and folder under the trees, relative to the repository root, in a stable order."""
    found: list[Path] = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if path.name.endswith((".md", ".json", ".gz", ".py")):
                continue
            found.append(path.relative_to(ROOT))
        found.append(Path(tree))
    return found


def run(args: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = kafkalog_main(["dump", *args])
    return f"exit {status}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def write_all(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    count = 0
    for target in targets():
        for variant in VARIANTS:
            name = str(target).replace("/", "%") + "".join(variant).replace("--", "~")
            (out_dir / name).write_text(run([*variant, str(target)]))
            count += 1
    print(f"{count} dumps written to {out_dir}")
    return 0


def compare(a: Path, b: Path) -> int:
    names_a = {p.name for p in a.iterdir()}
    names_b = {p.name for p in b.iterdir()}
    differ = sorted(names_a ^ names_b)
    differ += sorted(n for n in names_a & names_b if not filecmp.cmp(a / n, b / n, shallow=False))
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(names_a & names_b)} dumps compared, {len(differ)} differ")
    return 1 if differ else 0


class _Against(io.TextIOBase):
    """A stdout that compares what is written with a baseline's text as it comes, and keeps none of it."""

    def __init__(self, expected: TextIO):
        self.expected, self.same = expected, True

    def write(self, s: str) -> int:
        if self.same and self.expected.read(len(s)) != s:
            self.same = False
        return len(s)


def _same_as(baseline: Path, args: list[str]) -> bool:
    with open(baseline, encoding="utf-8", newline="") as f:
        status_line, stdout_line = f.readline(), f.readline()
        out, err = _Against(f), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = kafkalog_main(["dump", *args])
        rest = f.read()
    return (out.same and status_line == f"exit {status}\n" and stdout_line == "--- stdout\n"
            and rest == f"--- stderr\n{err.getvalue()}")


def against(base: Path) -> int:
    names, differ = set(), []
    for target in targets():
        for variant in VARIANTS:
            name = str(target).replace("/", "%") + "".join(variant).replace("--", "~")
            names.add(name)
            if not (base / name).is_file() or not _same_as(base / name, [*variant, str(target)]):
                differ.append(name)
                print(f"differs: {name}", flush=True)
    only_base = sorted({p.name for p in base.iterdir()} - names)
    for name in only_base:
        print(f"differs: {name} (only in {base})")
    print(f"{len(names)} dumps compared, {len(differ) + len(only_base)} differ")
    return 1 if differ or only_base else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", type=Path, help="folder to write the dumps to")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two such folders")
    ap.add_argument("--against", type=Path, metavar="A", help="dump again and compare with folder A as it is written")
    args = ap.parse_args(argv)
    if args.against:
        return against(args.against)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("name a folder to write to, --compare A B or --against A")
    return write_all(args.out)


if __name__ == "__main__":
    sys.exit(main())
