#!/usr/bin/env python3
"""Write tests/dump/kafka-dump-log/*.txt.gz: what kafka-dump-log.sh prints for each fixture and sample.

Runs tests/dump/DumpLogReference.java (DumpLogSegments.dumpLog of Kafka 3.9, transcribed over
kafka-clients' own reading) with the Kafka jars of scripts/kafka_fixtures.py and Jackson (which
kafka-clients' JsonConverters need; not in the fixture writer's jars): set KAFKALOG_JACKSON_JARS to a
directory holding jackson-databind, jackson-core and jackson-annotations, or have them in ~/.m2.
Run from the repository root:  python tests/dump/make_kafka_dump_reference.py
"""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # run as a script: tests/ is not on the path
sys.path.insert(0, str(REPO / "scripts"))
import kafka_fixtures  # noqa: E402

OUT = REPO / "tests" / "dump" / "kafka-dump-log"
SOURCES = sorted((REPO / "tests" / "fixtures" / "segments").glob("*.log")) + sorted((REPO / "samples").glob("*.log"))


def jackson_jars() -> list[str]:
    given = os.environ.get("KAFKALOG_JACKSON_JARS")
    if given:
        return [str(p) for p in Path(given).glob("jackson-*.jar")]
    m2 = Path.home() / ".m2" / "repository" / "com" / "fasterxml" / "jackson" / "core"
    return [str(m2 / name / "2.17.2" / f"{name}-2.17.2.jar")
            for name in ("jackson-databind", "jackson-core", "jackson-annotations")]


def main() -> int:
    jars = kafka_fixtures.kafka_jars_dir()
    classpath = [str(jars / j) for j in kafka_fixtures.JARS] + jackson_jars()
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run(["javac", "-nowarn", "-d", classes, "-cp", os.pathsep.join(classpath),
                        str(Path(__file__).with_name("DumpLogReference.java"))], check=True)
        OUT.mkdir(exist_ok=True)
        for source in SOURCES:
            rel = source.relative_to(REPO)
            res = subprocess.run(["java", "-cp", os.pathsep.join([classes, *classpath]), "DumpLogReference", str(rel)],
                                 cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
            (OUT / f"{rel.parent.name}--{source.stem}.txt.gz").write_bytes(gzip.compress(res.stdout, mtime=0))
    print(f"wrote {len(SOURCES)} files to {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
