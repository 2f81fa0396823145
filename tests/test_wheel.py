"""A wheel built from the checkout installs one top-level package, `kafkalog`, and works from a fresh venv."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pyarrow as pa
import pytest

import kafkalog
from tests.paths import ROOT, SAMPLES


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # No build isolation: the set-up already installed setuptools; the wheel is built from the sources as they are.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True)
    (found,) = out.glob("kafkalog-*.whl")
    return found


def test_the_wheel_holds_one_top_level_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"kafkalog", next(t for t in tops if t.endswith(".dist-info"))}
    generated = {Path(n).name for n in names if n.startswith("kafkalog/_generated/")}
    assert generated == {p.name for p in (ROOT / "generated").glob("*.py")}
    assert not any(n.startswith(("tests/", "scripts/", "generated/")) for n in names)


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed; its dependencies are the test environment's own.

    The dependencies are made visible through a .pth line naming this environment's site-packages (a
    plain path entry: the editable install's own .pth hook in there is not run), so that the test needs
    no download, and `kafkalog` itself can only come from the wheel.
    """
    env = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True)
    return env


def _run(env: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(args), cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)


def test_the_installed_wheel_runs_from_another_directory(installed, tmp_path):
    sample = SAMPLES / "v2-transaction.log"
    where = _run(installed, str(installed / "bin" / "python"), "-c",
                 "import kafkalog, kafkalog._generated.kafka_log as g; print(kafkalog.__file__); print(g.__file__)",
                 cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    for line in where.stdout.split():
        assert Path(line).is_relative_to(installed), line

    dump = _run(installed, str(installed / "bin" / "kafkalog"), "dump", "--format", "json", str(sample), cwd=tmp_path)
    assert dump.returncode == 0, dump.stderr
    assert dump.stdout.count('"type":"record"') == 4

    verify = _run(installed, str(installed / "bin" / "kafkalog"), "verify", str(SAMPLES / "__consumer_offsets-0"),
                  cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.rstrip().endswith("OK")

    table = _run(installed, str(installed / "bin" / "python"), "-c",
                 f"import kafkalog; t = kafkalog.read_table({str(sample)!r}); print(t.num_rows, t.column('offset').to_pylist())",
                 cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    expected = kafkalog.read_table(sample)
    assert table.stdout.strip().split(maxsplit=1) == [str(expected.num_rows), str(expected.column("offset").to_pylist())]
    assert isinstance(expected, pa.Table)


def _carries_compiled(wheel: Path, installed: Path, cwd: Path, module: str, code: str) -> None:
    """The wheel holds `kafkalog/fast/<module>.*.so` (or .pyd), and `code`, run in the installed venv, prints True
    (the compiled module is there) and that module's file, which is the installed one."""
    names = zipfile.ZipFile(wheel).namelist()
    assert [n for n in names if n.startswith(f"kafkalog/fast/{module}.") and n.endswith((".so", ".pyd"))], names
    found = _run(installed, str(installed / "bin" / "python"), "-c", code, cwd=cwd)
    assert found.returncode == 0, found.stderr
    available, where = found.stdout.split()
    assert available == "True"
    assert Path(where).is_relative_to(installed), where


def test_the_wheel_carries_the_compiled_engine(wheel, installed, tmp_path):
    # Compiled when the wheel is built (issue 33): nothing is compiled at run time.
    _carries_compiled(wheel, installed, tmp_path, "engine",
                      "from kafkalog.fast import compiled; print(compiled.AVAILABLE); print(compiled.engine.__file__)")


def test_the_wheel_carries_the_compiled_line_writers(wheel, installed, tmp_path):
    # dump's line writers, compiled when the wheel is built too (issue 33).
    _carries_compiled(wheel, installed, tmp_path, "lines",
                      "from kafkalog.fast import line_parts; print(line_parts.AVAILABLE); "
                      "print(line_parts.compiled.__file__)")
