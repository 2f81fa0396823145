"""Real Kafka brokers for the tests: started from Maven Central's jars (scripts/kafka_jars.py), each on
127.0.0.1 free ports in a temporary directory, stopped cleanly (killed after a timeout).

A `Broker` is KRaft (combined broker+controller, one node) or ZooKeeper mode (a ZooKeeper server
from the same jars first). A `Cluster` is KRaft nodes with one quorum: a controller and broker-only
nodes, each with its own log directory (any number of brokers can be down while the quorum stays up).
`Scenarios` runs tests/brokers/java/*.java, compiled against the broker's own kafka-clients, to
produce and consume.
"""
from __future__ import annotations

import atexit
import base64
import concurrent.futures
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import kafka_jars  # scripts/ (pytest's pythonpath)

REPO = Path(__file__).resolve().parents[2]

JAVA_SRC = Path(__file__).resolve().parent / "java"
CLASSES = REPO / ".cache" / "broker-scenarios"
# Small heaps and the C1 compiler only: brokers here live for a minute, on 2 shared cores.
JVM_OPTS = ["-Xmx512m", "-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss1m",
            "-Djava.awt.headless=true"]
STOP_TIMEOUT = 60.0


class BrokerError(RuntimeError):
    """A broker or a scenario did not do what it should."""


_RUNNING: list[Broker] = []


@atexit.register
def stop_all() -> None:
    """Stop every broker this process started and has not stopped (after a failed scenario)."""
    for broker in list(_RUNNING):
        broker.stop()


def stop_started_here() -> None:
    """Stop the brokers this thread started and has not stopped: a failed scenario's, while other threads' scenarios
    run on."""
    me = threading.get_ident()
    for broker in list(_RUNNING):
        if broker.started_by == me:
            broker.stop()


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise BrokerError("java was not found: install a JDK 17")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrokerError(f"process exited with {proc.returncode} before listening on {port}; log {log}:\n"
                              + _tail(log))
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise BrokerError(f"nothing listens on {port} after {timeout}s; log {log}:\n" + _tail(log))


def _tail(log: Path, lines: int = 40) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _logging_opts(version: str, work: Path) -> list[str]:
    """Broker logs to a file beside (not in) the data directory."""
    log = work / "server.log"
    if version.startswith("3."):
        conf = work / "log4j.properties"
        conf.write_text("log4j.rootLogger=INFO, F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
                        f"log4j.appender.F.File={log}\nlog4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
                        "log4j.appender.F.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
                        "log4j.logger.kafka.log.LogCleaner=INFO\nlog4j.logger.state.change.logger=WARN\n")
        return [f"-Dlog4j.configuration=file:{conf}"]
    conf = work / "log4j2.properties"
    conf.write_text("rootLogger.level=INFO\nrootLogger.appenderRef.f.ref=F\nappender.f.type=File\n"
                    f"appender.f.name=F\nappender.f.fileName={log}\nappender.f.layout.type=PatternLayout\n"
                    "appender.f.layout.pattern=[%d] %p %m (%c)%n\n")
    return [f"-Dlog4j2.configurationFile={conf}"]


@dataclass(eq=False)  # identity: _RUNNING holds brokers
class Broker:
    """One Kafka broker. `data_dir` is its log.dirs (one directory); `classpath` runs its own tools."""

    version: str
    mode: str  # "kraft" or "zk"
    work: Path
    broker_config: dict[str, str] = field(default_factory=dict)
    format_features: list[str] = field(default_factory=list)
    #: False: start on a data directory already formatted (a copy of another broker's disk, restarted).
    format_storage: bool = True
    port: int = 0
    controller_port: int = 0
    zk_port: int = 0
    proc: subprocess.Popen | None = None
    zk_proc: subprocess.Popen | None = None
    started_s: float = 0.0
    # a node of a `Cluster` (KRaft): its id, roles, the quorum's voters and the cluster id it is formatted with
    node_id: int = 1
    roles: str = "broker,controller"
    voters: str = ""
    cluster_id: str = ""
    #: A dynamic quorum (KIP-853): formatted `--standalone`, its voters in the metadata log's VotersRecord, found
    #: through `controller.quorum.bootstrap.servers` (`quorum_bootstrap`, else a node of its own only).
    dynamic_quorum: bool = False
    #: A dynamic quorum's controllers to bootstrap from ("host:port,..."; empty: its own controller listener).
    quorum_bootstrap: str = ""
    #: A dynamic quorum's node formatted `--standalone` (the first voter), else `--no-initial-controllers` (no
    #: voter until `kafka-metadata-quorum add-controller` adds it).
    standalone: bool = True
    #: The thread that started it (`stop_started_here`): the session's broker runs go on side by side.
    started_by: int = 0

    @property
    def data_dir(self) -> Path:
        return self.work / "data"

    @property
    def dump_log_segments_class(self) -> str:
        """kafka-dump-log.sh's main class in this version (moved from core to kafka-tools in 4.0)."""
        return "kafka.tools.DumpLogSegments" if self.version.startswith("3.") else "org.apache.kafka.tools.DumpLogSegments"

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def classpath(self) -> list[str]:
        return kafka_jars.classpath(self.version)

    def _java(self, main: str, args: list[str], log: Path, opts: list[str] | None = None) -> subprocess.Popen:
        cmd = [java(), *JVM_OPTS, *(opts or []), *_logging_opts(self.version, self.work),
               "-cp", os.pathsep.join(self.classpath), main, *args]
        out = open(log, "ab")  # noqa: SIM115  (the broker's output, open as long as it runs)
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)

    def properties(self) -> dict[str, str]:
        p = {
            "log.dirs": str(self.data_dir),
            "num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "2",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "transaction.state.log.num.partitions": "2",
            "group.initial.rebalance.delay.ms": "0",
            "log.retention.check.interval.ms": "1000",
            "log.cleaner.backoff.ms": "500",
            "log.segment.delete.delay.ms": "0",
            "auto.create.topics.enable": "false",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        }
        if self.mode == "kraft":
            listeners = {"broker,controller": f"PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
                         "broker": f"PLAINTEXT://127.0.0.1:{self.port}",
                         "controller": f"CONTROLLER://127.0.0.1:{self.controller_port}"}[self.roles]
            p.update({
                "process.roles": self.roles,
                "node.id": str(self.node_id),
                "listeners": listeners,
                "controller.listener.names": "CONTROLLER",
                "share.coordinator.state.topic.replication.factor": "1",
                "share.coordinator.state.topic.min.isr": "1",
                "share.coordinator.state.topic.num.partitions": "1",
            })
            if self.dynamic_quorum:
                p["controller.quorum.bootstrap.servers"] = self.quorum_bootstrap or f"127.0.0.1:{self.controller_port}"
            else:
                p["controller.quorum.voters"] = self.voters or f"{self.node_id}@127.0.0.1:{self.controller_port}"
            if self.roles != "controller":
                p.update({"advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
                          "inter.broker.listener.name": "PLAINTEXT"})
        else:
            p.update({
                "broker.id": "0",
                "zookeeper.connect": f"127.0.0.1:{self.zk_port}",
                "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            })
        p.update(self.broker_config)
        return p

    def start(self) -> Broker:
        self.started_by = threading.get_ident()
        _RUNNING.append(self)
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> Broker:
        t0 = time.monotonic()
        self.work.mkdir(parents=True, exist_ok=True)
        # a restarted node keeps its ports: the quorum's voters name the controller's
        self.port = self.port or free_port()
        self.controller_port = self.controller_port or free_port()
        conf = self.work / "server.properties"
        if self.mode == "zk":
            self.zk_port = free_port()
            zk_log = self.work / "zookeeper.out"
            self.zk_proc = self._java("org.apache.zookeeper.server.ZooKeeperServerMain",
                                      [str(self.zk_port), str(self.work / "zookeeper")], zk_log,
                                      ["-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=*"])
            wait_port(self.zk_port, self.zk_proc, zk_log)
        conf.write_text("".join(f"{k}={v}\n" for k, v in self.properties().items()))
        out = self.work / "broker.out"
        if self.mode == "kraft" and self.format_storage and not (self.data_dir / "meta.properties").exists():
            args = ["format", "-t", self.cluster_id or new_cluster_id(), "-c", str(conf)]
            for f in self.format_features:
                args += ["--feature", f]
            if self.dynamic_quorum:
                args.append("--standalone" if self.standalone else "--no-initial-controllers")
            cmd = [java(), *JVM_OPTS, *_logging_opts(self.version, self.work), "-cp", os.pathsep.join(self.classpath),
                   "kafka.tools.StorageTool", *args]
            res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if res.returncode != 0:
                raise BrokerError(f"kafka-storage format failed ({self.version}):\n{res.stdout}")
        self.proc = self._java("kafka.Kafka", [str(conf)], out)
        wait_port(self.controller_port if self.roles == "controller" else self.port, self.proc, self.work / "server.log")
        self.started_s = time.monotonic() - t0
        return self

    def stop(self) -> None:
        """A clean shutdown (SIGTERM, as kafka-server-stop.sh), killed after STOP_TIMEOUT."""
        if self in _RUNNING:
            _RUNNING.remove(self)
        for p in (self.proc, self.zk_proc):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    def kill(self) -> None:
        """kill -9: the directory stays as the broker left it."""
        if self in _RUNNING:
            _RUNNING.remove(self)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def partition_dirs(self, topic: str) -> list[Path]:
        return sorted(p for p in self.data_dir.glob(f"{topic}-*")
                      if p.is_dir() and p.name[len(topic) + 1:].isdigit())


#: The node id of a `Cluster`'s controller; its brokers are 1, 2, 3...
CONTROLLER_ID = 9


@dataclass
class Cluster:
    """A KRaft cluster of one controller (node `CONTROLLER_ID`) and broker-only nodes 1..n on this
    machine, each node in its own directory under `work` (`node-<id>`, log.dirs `node-<id>/data`).

    Each broker keeps its own copy of the metadata log (`__cluster_metadata-0`), as brokers do."""

    version: str
    work: Path
    brokers: int = 3
    broker_config: dict[str, str] = field(default_factory=dict)
    cluster_id: str = field(default_factory=lambda: new_cluster_id())
    nodes: dict[int, Broker] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.nodes:
            return
        controller_port = free_port()
        voters = f"{CONTROLLER_ID}@127.0.0.1:{controller_port}"
        self.nodes[CONTROLLER_ID] = Broker(self.version, "kraft", self.work / f"node-{CONTROLLER_ID}",
                                           dict(self.broker_config), controller_port=controller_port,
                                           node_id=CONTROLLER_ID, roles="controller", voters=voters,
                                           cluster_id=self.cluster_id)
        for i in range(1, self.brokers + 1):
            self.nodes[i] = Broker(self.version, "kraft", self.work / f"node-{i}", dict(self.broker_config),
                                   controller_port=controller_port, node_id=i, roles="broker", voters=voters,
                                   cluster_id=self.cluster_id)

    @property
    def broker_ids(self) -> list[int]:
        return [i for i in sorted(self.nodes) if i != CONTROLLER_ID]

    @property
    def bootstrap(self) -> str:
        return ",".join(self.nodes[i].bootstrap for i in self.broker_ids)

    def data_dirs(self) -> dict[int, Path]:
        """Each node's log directory (the controller's too: it holds the metadata log)."""
        return {i: b.data_dir for i, b in sorted(self.nodes.items())}

    def start(self) -> Cluster:
        """The controller, then the brokers side by side (each waits for its port)."""
        self.work.mkdir(parents=True, exist_ok=True)
        self.nodes[CONTROLLER_ID].start()
        with concurrent.futures.ThreadPoolExecutor(len(self.broker_ids)) as pool:
            for f in [pool.submit(self.nodes[i].start) for i in self.broker_ids]:
                f.result()
        return self

    def stop(self) -> None:
        """Brokers first (a clean shutdown reaches the controller), then the controller."""
        for i in self.broker_ids:
            self.nodes[i].stop()
        self.nodes[CONTROLLER_ID].stop()

    def copy_to(self, work: Path) -> Cluster:
        """A cluster of the same nodes (ids, cluster id, quorum) on copies of these log directories, not started:
        what a restart on exactly these disks serves."""
        nodes = {}
        controller_port = free_port()
        voters = f"{CONTROLLER_ID}@127.0.0.1:{controller_port}"
        for i, b in self.nodes.items():
            shutil.copytree(b.data_dir, work / f"node-{i}" / "data", symlinks=True)
            nodes[i] = Broker(self.version, "kraft", work / f"node-{i}", dict(self.broker_config),
                              controller_port=controller_port, node_id=i, roles=b.roles, voters=voters,
                              cluster_id=self.cluster_id)
        return Cluster(self.version, work, self.brokers, dict(self.broker_config), self.cluster_id, nodes)


def new_cluster_id() -> str:
    """A Kafka cluster id: a UUID as 22 characters of URL-safe base64, never starting with "-" (which
    kafka-storage's argument parser takes for an option, as Kafka's own Uuid.randomUuid avoids)."""
    while True:
        found = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not found.startswith("-"):
            return found


def compile_scenarios(version: str) -> Path:
    """tests/brokers/java compiled against `version`'s kafka-clients, into .cache (skipped when up to date)."""
    sources = sorted(JAVA_SRC.glob("*.java"))
    if version.startswith("3."):
        sources = [s for s in sources if s.name != "ShareSteps.java"]  # no share consumer API in 3.9
    if tuple(int(p) for p in version.split(".")[:2]) >= (4, 4):
        # Kafka 4.4 moved `Exit`, which QuorumTool hooks, to common.utils.internals; the quorum run is 4.3.1's.
        sources = [s for s in sources if s.name != "QuorumTool.java"]
    h = hashlib.sha256(version.encode())
    for s in sources:
        h.update(s.name.encode() + s.read_bytes())
    return compile_java(CLASSES / version / h.hexdigest()[:16], sources, kafka_jars.classpath(version))


def compile_java(out: Path, sources: list[Path], classpath: list[str] | None = None) -> Path:
    """`sources` compiled by javac (against `classpath`) into `out`, unless it is there. `out` names the content (the
    caller hashes the sources): worktrees and runs side by side share .cache, and each must get the classes of its
    own sources; a finished directory appears whole (renamed into place) or not at all."""
    if out.is_dir():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".compiling-", dir=out.parent))
    javac = str(Path(java()).with_name("javac"))
    res = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp),
                          *(["-cp", os.pathsep.join(classpath)] if classpath else []), *map(str, sources)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BrokerError(f"javac failed:\n{res.stdout}")
    try:
        tmp.rename(out)
    except OSError:  # another process finished the same classes first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def scenario_cmd(broker: Broker | Cluster, steps: list[list[str]]) -> list[str]:
    classes = compile_scenarios(broker.version)
    args: list[str] = []
    for s in steps:
        args += [*s, "--"]
    classpath = kafka_jars.classpath(broker.version)
    return [java(), *JVM_OPTS, *_logging_opts(broker.version, broker.work),
            "-cp", os.pathsep.join([str(classes), *classpath]), "Scenarios", broker.bootstrap, *args]


def quorum_tool(node: Broker, runs: list[list[str]], timeout: float = 300.0) -> None:
    """kafka-metadata-quorum.sh (`MetadataQuorumCommand`) run once for each of `runs` in one JVM (QuorumTool.java):
    each run is `[out file or "-", seconds to retry a failed run, tool args...]`; raise with its output when one
    fails after its retries."""
    classes = compile_scenarios(node.version)
    args: list[str] = []
    for r in runs:
        args += [*r, "--"]
    cmd = [java(), *JVM_OPTS, *_logging_opts(node.version, node.work),
           "-cp", os.pathsep.join([str(classes), *node.classpath]), "QuorumTool", *args]
    log = node.work / "quorum-tool.out"
    with open(log, "ab") as out:
        res = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
    if res.returncode != 0:
        raise BrokerError(f"kafka-metadata-quorum failed ({res.returncode}) on {node.version}; {log}:\n{_tail(log, 60)}")


def run_scenario(broker: Broker | Cluster, steps: list[list[str]], timeout: float = 300.0) -> None:
    """Run the steps in one JVM against the broker (or cluster); raise with its output when it fails."""
    log = broker.work / "scenarios.out"
    with open(log, "ab") as out:
        res = subprocess.run(scenario_cmd(broker, steps), stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
    if res.returncode != 0:
        raise BrokerError(f"scenario failed ({res.returncode}) on {broker.version}; {log}:\n{_tail(log, 60)}")
