"""docs/diagrams/: the compiler's graphviz output for each spec, rendered to SVG."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.paths import ROOT

DIAGRAMS = ROOT / "docs" / "diagrams"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the compiler runs in Node)")
def test_diagrams_are_up_to_date():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "diagrams.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_spec_has_an_svg():
    for spec in sorted((ROOT / "schemas").glob("*.ksy")):
        svg = DIAGRAMS / f"{spec.stem}.svg"
        assert svg.exists(), f"no diagram for {spec.name}: run python scripts/diagrams.py"
        assert "<svg" in svg.read_text()


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot is not installed (apt-get install graphviz): SVG rendering not checked")
def test_dot_renders_each_diagram():
    for dot_file in sorted(DIAGRAMS.glob("*.dot")):
        r = subprocess.run(["dot", "-Tsvg", str(dot_file)], capture_output=True, text=True)
        assert r.returncode == 0 and "<svg" in r.stdout, f"{dot_file.name}: {r.stderr}"
