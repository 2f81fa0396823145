#!/usr/bin/env python3
"""Fetch Kafka's jars from Maven Central into .cache/kafka/<set>/, one directory per set.

Each set is a small pom under scripts/kafka-jars/<set>/pom.xml; `mvn dependency:copy-dependencies`
copies its jars and their runtime dependencies:

- 4.3.1: the newest 4.x broker whose kafka-storage test jar (LocalTieredStorage) is on Maven Central,
  with its kafka-tools (DumpLogSegments), KRaft mode;
- 4.4.0: the newest broker and its kafka-tools (DumpLogSegments; its storage test jar is not published);
- 3.9.2: the newest 3.9 broker, KRaft and ZooKeeper mode (ZooKeeper 3.8 comes with it);
- clients-3.9.1: the fixture writer's kafka-clients 3.9.1 with the codec libraries at the versions
  the committed fixtures were written with, and Jackson for its JsonConverters;
- aiven-crypto: Bouncy Castle and zstd-jni at the versions Aiven's tiered-storage-for-apache-kafka uses,
  which tests/remote/java/AivenObjects.java drives as Aiven does (Aiven's jars are not on Maven Central).

A set is fetched once: a stamp holding its pom's digest marks it complete.

Usage:
    python scripts/kafka_jars.py            fetch every set (quiet when already there)
    python scripts/kafka_jars.py SET...     fetch these sets
    python scripts/kafka_jars.py --classpath SET   print the set's classpath

Only the standard library is used (mvn is run as a subprocess).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POMS = REPO / "scripts" / "kafka-jars"
CACHE = REPO / ".cache" / "kafka"
STAMP = ".pom-sha256"


class JarsError(RuntimeError):
    """A set of jars could not be fetched."""


def sets() -> list[str]:
    return sorted(p.parent.name for p in POMS.glob("*/pom.xml"))


def jars_dir(name: str, fetch_missing: bool = True) -> Path:
    """The directory holding set `name`'s jars, fetched with mvn when missing or stale."""
    pom = POMS / name / "pom.xml"
    if not pom.is_file():
        raise JarsError(f"no jar set {name!r} (known: {', '.join(sets())})")
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()
    out = CACHE / name
    if (out / STAMP).is_file() and (out / STAMP).read_text() == digest:
        return out
    if not fetch_missing:
        raise JarsError(f"{out} is missing or stale: run python scripts/kafka_jars.py {name}")
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JarsError("'mvn' was not found on PATH: install Maven (apt-get install maven) to fetch Kafka's jars")
    if out.exists():
        shutil.rmtree(out)
    part = out.with_name(name + ".part")
    if part.exists():
        shutil.rmtree(part)
    cmd = [mvn, "-q", "-B", "-f", str(pom), "dependency:copy-dependencies", "-DincludeScope=runtime",
           f"-DoutputDirectory={part}"]
    print(f"fetching Kafka jars ({name}) from Maven Central ...", file=sys.stderr)
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        raise JarsError(f"mvn failed for {pom}:\n{res.stdout}")
    (part / STAMP).write_text(digest)
    os.replace(part, out)
    return out


def classpath(name: str) -> list[str]:
    """Every jar of set `name`, sorted."""
    return [str(p) for p in sorted(jars_dir(name).glob("*.jar"))]


def jar(name: str, prefix: str) -> Path:
    """The one jar of set `name` whose file name is `prefix`-<version>.jar."""
    found = [p for p in jars_dir(name).glob(f"{prefix}-*.jar")
             if p.name[len(prefix) + 1:len(prefix) + 2].isdigit()]
    if len(found) != 1:
        raise JarsError(f"expected one {prefix}-<version>.jar in {CACHE / name}, found {len(found)}")
    return found[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", help=f"jar sets (default all: {', '.join(sets())})")
    ap.add_argument("--classpath", metavar="SET", help="print this set's classpath")
    args = ap.parse_args(argv)
    try:
        if args.classpath:
            print(os.pathsep.join(classpath(args.classpath)))
            return 0
        for name in args.sets or sets():
            jars_dir(name)
    except JarsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
