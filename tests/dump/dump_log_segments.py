"""Kafka's own `kafka-dump-log.sh` (`DumpLogSegments`) run over files, to compare `kafkalog dump --format kafka` with.

DumpLogSegments takes a file's kind from its suffix and its base offset from its name, so a fixture
named otherwise is copied under a name Kafka's tool reads (`copy_as_kafka_names`). Many runs of the tool go
to one JVM (its start-up is the cost: tests/dump/java/DumpEach.java calls the tool's main once per run); a file
on which the tool dies with an exception ends that run, and the files after it are dumped by the tool called
again, as a new JVM would.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import kafka_jars  # scripts/kafka_jars.py (pytest's pythonpath)

from tests.brokers.harness import compile_java, java

#: The Kafka versions whose DumpLogSegments the tests run, with the `--kafka-version` kafkalog prints for each.
VERSIONS = {"3.9.2": "3.9", "4.3.1": "4", "4.4.0": "4.4"}
_NAMED = re.compile(r"^\d{20}\.(log|index|timeindex|snapshot|txnindex)$|^\d{20}-\d{10}\.checkpoint$")


#: The flag that decodes an internal topic's records, by topic, as kafkalog decodes them by default.
DECODER_FLAGS = {
    "__consumer_offsets": "--offsets-decoder",
    "__transaction_state": "--transaction-log-decoder",
    "__cluster_metadata": "--cluster-metadata-decoder",
    "__share_group_state": "--share-group-state-decoder",
    "__remote_log_metadata": "--remote-log-metadata-decoder",
}


def decoder_flags(version: str) -> set[str | None]:
    """The decoder flags `version`'s tool has (None: the plain dump); share groups came with Kafka 4."""
    flags = set(DECODER_FLAGS.values()) | {None}
    return flags if not version.startswith("3.") else flags - {DECODER_FLAGS["__share_group_state"]}


def decoder_flag(path: Path) -> str | None:
    """The decoder flag for a file of an internal topic's partition directory (or a KRaft snapshot)."""
    if path.suffix == ".checkpoint":
        return DECODER_FLAGS["__cluster_metadata"]
    topic = re.sub(r"-\d+$", "", path.parent.name)
    return DECODER_FLAGS.get(topic)


def main_class(version: str) -> str:
    """kafka-dump-log.sh's main class: Scala in core until 3.9, Java in kafka-tools from 4.0."""
    return "kafka.tools.DumpLogSegments" if version.startswith("3.") else "org.apache.kafka.tools.DumpLogSegments"


@dataclass
class Dumped:
    """What the tool printed for one file: its lines, and the exception it died with, if it did."""

    lines: list[str]
    exception: str | None = None


def copy_as_kafka_names(files: list[Path], into: Path) -> dict[Path, Path]:
    """Each file under a name DumpLogSegments reads (its own name if it already is one), in a partition
    directory of its own named like its original's, so that decoders that go by the topic still do."""
    out = {}
    for n, f in enumerate(files):
        if _NAMED.match(f.name):
            out[f] = f
            continue
        # A partition directory's name says the topic, which picks the decoder kafkalog uses.
        parent = f.parent.name if re.match(r"^.+-\d+$", f.parent.name) else "fixture-0"
        d = into / f"{n:04d}" / parent
        d.mkdir(parents=True)
        copy = d / f"{0:020d}{f.suffix}"
        shutil.copyfile(f, copy)
        out[f] = copy
    return out


LAUNCHER = Path(__file__).resolve().parent / "java" / "DumpEach.java"
CLASSES = Path(__file__).resolve().parents[2] / ".cache" / "dump-each"
#: The tool's JVM: DumpLogSegments runs for seconds; the C1 compiler alone starts sooner on 2 shared cores.
JVM_OPTS = ["-Xmx512m", "-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]


def launcher() -> Path:
    """DumpEach.java compiled into .cache, once per content (`harness.compile_java`). It needs no jar to compile."""
    return compile_java(CLASSES / hashlib.sha256(LAUNCHER.read_bytes()).hexdigest()[:16], [LAUNCHER])


def run_decoded(version: str, files: list[Path]) -> dict[Path, Dumped]:
    """`--deep-iteration --print-data-log` over `files` in one JVM, each internal topic's files with its decoder flag
    (`decoder_flag`); the files of a topic `version` does not have (`decoder_flags`) are left out."""
    by_flag: dict[str | None, list[Path]] = {}
    for f in files:
        by_flag.setdefault(decoder_flag(f), []).append(f)
    dumped: dict[Path, Dumped] = {}
    for one in run_many(version, [(["--deep-iteration", "--print-data-log", *([flag] if flag else [])], group)
                                  for flag, group in by_flag.items() if flag in decoder_flags(version)]):
        dumped.update(one)
    return dumped


def run(version: str, files: list[Path], *flags: str) -> dict[Path, Dumped]:
    """DumpLogSegments of `version` over `files` with `flags`: what it printed for each file."""
    return run_many(version, [(flags, files)])[0]


def run_many(version: str, runs: Iterable[tuple[Iterable[str], list[Path]]]) -> list[dict[Path, Dumped]]:
    """Several runs of DumpLogSegments of `version` (each: its flags and its files), in one JVM: what it printed
    for each file, run by run."""
    runs = [(list(flags), files) for flags, files in runs]
    if not runs:
        return []
    commands = "".join("\t".join([*flags, "--files", ",".join(map(str, files))]) + "\n" for flags, files in runs)
    # UTF-8 on stdout whatever the machine's locale (Java 17 prints '?' for what its default charset lacks)
    result = subprocess.run([java(), *JVM_OPTS, "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8",
                             "-cp", os.pathsep.join([str(launcher()), *kafka_jars.classpath(version)]),
                             "DumpEach", main_class(version)],
                            input=commands, capture_output=True, text=True, encoding="utf-8", timeout=600)
    outs: list[dict[Path, Dumped]] = [{}]
    by_name = {str(p): p for p in runs[0][1]}
    current: Path | None = None
    for line in result.stdout.splitlines():
        if line == "\x01end":
            current = None
            outs.append({})
            if len(outs) <= len(runs):
                by_name = {str(p): p for p in runs[len(outs) - 1][1]}
        elif line.startswith("\x01died "):
            if current is not None:
                outs[-1][current].exception = line[len("\x01died "):]
            current = None
        elif line.startswith("Dumping ") and line[len("Dumping "):] in by_name:
            current = by_name[line[len("Dumping "):]]
            outs[-1][current] = Dumped([line])
        elif current is not None:
            outs[-1][current].lines.append(line)
    assert len(outs) == len(runs) + 1, \
        f"DumpEach ({version}) stopped after {len(outs) - 1} of {len(runs)} runs:\n{result.stderr[-3000:]}"
    return outs[:-1]
