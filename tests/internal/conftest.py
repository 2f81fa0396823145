"""The session-scoped local SparkSession of tests/spark/conftest.py, for the decode=true tests here.

SparkSession.builder.getOrCreate returns the one session of the run when tests/spark made it first.
"""
from __future__ import annotations

import os
import sys

import pytest

os.environ["PYSPARK_PYTHON"] = sys.executable


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    import kafkalog.spark

    session = (SparkSession.builder.master("local[2]").appName("kafkalog-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    kafkalog.spark.register(session)
    yield session
    session.stop()
