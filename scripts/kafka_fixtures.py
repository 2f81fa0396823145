#!/usr/bin/env python3
"""Write Kafka log fixtures with Kafka's own Java encoder, and Kafka's own reading of them.

The Java program lives in tests/kafka_writer/*.java. It runs against the jars of Kafka 3.9.1
(kafka-clients plus its compression libraries, and Jackson for its JsonConverters), fetched from
Maven Central by scripts/kafka_jars.py (set clients-3.9.1) into .cache/kafka/clients-3.9.1. This
script compiles the Java with javac and runs it.

Usage:
    python scripts/kafka_fixtures.py fixtures [--out DIR]     (default tests/fixtures)
    python scripts/kafka_fixtures.py samples [--out DIR]      (default samples)
    python scripts/kafka_fixtures.py corpus --out DIR --records N --codec C
                                     [--batch-size K | --batch-bytes B] [--value-bytes MIN[:MAX]]
                                     [--headers MIN[:MAX]] [--segment-bytes B] [--topic T]
    python scripts/kafka_fixtures.py read FILE                (Kafka's reading, JSON lines)
    python scripts/kafka_fixtures.py hostile [--out DIR]      (default tests/fixtures/hostile)
    python scripts/kafka_fixtures.py check                    (regenerate; compare byte for byte)

Environment:
    KAFKALOG_KAFKA_JARS   a directory holding the jars (skips the Maven fetch)

Only the standard library is used (mvn is run as a subprocess, by kafka_jars.py).
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kafka_jars  # the sibling script that fetches the jars

REPO = Path(__file__).resolve().parent.parent
JAVA_SRC = REPO / "tests" / "kafka_writer"
# (KAFKALOG_WRITER_CLASSES: another directory, for a worktree whose .java files differ from the shared cache's)
CLASSES_DIR = Path(os.environ.get("KAFKALOG_WRITER_CLASSES") or REPO / ".cache" / "kafka-writer-classes")
JAR_SET = "clients-3.9.1"
# kafka-clients is Kafka 3.9.1; the others are what its codecs and logging need at run time
# (file names as Maven copies them: <artifact>-<version>.jar).
JARS = ["kafka-clients", "lz4-java", "snappy-java", "zstd-jni", "slf4j-api"]
JACKSON = ["jackson-databind", "jackson-core", "jackson-annotations"]
MAIN_CLASS = "KafkaWriter"
# files under tests/fixtures that are written by hand, not by the Java writer
HAND_WRITTEN = {Path("README.md"), Path("hostile") / "README.md"}
#: Fixture folders another script writes and checks: Kafka 0.7's logs (scripts/kafka07_fixtures.py; no 0.7 jar exists).
OTHER_WRITERS = (Path("kafka07"),)


class SetupError(RuntimeError):
    """Something needed to run the Java writer is missing."""


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        java_home = os.environ.get("JAVA_HOME")
        if java_home and (Path(java_home) / "bin" / name).exists():
            return str(Path(java_home) / "bin" / name)
        raise SetupError(
            f"'{name}' was not found on PATH (nor in $JAVA_HOME/bin). Install a JDK (17 or newer), "
            f"e.g. 'apt-get install openjdk-17-jdk-headless', to write or check the Kafka fixtures."
        )
    return path


def kafka_jars_dir() -> Path:
    """The directory holding the Kafka jars (fetched from Maven Central when missing)."""
    env = os.environ.get("KAFKALOG_KAFKA_JARS")
    d = Path(env) if env else None
    if d is None:
        try:
            d = kafka_jars.jars_dir(JAR_SET)
        except kafka_jars.JarsError as e:
            raise SetupError(str(e)) from e
    missing = [j for j in JARS + JACKSON if not list(d.glob(f"{j}-[0-9]*.jar"))]
    if missing:
        raise SetupError(f"{d} lacks {', '.join(missing)}")
    return d


def jar_paths(names: list[str] = JARS) -> list[Path]:
    """The jar files of `names` (artifact ids) in the jar directory."""
    d = kafka_jars_dir()
    return [sorted(d.glob(f"{j}-[0-9]*.jar"))[0] for j in names]


def _classpath(extra: Path | None = None) -> str:
    parts = ([str(extra)] if extra else []) + [str(p) for p in jar_paths(JARS + JACKSON)]
    # tests/kafka_writer itself, for message-schemas.json (InternalTopics.java, issue 10)
    return os.pathsep.join([*parts, str(JAVA_SRC)])


def _sources_digest() -> str:
    h = hashlib.sha256()
    for f in sorted(JAVA_SRC.glob("*.java")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    h.update(str(kafka_jars_dir().resolve()).encode())
    return h.hexdigest()


def compile_java() -> Path:
    """Compile tests/kafka_writer/*.java into .cache/kafka-writer-classes (skipped when up to date)."""
    digest = _sources_digest()
    stamp = CLASSES_DIR / ".sources-sha256"
    if stamp.is_file() and stamp.read_text() == digest and (CLASSES_DIR / f"{MAIN_CLASS}.class").is_file():
        return CLASSES_DIR
    javac = _tool("javac")
    if CLASSES_DIR.exists():
        shutil.rmtree(CLASSES_DIR)
    CLASSES_DIR.mkdir(parents=True)
    sources = [str(f) for f in sorted(JAVA_SRC.glob("*.java"))]
    res = subprocess.run([javac, "-encoding", "UTF-8", "-nowarn", "-d", str(CLASSES_DIR),
                          "-cp", _classpath(), *sources],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        raise SetupError(f"javac failed:\n{res.stdout}")
    stamp.write_text(digest)
    return CLASSES_DIR


def run_java(args, check: bool = True, capture: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run the Java writer (KafkaWriter) with the given arguments (and `stdin`, for the modes that read it);
    returns the CompletedProcess.

    With capture=True, stdout is returned as bytes in .stdout; stderr (minus SLF4J's
    no-binding notice) in .stderr as text.
    """
    classes = compile_java()
    java = _tool("java")
    cmd = [java, "-Xss4m", "-cp", _classpath(classes), MAIN_CLASS, *[str(a) for a in args]]
    res = subprocess.run(cmd, stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE, input=stdin)
    err = "\n".join(line for line in res.stderr.decode("utf-8", "replace").splitlines()
                    if not line.startswith("SLF4J:"))
    res = subprocess.CompletedProcess(res.args, res.returncode, res.stdout, err)
    if check and res.returncode != 0:
        raise SetupError(f"java {' '.join(str(a) for a in args)} failed ({res.returncode}):\n{err}")
    if err and not capture:
        print(err, file=sys.stderr)
    return res


def start_java(args) -> subprocess.Popen:
    """Start the Java writer with pipes on stdin and stdout (text), for modes that take commands (tail)."""
    classes = compile_java()
    cmd = [_tool("java"), "-cp", _classpath(classes), MAIN_CLASS, *[str(a) for a in args]]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, bufsize=1)


def _compare_trees(committed: Path, fresh: Path) -> list[str]:
    problems = []
    committed_files = {p.relative_to(committed) for p in committed.rglob("*") if p.is_file()}
    fresh_files = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    for rel in sorted(fresh_files - committed_files):
        problems.append(f"missing from {committed}: {rel}")
    for rel in sorted(committed_files - fresh_files):
        if rel in HAND_WRITTEN or any(w in rel.parents for w in OTHER_WRITERS):
            continue
        problems.append(f"not produced by the writer any more: {committed / rel}")
    for rel in sorted(committed_files & fresh_files):
        a, b = committed / rel, fresh / rel
        if not filecmp.cmp(a, b, shallow=False):
            da, db = a.read_bytes(), b.read_bytes()
            first = next((i for i in range(min(len(da), len(db))) if da[i] != db[i]), min(len(da), len(db)))
            problems.append(f"differs: {committed / rel} (committed {len(da)} bytes, regenerated {len(db)} bytes, "
                            f"first difference at byte {first})")
    return problems


def cmd_check(args) -> int:
    committed = REPO / "tests" / "fixtures"
    with tempfile.TemporaryDirectory(prefix="kafka-fixtures-check-") as tmp:
        run_java(["fixtures", tmp])
        run_java(["hostile", str(Path(tmp) / "hostile")])
        problems = _compare_trees(committed, Path(tmp))
    if problems:
        print(f"{len(problems)} fixture file(s) differ from what Kafka's writer produces now:")
        for p in problems:
            print("  " + p)
        print("Regenerate with: python scripts/kafka_fixtures.py fixtures")
        return 1
    n = sum(1 for p in committed.rglob("*") if p.is_file())
    print(f"ok: all {n} files under {committed.relative_to(REPO)} match a fresh run byte for byte")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("fixtures", help="write tests/fixtures (segments and partitions)")
    p.add_argument("--out", default=str(REPO / "tests" / "fixtures"))
    p = sub.add_parser("samples", help="write small sample segments for the Kaitai Web IDE")
    p.add_argument("--out", default=str(REPO / "samples"))
    p = sub.add_parser("corpus", help="write a large partition directory for benchmarks")
    p.add_argument("--out", required=True)
    p.add_argument("--records", type=int, required=True)
    p.add_argument("--codec", default="none", choices=["none", "gzip", "snappy", "lz4", "zstd"])
    p.add_argument("--batch-size", type=int, default=None, help="records per batch (default 100)")
    p.add_argument("--batch-bytes", type=int, default=None,
                   help="fill batches as Kafka's producer fills one of batch.size B (instead of --batch-size)")
    p.add_argument("--value-bytes", default=None, help="value length MIN[:MAX] (default 100)")
    p.add_argument("--headers", default=None, help="headers per record MIN[:MAX] (default 1)")
    p.add_argument("--segment-bytes", type=int, default=None, help="segment.bytes (default 1 GiB)")
    p.add_argument("--topic", default=None, help="topic name (default 'corpus')")
    p.add_argument("--producers", type=int, default=None,
                   help="idempotent producers whose batches interleave (default 1)")
    p.add_argument("--transactional", type=int, default=None, metavar="T",
                   help="transactional producers, each ending a transaction after T of its batches (COMMIT, every "
                        "third ABORT)")
    p = sub.add_parser("read", help="print Kafka's reading of a .log file (JSON lines)")
    p.add_argument("file")
    p = sub.add_parser("hostile", help="write tests/fixtures/hostile (tiny files that decode to millions of records)")
    p.add_argument("--out", default=str(REPO / "tests" / "fixtures" / "hostile"))
    sub.add_parser("check", help="regenerate the fixtures in a temp dir and compare with tests/fixtures")
    args = ap.parse_args(argv)

    try:
        if args.mode == "check":
            return cmd_check(args)
        if args.mode == "read":
            res = run_java(["read", os.path.abspath(args.file)])
            sys.stdout.buffer.write(res.stdout)
            return 0
        if args.mode in ("fixtures", "samples", "hostile"):
            run_java([args.mode, os.path.abspath(args.out)], capture=False)
            print(f"wrote {args.out}")
            return 0
        if args.mode == "corpus":
            jargs = ["corpus", os.path.abspath(args.out), "--records", args.records, "--codec", args.codec]
            if args.batch_size is not None:
                jargs += ["--batch-size", args.batch_size]
            for option in ("batch_bytes", "value_bytes", "headers", "segment_bytes", "producers", "transactional"):
                if getattr(args, option) is not None:
                    jargs += ["--" + option.replace("_", "-"), getattr(args, option)]
            if args.topic is not None:
                jargs += ["--topic", args.topic]
            run_java(jargs, capture=False)
            return 0
    except SetupError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
