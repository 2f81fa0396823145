"""The `kafkalog` command line."""
from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Callable, TextIO

from kafkalog import dump_files, dump_format, internal_topics, verify
from kafkalog.errors import KafkalogError
from kafkalog.segment import SegmentReader

EXIT_OK, EXIT_DAMAGED, EXIT_USAGE = 0, 1, 2


def dump_segment(path: Path, fmt: str, out: TextIO, decode: str | None = None) -> bool:
    """Print one segment file; True when it was whole and every checksum held.

    `decode`: a `--decode` value; by default internal topics are decoded by their directory name."""
    decoder = internal_topics.decoder_for_path(path, decode)
    undecodable = False
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
                line, problem = internal_topics.dump_hook(record_line(record), record, decoder, str(path), batch.position)
                emit(line)
                if problem is not None:
                    emit(error_line(problem))
                    undecodable = True
            for damage in batch.damage:
                emit(error_line(damage))
            printed = len(reader.damage)
        for damage in reader.damage[printed:]:
            emit(error_line(damage))
        return not reader.damage and not undecodable


def _dump(args: argparse.Namespace) -> int:
    ok = True
    for name in args.files:
        path = Path(name)
        if not path.exists():
            print(f"kafkalog dump: {name}: no such file", file=sys.stderr)
            return EXIT_USAGE
        if not dump_files.is_dumpable(path):
            print(f"kafkalog dump: {name}: not a .log, .index, .timeindex, .snapshot, .txnindex or "
                  "leader-epoch-checkpoint file, nor a partition directory", file=sys.stderr)
            return EXIT_USAGE
    dump_log = functools.partial(dump_segment, decode=args.decode)
    for name in args.files:
        path = Path(name)
        if path.is_dir():
            ok = dump_files.dump_partition(path, args.format, sys.stdout, dump_log) and ok
        else:
            ok = dump_files.dump_file(path, args.format, sys.stdout, dump_log) and ok
    return EXIT_OK if ok else EXIT_DAMAGED


def _verify(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        print(f"kafkalog verify: {args.path}: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    progress = None
    if sys.stderr.isatty():
        def progress(message: str) -> None:
            sys.stderr.write("\r\033[K" + message)
            sys.stderr.flush()
    report = verify.verify_path(path, progress)
    if progress is not None:
        sys.stderr.write("\r\033[K")
    for problem in report.problems:
        if args.format == "json":
            print(dump_format.dumps({"type": "problem", "file": problem.file, "entry": problem.entry,
                                     "position": problem.position, "kind": problem.kind, "detail": problem.detail}))
        else:
            print(problem)
    for note in report.notes:
        print(dump_format.dumps({"type": "note", "message": note}) if args.format == "json" else f"note: {note}")
    if args.format == "json":
        print(dump_format.dumps({"type": "summary", "ok": report.ok, "problems": len(report.problems),
                                 "partitions": report.partitions, "segments": report.segments,
                                 "files": report.files, "batches": report.batches, "records": report.records,
                                 "index_entries": report.index_entries}))
    else:
        print(report.summary())
    return EXIT_OK if report.ok else EXIT_DAMAGED


def _ingest(args: argparse.Namespace) -> int:
    # Imported here so that the other commands do not start Spark.
    from kafkalog.spark.ingest import run_ingest

    return run_ingest(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafkalog", description="Read Apache Kafka's on-disk log files.")
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser("dump", help="print segments, index files, snapshots and partition directories",
                               description="Print segment files in file order, in the spirit of kafka-dump-log.sh; "
                                           "also .index, .timeindex, .snapshot, .txnindex and "
                                           "leader-epoch-checkpoint files, and whole partition directories. "
                                           "Exit status: 0 when every file is whole and every checksum holds, "
                                           "1 when anything was damaged, 2 for a usage error.")
    dump.add_argument("files", nargs="+", metavar="FILE")
    dump.add_argument("--format", choices=("text", "json"), default="text",
                      help="text (default) or json: one JSON object per line")
    dump.add_argument("--decode", choices=internal_topics.DECODERS, default=None,
                      help="decode keys and values as the records of an internal topic (default: by the "
                           "partition directory's name, e.g. __consumer_offsets-7; control records always)")
    dump.set_defaults(run=_dump)

    check = commands.add_parser("verify", help="check segments, indexes and partition files",
                                description="Check a segment (.log with its index files), a partition directory "
                                            "or a whole log directory: batch structure and checksums, index "
                                            "entries against the log (as kafka-dump-log.sh --verify-index-only "
                                            "and --index-sanity-check), snapshots, transaction indexes and the "
                                            "leader epoch checkpoint. Prints each problem and a summary. "
                                            "Exit status: 0 when all is well, 1 on any problem, 2 for a usage error.")
    check.add_argument("path", metavar="PATH", help="segment file, partition directory or log directory")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="text (default) or json: one JSON object per line")
    check.set_defaults(run=_verify)

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
