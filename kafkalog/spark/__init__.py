"""kafkalog on Spark: a ``kafkalog`` data source, UDFs for bytes in a DataFrame, and the ingest command.

    import kafkalog.spark
    kafkalog.spark.register(spark)
    df = spark.read.format("kafkalog").option("isolation.level", "read_committed").load(path)
"""
from __future__ import annotations


PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


def register(spark, *, filter_pushdown: bool = True) -> None:
    """Register the ``kafkalog`` data source with a SparkSession.

    With `filter_pushdown` (and PySpark 4.1 or later, where Python data sources can take
    filters), this turns on `spark.sql.python.filterPushdown.enabled` for the session, so that
    ``.where("offset > N")`` and the like skip segments and byte ranges; Spark refuses a
    reader that takes filters while that setting is off.
    """
    from kafkalog.spark.datasource import KafkaLogDataSource, KafkaLogDataSourceNoPushdown

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
