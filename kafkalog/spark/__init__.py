"""kafkalog on Spark: a ``kafkalog`` data source, UDFs for bytes in a DataFrame, and the ingest command.

    import kafkalog.spark
    kafkalog.spark.register(spark)
    df = spark.read.format("kafkalog").option("isolation.level", "read_committed").load(path)
"""
from __future__ import annotations

try:
    import pyspark  # noqa: F401  (Spark is an extra: say so at once, not deep inside a data source)
except ModuleNotFoundError as exc:
    raise ModuleNotFoundError("kafkalog.spark needs PySpark: pip install 'kafkalog[spark]'", name=exc.name) from None

from kafkalog.spark.datasource import KafkaLogDataSource, KafkaLogDataSourceNoPushdown

PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


def register(spark, *, filter_pushdown: bool | None = None) -> None:
    """Register the ``kafkalog`` data source with a SparkSession.

    Filter pushdown (PySpark 4.1+) is on when `spark.sql.python.filterPushdown.enabled` is true
    at registration, or with ``filter_pushdown=True``, which also sets it for the session; then
    ``.where("offset > N")`` and the like skip segments and byte ranges. Spark refuses a reader
    that takes filters while that setting is off, hence the choice here. See docs/spark.md for
    a caveat of Spark's own about reusing one DataFrame with and without filters.
    """
    if filter_pushdown is None:
        filter_pushdown = str(spark.conf.get(PUSHDOWN_CONF, "false")).lower() == "true"
    if filter_pushdown and _pushdown_available():
        spark.conf.set(PUSHDOWN_CONF, "true")
        spark.dataSource.register(KafkaLogDataSource)
    else:
        spark.dataSource.register(KafkaLogDataSourceNoPushdown)


def _pushdown_available() -> bool:
    try:
        from pyspark.sql.datasource import Filter  # noqa: F401  (PySpark 4.1+)
    except ImportError:
        return False
    return True


__all__ = ["register"]
