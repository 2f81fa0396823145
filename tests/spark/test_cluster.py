"""format("kafkalog") on a real Spark standalone cluster: a master and a worker started with the spark-class script
that ships with pyspark, on 127.0.0.1, executors in their own JVMs, Python workers in their own processes.
Every row is checked against Kafka's reading of the fixtures. Bounded in time, always stopped."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import ROOT
from tests.spark.expect import partitions_expected

pytestmark = pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
                                reason="Java is needed to run a Spark master and worker")
HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[1]} exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def start(spark_class: str, args: list[str], log: Path, env: dict) -> subprocess.Popen:
    # A session of its own, so that stopping it also stops the executor JVMs the worker starts.
    return subprocess.Popen([spark_class, *args], stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def test_standalone_cluster_reads_a_partition_and_a_log_dir_as_kafka_does(tmp_path):
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    spark_class = str(spark_home / "bin" / "spark-class")
    env = {**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": sys.executable, "SPARK_WORKER_DIR": str(tmp_path / "work"), "SPARK_LOG_DIR": str(tmp_path)}
    port = free_port()
    deadline = time.monotonic() + 120
    procs = []
    try:
        procs.append(start(spark_class, ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                                         str(port), "--webui-port", str(free_port())], tmp_path / "master.log", env))
        wait_for_port(port, procs[0], deadline)
        procs.append(start(spark_class, ["org.apache.spark.deploy.worker.Worker", f"spark://127.0.0.1:{port}",
                                         "--host", "127.0.0.1", "--cores", "2", "--memory", "1g",
                                         "--webui-port", str(free_port()), "--work-dir", str(tmp_path / "work")],
                           tmp_path / "worker.log", env))
        out = tmp_path / "result.json"
        t0 = time.monotonic()
        client = subprocess.run([sys.executable, "-m", "tests.spark.cluster_client", f"spark://127.0.0.1:{port}", str(out)],
                                cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=max(10.0, deadline - time.monotonic()))
        assert client.returncode == 0, client.stderr[-4000:] + (tmp_path / "worker.log").read_text()[-2000:]
        print(f"cluster up in {t0 - deadline + 120:.1f} s, client {time.monotonic() - t0:.1f} s")
    finally:
        for p in reversed(procs):
            stop(p)
    result = json.loads(out.read_text())

    # Executors ran in their own JVM, Python workers in their own processes under it.
    assert result["executors"] >= 2  # the driver's block manager and at least one executor's
    for chain in result["workers"]:
        assert chain[0][0] != result["driver_pid"]
        assert "CoarseGrainedExecutorBackend" in chain[-1][1], chain

    expected = partitions_expected()["partitions"]

    def kafka(name):
        topic, partition = name.rsplit("-", 1)
        return [{"topic": topic, "partition": int(partition), "offset": e["offset"], "timestampType": 0,
                 "timestamp_ms": e["timestamp"], "key": e["key"], "value": e["value"],
                 "headers": [list(h) for h in e["headers"]] or None}
                for e in expected[name]["records"] if e["control_type"] is None]

    key = lambda r: (r["topic"], r["partition"], r["offset"])  # noqa: E731
    assert sorted(result["partition"], key=key) == kafka("payments-0")
    assert result["partition_tasks"] >= 3
    assert sorted(result["logdir"], key=key) == sorted(sum((kafka(n) for n in expected), []), key=key)
