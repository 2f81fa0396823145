"""The public API's docstrings are numpydoc's (checked by numpydoc's own validator), and their examples run."""
from __future__ import annotations

import doctest
import importlib

import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

from tests.paths import ROOT

# What users call: kafkalog's readers (kafkalog/__init__.py) and verify's entry point.
PUBLIC = [
    "kafkalog.dataset.reader.read_arrow",
    "kafkalog.dataset.reader.read_table",
    "kafkalog.log.segment.SegmentReader",
    "kafkalog.log.partition.Partition",
    "kafkalog.verify.verify_path",
]

# numpydoc's checks held: every parameter documented, with a type and a description, none that is not one,
# in the signature's order; a Returns (or Yields) section with a type; an Examples section; a one-line summary.
CHECKS = {"PR01", "PR02", "PR03", "PR04", "PR06", "PR07", "RT01", "RT03", "YD01", "EX01", "SS01", "SS03", "GL02",
          "GL03"}


def _errors(name: str) -> list[str]:
    return [f"{code}: {message}" for code, message in validate(name)["errors"] if code in CHECKS]


def _object(name: str) -> object:
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


@pytest.mark.parametrize("name", PUBLIC)
def test_numpydoc_sections(name):
    assert _errors(name) == []
    # numpydoc's validator has no check for a missing Raises section: each public call says what it raises.
    assert NumpyDocString(_object(name).__doc__)["Raises"], f"{name}: no Raises section"


@pytest.mark.parametrize("name", PUBLIC)
def test_examples_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read samples/ and tests/fixtures/
    tests = doctest.DocTestFinder(recurse=False).find(_object(name), name)
    assert tests and tests[0].examples, f"{name}: no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed (the output above says which)"


def _summary_only(n: int) -> int:
    """Twice `n`."""
    return 2 * n


def test_the_docstring_check_finds_missing_sections():
    found = {error.split(":")[0] for error in _errors("tests.test_docstrings._summary_only")}
    assert {"PR01", "RT01", "EX01"} <= found
    assert not NumpyDocString(_summary_only.__doc__)["Raises"]
