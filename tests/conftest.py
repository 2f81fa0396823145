"""Shared by every test: one real local SparkSession for the Spark tests; numba's kernels compiled beside a large
run (tests/warm_kernels.py)."""
import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

# Spark's Python workers must import kafkalog and pyarrow: run them on this interpreter.
os.environ["PYSPARK_PYTHON"] = sys.executable

#: A run of this many tests or more compiles numba's kernels beside it (a run of a few files would pay more than
#: it gains: the compiler's start-up, or the loading of a warm cache, on a core another job may be using).
WARM_UP_MIN_TESTS = 500
_warm_up: list[subprocess.Popen] = []


def pytest_collection_finish(session):
    """A large run: tests/warm_kernels.py started, at a low priority (nice 10: the idle core, not the tests')."""
    if len(session.items) >= WARM_UP_MIN_TESTS and not os.environ.get("KAFKALOG_TESTS_NO_WARM_UP"):
        _warm_up.append(subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "tests.warm_kernels"], cwd=ROOT,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True))


def pytest_sessionfinish(session, exitstatus):
    for proc in _warm_up:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def spark():
    """One real local SparkSession (local[2], UI off) for all Spark tests of the run."""
    from pyspark.sql import SparkSession

    import kafkalog.spark

    session = (SparkSession.builder.master("local[2]").appName("kafkalog-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    kafkalog.spark.register(session, filter_pushdown=True)
    yield session
    session.stop()
