"""The code passes ruff and mypy as configured in pyproject.toml ([tool.ruff], [tool.mypy]), as test_layout.py's
import-linter check holds the layers."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT


def _tool(name: str) -> str:
    """The venv's copy of a tool of the test extra (the one the suite runs beside), else the one on PATH."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found is not None, f"{name} is part of the test extra"
    return found


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    # No cache: the run leaves nothing in the repository.
    return subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=ROOT, capture_output=True, text=True)


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # No cache (/dev/null): the run leaves nothing in the repository.
    return subprocess.run([_tool("mypy"), "--cache-dir", "/dev/null", "--no-error-summary", *args],
                          cwd=cwd, capture_output=True, text=True)


def test_ruff_finds_nothing():
    result = _ruff()
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


def test_mypy_finds_nothing():
    result = _mypy()
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


@pytest.fixture
def flawed(tmp_path: Path) -> Path:
    module = tmp_path / "flawed.py"
    module.write_text("import os\n\n\ndef half(n: int) -> int:\n    return n / 2\n")
    return module


def test_ruff_finds_an_unused_import(flawed: Path):
    result = _ruff("--config", str(ROOT / "pyproject.toml"), str(flawed))
    assert result.returncode == 1
    assert "F401" in result.stdout, result.stdout


def test_mypy_finds_a_wrong_return_type(flawed: Path):
    result = _mypy("--config-file", str(ROOT / "pyproject.toml"), str(flawed))
    assert result.returncode == 1
    assert "Incompatible return value type" in result.stdout, result.stdout


def test_mypy_checks_the_public_api_strictly(tmp_path: Path):
    # A function without annotations passes in the other modules, not in the strict ones (pyproject's override).
    package = tmp_path / "kafkalog"
    package.mkdir()
    (package / "__init__.py").write_text("def untyped(n):\n    return n\n")
    (package / "cli.py").write_text("def untyped(n):\n    return n\n")
    result = _mypy("--config-file", str(ROOT / "pyproject.toml"), "-p", "kafkalog", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("kafkalog/__init__.py:1:") and "no-untyped-def" in line for line in lines), lines
    assert not any(line.startswith("kafkalog/cli.py") for line in lines), lines
