#!/usr/bin/env python3
"""`kafkalog restore` against librdkafka's own producer rate from memory, to one local broker, in one run (by hand).

The corpus is `fast_path.py`'s: one partition of Kafka-written records (Kafka's encoder, values 100-200 bytes,
1-2 headers, lz4 batches). In one run, against the same broker, with the same producer settings (restore's
defaults: idempotent, acks=all, linger.ms=20, lz4):

- librdkafka from memory: the records read into Python lists first (not timed), then produced with
  confluent-kafka's `Producer.produce` and one delivery callback, and flushed;
- `kafkalog.restore.run.restore`: creating the topic, reading the segment, producing, the offset map and its
  Parquet parts.

Both producers get `kafkalog.restore.options.producer_settings` (the same linger.ms, batch.size, batch.num.messages,
queue sizes, compression.type, idempotence and acks), printed with the results. Each goes to a new topic. Wall
and CPU time of this process (librdkafka's threads included); records/s from wall.

    python benchmarks/restore.py --records 1000000 --work /tmp/kafkalog-fast-path
"""
from __future__ import annotations

import argparse
import io
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import fast_path  # noqa: E402  (the corpus builder beside this script)

import kafkalog  # noqa: E402
from kafkalog.restore.options import RestoreOptions, producer_settings  # noqa: E402
from kafkalog.restore.run import restore  # noqa: E402

CODEC = "lz4"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def from_memory(bootstrap: str, partition: Path, topic: str) -> tuple[int, float, float]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1)])[topic].result()
    table = kafkalog.read_table(str(partition), includeHeaders=True)
    keys, values = table.column("key").to_pylist(), table.column("value").to_pylist()
    stamps = [t // 1000 for t in table.column("timestamp").cast("int64").to_pylist()]
    headers = [[(h["key"], h["value"]) for h in hs] if hs else None for hs in table.column("headers").to_pylist()]
    delivered = [0]

    def report(err, msg) -> None:
        if err is None:
            delivered[0] += 1

    # restore's own settings (its defaults, the same -X), so that both sides batch and compress alike
    producer = Producer({**producer_settings(bootstrap, {"compression.type": CODEC}), "on_delivery": report})
    t0, c0 = time.monotonic(), cpu()
    for i in range(len(values)):
        while True:
            try:
                producer.produce(topic, value=values[i], key=keys[i], partition=0, timestamp=stamps[i],
                                 headers=headers[i])
                break
            except BufferError:
                producer.poll(0.05)
        if i % 1000 == 0:
            producer.poll(0)
    producer.flush()
    return delivered[0], time.monotonic() - t0, cpu() - c0


def with_restore(bootstrap: str, partition: Path, topic: str, work: Path) -> tuple[int, float, float]:
    options = RestoreOptions(sources=[str(partition)], bootstrap_server=bootstrap, offset_map=work / f"map-{topic}",
                             config={"compression.type": CODEC}, topic_map={partition.name.rsplit("-", 1)[0]: topic},
                             groups=False, threads=1)
    t0, c0 = time.monotonic(), cpu()
    report = restore(options, out=io.StringIO())
    return report.delivered, time.monotonic() - t0, cpu() - c0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kafkalog-fast-path")
    parser.add_argument("--bootstrap-server", help="a running broker (default: one started here from .cache/kafka)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds of both, one after the other (a shared machine's load varies: the median "
                             "of the ratios is printed)")
    args = parser.parse_args(argv)
    partition = fast_path.corpus(args.work, CODEC, 16384, args.records)
    broker = None
    bootstrap = args.bootstrap_server
    scratch = Path(tempfile.mkdtemp(prefix="kafkalog-restore-bench-"))
    rounds = []
    try:
        if bootstrap is None:
            from tests.brokers.harness import Broker
            broker = Broker("4.3.1", "kraft", scratch / "broker").start()
            bootstrap = broker.bootstrap
        for r in range(args.rounds):
            suffix = f"{int(time.time())}-{r}"
            rounds.append([("librdkafka from memory", *from_memory(bootstrap, partition, f"bench-memory-{suffix}")),
                           ("kafkalog restore", *with_restore(bootstrap, partition, f"bench-restore-{suffix}",
                                                              scratch))])
    finally:
        if broker is not None:
            broker.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{args.records} records, {CODEC}, one partition, broker {bootstrap if broker is None else 'started here'}")
    settings = producer_settings("", {"compression.type": CODEC})
    print("producer settings, both: " + " ".join(f"{k}={v}" for k, v in sorted(settings.items())
                                                 if k != "bootstrap.servers"))
    print(f"{'producer':<24} {'records':>9} {'wall s':>7} {'CPU s':>7} {'records/s':>10} {'of memory':>9}")
    ratios = []
    for rows in rounds:
        base = rows[0][1] / rows[0][2]
        for name, n, wall, cpu_s in rows:
            rate = n / wall
            print(f"{name:<24} {n:>9} {wall:>7.2f} {cpu_s:>7.2f} {rate:>10.0f} {rate / base:>9.0%}")
        ratios.append((rows[1][1] / rows[1][2] / base, rows[0][3] / rows[1][3]))
    if len(rounds) > 1:
        print(f"median of {len(rounds)} rounds: restore at {statistics.median(r for r, _ in ratios):.0%} of the rate "
              f"from memory (wall), {statistics.median(c for _, c in ratios):.0%} of its records per CPU second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
