"""kafkalog on Spark: a ``kafkalog`` data source, UDFs for bytes in a DataFrame, and the ingest command.

    import kafkalog.spark
    kafkalog.spark.register(spark)
    df = spark.read.format("kafkalog").option("isolation.level", "read_committed").load(path)
"""
from __future__ import annotations


def register(spark) -> None:
    """Register the ``kafkalog`` data source with a SparkSession."""
    from kafkalog.spark.datasource import KafkaLogDataSource

    spark.dataSource.register(KafkaLogDataSource)


__all__ = ["register"]
