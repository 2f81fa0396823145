#!/usr/bin/env python3
"""Regenerate generated/ from the specs in schemas/: the Kaitai parsers and the columnar kernels.

generated/ is installed as the subpackage `kafkalog._generated` (pyproject.toml maps the folder), so
the compiler's imports of one parser by another (`import kafka_record`) are rewritten into relative
ones (`from . import kafka_record`), as PySpark does for its generated protobuf modules: nothing is
installed at the top of site-packages but `kafkalog`.

    python scripts/generate.py            # write generated/, then redraw docs/diagrams/
    python scripts/generate.py --check    # exit 1 if generated/ is out of date
    python scripts/generate.py --lang javascript --out DIR   # other targets

The kernels are written by scripts/kernels.py from the same specs, for Cython (kafka_kernels.pxi, compiled
into kafkalog.fast.engine when the package is installed; nothing is compiled at run time). The compiler is the npm package kaitai-struct-compiler (the build the Kaitai
Web IDE runs), pinned with its lock file in scripts/ksc/; it is installed
there with `npm ci --prefix scripts/ksc` when missing.
"""
from __future__ import annotations

import argparse
import filecmp
import re
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
#: Written into generated/ by another generator, which checks it itself: kept as it is here.
OTHER_GENERATORS = {"internal_topics_catalog.py": "scripts/message_specs.py"}
PACKAGE_INIT = '''"""The generated code, installed as `kafkalog._generated`: do not edit by hand.

- kafka_*.py: the Kaitai Struct compiler's Python parsers of schemas/*.ksy (the object path, and the
  reference), with their imports of each other made relative by scripts/generate.py;
- kafka_kernels.pxi: the columnar kernels scripts/kernels.py writes from the same specs for Cython (the
  fast path), which kafkalog/fast/engine.pyx includes and compiles when the package is installed;
- kafka_kernel_columns.py: the kernels' tables' columns and error codes, as Python (the engine's readers
  import them);
- internal_topics_catalog.py: Kafka's names for the internal-topic records (scripts/message_specs.py).

Regenerate with `python scripts/generate.py`; tests/generated/test_generated_code.py fails when this is stale.
"""
'''


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


def relative_imports(source: str, modules: set[str]) -> str:
    """The compiler's `import kafka_x` of a sibling parser, as `from . import kafka_x`."""
    return re.sub(r"^import (\w+)$", lambda m: f"from . import {m.group(1)}" if m.group(1) in modules else m.group(0),
                  source, flags=re.M)


def generate_all(out_dir: Path, spec_files: list[Path] | None = None) -> None:
    """The Kaitai parsers and the columnar kernels (scripts/kernels.py) for the specs, into `out_dir`."""
    compile_specs("python", out_dir, spec_files)
    modules = {p.stem for p in out_dir.glob("*.py")}
    for path in out_dir.glob("*.py"):
        path.write_text(relative_imports(path.read_text(), modules))
    schemas = spec_files[0].parent if spec_files else SCHEMAS
    (out_dir / f"{kernels.MODULE}.pxi").write_text(kernels.generate(schemas))
    (out_dir / f"{kernels.COLUMNS_MODULE}.py").write_text(kernels.generate_columns(schemas))
    (out_dir / "__init__.py").write_text(PACKAGE_INIT)


def _generated_files(folder: Path) -> list[Path]:
    """The Python modules and the Cython include (kafka_kernels.pxi) in `folder`."""
    return [*folder.glob("*.py"), *folder.glob("*.pxi")]


def stale_files(out_dir: Path) -> list[str]:
    """Names that differ between `out_dir` and generated/ (either way)."""
    fresh = {p.name for p in _generated_files(out_dir)}
    committed = {p.name for p in _generated_files(GENERATED)} - set(OTHER_GENERATORS)
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
        for old in _generated_files(GENERATED):
            if old.name not in OTHER_GENERATORS:
                old.unlink()
        GENERATED.mkdir(exist_ok=True)
        for new in _generated_files(Path(tmp)):
            shutil.copyfile(new, GENERATED / new.name)
    print(f"regenerated {len(specs())} specs and the columnar kernels into {GENERATED.relative_to(ROOT)}/")
    if shutil.which("dot") is None:
        print("docs/diagrams/ not redrawn: Graphviz's dot is missing (Debian: apt-get install graphviz)",
              file=sys.stderr)
        return 0
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "diagrams.py")]).returncode


if __name__ == "__main__":
    sys.exit(main())
