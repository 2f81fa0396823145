"""The ``kafkalog`` Spark data source (PySpark's Python Data Source API, Spark 4).

    import kafkalog.spark
    kafkalog.spark.register(spark)
    df = spark.read.format("kafkalog").load("/var/lib/kafka/data/orders-0")

The DataFrame has the columns of Spark's Kafka source (`kafkalog.dataset.schema`), its
options (`kafkalog.dataset.options`) and, with `includeKafkalogColumns`, kafkalog's own.
Planning (`partitions`) resolves offsets per partition (`kafkalog.dataset.offsets`),
takes the filters Spark pushes (`kafkalog.dataset.filters`) and cuts the segments into
byte ranges (`kafkalog.dataset.plan`); each task decodes its range through the one
decoding seam (`kafkalog.dataset.decode`), and `kafkalog.dataset.rows` filters the rows with
Arrow compute (offsets, control records, read_committed, pushed filters) and shapes them.
Streaming is `kafkalog.spark.stream`.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from kafkalog.dataset import cluster, plan
from kafkalog.dataset.filters import Pushed, translate
from kafkalog.dataset.internal_topics import DECODED_DDL
from kafkalog.dataset.options import parse_options
from kafkalog.dataset.registry_values import RegistryColumns
from kafkalog.dataset.rows import path_option, read_range
from kafkalog.dataset.schema import output_ddl
from kafkalog.spark.stream import KafkaLogStreamReader


class KafkaLogDataSource(DataSource):
    """``spark.read.format("kafkalog")`` and ``spark.readStream.format("kafkalog")``: Kafka's files as a DataFrame."""

    @classmethod
    def name(cls) -> str:
        return "kafkalog"

    def schema(self) -> str:
        options = dict(self.options)
        parsed = parse_options(options)
        ddl = output_ddl(parsed.include_headers, parsed.kafkalog_columns, parsed.include_below_log_start) \
            + (cluster.BROKER_DDL if parsed.read_replicas else "") + (DECODED_DDL if parsed.decode else "")
        if parsed.registry:
            # The typed columns' types come from the schema store: read it here, on the driver.
            registry = RegistryColumns.for_read(path_option(options), parsed)
            assert registry is not None  # (options that ask for the registry)
            ddl += registry.spark_ddl(re.findall(r"`([^`]+)`", ddl))
        return ddl

    def reader(self, schema) -> KafkaLogReader:
        return KafkaLogPushdownReader(dict(self.options))

    def streamReader(self, schema):
        return KafkaLogStreamReader(dict(self.options))


class KafkaLogDataSourceNoPushdown(KafkaLogDataSource):
    """The same source for sessions without Python filter pushdown (PySpark < 4.1, or turned off).

    Spark refuses a reader that implements `pushFilters` while
    `spark.sql.python.filterPushdown.enabled` is false, so this one does not.
    """

    def reader(self, schema) -> KafkaLogReader:
        return KafkaLogReader(dict(self.options))


class KafkaLogReader(DataSourceReader):
    def __init__(self, options: dict[str, str]):
        self.path = path_option(options)
        self.options = parse_options(options)
        self.pushed = Pushed()
        self.registry = RegistryColumns.for_read(self.path, self.options) if self.options.registry else None

    def partitions(self) -> list[InputPartition]:
        ranges = plan.plan(self.path, self.options, self.pushed)
        if not ranges:
            return [InputPartition(None)]
        return [InputPartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        rng = partition.value
        if rng is None:
            return
        yield from read_range(rng, self.options, self.pushed, self.registry)


class KafkaLogPushdownReader(KafkaLogReader):
    def pushFilters(self, filters):
        """Spark 4.1+: keep the filters kafkalog applies exactly, hand back the rest."""
        self.pushed, rest = translate(filters)
        return rest

