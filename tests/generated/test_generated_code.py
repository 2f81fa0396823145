"""generated/ is what the pinned compiler makes of schemas/ now."""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import generate  # scripts/generate.py (pytest's pythonpath)
import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is needed to run kaitai-struct-compiler")


def test_generated_parsers_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_check_notices_a_spec_change(tmp_path):
    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas)
    varint = schemas / "kafka_varint.ksy"
    varint.write_text(varint.read_text().replace("A signed integer in Kafka's", "A signed number in Kafka's"))
    out = tmp_path / "out"
    generate.generate_all(out, sorted(schemas.glob("*.ksy")))
    assert generate.stale_files(out) == ["kafka_varint.py"]


def test_generated_is_installed_as_a_subpackage():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["kafkalog._generated"] == "generated"
    assert "kafkalog._generated" in setuptools["packages"]
    assert "py-modules" not in setuptools  # nothing at the top of site-packages but kafkalog
    for path in sorted((ROOT / "generated").glob("*.py")):
        module = importlib.import_module(f"kafkalog._generated.{path.stem}")
        assert Path(module.__file__).resolve() == path.resolve()


def test_generated_modules_import_each_other_relatively():
    # `import kafka_record` would need generated/ on the path, or find another distribution's module.
    for path in sorted((ROOT / "generated").glob("kafka_*.py")):
        assert not re.search(r"^import kafka_", path.read_text(), flags=re.M), path.name


def test_each_generated_module_imports_first_in_a_fresh_interpreter():
    # The parsers import kafkalog.compression, their process routine: importing one first must work.
    modules = [p.stem for p in sorted((ROOT / "generated").glob("*.py")) if p.stem != "__init__"]

    def first(module: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", f"import kafkalog._generated.{module}; from kafkalog import SegmentReader"],
                              capture_output=True, text=True)
    with ThreadPoolExecutor(4) as pool:  # independent interpreters, each mostly start-up
        for module, result in zip(modules, pool.map(first, modules)):
            assert result.returncode == 0, (module, result.stderr)


def test_the_check_notices_a_spec_change_in_the_kernels(tmp_path):
    # A field added to the record spec changes the kernels too: their staleness is checked as well.
    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas)
    record = schemas / "kafka_record.ksy"
    text = record.read_text()
    assert "      - id: timestamp_delta\n" in text
    record.write_text(text.replace("      - id: timestamp_delta\n",
                                   "      - id: extra\n        type: u1\n        doc: x\n      - id: timestamp_delta\n", 1))
    out = tmp_path / "out"
    generate.generate_all(out, sorted(schemas.glob("*.ksy")))
    assert {"kafka_kernels.pxi", "kafka_kernel_columns.py"} <= set(generate.stale_files(out))


@pytest.mark.parametrize("edit, construct", [
    (("        type: s1\n        doc: Unused by Kafka so far; written as 0.",
      "        type: s1\n        process: xor(1)\n        doc: Unused by Kafka so far; written as 0."), "'process'"),
    (("        repeat: expr\n        repeat-expr: num_headers.value", "        repeat: eos"), "repeat: eos"),
    (("        size: len_key.value\n        if: len_key.value >= 0",
      "        size: len_key.value + _parent.x\n        if: len_key.value >= 0"), "_parent"),
    (("        type: s1\n        doc: Unused", "        type: f4\n        doc: Unused"), "f4"),
])
def test_the_kernel_generator_refuses_what_it_does_not_compile(tmp_path, edit, construct):
    import kernels

    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas)
    record = schemas / "kafka_record.ksy"
    text = record.read_text()
    assert edit[0] in text
    record.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(kernels.UnsupportedConstruct) as refused:
        kernels.generate(schemas)
    message = str(refused.value)
    assert "spec kafka_record" in message and construct in message, message
