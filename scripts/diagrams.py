#!/usr/bin/env python3
"""Draw each spec in schemas/ as a diagram in docs/diagrams/.

    python scripts/diagrams.py            # write docs/diagrams/NAME.dot and NAME.svg
    python scripts/diagrams.py --check    # exit 1 if a .dot is out of date or an .svg is missing

The pinned npm compiler's `graphviz` target writes one .dot per spec (with its types, fields,
sizes and instances); Graphviz's `dot -Tsvg` renders it (Debian: apt-get install graphviz).
--check compares the .dot files byte for byte (the compiler is pinned) and asks that each
has its .svg; it does not compare SVGs, whose text depends on the Graphviz version.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import ROOT, compile_specs, specs

DIAGRAMS = ROOT / "docs" / "diagrams"


def render(dot_file: Path, svg_file: Path) -> None:
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit("Graphviz's dot is not installed (Debian: apt-get install graphviz)")
    svg = subprocess.run([dot, "-Tsvg", str(dot_file)], check=True, capture_output=True, text=True).stdout
    svg_file.write_text(svg)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check that docs/diagrams/ is up to date")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        compile_specs("graphviz", Path(tmp))
        fresh = {p.name: p.read_text() for p in Path(tmp).glob("*.dot")}
    if args.check:
        stale = sorted(n for n, text in fresh.items()
                       if not (DIAGRAMS / n).exists() or (DIAGRAMS / n).read_text() != text
                       or not (DIAGRAMS / n).with_suffix(".svg").exists())
        stale += sorted(p.name for p in DIAGRAMS.glob("*.dot") if p.name not in fresh)
        if stale:
            print("docs/diagrams/ is out of date: " + ", ".join(stale), file=sys.stderr)
            print("run: python scripts/diagrams.py", file=sys.stderr)
            return 1
        print("docs/diagrams/ is up to date")
        return 0
    DIAGRAMS.mkdir(parents=True, exist_ok=True)
    for old in list(DIAGRAMS.glob("*.dot")) + list(DIAGRAMS.glob("*.svg")):
        if old.with_suffix(".dot").name not in fresh:
            old.unlink()
    for name, text in sorted(fresh.items()):
        dot_file = DIAGRAMS / name
        dot_file.write_text(text)
        render(dot_file, dot_file.with_suffix(".svg"))
    print(f"drew {len(fresh)} of {len(specs())} specs into {DIAGRAMS.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
