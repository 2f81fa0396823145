"""Kafka's own `kafka-dump-log.sh` (`DumpLogSegments`) run over files, to compare `kafkalog dump --format kafka` with.

DumpLogSegments takes a file's kind from its suffix and its base offset from its name, so a fixture
named otherwise is copied under a name Kafka's tool reads (`copy_as_kafka_names`). Many files go to
one JVM (its start-up is the cost); a file on which the tool dies with an exception ends that run,
and the files after it are dumped by another.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import kafka_jars  # scripts/kafka_jars.py (pytest's pythonpath)

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


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else (shutil.which("java") or "java")


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


def run(version: str, files: list[Path], *flags: str) -> dict[Path, Dumped]:
    """DumpLogSegments of `version` over `files` with `flags`: what it printed for each file."""
    out: dict[Path, Dumped] = {}
    pending = list(files)
    while pending:
        # UTF-8 on stdout whatever the machine's locale (Java 17 prints '?' for what its default charset lacks)
        result = subprocess.run([java(), "-Xmx512m", "-Xss4m", "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-cp", os.pathsep.join(kafka_jars.classpath(version)),
                                 main_class(version), *flags, "--files", ",".join(map(str, pending))],
                                capture_output=True, text=True, timeout=600)
        current: Path | None = None
        by_name = {str(p): p for p in pending}
        for line in result.stdout.splitlines():
            if line.startswith("Dumping ") and line[len("Dumping "):] in by_name:
                current = by_name[line[len("Dumping "):]]
                out[current] = Dumped([line])
            elif current is not None:
                out[current].lines.append(line)
        if result.returncode == 0 or current is None:
            break
        # The tool died on `current`: its exception is the first line of the trace on stderr.
        trace = [line for line in result.stderr.splitlines() if "Exception" in line or "Error" in line]
        out[current].exception = trace[0] if trace else result.stderr.strip()[:500]
        pending = pending[pending.index(current) + 1:]
    return out
