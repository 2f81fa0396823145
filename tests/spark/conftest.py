"""One real local SparkSession (local[2], UI off) shared by all Spark tests."""
from __future__ import annotations

import os
import sys

import pytest

# Spark's Python workers must import kafkalog and pyarrow: run them on this interpreter.
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
    kafkalog.spark.register(session, filter_pushdown=True)
    yield session
    session.stop()

