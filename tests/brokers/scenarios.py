"""What each test broker writes: the scenarios, run with real clients (tests/brokers/java), and the
consumer's reading of every data partition taken before the broker stops.

A `BrokerRun` is what the oracles get: the stopped broker's data directory, its Kafka version and
classpath (to run its own tools, e.g. kafka.tools.DumpLogSegments), the data topics, and where the
consumer's reading lies (<consumed>/<isolation level>/<topic>-<partition>.json).
"""
from __future__ import annotations

import concurrent.futures
import json
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import kafka_jars  # scripts/ (pytest's pythonpath)

from tests.brokers.harness import (
    Broker,
    BrokerError,
    Cluster,
    free_port,
    new_cluster_id,
    quorum_tool,
    run_scenario,
    scenario_cmd,
)

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
#: The newest 4.x with every jar the full scenarios need (LocalTieredStorage: 4.4.0's storage test jar is not on
#: Maven Central).
NEWEST_4X = "4.3.1"
#: Kafka 4.4, whose smaller run holds kafkalog to 4.4's tool on what 4.4 writes.
KAFKA_44 = "4.4.0"
NEWEST_39 = "3.9.2"


@dataclass
class BrokerRun:
    name: str
    version: str
    mode: str
    data_dir: Path
    classpath: list[str]
    topics: list[str]
    consumed: Path | None
    clean: bool = True
    dump_log_segments_class: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    work: Path | None = None


def _topic(name: str, partitions: int = 1, **configs: str) -> list[str]:
    return ["topic", name, str(partitions), *(f"{k.replace('_', '.')}={v}" for k, v in configs.items())]


def _checkpoint(path: Path) -> dict[str, int]:
    """A Kafka offset checkpoint file (version, count, then 'topic partition offset' lines)."""
    try:
        lines = path.read_text().splitlines()[2:]
    except OSError:
        return {}
    return {f"{t}-{p}": int(o) for t, p, o in (line.split() for line in lines if line.strip())}


def _wait(what: str, done, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise BrokerError(f"timed out waiting for {what}")
        time.sleep(0.3)


def _logs(d: Path) -> list[Path]:
    return sorted(d.glob("*.log"))


def _finish(broker: Broker, name: str, topics: list[str], t0: float, clean: bool = True) -> BrokerRun:
    broker.stop()
    return BrokerRun(name, broker.version, broker.mode, broker.data_dir, broker.classpath, topics,
                     broker.work / "consumed", clean, broker.dump_log_segments_class,
                     {"total": time.monotonic() - t0, "start": broker.started_s}, broker.work)


#: The broker of `kraft_4x` (and of a broker restarted on a copy of its disk).
KRAFT_4X_CONFIG = {
    "group.coordinator.rebalance.protocols": "classic,consumer,share,streams",
    "metadata.log.max.record.bytes.between.snapshots": "2048",
    "metadata.log.max.snapshot.interval.ms": "3000",
}


def kraft_4x(work: Path) -> BrokerRun:
    """The newest 4.x in KRaft mode: every scenario."""
    t0 = time.monotonic()
    b = Broker(NEWEST_4X, "kraft", work, broker_config=dict(KRAFT_4X_CONFIG), format_features=["share.version=1"]).start()
    codec_topics = [f"codec-{c}" for c in CODECS]
    steps = [_topic(t) for t in codec_topics]
    steps += [_topic("txn", 2), _topic("log-append-time", message_timestamp_type="LogAppendTime"),
              _topic("rolling", segment_ms="300"),
              _topic("big-segments", 1, segment_bytes=str(1024 * 1024), index_interval_bytes="1024"),
              _topic("retention", segment_ms="300", retention_ms="1500", file_delete_delay_ms="0"),
              _topic("compacted", cleanup_policy="compact", segment_ms="200", min_cleanable_dirty_ratio="0.01",
                     delete_retention_ms="120000", min_compaction_lag_ms="0", file_delete_delay_ms="0")]
    steps += [["produce", t, c, "5", "1000"] for t, c in zip(codec_topics, CODECS, strict=True)]
    steps += [["txn", "txn"], ["produce", "log-append-time", "gzip", "3", "200"],
              ["rounds", "rolling", "5", "40", "400", "1000"],
              ["produce", "big-segments", "none", "0", "2500", "plain", "1000"],
              ["rounds", "retention", "6", "30", "400", "1000"],
              ["rounds", "compacted", "6", "40", "300", "12", "tombstones"], ["compaction-tail", "compacted"],
              ["alter-topic", "rolling", "retention.ms=86400000", "max.message.bytes=2000000"],
              ["group", "g-classic", "classic", "codec-none"],
              ["group", "g-consumer", "consumer", "codec-gzip"],
              ["share-group", "g-share", "codec-lz4"]]
    run_scenario(b, steps)
    part = b.data_dir / "compacted-0"
    # the cleaner cleans everything but the active segment; then its tombstones' delete horizon passes
    _wait("the log cleaner to clean compacted-0",
          lambda: _checkpoint(b.data_dir / "cleaner-offset-checkpoint").get("compacted-0", 0)
          >= int(_logs(part)[-1].stem))
    time.sleep(1.0)
    _wait("retention to delete retention-0's old segments", lambda: len(_logs(b.data_dir / "retention-0")) == 1)
    topics = [*codec_topics, "txn", "log-append-time", "rolling", "big-segments", "retention", "compacted"]
    # retention keeps nothing now; keep what comes next, so the consumer and the files agree
    run_scenario(b, [["alter-topic", "retention", "retention.ms=86400000"], ["rounds", "retention", "1", "20", "0", "1000"],
                     ["consume", str(work / "consumed"), *topics],
                     ["committed", str(work / "committed.json"), "g-classic", "g-consumer"]])
    return _finish(b, "kraft_4x", topics, t0)


def _codecs_and_groups(name: str, version: str, work: Path, share: bool) -> BrokerRun:
    """`version` in KRaft mode: codecs, transactions, the classic and consumer groups (and a share group where
    `share`), metadata snapshots."""
    t0 = time.monotonic()
    b = Broker(version, "kraft", work, broker_config={
        "group.coordinator.rebalance.protocols": "classic,consumer" + (",share" if share else ""),
        "metadata.log.max.record.bytes.between.snapshots": "2048",
        "metadata.log.max.snapshot.interval.ms": "3000",
    }, format_features=["share.version=1"] if share else []).start()
    codec_topics = [f"codec-{c}" for c in CODECS]
    steps = [_topic(t) for t in codec_topics] + [_topic("txn", 2)]
    steps += [["produce", t, c, "3", "300"] for t, c in zip(codec_topics, CODECS, strict=True)]
    steps += [["txn", "txn"], ["alter-topic", "codec-none", "retention.ms=86400000"],
              ["group", "g-classic", "classic", "codec-none"], ["group", "g-consumer", "consumer", "codec-gzip"]]
    if share:
        steps.append(["share-group", "g-share", "codec-lz4"])
    run_scenario(b, steps)
    topics = [*codec_topics, "txn"]
    run_scenario(b, [["consume", str(work / "consumed"), *topics]])
    return _finish(b, name, topics, t0)


def kraft_39(work: Path) -> BrokerRun:
    """3.9.x in KRaft mode: codecs, transactions, groups, metadata."""
    return _codecs_and_groups("kraft_39", NEWEST_39, work, share=False)


def kraft_44(work: Path) -> BrokerRun:
    """Kafka 4.4 in KRaft mode: codecs, transactions, the three group protocols, metadata snapshots."""
    return _codecs_and_groups("kraft_44", KAFKA_44, work, share=True)


LEGACY_FORMATS = {"v1": "0.10.0", "v0": "0.9.0"}
LEGACY_CODECS = ["none", "gzip", "snappy", "lz4"]


def zk_legacy(work: Path) -> BrokerRun:
    """3.9.x in ZooKeeper mode with inter.broker.protocol.version 2.8: topics with message.format.version
    0.10.0 and 0.9.0 hold v1 and v0 messages."""
    t0 = time.monotonic()
    b = Broker(NEWEST_39, "zk", work, broker_config={"inter.broker.protocol.version": "2.8"}).start()
    topics, steps = [], []
    for magic, fmt in LEGACY_FORMATS.items():
        for c in LEGACY_CODECS:
            t = f"{magic}-{c}"
            topics.append(t)
            steps.append(_topic(t, message_format_version=fmt))
            steps.append(["produce", t, c, "3", "200", "plain", "100", "noheaders"])
    run_scenario(b, steps)
    run_scenario(b, [["consume", str(work / "consumed"), *topics]])
    return _finish(b, "zk_legacy", topics, t0)


def killed_4x(work: Path) -> BrokerRun:
    """The newest 4.x killed (kill -9) in the middle of produce: the directory as it was left. Its quorum is a
    dynamic one (KIP-853: formatted `--standalone`): its voters are in the metadata log's VotersRecord."""
    t0 = time.monotonic()
    b = Broker(NEWEST_4X, "kraft", work, dynamic_quorum=True).start()
    # small preallocated index files (segment.index.bytes), so the directory can be kept as a fixture
    run_scenario(b, [_topic("unclean", 1, index_interval_bytes="512", segment_index_bytes="4096")])
    with open(work / "producer.out", "wb") as err:
        producer = subprocess.Popen(scenario_cmd(b, [["produce-forever", "unclean"]]), stdout=subprocess.PIPE,
                                    stderr=err, start_new_session=True)
    try:
        assert producer.stdout is not None
        for line in producer.stdout:
            if line.startswith(b"acked 500"):
                break
        else:
            raise BrokerError(f"the producer stopped early; see {work / 'producer.out'}")
        b.kill()
    finally:
        producer.kill()
        producer.wait()
    b.stop()
    return BrokerRun("killed_4x", b.version, b.mode, b.data_dir, b.classpath, ["unclean"], None, False,
                     b.dump_log_segments_class, {"total": time.monotonic() - t0, "start": b.started_s}, work)


#: Kafka's own remote storage manager (kafka-storage's test jar, in the 4.x jar set), as Kafka's
#: tiered-storage tests configure it; `rsm.config.` and `rlmm.config.` are the managers' config prefixes.
LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"


def tiered_4x(work: Path) -> BrokerRun:
    """The newest 4.x tiering a topic to Kafka's LocalTieredStorage under `work/remote`: its closed segments
    are copied there and deleted locally (local.retention.ms), the tail stays local."""
    t0 = time.monotonic()
    b = Broker(NEWEST_4X, "kraft", work, broker_config={
        "remote.log.storage.system.enable": "true",
        "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
        "rsm.config.dir": str(work / "remote"),
        "rsm.config.delete.on.close": "false",
        "remote.log.metadata.manager.listener.name": "PLAINTEXT",
        "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
        "rlmm.config.remote.log.metadata.topic.num.partitions": "1",
        "remote.log.manager.task.interval.ms": "500",
        "log.retention.check.interval.ms": "500",
        "log.initial.task.delay.ms": "0",  # the retention check starts at once, not after 30 s
        "log.segment.delete.delay.ms": "0",
    }).start()
    topics = ["tiered"]
    run_scenario(b, [_topic("tiered", 2, remote_storage_enable="true", local_retention_ms="1000", segment_ms="300",
                            retention_ms="86400000", file_delete_delay_ms="0"),
                     ["rounds", "tiered", "6", "60", "500", "1000"]])
    parts = [b.data_dir / "tiered-0", b.data_dir / "tiered-1"]
    # copied, then deleted locally: only the active segment (and what came after the copies) stays
    _wait("the broker to tier tiered's closed segments", lambda: all(len(_logs(d)) == 1 for d in parts))
    run_scenario(b, [["rounds", "tiered", "1", "40", "0", "1000"], ["consume", str(work / "consumed"), *topics]])
    return _finish(b, "tiered_4x", topics, t0)


@dataclass
class ClusterRun:
    """A stopped 3-broker cluster's disks (`disks`: node id -> log directory, the controller's too), what
    a consumer read from it before it stopped (`consumed`, only the partitions that had a leader then),
    and what a cluster restarted on copies of exactly those disks served (`served`; `served_describe`
    its partitions' leaders and ISRs). `topic_ids` maps each topic's id to its name."""

    version: str
    disks: dict[int, Path]
    classpath: list[str]
    topics: list[str]
    consumed: Path
    served: Path
    served_describe: Path
    live_describe: Path
    seconds: dict[str, float] = field(default_factory=dict)
    work: Path | None = None


#: The cluster's brokers' settings: followers fetch at most every 2 s unless 1 MiB waits (so an acks=1 leader
#: holds records no follower has), a killed broker is fenced (and leaves the ISRs) within 3 s.
CLUSTER_CONFIG = {
    "replica.fetch.min.bytes": str(1024 * 1024),
    "replica.fetch.wait.max.ms": "2000",
    "replica.lag.time.max.ms": "6000",
    "broker.session.timeout.ms": "3000",
    "broker.heartbeat.interval.ms": "500",
    # a deleted topic's directories stay renamed -delete on the disks (not deleted a minute later)
    "log.segment.delete.delay.ms": "3600000",
    "default.replication.factor": "3",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "auto.leader.rebalance.enable": "false",
    # metadata snapshots every few seconds: the metadata is read from a snapshot and the log after it
    "metadata.log.max.record.bytes.between.snapshots": "2048",
    "metadata.log.max.snapshot.interval.ms": "3000",
}
CLUSTER_TOPICS = ["acksall", "acks1", "unclean"]
#: A partition whose reassignment is in flight when the cluster stops (its replicas differ: not in CLUSTER_TOPICS).
MOVING = "moving"
#: A topic deleted while broker 1 is down (not in CLUSTER_TOPICS: nothing serves it).
DELETED = "deleted"
#: Their index files preallocated small (not 10 MiB each): the tests copy the disks.
SMALL_INDEXES = "segment.index.bytes=4096"


def _produce_until_killed(c, topic: str, acks: str, kill, after: int, more: int, log: Path) -> None:
    """Produce to `topic` until `after` records are acknowledged, call `kill()`, then produce on until
    `more` further records are acknowledged (by whichever leader the cluster elected)."""
    with open(log, "wb") as err:
        producer = subprocess.Popen(scenario_cmd(c, [["produce-forever", topic, acks]]), stdout=subprocess.PIPE,
                                    stderr=err, start_new_session=True)
    try:
        assert producer.stdout is not None
        killed_at = None
        for line in producer.stdout:
            if not line.startswith(b"acked "):
                continue
            n = int(line.split()[1])
            if killed_at is None and n >= after:
                kill()
                killed_at = n
            elif killed_at is not None and n >= killed_at + more:
                break
        else:
            raise BrokerError(f"the producer stopped early; see {log}")
    finally:
        producer.kill()
        producer.wait()


def cluster_4x(work: Path) -> ClusterRun:
    """Kafka 4.3.1, three brokers (1, 2, 3) and a controller, replication factor 3:

    - `acksall` (replicas 2,3,1; min.insync.replicas=2, acks=all): follower 3 killed, records written,
      3 brought back into the ISR, more records; group g-acksall commits offset 100, then deleteRecords
      below offset 150 leaves it outside the log; transactional offset commits of g-acksall (500) and
      g-aborted (50) are aborted; then a transaction is left open;
    - `acks1` (replicas 1,2,3): 500 records with acks=all, then with acks=1 while the followers lag;
      its leader 1 killed with kill -9 while producing, producing on to the new leader 2; broker 1 stays
      down: its disk keeps a tail no follower copied;
    - `unclean` (replicas 3,2,1; unclean.leader.election.enable=true): 2 killed, records committed on 3
      alone, 3 stopped (the ISR gone), 2 started again and elected uncleanly, records written on it,
      unclean elections turned off again; 3 stays down with the committed records the cluster lost;
    - `moving` (replicas 2): records, then reassigned to broker 1, which is down: the reassignment is in flight
      when the cluster stops (replicas 1,2, adding 1, removing 2); the restart completes it;
    - `deleted` (replicas 1,2,3): records, then the topic deleted while broker 1 is down: 1 keeps its replica
      (stray: its topic id is gone from the metadata), 2 and 3 leave theirs renamed `-delete`
      (log.segment.delete.delay.ms is an hour here, so that they stay).

    Then the consumer reads what has a leader, broker 2 and the controller stop cleanly, and a cluster
    restarted on copies of the four disks serves every partition: consumed again (`served`)."""
    t0 = time.monotonic()
    c = Cluster(NEWEST_4X, work / "live", broker_config=dict(CLUSTER_CONFIG)).start()
    b = c.nodes
    run_scenario(c, [["topic-assigned", "acksall", "2,3,1", "min.insync.replicas=2"],
                     ["topic-assigned", "acks1", "1,2,3"],
                     ["topic-assigned", "unclean", "3,2,1", "unclean.leader.election.enable=true"],
                     ["topic-assigned", DELETED, "1,2,3", SMALL_INDEXES], ["send", DELETED, "all", "60"],
                     ["send", "acksall", "all", "300"], ["send", "unclean", "all", "200"]])
    b[3].kill()
    run_scenario(c, [["wait-isr", "acksall", "0", "2"], ["send", "acksall", "all", "300"]])
    b[3].start()
    run_scenario(c, [["wait-isr", "acksall", "0", "3"], ["wait-isr", "unclean", "0", "3"],
                     ["send", "acksall", "all", "300"], ["commit", "g-acksall", "acksall", "0", "100"],
                     ["delete-records", "acksall", "0", "150"],
                     # transactional offset commits, aborted: a read_committed view of the group keeps 100
                     ["commit-aborted", "g-acksall", "acksall", "0", "500"],
                     ["commit-aborted", "g-aborted", "acksall", "0", "50"], ["txn-open", "acksall", "20"]])
    run_scenario(c, [["wait-isr", "acks1", "0", "3"], ["send", "acks1", "all", "500"]])
    _produce_until_killed(c, "acks1", "1", b[1].kill, 3000, 2000, work / "producer-acks1.out")
    # one record with acks=all: acknowledged once follower 3 holds all of 2's log
    run_scenario(c, [["wait-leader", "acks1", "0", "2"], ["wait-isr", "acks1", "0", "2"], ["send", "acks1", "all", "1"],
                     ["wait-isr", "unclean", "0", "2"],
                     # deleted while broker 1 is down: its replica stays, with the id of a topic gone from the metadata
                     ["delete-topic", DELETED]])
    b[2].kill()
    run_scenario(c, [["wait-isr", "unclean", "0", "1"], ["wait-leader", "unclean", "0", "3"],
                     ["send", "unclean", "1", "150"]])
    b[3].stop()  # cleanly: the last of the ISR, it becomes an eligible leader replica (KIP-966)
    b[2].start()
    # unclean elections off again, as an operator would: a restart waits for the eligible replica (else the
    # first broker to register would be elected, whichever it is)
    run_scenario(c, [["wait-leader", "unclean", "0", "2", "unclean"], ["send", "unclean", "1", "40"],
                     ["alter-topic", "unclean", "unclean.leader.election.enable=false"],
                     # a reassignment left in flight: moving-0 from broker 2 to broker 1, which is down
                     ["topic-assigned", MOVING, "2", SMALL_INDEXES], ["send", MOVING, "all", "120"], ["reassign", MOVING, "0", "1"],
                     ["send", MOVING, "all", "30"],
                     ["describe", str(work / "live-describe.json"), *CLUSTER_TOPICS, MOVING],
                     ["consume", str(work / "consumed"), "unclean"]])
    c.stop()
    t1 = time.monotonic()
    restarted = c.copy_to(work / "restarted").start()
    run_scenario(restarted, [*(["wait-isr", t, "0", "3"] for t in CLUSTER_TOPICS), ["wait-reassigned", MOVING, "0"],
                             ["describe", str(work / "served-describe.json"), *CLUSTER_TOPICS, MOVING],
                             ["consume", str(work / "served"), *CLUSTER_TOPICS, MOVING]])
    restarted.stop()
    shutil.rmtree(work / "restarted", ignore_errors=True)
    return ClusterRun(c.version, c.data_dirs(), kafka_jars.classpath(c.version), CLUSTER_TOPICS,
                      work / "consumed", work / "served", work / "served-describe.json",
                      work / "live-describe.json",
                      {"live": t1 - t0, "restarted": time.monotonic() - t1, "total": time.monotonic() - t0}, work)


class _Tailed:
    """A stream's triggers on a partition its broker is appending to (`kafkalog.dataset.served.TailedLogs`, as
    `spark.readStream` keeps it): at each, the producer paused until the broker's log stops moving, the served
    bounds the stream finds (resuming recovery's walk) beside those a walk from the start finds."""

    def __init__(self, partition_dir: Path):
        from kafkalog.dataset.served import TailedLogs  # noqa: PLC0415  (kafkalog itself: only for this run)

        self.partition_dir = str(partition_dir)
        self.logs = TailedLogs()
        self.found: list[dict] = []

    def trigger(self, producer: subprocess.Popen, acked: int) -> None:
        from kafkalog.dataset.served import ServedLogs  # noqa: PLC0415

        producer.send_signal(signal.SIGSTOP)
        try:
            for _ in range(50):  # requests already sent are appended: until two walks from the start agree
                time.sleep(0.2)
                fresh = ServedLogs().of_directory(self.partition_dir)
                self.logs.next_trigger()
                found = self.logs.of_directory(self.partition_dir)
                if fresh == ServedLogs().of_directory(self.partition_dir):
                    break
            else:
                raise BrokerError("the broker kept appending with its producer stopped")
        finally:
            producer.send_signal(signal.SIGCONT)
        assert fresh is not None and found is not None
        walks = [(Path(p).name, w.resumed_from, w.valid_bytes) for p, w in sorted(found.walks.items())]
        self.found.append({"acked": acked, "same": found == fresh, "end": found.recovered_end_offset,
                           "scanned": found.scanned_bytes, "scanned_from_start": fresh.scanned_bytes,
                           "walks": walks})


#: The broker of `recovery_4x`: segments preallocated, the checkpoints written every second (not every 60 s after a
#: 30 s delay), and no retention check, so that the segments below a log start offset stay on disk.
RECOVERY_CONFIG = {
    "log.preallocate": "true",
    "log.initial.task.delay.ms": "0",
    "log.flush.offset.checkpoint.interval.ms": "1000",
    "log.flush.start.offset.checkpoint.interval.ms": "1000",
    "log.retention.check.interval.ms": "3600000",
    # preallocated segments of 1 MiB, not 1 GiB (nor __transaction_state's 100 MiB): copies stay small
    "log.segment.bytes": "1048576",
    "transaction.state.log.segment.bytes": "1048576",
}
RECOVERY_TOPICS = ["deleted", "open-txn", "prealloc"]


def recovery_4x(work: Path) -> BrokerRun:
    """One disk as its broker's restart recovers it. The newest 4.x with `log.preallocate=true` writes:

    - `deleted`: records, then `Admin.deleteRecords` before offset 317 (inside a batch of many records);
    - `open-txn`: records, a transaction left open by a producer that dies, records after it;
    - `prealloc`: records produced until the broker is killed (kill -9): preallocated zeros after the last batch.

    A consumer reads `deleted` and `open-txn` before the kill (`work/consumed-before`). Then a broker restarted on
    a copy of the killed disk serves all three to a consumer (`work/consumed`): the oracle. The run's `data_dir`
    is the killed broker's disk, as it was left.
    """
    t0 = time.monotonic()
    b = Broker(NEWEST_4X, "kraft", work / "killed", broker_config=RECOVERY_CONFIG).start()
    run_scenario(b, [_topic("deleted", segment_ms="300"), _topic("open-txn"),
                     _topic("prealloc", index_interval_bytes="512", segment_index_bytes="4096"),
                     ["produce", "deleted", "none", "200", "400", "plain"], ["delete-records", "deleted", "0", "317"],
                     ["produce", "open-txn", "none", "5", "0", "plain"]])
    run_scenario(b, [["txn-open", "open-txn", "7"]])
    run_scenario(b, [["produce", "open-txn", "none", "6", "0", "plain"],
                     ["sleep", "2500"],  # the log start offset checkpointed
                     ["consume", str(work / "consumed-before"), "deleted", "open-txn"]])
    with open(work / "producer.out", "wb") as err:
        producer = subprocess.Popen(scenario_cmd(b, [["produce-forever", "prealloc"]]), stdout=subprocess.PIPE,
                                    stderr=err, start_new_session=True)
    tailed = _Tailed(b.data_dir / "prealloc-0")
    try:
        assert producer.stdout is not None
        for line in producer.stdout:
            if line.startswith(b"acked 6000"):  # about 1.2 MB of records: past the first segment's roll
                break
            if line.startswith(b"acked ") and line.strip() != b"acked 0":
                tailed.trigger(producer, int(line.split()[1]))
        else:
            raise BrokerError(f"the producer stopped early; see {work / 'producer.out'}")
        b.kill()
    finally:
        producer.kill()
        producer.wait()
    b.stop()
    (work / "tailed.json").write_text(json.dumps(tailed.found, indent=1))
    seconds = {"killed": time.monotonic() - t0, "start": b.started_s}
    copy = Broker(NEWEST_4X, "kraft", work / "restarted", broker_config=RECOVERY_CONFIG, format_storage=False)
    shutil.copytree(b.data_dir, copy.data_dir)
    copy.start()
    try:
        run_scenario(copy, [["consume", str(work / "consumed"), *RECOVERY_TOPICS]])
    finally:
        copy.stop()
    shutil.rmtree(copy.data_dir)  # (what the restart left of the copy is not an oracle: only its consumer is)
    seconds["total"] = time.monotonic() - t0
    return BrokerRun("recovery_4x", b.version, b.mode, b.data_dir, b.classpath, RECOVERY_TOPICS, work / "consumed",
                     False, b.dump_log_segments_class, seconds, work)


@dataclass
class QuorumRun:
    """A stopped dynamic quorum's disks (`disks`: node id -> log directory; `replaced`: node id -> the disk it had
    before it was replaced), what `kafka-metadata-quorum describe` said of it before it stopped (`live_status`,
    `live_replication`: the tool's output), and what it said of the quorum restarted on copies of `disks`
    (`served_status`, `served_replication`). `removed` is the controller removed from the quorum."""

    version: str
    disks: dict[int, Path]
    replaced: dict[int, Path]
    classpath: list[str]
    removed: int
    live_status: Path
    live_replication: Path
    served_status: Path
    served_replication: Path
    seconds: dict[str, float] = field(default_factory=dict)
    work: Path | None = None


#: The controllers of `quorum_4x`: 1 formatted `--standalone`, 2 and 3 added; 3 removed, 2 replaced.
QUORUM_NODES = (1, 2, 3)
QUORUM_REMOVED, QUORUM_REPLACED = 3, 2


def _side_by_side(calls) -> None:
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        for f in [pool.submit(c) for c in calls]:
            f.result()


def quorum_4x(work: Path) -> QuorumRun:
    """Kafka 4.3.1, a dynamic quorum (KIP-853) of controllers, changed as its operators change one:

    - node 1 formatted `kafka-storage format --standalone`, nodes 2 and 3 `--no-initial-controllers`, each added
      with `kafka-metadata-quorum add-controller`;
    - 3 removed with `remove-controller` (it runs on, an observer);
    - 2 replaced: removed, stopped, and a new disk of node 2 (formatted again: a new directory id) added.

    `kafka-metadata-quorum describe --status` and `--replication` before the nodes stop (voters 1 and 2, on their
    new disk); then nodes 1, 2 and 3 restarted on copies of their disks (on the same ports: a VotersRecord holds
    each voter's endpoint), described again once they have elected a leader."""
    t0 = time.monotonic()
    cluster_id = new_cluster_id()
    ports = {i: free_port() for i in QUORUM_NODES}
    first = f"127.0.0.1:{ports[1]}"

    def node(i: int, work: Path, **kw) -> Broker:
        return Broker(NEWEST_4X, "kraft", work, controller_port=ports[i], node_id=i, roles="controller",
                      cluster_id=cluster_id, dynamic_quorum=True, standalone=i == 1, **kw)

    nodes = {i: node(i, work / "live" / f"node-{i}", quorum_bootstrap=first) for i in QUORUM_NODES}
    old = nodes[QUORUM_REPLACED]
    nodes[1].start()
    _side_by_side([nodes[i].start for i in QUORUM_NODES[1:]])
    tool = ["--bootstrap-controller", first]

    def add(i: int) -> list[str]:
        return ["-", "60", *tool, "--command-config", str(nodes[i].work / "server.properties"), "add-controller"]

    def remove(b: Broker) -> list[str]:
        return ["-", "60", *tool, "remove-controller", "--controller-id", str(b.node_id),
                "--controller-directory-id", _directory_id(b.data_dir)]

    quorum_tool(nodes[1], [*(add(i) for i in QUORUM_NODES[1:]), remove(nodes[QUORUM_REMOVED]), remove(old)])
    old.stop()
    nodes[QUORUM_REPLACED] = node(QUORUM_REPLACED, work / "live" / f"node-{QUORUM_REPLACED}-new", quorum_bootstrap=first)
    nodes[QUORUM_REPLACED].start()
    quorum_tool(nodes[1], [add(QUORUM_REPLACED),
                           [str(work / "live-status.txt"), "30", *tool, "describe", "--status"],
                           [str(work / "live-replication.txt"), "30", *tool, "describe", "--replication"]])
    _side_by_side([nodes[i].stop for i in QUORUM_NODES])
    t1 = time.monotonic()
    every = ",".join(f"127.0.0.1:{ports[i]}" for i in QUORUM_NODES)
    copies = {i: node(i, work / "restarted" / f"node-{i}", quorum_bootstrap=every, format_storage=False)
              for i in QUORUM_NODES}
    for i in QUORUM_NODES:
        shutil.copytree(nodes[i].data_dir, copies[i].data_dir)
    try:
        _side_by_side([copies[i].start for i in QUORUM_NODES])
        tool = ["--bootstrap-controller", every]
        quorum_tool(copies[1], [[str(work / "served-status.txt"), "60", *tool, "describe", "--status"],
                                [str(work / "served-replication.txt"), "30", *tool, "describe", "--replication"]])
    finally:
        _side_by_side([copies[i].stop for i in QUORUM_NODES])
    shutil.rmtree(work / "restarted", ignore_errors=True)
    return QuorumRun(NEWEST_4X, {i: b.data_dir for i, b in nodes.items()}, {QUORUM_REPLACED: old.data_dir},
                     nodes[1].classpath, QUORUM_REMOVED, work / "live-status.txt", work / "live-replication.txt",
                     work / "served-status.txt", work / "served-replication.txt",
                     {"live": t1 - t0, "restarted": time.monotonic() - t1, "total": time.monotonic() - t0}, work)


def _directory_id(data_dir: Path) -> str:
    """meta.properties' directory.id (what `kafka-storage format` gave the disk)."""
    for line in (data_dir / "meta.properties").read_text().splitlines():
        if line.startswith("directory.id="):
            return line.split("=", 1)[1].strip()
    raise BrokerError(f"{data_dir / 'meta.properties'} has no directory.id")
