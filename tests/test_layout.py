"""The package's layout holds: imports flow one way, with no cycles, and one top-level package is installed."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys

import grimp
import pytest

from tests.paths import ROOT


def test_import_contracts_hold():
    # The layers are declared in pyproject.toml ([tool.importlinter]).
    lint = shutil.which("lint-imports", path=str(ROOT / ".venv" / "bin")) or shutil.which("lint-imports")
    assert lint is not None, "import-linter is part of the test extra"
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def _cycle(graph: grimp.ImportGraph, skip: str = "") -> list[str] | None:
    """One import cycle among the graph's modules but `skip` (imports inside functions included), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module) - {skip}):
            if state.get(imported) == 1:
                return [*path[path.index(imported):], imported]
            if imported not in state:
                found = visit(imported)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph.modules - {skip}):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycles():
    graph = grimp.build_graph("kafkalog", cache_dir=None)
    # The package's own __init__ re-exports the public API from below: it is the top, not part of a cycle.
    assert _cycle(graph, skip="kafkalog") is None


def test_the_cycle_check_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    assert _cycle(graph) is None
    graph.add_import(importer="p.c", imported="p.a")
    assert _cycle(graph) == ["p.a", "p.b", "p.c", "p.a"]


@pytest.mark.skipif(sys.platform == "win32", reason="the venv layout differs")
def test_spark_without_pyspark_says_so_in_one_line(tmp_path):
    # A Python that has kafkalog but not PySpark: hide pyspark from the import system.
    script = ("import sys\n"
              "class Hide:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              "        if name == 'pyspark' or name.startswith('pyspark.'):\n"
              "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
              "sys.meta_path.insert(0, Hide())\n"
              "import kafkalog.spark\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert "pip install 'kafkalog[spark]'" in last, result.stderr


# Modules that implement byte-level rules which are not Kafka's structures: codec framings and checksums.
_NOT_KAFKA_STRUCTURES = {"compression.py", "checksums.py"}


def _hand_decodes(path) -> list[str]:
    """`struct` calls and `int.from_bytes` in a module: how bytes get decoded by hand."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
            if "struct" in names:
                found.append(f"{path.name}:{node.lineno}: imports struct")
        elif isinstance(node, ast.Attribute) and node.attr == "from_bytes":
            found.append(f"{path.name}:{node.lineno}: int.from_bytes")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_raw_"):
            found.append(f"{path.name}:{node.lineno}: reads the compiler's private {node.attr}")
    return found


def test_bytes_are_decoded_only_by_the_specs():
    # A field of a spec is decoded by its generated parser and its generated kernel, nowhere else.
    found = [hit for path in sorted((ROOT / "kafkalog").rglob("*.py")) if path.name not in _NOT_KAFKA_STRUCTURES
             for hit in _hand_decodes(path)]
    assert found == []


def test_the_hand_decoding_check_finds_hand_decoding(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import struct\nn = int.from_bytes(b'ab', 'big')\nx = obj._raw__m_decompressed\n")
    assert len(_hand_decodes(module)) == 3


def _layers() -> list[list[str]]:
    """The layers of pyproject.toml's contract, top first, each as its modules' names (`a | b` is two)."""
    import tomllib

    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def _reaches_into_a_reader(path) -> list[str]:
    """Where a module takes a reader object (a parameter `reader`, or one typed as a `...Reader`) or touches one
    (`reader.x`, a name `SegmentReader`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.arg):
            typed = ast.unparse(node.annotation) if node.annotation is not None else ""
            if node.arg == "reader" or "SegmentReader" in typed:
                found.append(f"{path.name}:{node.lineno}: takes a reader ({node.arg})")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "reader":
            found.append(f"{path.name}:{node.lineno}: touches reader.{node.attr}")
        elif isinstance(node, ast.Name) and node.id == "SegmentReader":
            found.append(f"{path.name}:{node.lineno}: names SegmentReader")
    return found


def test_no_module_below_log_takes_or_touches_a_reader():
    # A reader (`kafkalog.log.segment.SegmentReader`) drives what is below it: the fast path and the entry
    # scanner are given the scanner (`kafkalog.entries.EntryScanner`, through `kafkalog.fast.segment.Scanner`).
    layers = _layers()
    log = next(i for i, layer in enumerate(layers) if "log" in layer)
    below = [name for layer in layers[log + 1:] for name in layer]
    assert "fast" in below and "entries" in below and "formats" in below
    paths = []
    for name in below:
        package = ROOT / "kafkalog" / name
        paths += sorted(package.rglob("*.py")) if package.is_dir() else [package.with_suffix(".py")]
    assert all(p.exists() for p in paths)
    assert [hit for path in paths for hit in _reaches_into_a_reader(path)] == []


def test_the_reader_check_finds_a_reader(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def decode_runs(reader, topic=None):\n    reader.position = 0\n"
                      "def walk(r: 'SegmentReader'): ...\nx = SegmentReader\n")
    assert len(_reaches_into_a_reader(module)) == 4
