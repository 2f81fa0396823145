"""Shared by every test: one real local SparkSession for the Spark tests."""
import os
import sys

import pytest

# Spark's Python workers must import kafkalog and pyarrow: run them on this interpreter.
os.environ["PYSPARK_PYTHON"] = sys.executable


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
