#!/usr/bin/env python3
"""Write tests/dump/kafka-dump-log/*.txt.gz: what kafka-dump-log.sh prints for each fixture and sample.

Runs tests/dump/DumpLogReference.java (DumpLogSegments.dumpLog of Kafka 3.9, transcribed over
kafka-clients' own reading) with the Kafka jars of scripts/kafka_fixtures.py (from Maven Central:
kafka-clients 3.9.1, its codecs, and the Jackson that kafka-clients' JsonConverters need).
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


def main() -> int:
    classpath = [str(p) for p in kafka_fixtures.jar_paths(kafka_fixtures.JARS + kafka_fixtures.JACKSON)]
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
