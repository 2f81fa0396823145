#!/usr/bin/env python3
"""Regenerate generated/ from the specs in schemas/: the Kaitai parsers and the columnar kernels.

    python scripts/generate.py            # write generated/, then redraw docs/diagrams/
    python scripts/generate.py --check    # exit 1 if generated/ is out of date
    python scripts/generate.py --lang javascript --out DIR   # other targets

The kernels are written by scripts/kernels.py from the same specs. The compiler is the npm package kaitai-struct-compiler (the build the Kaitai
Web IDE runs), pinned with its lock file in scripts/ksc/; it is installed
there with `npm ci --prefix scripts/ksc` when missing.
"""
from __future__ import annotations

import argparse
import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import kernels

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
GENERATED = ROOT / "generated"
KSC = ROOT / "scripts" / "ksc"


def ensure_compiler() -> None:
    if not (KSC / "node_modules" / "kaitai-struct-compiler").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(KSC)], check=True)


def specs() -> list[Path]:
    return sorted(SCHEMAS.glob("*.ksy"))


def compile_specs(lang: str, out_dir: Path, spec_files: list[Path] | None = None) -> None:
    """Compile every spec (or the given ones) for `lang` into `out_dir`."""
    ensure_compiler()
    files = [str(p) for p in (spec_files or specs())]
    subprocess.run(
        ["node", str(KSC / "compile.js"), lang, str(out_dir), *files],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def generate_all(out_dir: Path, spec_files: list[Path] | None = None) -> None:
    """The Kaitai parsers and the columnar kernels (scripts/kernels.py) for the specs, into `out_dir`."""
    compile_specs("python", out_dir, spec_files)
    schemas = spec_files[0].parent if spec_files else SCHEMAS
    (out_dir / f"{kernels.MODULE}.py").write_text(kernels.generate(schemas))


def stale_files(out_dir: Path) -> list[str]:
    """Names that differ between `out_dir` and generated/ (either way)."""
    fresh = {p.name for p in out_dir.glob("*.py")}
    committed = {p.name for p in GENERATED.glob("*.py")}
    differ = sorted(fresh ^ committed)
    differ += sorted(n for n in fresh & committed if not filecmp.cmp(out_dir / n, GENERATED / n, shallow=False))
    return differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check that generated/ is up to date")
    ap.add_argument("--lang", default="python", help="target language (default python)")
    ap.add_argument("--out", type=Path, help="output folder (default generated/ for python)")
    args = ap.parse_args(argv)

    if args.lang != "python" or args.out:
        if not args.out:
            ap.error("--out is required for languages other than python")
        compile_specs(args.lang, args.out)
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        generate_all(Path(tmp))
        differ = stale_files(Path(tmp))
        if args.check:
            if differ:
                print("generated/ is out of date with schemas/: " + ", ".join(differ), file=sys.stderr)
                print("run: python scripts/generate.py", file=sys.stderr)
                return 1
            print("generated/ is up to date")
            return 0
        for old in GENERATED.glob("*.py"):
            old.unlink()
        GENERATED.mkdir(exist_ok=True)
        for new in Path(tmp).glob("*.py"):
            shutil.copyfile(new, GENERATED / new.name)
    print(f"regenerated {len(specs())} specs and the columnar kernels into {GENERATED.relative_to(ROOT)}/")
    if shutil.which("dot") is None:
        print("docs/diagrams/ not redrawn: Graphviz's dot is missing (Debian: apt-get install graphviz)",
              file=sys.stderr)
        return 0
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "diagrams.py")]).returncode


if __name__ == "__main__":
    sys.exit(main())
