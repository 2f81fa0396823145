#!/usr/bin/env python3
"""Paired benchmark of issue 8 (run by hand, not a test): kafkalog.read_arrow against aiokafka's C parser.

    python benchmarks/fast_path.py --records 1000000 --work /tmp/kafkalog-fast-path

Kafka's own encoder writes one partition directory per codec and producer batch.size
(`scripts/kafka_fixtures.py corpus --batch-bytes B`: batches filled as Kafka's producer
fills them, values of 100-200 bytes, one or two headers, keys `key-N`), kept in --work for
the next run. Then, within one run and over the same segments:

1. readers, each alone in a fresh process on one core (so that its peak RSS is its own),
   after a warm-up read of `samples/v2-<codec>.log` (so JIT compilation is not counted):
   - `kafkalog`: `kafkalog.read_arrow(segment, threads=1)`, every batch of Arrow columns;
   - `aiokafka objects`: aiokafka's C `MemoryRecords` / `DefaultRecordBatch`, CRC checked,
     every record's offset, timestamp, key, value and headers read as Python objects;
   - `aiokafka Arrow`: the same parsed into Arrow columns (offset, timestamp, key, value,
     headers), by `benchmarks/spark_reader.py`'s reference reader;
   both aiokafka readers read the segment in ranges of about 8 MiB cut at entry boundaries.
   - `Kafka's Java reader (warm)`: the ceiling, Kafka's own `FileRecords` / `streamingIterator`
     (CRC checked, keys, values and header values copied to byte arrays), fastest of 5 passes in one JVM;
   Reported: wall and CPU time, records/s, MB/s of segment, each reader's ratio to aiokafka's
   object parser (on wall time), peak RSS and the worker's baseline RSS (after imports and warm-up);
2. Spark on --master (local[2]): `spark.read.format("kafkalog")` count() and a Parquet write of
   offset, timestamp, key, value, headers, against spark_reader.py's aiokafka `mapInArrow`
   reference over the same byte ranges (kafkalog's planner, --max-partition-bytes, by default the
   reader's own 128 MiB), after a warm-up read on every core; the fastest of --repeat runs; and the
   same rows written to Parquet from memory (cached), the writer's own share of the Parquet time;
3. `kafkalog verify` on each uncompressed segment, in MB/s: `verify_path` (what the command runs)
   in a worker after a warm-up, wall and CPU time; and the wall time of the whole command;
4. start-up: wall time of `python -c "import kafkalog; kafkalog.read_table('samples/v2-none.log')"`
   with HOME and XDG_CACHE_HOME an empty directory (the first run), then again (later runs), and the files
   written there (none: the kernels are compiled at install, nothing is compiled or cached at run time).

Prints Markdown tables ready for docs/performance.md. Needs the `bench` extra (aiokafka).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # noqa: E402  (benchmarks/ is not a package)

READERS = {
    "kafkalog": "kafkalog",
    "kafkalog-kaitai": "kafkalog (decoder=Decoder.OBJECT)",
    "aiokafka": "aiokafka objects",
    "aiokafka-arrow": "aiokafka Arrow",
    "kafka-java": "Kafka's Java reader (warm)",
}
RANGE_BYTES = 8 << 20
STARTUP_SNIPPET = "import kafkalog; kafkalog.read_table('samples/v2-none.log')"


# ----------------------------------------------------------------------------- corpus

def corpus(work: Path, codec: str, batch_bytes: int, records: int) -> Path:
    """The partition directory for (codec, batch.size), written by Kafka's encoder unless already there."""
    out = work / f"{codec}-{batch_bytes}-{records}"
    partition = out / "corpus-0"
    if not any(partition.glob("*.log")):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "corpus", "--out", str(out),
                        "--records", str(records), "--codec", codec, "--batch-bytes", str(batch_bytes),
                        "--value-bytes", "100:200", "--headers", "1:2", "--segment-bytes", str(1 << 30)],
                       check=True, stdout=subprocess.DEVNULL)
    return partition


def segments(partition: Path) -> list[Path]:
    return sorted(partition.glob("*.log"))


def entry_ranges(path: Path, target: int = RANGE_BYTES) -> list[tuple[int, int]]:
    """Byte ranges of about `target` bytes, cut at entry boundaries (each entry: int64 offset, int32 size)."""
    ranges, start, pos = [], 0, 0
    size = path.stat().st_size
    with open(path, "rb") as f:
        while pos + 12 <= size:
            f.seek(pos + 8)
            pos += 12 + int.from_bytes(f.read(4), "big", signed=True)
            if pos - start >= target:
                ranges.append((start, min(pos, size)))
                start = pos
    if start < size:
        ranges.append((start, size))
    return ranges


# ----------------------------------------------------------------------------- readers (in workers)

def read_kafkalog(segment: str, **options) -> int:
    import kafkalog

    rows = 0
    # Every column: the Kafka source's, headers, and kafkalog's batch fields and damage; on one thread, as the
    # other readers read (benchmarks/threads.py measures more).
    for batch in kafkalog.read_arrow(segment, includeHeaders=True, includeKafkalogColumns=True, mode="PERMISSIVE",
                                     threads=1, **options):
        damage = batch.num_rows - batch.column("damage").null_count
        if damage:
            raise RuntimeError(f"{segment}: {damage} damage row(s) in a Kafka-written corpus")
        rows += batch.num_rows
    return rows


def read_kaitai(segment: str) -> int:
    from kafkalog.dataset.decode import read_segment
    from kafkalog.model import Decoder

    return sum(batch.num_rows for batch in read_segment(segment, decoder=Decoder.OBJECT))


def read_aiokafka(segment: str) -> int:
    from aiokafka.record.memory_records import MemoryRecords

    rows = 0
    with open(segment, "rb") as f:
        for start, end in entry_ranges(Path(segment)):
            f.seek(start)
            records = MemoryRecords(f.read(end - start))
            while records.has_next():
                batch = records.next_batch()
                if batch is None:
                    break
                if not batch.validate_crc():
                    raise RuntimeError(f"{segment}: CRC mismatch in the batch at offset {batch.base_offset}")
                for r in batch:
                    r.offset, r.timestamp, r.key, r.value, r.headers  # noqa: B018  (reading the fields is the work)
                    rows += 1
    return rows


def read_aiokafka_arrow(segment: str) -> int:
    import pyarrow as pa
    import spark_reader

    ranges = entry_ranges(Path(segment))
    spans = pa.RecordBatch.from_arrays([pa.array([segment] * len(ranges)), pa.array([s for s, _ in ranges]),
                                        pa.array([e for _, e in ranges])], names=["location", "start", "end"])
    return sum(batch.num_rows for batch in spark_reader.reference_read(iter([spans])))


def kafka_java_worker(spec: dict) -> dict:
    """Kafka's own reader in a JVM (`KafkaWriter read-speed`): the fastest of several passes, so warm.

    Peak RSS is the JVM's; its baseline that of a JVM reading a sample.
    """
    import json
    import resource

    sys.path.insert(0, str(ROOT / "scripts"))
    import kafka_fixtures

    def children_rss() -> int:
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024

    kafka_fixtures.run_java(["read-speed", str(ROOT / "samples" / "v2-none.log"), "--repeat", "1"])
    baseline = children_rss()
    out = kafka_fixtures.run_java(["read-speed", *spec["segments"], "--repeat", str(max(5, spec.get("repeat", 1)))])
    result = json.loads(out.stdout)
    return {"records": result["records"], "wall": result["wall"], "cpu": result["cpu"],
            "baseline_rss": baseline, "peak_rss": children_rss()}


def reader_worker(spec: dict) -> dict:
    kind = spec["reader"]
    if kind == "kafka-java":
        return kafka_java_worker(spec)
    read = {
        "kafkalog": read_kafkalog,
        "kafkalog-kaitai": read_kaitai,
        "aiokafka": read_aiokafka,
        "aiokafka-arrow": read_aiokafka_arrow,
    }[kind]
    read(str(ROOT / "samples" / f"v2-{spec['codec']}.log"))  # warm-up: imports, JIT, caches
    return measure.measure(lambda: {"records": sum(read(s) for s in spec["segments"])}, spec.get("repeat", 1))


# ----------------------------------------------------------------------------- parts of the run

def run_readers(corpora: dict, readers: list[str], repeat: int, timeout: float, records: int) -> list[list[str]]:
    rows, baselines = [], {}
    script = str(Path(__file__).resolve())
    for (codec, batch_bytes), partition in corpora.items():
        files = segments(partition)
        size = sum(p.stat().st_size for p in files)
        results = {}
        for reader in readers:
            spec = {"kind": "reader", "reader": reader, "codec": codec, "repeat": repeat,
                    "segments": [str(p) for p in files]}
            results[reader] = measure.run_worker(script, spec, timeout=timeout, cwd=str(ROOT))
            print(f"  {codec} {batch_bytes} {reader}: {results[reader].status} {results[reader].result}",
                  file=sys.stderr, flush=True)
        ref = results.get("aiokafka")
        for reader in readers:
            o = results[reader]
            if o.status != "ok":
                rows.append([codec, str(batch_bytes), READERS[reader], "", measure.mb(size)]
                            + [f"{o.status} {o.detail}"] + [""] * 8)
                continue
            r = o.result
            ratio = f"{ref.result['wall'] / r['wall']:.2f}" if ref and ref.status == "ok" else ""
            baselines.setdefault(reader, []).append(r["baseline_rss"])
            count = str(r["records"]) if r["records"] == records else f"{r['records']} (not {records})"
            rows.append([codec, str(batch_bytes), READERS[reader], count, measure.mb(size),
                         f"{r['wall']:.2f}", f"{r['cpu']:.2f}", f"{r['records'] / r['wall']:,.0f}",
                         f"{size / 1e6 / r['wall']:.1f}", ratio, measure.mib(r["peak_rss"]),
                         measure.mib(r["peak_rss"] - r["baseline_rss"]), measure.mib(r["baseline_rss"])])
    return rows


def run_spark(corpora: dict, master: str, max_partition_bytes: int, work: Path, repeat: int = 1) -> list[list[str]]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import spark_reader
    from pyspark import cloudpickle
    from pyspark.sql import SparkSession

    import kafkalog.spark
    from kafkalog.dataset import plan
    from kafkalog.dataset.options import parse_options

    # The reference reader's module is not importable in Spark's Python workers: ship it by value.
    cloudpickle.register_pickle_by_value(spark_reader)
    spark = (SparkSession.builder.master(master).appName("kafkalog-fast-path")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    kafkalog.spark.register(spark)
    cores = spark.sparkContext.defaultParallelism
    spark.range(cores * 4, numPartitions=cores * 4).mapInArrow(lambda it: it, "id bigint").count()  # warm workers
    columns = ["offset", "timestamp", "key", "value", "headers"]

    def frames(path: str, options: dict):
        ranges = plan.plan(path, parse_options(options))
        # The headers column is Kafka's source's, there only with includeHeaders.
        kdf = spark.read.format("kafkalog").options(includeHeaders="true", **options).load(path)
        rdf = (spark.sparkContext.parallelize([(r.segment.location, r.start, r.end) for r in ranges], len(ranges))
               .toDF("location string, start long, end long")
               .mapInArrow(spark_reader.reference_read, spark_reader.REFERENCE_SCHEMA))
        return ranges, kdf, rdf

    # Warm up both paths (JVM, every Python worker, imports and the JIT cache): tasks on every core.
    first = str(next(iter(corpora.values())))
    for df in frames(first, {"maxPartitionBytes": str(1 << 20)})[1:]:
        df.count()
        df.select(*columns).write.format("noop").mode("overwrite").save()
    rows = []
    try:
        for (codec, batch_bytes), partition in corpora.items():
            ranges, kdf, rdf = frames(str(partition), {"maxPartitionBytes": str(max_partition_bytes)})
            times = {}
            for name, df in (("kafkalog", kdf), ("aiokafka", rdf)):
                out = work / "parquet" / f"{name}-{codec}-{batch_bytes}"
                times[name, "count"] = times[name, "parquet"] = float("inf")
                for _ in range(repeat):  # the fastest of `repeat` runs, as for the readers
                    t = time.perf_counter()
                    n = df.count()
                    times[name, "count"] = min(times[name, "count"], time.perf_counter() - t)
                    t = time.perf_counter()
                    df.select(*columns).write.mode("overwrite").parquet(str(out))
                    times[name, "parquet"] = min(times[name, "parquet"], time.perf_counter() - t)
                times[name, "n"] = n
                print(f"  spark {codec} {batch_bytes} {name}: {n} rows, count {times[name, 'count']:.1f} s, "
                      f"parquet {times[name, 'parquet']:.1f} s", file=sys.stderr, flush=True)
            # The Parquet writer's own share: the same rows written again from memory (cached), no reader at all.
            cached = kdf.select(*columns).cache()
            cached.count()
            t = time.perf_counter()
            cached.write.mode("overwrite").parquet(str(work / "parquet" / f"cached-{codec}-{batch_bytes}"))
            writer = time.perf_counter() - t
            cached.unpersist()
            n = times["kafkalog", "n"]
            rows.append([codec, str(batch_bytes), str(n), str(len(ranges))]
                        + [f"{times[name, op]:.1f}" for op in ("count", "parquet") for name in ("kafkalog", "aiokafka")]
                        + [f"{times['aiokafka', op] / times['kafkalog', op]:.2f}" for op in ("count", "parquet")]
                        + [f"{writer:.1f}"])
            if times["aiokafka", "n"] != n:
                rows[-1][2] += f" (reference: {times['aiokafka', 'n']})"
    finally:
        spark.stop()
    return rows


def _wall(cmd: list[str], env: dict | None = None) -> tuple[float, int]:
    t = time.perf_counter()
    rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - t, rc


def verify_worker(spec: dict) -> dict:
    from kafkalog.verify import verify_path

    # Warm-up: imports and every kernel verify uses (a segment with index files).
    verify_path(str(ROOT / "tests" / "fixtures" / "partitions" / "orders-0"))

    def run() -> dict:
        report = verify_path(spec["segment"])
        return {"records": report.records, "problems": len(report.problems)}

    return measure.measure(run, spec.get("repeat", 1))


def run_verify(corpora: dict, repeat: int, timeout: float) -> list[list[str]]:
    cli = [sys.executable, "-c", "import sys; from kafkalog.cli import main; sys.exit(main())", "verify"]
    script = str(Path(__file__).resolve())
    rows = []
    for (codec, batch_bytes), partition in corpora.items():
        if codec != "none":
            continue
        for segment in segments(partition):
            o = measure.run_worker(script, {"kind": "verify", "segment": str(segment), "repeat": repeat},
                                   timeout=timeout, cwd=str(ROOT))
            command, rc = _wall([*cli, str(segment)])
            size = segment.stat().st_size
            if o.status != "ok":
                rows.append([str(batch_bytes), measure.mb(size), f"{o.status} {o.detail}", "", "", "",
                             f"{command:.2f}", str(rc)])
                continue
            r = o.result
            rows.append([str(batch_bytes), measure.mb(size), f"{r['wall']:.3f}", f"{r['cpu']:.3f}",
                         f"{size / 1e6 / r['wall']:.0f}", str(r["problems"]), f"{command:.2f}", str(rc)])
    return rows


def run_startup(repeat: int = 3) -> list[list[str]]:
    cmd = [sys.executable, "-c", STARTUP_SNIPPET]
    rows = [["`python -c 'import kafkalog'`", f"{min(_wall([sys.executable, '-c', 'import kafkalog'])[0] for _ in range(repeat)):.2f}", ""]]
    with tempfile.TemporaryDirectory(prefix="kafkalog-empty-home-") as home:
        env = dict(os.environ, HOME=home, XDG_CACHE_HOME=home)
        cold, rc = _wall(cmd, env)
        files = sum(1 for p in Path(home).rglob("*") if p.is_file())
        rows.append(["read_table, first run (empty HOME and XDG_CACHE_HOME)", f"{cold:.2f}",
                     f"exit {rc}, {files} file(s) written there"])
        warm = statistics.median(_wall(cmd, env)[0] for _ in range(repeat))
        rows.append([f"read_table, later runs (median of {repeat})", f"{warm:.2f}", ""])
    return rows


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    status = measure.worker_main(argv, {"reader": reader_worker, "verify": verify_worker})
    if status is not None:
        return status
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000, help="records per corpus (default 1000000)")
    ap.add_argument("--codecs", default="none,lz4,zstd,gzip,snappy")
    ap.add_argument("--batch-bytes", default="16384,1048576", help="producer batch.size values (default 16384,1048576)")
    ap.add_argument("--readers", default="kafkalog,aiokafka,aiokafka-arrow,kafka-java",
                    help=f"from {','.join(READERS)} (kafkalog-kaitai: read_segment(decoder=Decoder.OBJECT), slow)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path",
                    help="where corpora are kept between runs (default /tmp/kafkalog-fast-path)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per reader in its process; the fastest counts")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per reader process")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--max-partition-bytes", type=int, default=128 << 20,
                    help="Spark ranges (default 134217728: the kafkalog reader's own default)")
    args = ap.parse_args(argv)
    readers = args.readers.split(",")
    unknown = sorted(set(readers) - set(READERS))
    if unknown:
        ap.error(f"unknown reader(s): {', '.join(unknown)}")

    args.work.mkdir(parents=True, exist_ok=True)
    corpora = {(codec, int(b)): corpus(args.work, codec, int(b), args.records)
               for b in args.batch_bytes.split(",") for codec in args.codecs.split(",")}
    import platform

    print(f"# kafkalog fast path benchmark\n\n{args.records:,} records per corpus (Kafka 3.9.1's encoder, "
          f"values 100-200 bytes, 1-2 headers); Python {platform.python_version()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("## Single core: records into Arrow vs aiokafka's C parser\n")
    print("Each reader in a process of its own; `vs aiokafka` = aiokafka object parser's wall time / the reader's; "
          "RSS in MiB, `above` = peak minus the worker's baseline (after imports and warm-up).\n")
    print(measure.table(["codec", "batch.size", "reader", "records", "MB", "wall s", "CPU s", "records/s", "MB/s",
                         "vs aiokafka", "peak RSS", "above", "baseline"],
                        run_readers(corpora, readers, args.repeat, args.timeout, args.records)), flush=True)
    if not args.skip_spark:
        print(f"\n## Spark, {args.master}: `spark.read.format(\"kafkalog\")` vs aiokafka in `mapInArrow`\n")
        print("Seconds; `x` = reference time / kafkalog time. Parquet: offset, timestamp, key, value, headers; "
              "`parquet from memory` writes the same rows cached in memory: the writer's own time, with no reader.\n")
        print(measure.table(["codec", "batch.size", "records", "tasks", "count kafkalog", "count aiokafka",
                             "parquet kafkalog", "parquet aiokafka", "count x", "parquet x", "parquet from memory"],
                            run_spark(corpora, args.master, args.max_partition_bytes, args.work, args.repeat)), flush=True)
    verify_rows = run_verify(corpora, args.repeat, args.timeout)
    if verify_rows:
        print("\n## `kafkalog verify` on an uncompressed segment\n")
        print("`verify_path` in a worker after a warm-up (the fastest of --repeat runs); `command` is the wall "
              "time of the whole `kafkalog verify SEGMENT` process, start-up included.\n")
        print(measure.table(["batch.size", "MB", "wall s", "CPU s", "MB/s", "problems", "command s", "exit"],
                            verify_rows))
    print("\n## Start-up (the first run after install, then later runs)\n")
    print(measure.table(["what", "wall s", ""], run_startup()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
