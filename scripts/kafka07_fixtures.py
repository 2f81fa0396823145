#!/usr/bin/env python3
"""Write the Kafka 0.7 fixtures (tests/fixtures/kafka07) with 0.7-era clients' own encoders.

No Kafka 0.7 jar is on Maven Central, so the message sets come from two clients written for 0.7,
each fetched from its registry at a pinned version into a temporary directory:

- franz-kafka 0.7.5 (npm), through its `client/message.js` and `client/produce-request.js`
  (scripts/kafka07/message_sets.js): magic 1 messages, gzip and snappy wrappers, and a wrapper of a
  wrapper. Its snappy dependency (node-snappy, native) writes raw snappy blocks; snappyjs 0.7.0 writes
  the same format and is handed to it instead.
- brod 0.4.3 (PyPI), `BaseKafka._produce_request`: magic 0 messages (Kafka 0.6's format, which 0.7
  still reads). brod is Python 2 code: it runs here with a `cStringIO` shim and Python 2's signed
  `binascii.crc32`.

The broker's part follows 0.7's `kafka.log.Log`: each produce request's message set is appended
as it came; a segment rolls when it already holds more than `MAX_SEGMENT_BYTES` bytes, and the new
file is named by the byte offset of its first byte (`Log.nameFromOffset`: 20 digits, `.kafka`).

    python scripts/kafka07_fixtures.py            # rewrite tests/fixtures/kafka07
    python scripts/kafka07_fixtures.py --check    # regenerate in a temp dir, compare byte for byte

Needs node and npm, and pip (for `pip download`). The output is deterministic (node's gzip header has
mtime 0).
"""
from __future__ import annotations

import argparse
import base64
import filecmp
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "kafka07"
OUT = REPO / "tests" / "fixtures" / "kafka07"
BROD = "brod==0.4.3"
#: Small, so that the fixture partition has several segments (0.7's log.file.size, 1 GiB by default).
MAX_SEGMENT_BYTES = 200
NONE, GZIP, SNAPPY = 0, 1, 2


def _payloads(*texts: str) -> list[str]:
    return [base64.b64encode(t.encode()).decode() for t in texts]


#: (partition, produce request): franz-kafka's requests (codec, payloads or a nested request), or
#: ("brod", payloads) for brod's magic 0 messages.
REQUESTS: list[tuple[str, dict]] = [
    ("events-0", {"codec": NONE, "payloads": _payloads("hello 0.7", "second message")}),
    ("events-0", {"codec": GZIP, "payloads": _payloads("gzip one", "gzip two", "gzip three")}),
    ("events-0", {"brod": _payloads("magic zero from brod", "another magic zero")}),
    ("events-0", {"codec": SNAPPY, "payloads": _payloads("snappy one", "snappy two")}),
    ("events-0", {"codec": GZIP, "nested": {"codec": SNAPPY, "payloads": _payloads("nested a", "nested b")}}),
    ("events-0", {"codec": NONE, "payloads": _payloads("caf\u00e9 \u2615", "")}),
    ("events-0", {"codec": SNAPPY, "payloads": _payloads("last wrapper")}),
    ("events-1", {"codec": GZIP, "payloads": _payloads(*(f"record {i} of partition one" for i in range(12)))}),
    ("events-1", {"codec": NONE, "payloads": _payloads("plain after the wrapper")}),
]


def franz_message_sets(requests: list[dict], work: Path) -> list[bytes]:
    modules = work / "npm"
    modules.mkdir()
    shutil.copy(HERE / "package.json", modules / "package.json")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--omit=optional", "--ignore-scripts",
                    "--prefix", str(modules)], check=True, stdout=subprocess.DEVNULL)
    done = subprocess.run(["node", str(HERE / "message_sets.js"), str(modules / "node_modules")],
                          input=json.dumps(requests), capture_output=True, text=True, check=True)
    return [base64.b64decode(s) for s in json.loads(done.stdout)]


def brod_module(work: Path) -> types.ModuleType:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "--no-build-isolation", BROD, "-d", str(work)], check=True)
    sdist = next(work.glob("brod-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("brod/base.py"))
        source = tar.extractfile(member).read()
    shim = types.ModuleType("cStringIO")
    shim.StringIO = io.BytesIO  # type: ignore[attr-defined]
    sys.modules["cStringIO"] = shim
    spec = importlib.util.spec_from_loader("brod_base", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, "brod/base.py", "exec"), module.__dict__)
    # Python 2's binascii.crc32 was signed, which brod packs with '>i'.
    module.BaseKafka.compute_checksum = staticmethod(lambda v: (sum_ := __import__("binascii").crc32(v))
                                                     - (1 << 32 if sum_ >= 1 << 31 else 0))
    return module


def brod_message_set(brod: types.ModuleType, payloads: list[str]) -> bytes:
    topic = b"events"
    request = brod.BaseKafka._produce_request(brod.BaseKafka.__new__(brod.BaseKafka), topic,
                                              [base64.b64decode(p) for p in payloads], 0)
    # brod's request: int32 size, int16 type, int16 topic length, topic, int32 partition, int32 set size, set
    header = 4 + 2 + 2 + len(topic) + 4 + 4
    return request[header:]


def write(out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="kafka07-") as tmp:
        work = Path(tmp)
        franz = [r for _, r in REQUESTS if "brod" not in r]
        sets = iter(franz_message_sets(franz, work))
        brod = brod_module(work)
        message_sets = [(p, brod_message_set(brod, r["brod"]) if "brod" in r else next(sets)) for p, r in REQUESTS]
    if out.exists():
        shutil.rmtree(out)
    segments: dict[str, list[tuple[int, bytearray]]] = {}
    for partition, data in message_sets:
        log = segments.setdefault(partition, [(0, bytearray())])
        start, last = log[-1]
        if len(last) > MAX_SEGMENT_BYTES:  # Log.maybeRoll, before the append
            log.append((start + len(last), bytearray()))
        log[-1][1].extend(data)
    for partition, log in segments.items():
        directory = out / "logs" / partition
        directory.mkdir(parents=True)
        for start, data in log:
            (directory / f"{start:020d}.kafka").write_bytes(bytes(data))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate in a temp dir and compare")
    args = parser.parse_args(argv)
    if not args.check:
        write(OUT)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp))
        compared = filecmp.dircmp(tmp, OUT)
        different = _differences(compared)
    print("\n".join(different) or "tests/fixtures/kafka07 is up to date")
    return 1 if different else 0


def _differences(compared: filecmp.dircmp) -> list[str]:
    out = [f"{compared.left}/{n}: differs or is missing"
           for n in compared.diff_files + compared.left_only + compared.right_only]
    _, mismatch, errors = filecmp.cmpfiles(compared.left, compared.right, compared.common_files, shallow=False)
    out += [f"{compared.right}/{n}: differs" for n in mismatch + errors if n not in compared.diff_files]
    for sub in compared.subdirs.values():
        out += _differences(sub)
    return out


if __name__ == "__main__":
    sys.exit(main())
