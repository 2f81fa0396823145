"""Benchmark (run by hand, not a test): where `spark.read.format("kafkalog")` spends its time.

    python benchmarks/spark_floor.py --work /tmp/kafkalog-fast-path --codecs none,lz4

For each corpus (`benchmarks/fast_path.py` writes them with Kafka's own encoder), in one run:

- `read_arrow`: `kafkalog.read_arrow(dir, includeHeaders=True)` in this process after a warm-up, one thread:
  the decoder and the row shaping, nothing else;
- `kafkalog`: `spark.read.format("kafkalog")...count()`, and a Parquet write of offset, timestamp, key, value
  and headers, on --master, for each `rowsPerBatch` and `maxPartitionBytes` asked for;
- `floor`: the same Arrow batches handed to Spark by a Python data source that does no decoding at all: each
  worker decodes its ranges once (a warm-up query), keeps the batches, and yields them again. Its time is what
  PySpark's Python data source API costs for those rows: the Arrow stream from the Python worker to the JVM
  and the conversion to Spark's rows. PySpark 4.3's API has no column pruning, so a `count()` pays for every
  column. kafkalog's time can come near the floor and no lower.
"""
from __future__ import annotations

import argparse
import builtins
import os
import sys
import time
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

import kafkalog
import kafkalog.spark
from kafkalog.dataset import plan
from kafkalog.dataset.options import parse_options
from kafkalog.dataset.rows import read_range
from kafkalog.dataset.schema import output_ddl

COLUMNS = ["offset", "timestamp", "key", "value", "headers"]


class FloorSource(DataSource):
    """kafkalog's planner and batches, decoded once per worker and then replayed."""

    @classmethod
    def name(cls) -> str:
        return "kafkalog_floor"

    def schema(self) -> str:
        parsed = parse_options(dict(self.options))
        return output_ddl(parsed.include_headers, parsed.kafkalog_columns)

    def reader(self, schema) -> FloorReader:
        return FloorReader(dict(self.options))


class FloorReader(DataSourceReader):
    def __init__(self, options: dict[str, str]):
        self.path = options["path"]
        self.options = parse_options(options)
        self.key = repr(sorted(options.items()))

    def partitions(self):
        return [InputPartition(r) for r in plan.plan(self.path, self.options)]

    def read(self, partition):
        rng = partition.value
        # This class reaches the workers by value (it lives in __main__): keep the batches somewhere every
        # unpickled copy of it sees, for as long as the worker process lives.
        cache: dict[tuple, list[pa.RecordBatch]] = builtins.__dict__.setdefault("_kafkalog_floor_cache", {})
        key = (rng.segment.location, rng.start, rng.end, self.key)
        if key not in cache:
            cache[key] = list(read_range(rng, self.options))
        yield from cache[key]


def _tree_cpu() -> float:
    """CPU seconds of this process and every live descendant (the JVM and its Python workers)."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])  # utime, stime
    mine, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        pid = frontier.pop()
        children = [p for p, parent in parents.items() if parent == pid and p not in mine]
        mine.update(children)
        frontier.extend(children)
    return sum(ticks.get(p, 0) for p in mine) / os.sysconf("SC_CLK_TCK")


def cpu() -> float:
    return _tree_cpu()


def timed(action) -> tuple[float, float]:
    t, c = time.perf_counter(), cpu()
    action()
    return time.perf_counter() - t, cpu() - c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default="/tmp/kafkalog-fast-path")
    ap.add_argument("--codecs", default="none,lz4")
    ap.add_argument("--batch-bytes", default="16384")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--rows-per-batch", default="10000,100000")
    ap.add_argument("--max-partition-bytes", default=str(128 << 20))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(args.master).appName("kafkalog-spark-floor")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    kafkalog.spark.register(spark)
    spark.dataSource.register(FloorSource)
    out = Path(args.work) / "parquet-floor"
    print("| codec | reader | rowsPerBatch | maxPartitionBytes | tasks | count wall s | count CPU s "
          "| parquet wall s | parquet CPU s | count x read_arrow |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for codec in args.codecs.split(","):
            path = str(Path(args.work) / f"{codec}-{args.batch_bytes}-{args.records}" / "corpus-0")
            kafkalog.read_table(path, includeHeaders=True)  # warm-up: the JIT cache, the page cache
            best = min((timed(lambda: kafkalog.read_table(path, includeHeaders=True, threads=1))  # noqa: B023
                        for _ in range(args.repeat)), key=lambda t: t[0])
            print(f"| {codec} | read_arrow, 1 thread | | | | {best[0]:.2f} | {best[1]:.2f} | | | 1.00 |", flush=True)
            for rows in args.rows_per_batch.split(","):
                for part_bytes in args.max_partition_bytes.split(","):
                    options = {"includeHeaders": "true", "rowsPerBatch": rows, "maxPartitionBytes": part_bytes}
                    tasks = len(plan.plan(path, parse_options(options)))
                    for name in ("kafkalog", "kafkalog_floor"):
                        df = spark.read.format(name).options(**options).load(path)
                        df.count()  # warm-up (and the floor's decoding)
                        count = min((timed(df.count) for _ in range(args.repeat)), key=lambda t: t[0])
                        target = str(out / f"{name}-{codec}")
                        # (the lambdas run within the iteration that binds them)
                        write = min((timed(lambda: df.select(*COLUMNS).write.mode("overwrite").parquet(target))  # noqa: B023
                                     for _ in range(args.repeat)), key=lambda t: t[0])
                        label = "kafkalog" if name == "kafkalog" else "floor (no decoding)"
                        print(f"| {codec} | {label} | {rows} | {part_bytes} | {tasks} | {count[0]:.2f} | "
                              f"{count[1]:.2f} | {write[0]:.2f} | {write[1]:.2f} | {best[0] / count[0]:.2f} |",
                              flush=True)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
