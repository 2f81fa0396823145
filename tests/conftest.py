"""Shared by every test: helper modules on the path, and one real local SparkSession for the Spark tests."""
import os
import sys
from pathlib import Path

import pytest

# Test helpers (kafka_reference) are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))

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
