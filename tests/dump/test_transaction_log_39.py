"""Kafka 3.9's --transaction-log-decoder prints a transaction's partitions in the order of a Scala 2.13
mutable.HashSet: kafkalog's model of that order held to Scala's own HashSet, from the 3.9.2 broker's jars
(tests/dump/java/ScalaSetOrder.java fills it as Kafka's TransactionMetadata.addPartitions does)."""
from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import kafka_jars

from kafkalog.dump.kafka_dump_log import _scala_hash_set_order
from tests.brokers.harness import java

PROGRAM = Path(__file__).resolve().parent / "java" / "ScalaSetOrder.java"


def test_partitions_print_in_scala_hash_set_order():
    rng = random.Random(39)
    cases = []
    for _ in range(60):
        topics = rng.sample(["txn", "orders", "a", "événements-中", "payments.v2", "t" * 40], rng.randint(1, 4))
        cases.append([(t, rng.sample(range(200), rng.choice([1, 2, 3, 4, 5, 12, 40]))) for t in topics])
    lines = "\n".join(" ".join(f"{t}:{','.join(map(str, ps))}" for t, ps in case) for case in cases) + "\n"
    res = subprocess.run([java(), "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-cp", os.pathsep.join(kafka_jars.classpath("3.9.2")), str(PROGRAM)],
                         input=lines, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    scala = res.stdout.splitlines()
    ours = [",".join(f"{t}-{p}" for t, p in _scala_hash_set_order([{"topic": t, "partitionIds": ps} for t, ps in case]))
            for case in cases]
    assert ours == scala
