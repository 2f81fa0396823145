#!/usr/bin/env python3
"""Memory and time of reading the hostile inputs of issues 8 and 9 (run by hand, not a test).

    python benchmarks/hostile_inputs.py [--timeout 60] [--memory-limit-mib 2048] [--only NAME] [--registry]

For each file of `tests/fixtures/hostile/` (written by Kafka's encoder, see its index.json), and
for each API, in a fresh process of its own:

- `read_segment`: `kafkalog.dataset.decode.read_segment(path)`, its record batches counted as they come;
- `objects`: `kafkalog.SegmentReader(path)`, every record of every batch iterated;
- `dump`: `kafkalog dump --format json`, its record lines counted;

and hostile registry values (`--registry`; issue 30), each decoded to JSON text by
`kafkalog.registry.values.ValueDecoder` as `dump --decode-values` and `read_arrow(valueFormat="registry")`
decode them, its bytes written by fastavro's own writer;

it prints the records returned against Kafka's count, the damage reported, wall and CPU time and
peak RSS above the worker's baseline (after imports and a warm-up read of a sample). Each worker
runs under a hard limit: killed past --timeout seconds or --memory-limit-mib of resident memory
(and RLIMIT_AS at --address-space-mib), reported as "over limit" rather than taking the machine
down. The targets of issue 9: at most 256 MiB above the baseline and 5 s on one core.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # noqa: E402  (benchmarks/ is not a package)

APIS = ("read_segment", "objects", "dump")
# Extra runs with a smaller cap than the default 256 MiB (file name, options).
CAPPED = [("v2-gzip-1m-records", {"max_decompressed_bytes": 1 << 20})]


def read_with_segment(path: str, options: dict) -> dict:
    """`read_segment`'s record batches, counted as they come (40 million rows would not fit as one table)."""
    from kafkalog.dataset.decode import read_segment

    records, damage = 0, []
    for batch in read_segment(path, **options):
        column = batch.column("damage")
        found = [d for d in column.to_pylist() if d is not None] if column.null_count < len(column) else []
        records += batch.num_rows - len(found)
        damage += found
    return {"records": records, "damage": damage}


def read_with_objects(path: str, options: dict) -> dict:
    import kafkalog

    records = 0
    with kafkalog.SegmentReader(path, **options) as reader:
        for batch in reader:
            for _ in batch.records:
                records += 1
        damage = [str(d).replace(path, Path(path).name) for d in reader.damage]
    return {"records": records, "damage": damage}


class _RecordLines(io.RawIOBase):
    """Where `dump --format json` writes: its record lines counted, nothing kept."""

    MARK, ERROR = b'{"type":"record"', b'{"type":"error"'

    def __init__(self):
        self.records = self.errors = 0
        self.tail = b""  # the end of the last write, where a line's start may be cut

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        text = self.tail + bytes(data)
        # (a line's start counts in the write where it ends: the tail is too short to hold a whole one)
        self.records += text.count(self.MARK) - self.tail.count(self.MARK)
        self.errors += text.count(self.ERROR) - self.tail.count(self.ERROR)
        self.tail = text[-(len(self.MARK) - 1):]
        return len(data)


def read_with_dump(path: str, options: dict) -> dict:
    """`kafkalog dump --format json`, in this process, its lines counted."""
    import contextlib

    from kafkalog import cli
    from kafkalog.compression import decompression_limit

    sink = _RecordLines()
    out, err = io.TextIOWrapper(io.BufferedWriter(sink), encoding="utf-8"), io.StringIO()
    limit = decompression_limit(options["max_decompressed_bytes"]) if options else contextlib.nullcontext()
    with limit, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cli.main(["dump", "--format", "json", path])
        out.flush()
    damage = [f"{sink.errors} error line(s)"] if sink.errors else []
    return {"records": sink.records, "damage": damage + [line for line in err.getvalue().splitlines() if line]}


def hostile_worker(spec: dict) -> dict:
    read = {"read_segment": read_with_segment, "objects": read_with_objects, "dump": read_with_dump}[spec["api"]]
    if spec["api"] == "dump":
        from kafkalog import cli

        # warm-up through the kernels (a small file is read without them): the baseline has them loaded
        saved, cli.FAST_PATH_MIN_BYTES = cli.FAST_PATH_MIN_BYTES, 0
        read(str(ROOT / "samples" / "v2-zstd.log"), {})
        cli.FAST_PATH_MIN_BYTES = saved
    read(str(ROOT / "samples" / "v2-zstd.log"), {})  # warm-up: imports, JIT, caches
    return measure.measure(lambda: read(spec["path"], spec["options"]))


#: Registry values (name, what the worker builds): a 1 MB Avro array of one-boolean records, the most Python
#: objects a byte of Avro makes; a recursive value nested 10,000 deep; 5,000 nested JSON arrays.
REGISTRY_VALUES = ("avro-array-of-booleans-1mb", "avro-recursive-10000-deep", "json-5000-deep")


def registry_value(name: str) -> tuple[list, bytes]:
    """(the `_schemas` records of the schema, the framed value) for one of REGISTRY_VALUES."""
    import fastavro

    if name.startswith("avro-array"):
        kind, schema = "AVRO", {"type": "array", "items": {"type": "record", "name": "R",
                                                           "fields": [{"name": "b", "type": "boolean"}]}}
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, fastavro.parse_schema(schema), [{"b": True}] * 1_000_000)
        body = buf.getvalue()
    elif name.startswith("avro-recursive"):
        kind, schema = "AVRO", {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
        body = b"\x02" * 10_000 + b"\x00"
    else:
        kind, schema, body = "JSON", {"type": "array"}, b"[" * 5000 + b"]" * 5000
    key = json.dumps({"keytype": "SCHEMA", "subject": "t-value", "version": 1, "magic": 1}).encode()
    value = json.dumps({"subject": "t-value", "version": 1, "id": 1, "schemaType": kind,
                        "schema": json.dumps(schema)}).encode()
    return [(0, key, value)], b"\x00" + (1).to_bytes(4, "big") + body


def registry_worker(spec: dict) -> dict:
    from kafkalog.registry.store import SchemaStore
    from kafkalog.registry.values import ValueDecoder

    records, framed = registry_value(spec["name"])
    decoder = ValueDecoder(SchemaStore.from_records(records), validate_json=True)
    warm_records, warm = registry_value("json-5000-deep")
    ValueDecoder(SchemaStore.from_records(warm_records)).decode(warm, None, topic="t")  # warm-up: imports

    def run() -> dict:
        got = decoder.decode(framed, None, topic="t")
        text = got.decoded_json()
        return {"records": 1 if text is not None else 0, "damage": [got.error] if got.error else [],
                "bytes": len(framed)}
    return measure.measure(run)


def cases(only: str | None) -> list[tuple[dict, dict]]:
    index = json.loads((HOSTILE / "index.json").read_text())
    out = [(entry, {}) for entry in index]
    by_name = {entry["name"]: entry for entry in index}
    out += [(by_name[name], options) for name, options in CAPPED if name in by_name]
    return [(e, o) for e, o in out if not only or only in e["name"]]


def main(argv: list[str] | None = None) -> int:
    status = measure.worker_main(argv, {"hostile": hostile_worker, "registry": registry_worker})
    if status is not None:
        return status
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per worker (default 60)")
    ap.add_argument("--memory-limit-mib", type=int, default=2048, help="resident memory per worker (default 2048)")
    ap.add_argument("--address-space-mib", type=int, default=8192, help="RLIMIT_AS per worker (default 8192)")
    ap.add_argument("--apis", default=",".join(APIS))
    ap.add_argument("--only", help="only the inputs whose name contains this")
    ap.add_argument("--registry", action="store_true", help="the hostile registry values instead of the segments")
    args = ap.parse_args(argv)
    if args.registry:
        return registry_main(args)

    script = str(Path(__file__).resolve())
    rows = []
    print(f"# Hostile inputs: each read in its own process, limits {args.timeout:.0f} s and "
          f"{args.memory_limit_mib} MiB resident\n")
    for entry, options in cases(args.only):
        name = entry["name"] + "".join(f", {k}={v}" for k, v in options.items())
        for api in args.apis.split(","):
            spec = {"kind": "hostile", "api": api, "path": str(HOSTILE / entry["file"]), "options": options}
            o = measure.run_worker(script, spec, timeout=args.timeout, memory_limit=args.memory_limit_mib * measure.MIB,
                                   address_space=args.address_space_mib * measure.MIB, cwd=str(ROOT))
            row = [name, f"{entry['size']:,}", f"{entry['kafka']['records']:,}", api]
            if o.status == "ok":
                r = o.result
                damage = r["damage"][0][:90] + (f" (+{len(r['damage']) - 1})" if len(r["damage"]) > 1 else "") \
                    if r["damage"] else ""
                row += ["ok", f"{r['records']:,}", damage, f"{r['wall']:.2f}", f"{r['cpu']:.2f}",
                        measure.mib(r["peak_rss"] - r["baseline_rss"]), measure.mib(r["baseline_rss"])]
            else:
                row += [f"over limit: {o.status} {o.detail}", "", "", "", "",
                        f"RSS reached {measure.mib(o.max_rss_seen)}", ""]
            print(f"  {name} {api}: {row[4:]}", file=sys.stderr, flush=True)
            rows.append(row)
    print(measure.table(["input", "bytes", "Kafka's records", "API", "status", "records", "damage",
                         "wall s", "CPU s", "MiB above baseline", "baseline MiB"], rows))
    return 0


def registry_main(args: argparse.Namespace) -> int:
    script = str(Path(__file__).resolve())
    rows = []
    for name in REGISTRY_VALUES:
        if args.only and args.only not in name:
            continue
        o = measure.run_worker(script, {"kind": "registry", "name": name}, timeout=args.timeout,
                               memory_limit=args.memory_limit_mib * measure.MIB,
                               address_space=args.address_space_mib * measure.MIB, cwd=str(ROOT))
        if o.status == "ok":
            r = o.result
            rows.append([name, f"{r['bytes']:,}", "decoded" if r["records"] else (r["damage"][0][:90]),
                         f"{r['wall']:.2f}", f"{r['cpu']:.2f}", measure.mib(r["peak_rss"] - r["baseline_rss"]),
                         measure.mib(r["baseline_rss"])])
        else:
            rows.append([name, "", f"over limit: {o.status} {o.detail}", "", "", f"RSS reached "
                         f"{measure.mib(o.max_rss_seen)}", ""])
        print(f"  {name}: {rows[-1][2:]}", file=sys.stderr, flush=True)
    print(measure.table(["value", "framed bytes", "result", "wall s", "CPU s", "MiB above baseline", "baseline MiB"],
                        rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
