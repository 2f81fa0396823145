"""The `kafkalog` command line."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, TextIO

from kafkalog import dump_format
from kafkalog.errors import KafkalogError
from kafkalog.segment import SegmentReader

EXIT_OK, EXIT_DAMAGED, EXIT_USAGE = 0, 1, 2


def dump_segment(path: Path, fmt: str, out: TextIO) -> bool:
    """Print one segment file; True when it was whole and every checksum held."""
    if fmt == "json":
        emit: Callable = lambda obj: out.write(dump_format.dumps(obj) + "\n")
        batch_line, record_line, error_line = dump_format.batch_json, dump_format.record_json, dump_format.error_json
    else:
        emit = lambda text: out.write(text + "\n")
        batch_line, record_line, error_line = dump_format.batch_text, dump_format.record_text, dump_format.error_text
        out.write(f"Dumping {path}\n")
    with SegmentReader(path) as reader:
        printed = 0
        for batch in reader:
            # Damage found before this batch (an entry that could not be decoded) comes first.
            for damage in reader.damage[printed:len(reader.damage) - len(batch.damage)]:
                emit(error_line(damage))
            emit(batch_line(batch))
            for record in batch.records:
                emit(record_line(record))
            for damage in batch.damage:
                emit(error_line(damage))
            printed = len(reader.damage)
        for damage in reader.damage[printed:]:
            emit(error_line(damage))
        return not reader.damage


def _dump(args: argparse.Namespace) -> int:
    ok = True
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            print(f"kafkalog dump: {name}: no such file", file=sys.stderr)
            return EXIT_USAGE
    for name in args.files:
        ok = dump_segment(Path(name), args.format, sys.stdout) and ok
    return EXIT_OK if ok else EXIT_DAMAGED


def _ingest(args: argparse.Namespace) -> int:
    # Imported here so that the other commands do not start Spark.
    from kafkalog.spark.ingest import run_ingest

    return run_ingest(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafkalog", description="Read Apache Kafka's on-disk log files.")
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser("dump", help="print the batches and records of segment files",
                               description="Print segment files in file order, in the spirit of kafka-dump-log.sh. "
                                           "Exit status: 0 when every file is whole and every checksum holds, "
                                           "1 when anything was damaged, 2 for a usage error.")
    dump.add_argument("files", nargs="+", metavar="FILE")
    dump.add_argument("--format", choices=("text", "json"), default="text",
                      help="text (default) or json: one JSON object per line")
    dump.set_defaults(run=_dump)

    ingest = commands.add_parser("ingest", help="read segments with Spark and write Parquet",
                                 description="Read segment files, partition directories or log directories "
                                             "with kafkalog's Spark data source and write Parquet.")
    ingest.add_argument("path", metavar="PATH", help="segment file, partition directory, log directory or glob")
    ingest.add_argument("--output", required=True, metavar="DIR", help="Parquet output directory")
    ingest.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    ingest.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a reader option, repeatable (e.g. isolation.level=read_committed)")
    ingest.set_defaults(run=_ingest)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KafkalogError as exc:
        print(f"kafkalog: {exc}", file=sys.stderr)
        return EXIT_DAMAGED
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
