"""Kafka's files read as one table with the Kafka source's options: planning, byte ranges, rows.

What Spark's ``format("kafkalog")`` does, without Spark: `reader.read_arrow` for Python, pandas,
DuckDB and Polars; the Spark data source (`kafkalog.spark`) drives the same planner and rows.
"""
