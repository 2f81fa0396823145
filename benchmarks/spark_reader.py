"""Benchmark (run by hand, not a test): records/second of kafkalog's Spark reader vs an aiokafka reference.

    python benchmarks/spark_reader.py --records 1000000 --codecs none,lz4,zstd

For each codec it writes a corpus partition directory with Kafka's own encoder
(`scripts/kafka_fixtures.py corpus`, Java) unless one is there already, then, in
the same SparkSession, times:

- kafkalog: ``spark.read.format("kafkalog").load(dir)`` (all columns, CRC checks);
- reference: the same byte ranges (kafkalog's planner, cut at offset-index
  positions) parsed by aiokafka's record parser (``MemoryRecords`` /
  ``DefaultRecordBatch``, C-accelerated when its extension is built) inside
  ``mapInArrow``, with CRC checks, producing offset, timestamp, key, value, headers.

Both are forced with the ``noop`` sink, and both use the same tasks.

    python benchmarks/spark_reader.py --records 1000000 --codecs none --where "offset > 990000"

times instead ``.where(...)`` on the corpus with filter pushdown off and on
(``kafkalog.spark.register(spark, filter_pushdown=...)``), a fresh DataFrame each.
Needs the ``bench`` extra (aiokafka): ``pip install -e '.[bench]'``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

REFERENCE_SCHEMA = ("offset bigint, timestamp timestamp, key binary, value binary, "
                    "headers array<struct<key:string,value:binary>>")


def make_corpus(workdir: Path, codec: str, records: int) -> Path:
    out = workdir / f"{codec}-{records}"
    partition = out / "corpus-0"
    if not any(partition.glob("*.log")):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "corpus", "--out", str(out),
                        "--records", str(records), "--codec", codec, "--segment-bytes", str(1 << 30)], check=True)
    return partition


def reference_read(batches):
    """mapInArrow function: parse each (location, start, end) range with aiokafka."""
    import pyarrow as pa
    from aiokafka.record.memory_records import MemoryRecords

    header_type = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))
    for ranges in batches:
        for location, start, end in zip(*(ranges.column(i).to_pylist() for i in range(3)), strict=True):
            with open(location, "rb") as f:
                f.seek(start)
                data = f.read(end - start)
            offsets, timestamps, keys, values, headers = [], [], [], [], []
            records = MemoryRecords(data)
            while records.has_next():
                batch = records.next_batch()
                if batch is None:
                    break
                if not batch.validate_crc():
                    raise ValueError(f"{location}: CRC mismatch in batch at offset {batch.base_offset}")
                for r in batch:
                    offsets.append(r.offset)
                    timestamps.append(r.timestamp * 1000)
                    keys.append(r.key)
                    values.append(r.value)
                    headers.append([(k, v) for k, v in r.headers])
            yield pa.RecordBatch.from_arrays([
                pa.array(offsets, pa.int64()), pa.array(timestamps, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
                pa.array(keys, pa.binary()), pa.array(values, pa.binary()), pa.array(headers, header_type),
            ], names=["offset", "timestamp", "key", "value", "headers"])


def timed(df) -> float:
    t = time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - t


def where_benchmark(spark, directory: Path, where: str, options: dict) -> None:
    import kafkalog.spark

    print(f"{directory}: .where({where!r})")
    print(f"{'pushdown':8} {'tasks':>5} {'rows':>9} {'seconds':>8}")
    for pushdown in (False, True):
        kafkalog.spark.register(spark, filter_pushdown=pushdown)
        # A fresh DataFrame for every query: Spark 4.1-4.3 reuses a DataFrame's pushed-down plan.
        load = lambda: spark.read.format("kafkalog").options(**options).load(str(directory)).where(where)  # noqa: E731
        tasks = load().rdd.getNumPartitions()
        seconds = timed(load())
        print(f"{pushdown!s:8} {tasks:5d} {load().count():9d} {seconds:8.1f}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records per codec (default 1000000)")
    parser.add_argument("--codecs", default="none,lz4,zstd")
    parser.add_argument("--workdir", default="/tmp/kafkalog-bench")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--max-partition-bytes", type=int, default=8 << 20,
                        help="maxPartitionBytes for both readers (default 8 MiB, so that every core has work)")
    parser.add_argument("--where", help="time this filter with pushdown off and on instead")
    args = parser.parse_args(argv)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import kafkalog.spark
    from kafkalog.dataset import plan
    from kafkalog.dataset.options import parse_options

    workdir = Path(args.workdir)
    corpora = {codec: make_corpus(workdir, codec, args.records) for codec in args.codecs.split(",")}
    spark = (SparkSession.builder.master(args.master).appName("kafkalog-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    kafkalog.spark.register(spark)
    cores = spark.sparkContext.defaultParallelism
    # Warm up the Python workers so that neither reader pays for their start.
    spark.range(cores * 4, numPartitions=cores * 4).mapInArrow(lambda it: it, "id bigint").count()

    print(f"master {args.master} ({cores} cores), {args.records} records per codec, "
          f"maxPartitionBytes {args.max_partition_bytes}")
    if args.where:
        for directory in corpora.values():
            where_benchmark(spark, directory, args.where, {"maxPartitionBytes": str(args.max_partition_bytes)})
        spark.stop()
        return 0
    print(f"{'codec':6} {'MB':>7} {'tasks':>5} {'kafkalog s':>10} {'rec/s':>9} {'aiokafka s':>10} {'rec/s':>9} {'speed':>6}")
    for codec, directory in corpora.items():
        size = sum(p.stat().st_size for p in directory.glob("*.log"))
        options = {"maxPartitionBytes": str(args.max_partition_bytes)}
        ranges = plan.plan(str(directory), parse_options(options))
        kdf = spark.read.format("kafkalog").options(**options).load(str(directory))
        n = kdf.count()
        assert n == args.records, (n, args.records)
        k_time = timed(kdf)
        rdf = (spark.sparkContext.parallelize([(r.segment.location, r.start, r.end) for r in ranges], len(ranges))
               .toDF("location string, start long, end long")
               .mapInArrow(reference_read, REFERENCE_SCHEMA))
        assert rdf.count() == n
        r_time = timed(rdf)
        print(f"{codec:6} {size / 1e6:7.1f} {len(ranges):5d} {k_time:10.1f} {n / k_time:9.0f} "
              f"{r_time:10.1f} {n / r_time:9.0f} {r_time / k_time:6.3f}", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
