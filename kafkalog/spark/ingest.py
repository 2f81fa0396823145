"""`kafkalog ingest PATH --output DIR`: read segments with the Spark data source and write Parquet."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from collections.abc import Iterator

from kafkalog.dataset.options import DamageMode, parse_options
from kafkalog.errors import UsageError
from kafkalog.progress import ByteProgress

EXIT_OK, EXIT_DAMAGED, EXIT_USAGE = 0, 1, 2
AUDIT_OPTIONS = {"mode": DamageMode.PERMISSIVE.value, "includeKafkalogColumns": "true", "includeHeaders": "true"}


def parse_option_args(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option expects KEY=VALUE, got {pair!r}")
        options[key.strip()] = value
    return options


def spark_session(master: str, app_name: str = "kafkalog ingest"):
    """The active SparkSession, or a new one on `master` whose Python workers run this interpreter."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    # Executors on this machine must import kafkalog and pyarrow: use this interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(master).appName(app_name)
             .config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark, True


@contextlib.contextmanager
def _progress(spark, total: int) -> Iterator[None]:
    """On a terminal, bytes read over the total while Spark writes: Spark's finished tasks of the
    running stages, as a share of the segments' bytes (its tasks are byte ranges of them)."""
    progress = ByteProgress.for_stderr(total)
    if progress is None:
        yield
        return
    tracker = spark.sparkContext.statusTracker()
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(0.2):
            done = tasks = 0
            for stage in tracker.getActiveStageIds():
                info = tracker.getStageInfo(stage)
                if info is not None:
                    done, tasks = done + info.numCompletedTasks, tasks + info.numTasks
            if tasks:
                progress.update(total * done // tasks, "ingest")

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
        progress.update(total, "ingest", force=True)
    finally:
        stop.set()
        thread.join()
        progress.close()


def run_ingest(args: argparse.Namespace) -> int:
    """Read `args.path` with `args.option`s, write Parquet to `args.output`, print a summary.

    Exit status 0, or 1 when any damage was found (the damage rows are in the Parquet output).
    """
    from kafkalog.dataset.plan import list_segments
    from kafkalog.spark import register

    # ingest is an audit: every column and damage as rows, whatever the reader's Kafka-like defaults.
    options = {**AUDIT_OPTIONS, **parse_option_args(args.option)}
    parse_options(options)  # fail on a bad option before starting Spark
    if os.path.exists(args.output):
        print(f"kafkalog ingest: {args.output} exists; choose a new output directory", file=sys.stderr)
        return EXIT_USAGE
    segments = list_segments(args.path)
    spark, owned = spark_session(args.master)
    try:
        register(spark)
        df = spark.read.format("kafkalog").options(**options).load(args.path)
        with _progress(spark, sum(seg.size for seg in segments)):
            df.write.parquet(args.output)
        written = spark.read.parquet(args.output)
        from pyspark.sql import functions as F

        summary = written.agg(
            F.count(F.lit(1)).alias("rows"),
            F.count("damage").alias("damage"),
            F.sum(F.col("is_control").cast("int")).alias("control"),
        ).collect()[0]
        rows, damage = summary["rows"], summary["damage"]
        print(f"kafkalog ingest: {len(segments)} segment(s), {rows - damage} record row(s), "
              f"{damage} damage row(s) -> {args.output}")
        if damage:
            for row in (written.where(F.col("damage").isNotNull())
                        .select("segment", "batch_position", "damage").limit(10).collect()):
                print(f"  damage: {row['segment']}: byte {row['batch_position']}: {row['damage']}")
        return EXIT_DAMAGED if damage else EXIT_OK
    finally:
        if owned:
            spark.stop()
