#!/usr/bin/env python3
"""The cost of a registry value's decoding against the size of the schema store (run by hand, not a test).

    python benchmarks/schema_store.py [--versions 50000] [--values 2000]

Issue 30 measured 7.6 ms per value by GUID with 50,000 schema versions. A store is built from `_schemas`
records (as a registry writes them) in three shapes, each at 10 versions and at --versions:

- `subjects`: every version its own subject and its own schema id;
- `shared id`: one schema (one id, one MD5) registered under every subject, as a registry gives a schema
  text already known its existing id;
- `one subject`: every version a version of one subject.

Then --values Avro values, framed by id (magic 0) and by GUID (magic 1, the schema's MD5), are decoded by
`ValueDecoder` (its schema compiled before the clock starts) and the time per value is printed, the small
store and the large side by side in one run.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # (benchmarks/ is not a package)

SCHEMA = '{"type":"record","name":"R","fields":[{"name":"n","type":"long"}]}'


def records(shape: str, n: int) -> list[tuple[int, bytes, bytes]]:
    out = []
    for i in range(n):
        subject, version, sid = {"subjects": (f"s{i}-value", 1, i + 1), "shared id": (f"s{i}-value", 1, 1),
                                 "one subject": ("t-value", i + 1, i + 1)}[shape]
        # a registry gives each id its own text; the shared id keeps one
        text = SCHEMA if shape == "shared id" else SCHEMA.replace('"R"', f'"R{sid}"')
        md5 = base64.b64encode(hashlib.md5(text.encode()).digest()).decode()
        key = json.dumps({"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1}).encode()
        value = json.dumps({"subject": subject, "version": version, "id": sid, "schema": text, "md5": md5}).encode()
        out.append((i, key, value))
    return out


def per_value(shape: str, n: int, values: int) -> tuple[float, float, float]:
    """(seconds to build the store, seconds per value by id, seconds per value by GUID)."""
    from kafkalog.registry.store import SchemaStore
    from kafkalog.registry.values import ValueDecoder

    built = time.perf_counter()
    store = SchemaStore.from_records(records(shape, n))
    built = time.perf_counter() - built
    decoder = ValueDecoder(store)
    sid = n // 2 + 1 if shape != "shared id" else 1
    schema = store.by_id(sid)
    assert schema is not None and schema.md5 is not None
    body = b"\x0e"  # n = 7
    by_id = b"\x00" + sid.to_bytes(4, "big") + body
    by_guid = b"\x01" + schema.md5 + body
    out = []
    for framed in (by_id, by_guid):
        got = decoder.decode(framed, None, topic="s0")  # compiles the schema
        assert got.error is None and got.decoded == {"n": 7}, got
        start = time.perf_counter()
        for _ in range(values):
            decoder.decode(framed, None, topic="s0")
        out.append((time.perf_counter() - start) / values)
    return built, out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--versions", type=int, default=50_000)
    ap.add_argument("--values", type=int, default=2000)
    args = ap.parse_args(argv)
    rows = []
    for shape in ("subjects", "shared id", "one subject"):
        for n in (10, args.versions):
            built, by_id, by_guid = per_value(shape, n, args.values)
            rows.append([shape, f"{n:,}", f"{built:.2f}", f"{by_id * 1e6:.1f}", f"{by_guid * 1e6:.1f}"])
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    print(measure.table(["store", "versions", "store built in s", "us per value by id", "us per value by GUID"],
                        rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
