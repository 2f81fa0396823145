"""The driver of the standalone-cluster test (tests/spark/test_cluster.py), run in its own process:
one SparkContext per process, and the test process already holds the local one.

    python -m tests.spark.cluster_client MASTER_URL OUT.json      (from the repository root)

Reads a partition directory and a log directory with format("kafkalog") on the cluster and writes the
rows, and where the Python workers that read them ran, to OUT.json.
"""
from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path

from tests.paths import ROOT

PARTITIONS = ROOT / "tests" / "fixtures" / "partitions"


def _worker_chain(_rows):
    """The process ancestry of this Python worker: (pid, command line) up to the first JVM."""
    chain, pid = [], os.getpid()
    for _ in range(6):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        chain.append([pid, cmd])
        if "java" in cmd.split(" ", 1)[0]:
            break
        pid = ppid
    yield json.dumps(chain)


def main(master: str, out: str) -> None:
    from pyspark.sql import SparkSession

    import kafkalog.spark

    spark = (SparkSession.builder.master(master).appName("kafkalog-cluster-test")
             .config("spark.executor.memory", "512m").config("spark.executor.cores", "2")
             .config("spark.cores.max", "2").config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        kafkalog.spark.register(spark)
        result = {"driver_pid": os.getpid()}
        for name, path, tasks in (("partition", PARTITIONS / "payments-0", "3"), ("logdir", PARTITIONS, "1")):
            df = (spark.read.format("kafkalog").option("includeHeaders", "true").option("minPartitions", tasks)
                  .load(str(path)))
            result[name] = [
                {"topic": r.topic, "partition": r.partition, "offset": r.offset, "timestampType": r.timestampType,
                 "timestamp_ms": round(r.timestamp.timestamp() * 1000) if r.timestamp else None,
                 "key": None if r.key is None else base64.b64encode(r.key).decode(),
                 "value": None if r.value is None else base64.b64encode(r.value).decode(),
                 "headers": None if r.headers is None else [[h.key, base64.b64encode(h.value).decode()] for h in r.headers]}
                for r in df.collect()]
            result[name + "_tasks"] = df.rdd.getNumPartitions()
        result["executors"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
        result["workers"] = [json.loads(c) for c in spark.sparkContext.parallelize(range(2), 2)
                             .mapPartitions(_worker_chain).collect()]
        Path(out).write_text(json.dumps(result))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
