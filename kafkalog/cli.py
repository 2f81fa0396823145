"""The `kafkalog` command line.

Exit status, for every command: 0 when all is well, 1 when data was damaged (after printing
everything that could be read), 2 for a usage error (an unknown option, a path that does not
exist or holds nothing kafkalog reads), 130 when interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# Before numpy is imported (below; `import kafkalog` does not import it): a command does no linear algebra, and
# numpy's OpenBLAS starts a thread per core at import that spins for work about 0.1 s before it sleeps: 0.06 s CPU
# of every command on 2 cores (docs/performance.md). A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from kafkalog.dataset import targets
from kafkalog.dump import kafka_versions
from kafkalog.dump.json_line import dumps
from kafkalog.errors import KafkalogError, OffsetGapError, UsageError
from kafkalog.formats import topic_decoders
from kafkalog.location import Location
from kafkalog.log import file_kinds
from kafkalog.model import Decoder
from kafkalog.progress import ByteProgress
from kafkalog.remote.aiven_keys import keyring
from kafkalog.threads import DEFAULT_THREADS
from kafkalog.uri_path import AnyPath, as_path, requests_once

if TYPE_CHECKING:
    from kafkalog.registry.values import ValueDecoder

# Start-up: a command on a small file must not pay for what it does not use. The dataset planner (pyarrow's
# compute and the kernels), dump's line writers, verify's checks, the schema-registry decoders and Spark are
# imported by the commands and options that need them. (A small input is also read without the kernels:
# FAST_PATH_MIN_BYTES.)

#: Record-batch bytes in a command from which `dump` and `verify` read through the compiled kernels; below it the
#: object path (the Kaitai parsers, 25,000-40,000 records a second) reads alone. Measured (`benchmarks/startup.py
#: --crossover`, docs/performance.md "Start-up: a small file"): whole commands cost the same CPU either way up to
#: about 10 KB (within 2-6%, the object path 1-6 MB less memory), the kernels 5-7% less at 40 KB, 13-15% less at
#: 200 KB and 40% less at 1 MB.
FAST_PATH_MIN_BYTES = 32 * 1024

EXIT_OK, EXIT_DAMAGED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _dump(args: argparse.Namespace) -> int:
    # (start-up: see the imports; the printers of other files than segments, where there are some)
    from kafkalog.dump import records as dump_format
    from kafkalog.dump.segment_lines import DumpOptions, dump_segment

    keyring(args.private_key)  # a key that does not load is a usage error before anything is printed
    planned = targets.dump_targets(args.files, args.type, args.remote_root, tuple(args.private_key))
    opts = DumpOptions(format=args.format, full=args.full, shallow=args.shallow, max_bytes=args.max_bytes,
                       decode=args.decode, kafka_version=args.kafka_version,
                       private_keys=tuple(args.private_key), values=_value_decoder(args), threads=args.threads)
    total = planned.record_bytes
    opts.decoder = Decoder.FAST if total >= FAST_PATH_MIN_BYTES else Decoder.AUTO
    if not sys.stdout.isatty():  # dumping to a file or a pipe: progress on the terminal, if there is one
        opts.progress = ByteProgress.for_stderr(total)
    out = sys.stdout
    fmt = args.format

    def dump_log(path: Location | AnyPath, kind: str) -> bool:
        if kind == file_kinds.KAFKA07:
            from kafkalog.dump import kafka_07_lines

            return kafka_07_lines.dump_kafka07(as_path(str(path)), fmt, out, full=opts.full, shallow=opts.shallow)
        return dump_segment(path, kind, opts, out)

    def gap(location: str) -> bool:
        """Offsets missing before this segment of a stitched history: data loss, said where it is."""
        message = planned.gaps.pop(location, None)
        if message is None:
            return True
        damage = OffsetGapError(message, path=location, position=0)
        if fmt == "json":
            out.write(dumps(dump_format.error_json(damage)) + "\n")
        elif fmt == "text":
            out.write(dump_format.error_text(damage) + "\n")
        else:  # kafka-dump-log.sh's lines only: the rest goes to stderr
            print(f"kafkalog dump: {damage}", file=sys.stderr)
        return False

    ok = True
    log_dirs: dict = {}  # (each log directory's checkpoints read once: served_lines.partition_dump_log)
    try:
        every = planned.all
        for n, target in enumerate(every):
            ok = gap(str(target.location)) and ok
            if n == len(planned.remote):  # the seam: offsets missing between the remote segments and the local log
                for location in list(planned.gaps):
                    ok = gap(location) and ok
            if target.partitions is None:
                if fmt == "json" and (planned.remote or len(every) > len(args.files)):
                    # several segments of a remote root or a directory URI: say whose lines follow
                    out.write(dumps({"type": "file", "path": str(target.location)}) + "\n")
                if target.kind in file_kinds.RECORD_FILES:
                    ok = dump_log(target.location, target.kind) and ok
                else:
                    from kafkalog.dump import files as dump_files

                    ok = dump_files.dump_file(target.path, target.kind, fmt, out, dump_log) and ok
                continue
            from kafkalog.dump import files as dump_files, served_lines

            for partition in target.partitions:
                if fmt == "json" and target.is_log_dir:
                    out.write(dumps({"type": "partition", "path": str(partition)}) + "\n")
                # Inside a broker's log directory: its log as the broker serves it (dump.served_lines).
                served = served_lines.partition_dump_log(partition, opts, out, args.include_below_log_start, dump_log,
                                                         log_dirs)
                ok = dump_files.dump_partition(partition, fmt, out, served) and ok
            bootstrap = target.bootstrap
            if bootstrap is not None:
                if fmt == "json":
                    out.write(dumps({"type": "file", "path": str(bootstrap)}) + "\n")
                ok = dump_log(bootstrap, file_kinds.BOOTSTRAP) and ok
            if target.is_log_dir:  # a log directory: its own files after its partitions
                ok = dump_files.dump_log_dir_files(target.path, fmt, out, dump_log) and ok
    finally:
        if opts.progress is not None:
            opts.progress.close()
    return EXIT_OK if ok else EXIT_DAMAGED


def _value_decoder(args: argparse.Namespace) -> ValueDecoder | None:
    """--decode-values: a decoder over the schemas of --schema-registry, else of the `_schemas-0` beside the FILEs."""
    if not args.decode_values:
        if args.schema_registry or args.validate_json_schema:
            raise UsageError("--schema-registry and --validate-json-schema go with --decode-values")
        return None
    if args.format == "kafka":
        raise UsageError("--decode-values adds to the lines of --format text and json, not kafka-dump-log.sh's")
    from kafkalog.dataset import registry_values  # (start-up: see the imports)
    from kafkalog.registry.values import ValueDecoder
    location = args.schema_registry
    for name in args.files if location is None else ():
        location = registry_values.find_schemas_partition(name if Location(name).is_uri else str(Path(name).absolute()))
        if location is not None:
            break
    if location is None:
        raise UsageError(f"--decode-values: no {registry_values.SCHEMAS_PARTITION} directory in the log directory of "
                         "the FILEs; name the schemas with --schema-registry")
    store = registry_values.load_store(location)
    for problem in store.problems:
        print(f"kafkalog: schema registry: {problem}", file=sys.stderr)
    return ValueDecoder(store, validate_json=args.validate_json_schema)


def _verify(args: argparse.Namespace) -> int:
    from kafkalog import verify  # (start-up: see the imports)

    keyring(args.private_key)
    planned = targets.verify_targets(args.paths[0], args.remote_root)
    # JBOD directories given together: each checked, then their meta.properties against each other
    more = [targets.verify_targets(name, None) for name in args.paths[1:]]
    total = planned.record_bytes + sum(t.record_bytes for t in more)
    progress = ByteProgress.for_stderr(total) if sys.stderr.isatty() else None
    # The kernels for a large input, or one whose index files are large (a preallocated 10 MiB .index is a
    # million slots, which only they read in time); the Kaitai parsers alone for the rest.
    large = args.remote_root is not None or planned.path.is_uri \
        or total + planned.index_bytes + sum(t.index_bytes for t in more) >= FAST_PATH_MIN_BYTES
    decoder = Decoder.FAST if large else Decoder.AUTO
    try:
        report = verify.verify_path(planned.path, progress, kind=args.type, private_keys=tuple(args.private_key),
                                    report=verify.VerifyReport(decoder=decoder, threads=args.threads))
        for target in planned.remote:
            verify.verify_path(target.location, progress, kind=target.kind, private_keys=tuple(args.private_key),
                               report=report)
        for other in more:
            verify.verify_path(other.path, progress, kind=args.type, private_keys=tuple(args.private_key),
                               report=report)
        # several brokers' disks: each replica against the log a cluster restarted on them serves; else JBOD
        if more and not verify.verify_cluster(list(args.paths), report):
            verify.verify_log_dirs([t.path.path for t in [planned, *more] if not t.path.is_uri], report)
    finally:
        if progress is not None:
            progress.close()
    json_out = args.format == "json"
    for problem in report.problems:
        if json_out:
            print(dumps({"type": "problem", "file": problem.file, "entry": problem.entry,
                                     "position": problem.position, "kind": problem.kind, "detail": problem.detail}))
        else:
            print(problem)
    for note in report.notes:
        print(dumps({"type": "note", "message": note}) if json_out else f"note: {note}")
    if json_out:
        print(dumps({"type": "summary", "ok": report.ok, "problems": len(report.problems),
                                 "partitions": report.partitions, "segments": report.segments,
                                 "files": report.files, "batches": report.batches, "records": report.records,
                                 "index_entries": report.index_entries}))
    else:
        print(report.summary())
    return EXIT_OK if report.ok else EXIT_DAMAGED


def _ingest(args: argparse.Namespace) -> int:
    # Imported here so that the other commands do not start Spark.
    from kafkalog.dataset.plan import list_segments
    from kafkalog.spark.ingest import run_ingest

    # Usage errors before Spark starts: a path with no segments is not an empty success.
    if not list_segments(args.path):
        raise UsageError(f"{args.path}: no segment files here")
    return run_ingest(args)


def _restore(args: argparse.Namespace) -> int:
    # Imported here so that the other commands do not load librdkafka.
    from pathlib import Path

    from kafkalog.restore.options import RestoreOptions, parse_pairs, producer_config, topic_map
    from kafkalog.restore.run import restore

    restore(RestoreOptions(sources=args.sources, bootstrap_server=args.bootstrap_server,
                           offset_map=Path(args.offset_map), config=producer_config(args.config_file, args.X),
                           topic_map=topic_map(args.topic_map), read_options=parse_pairs(args.option, "--option"),
                           original_headers=args.original_headers, groups=not args.no_groups,
                           threads=args.threads))
    return EXIT_OK


def _reconcile(args: argparse.Namespace) -> int:
    from kafkalog import reconcile  # (start-up: see the imports)

    found = reconcile.reconcile(args.dirs)
    if args.format == "json":
        reconcile.print_json(found, sys.stdout)
    else:
        reconcile.print_text(found, sys.stdout)
    return EXIT_DAMAGED if found.problems else EXIT_OK


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a number of bytes (0 or more), got {n}")
    return n


def _version() -> str:
    from importlib import metadata  # (start-up: reading the installed metadata, only for --version)

    try:
        return metadata.version("kafkalog")
    except metadata.PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """`--version`: argparse's own, with the version looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"kafkalog {_version()}")  # (on standard output, as argparse prints a version)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafkalog", description="Read Apache Kafka's on-disk log files.")
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser(
        "dump", help="print segments, index files, snapshots and partition or log directories",
        description="Print segment files in file order, as kafka-dump-log.sh does; also .index, .timeindex, "
                    ".snapshot, .txnindex, leader-epoch-checkpoint files, KRaft snapshots "
                    "(<offset>-<epoch>.checkpoint, bootstrap.checkpoint), partition directories and log "
                    "directories (every partition). Exit status: 0 when every file is whole and every "
                    "checksum holds, 1 when anything was damaged, 2 for a usage error.")
    dump.add_argument("files", nargs="*", metavar="FILE")
    dump.add_argument("--remote-root", metavar="DIR",
                      help="also dump every remote segment under this tiered-storage root (Kafka's LocalTieredStorage "
                           "dir, Aiven's bucket folder), by topic, partition and start offset, before the FILEs")
    dump.add_argument("--format", choices=("text", "json", "kafka"), default="text",
                      help="text (default); json: one JSON object per line; kafka: the lines of Kafka's "
                           "kafka-dump-log.sh --deep-iteration --print-data-log (see --kafka-version)")
    dump.add_argument("--kafka-version", choices=kafka_versions.KAFKA_VERSIONS,
                      default=kafka_versions.DEFAULT_KAFKA_VERSION,
                      help="with --format kafka: print the lines of this Kafka version's kafka-dump-log.sh "
                           f"(4: Kafka 4.0 to 4.3; default {kafka_versions.DEFAULT_KAFKA_VERSION})")
    dump.add_argument("--type", choices=file_kinds.KINDS, metavar="KIND",
                      help="read every FILE as this kind whatever its name: " + ", ".join(file_kinds.KINDS))
    dump.add_argument("--full", "--print-data-log", dest="full", action="store_true",
                      help="text: whole keys, values and header values (cut at 40 and 20 bytes by default)")
    dump.add_argument("--shallow", action="store_true",
                      help="batches only, without their records (kafka-dump-log.sh without --deep-iteration)")
    dump.add_argument("--decode", choices=topic_decoders.DECODERS, default=None,
                      help="decode keys and values as the records of an internal topic (default: by the "
                           "partition directory's name, e.g. __consumer_offsets-7; control records always)")
    dump.add_argument("--decode-values", action="store_true",
                      help="decode keys and values framed for a schema registry (Avro, Protobuf, JSON Schema) with "
                           "the schemas of the _schemas-0 partition in the FILEs' log directory "
                           "(or --schema-registry): "
                           "key_decoded, key_schema, value_decoded, value_schema")
    dump.add_argument("--schema-registry", metavar="PATH",
                      help="with --decode-values: the schemas' source: a _schemas partition directory, a log directory "
                           "holding one, a registry's GET /schemas?deleted=true answer saved as JSON, a Karapace v1 "
                           "backup, or a directory of <id>.avsc/.proto/.json files")
    dump.add_argument("--validate-json-schema", action="store_true",
                      help="with --decode-values: check JSON Schema values against their schema")
    dump.add_argument("--include-below-log-start", action="store_true",
                      help="in a broker's log directory, also print the records below each partition's log start "
                           "offset (deleteRecords, retention: on disk, never served); by default a partition prints "
                           "from its log start offset to where Kafka's recovery ends its log (not with --format kafka)")
    dump.add_argument("--max-bytes", type=_positive, metavar="N",
                      help="read only the batches within the first N bytes of each segment or snapshot (KIP-824)")
    dump.add_argument("--private-key", action="append", default=[], metavar="[ID=]PEM",
                      help="an RSA private key (PEM file) of the key pair an Aiven remote segment (.rsm-manifest) "
                           "was encrypted with, optionally for key pair ID only; repeatable")
    dump.add_argument("--threads", type=_positive, default=DEFAULT_THREADS, metavar="N",
                      help="threads that print byte ranges of a large segment at once, cut at its offset index's "
                           f"entries (default: the cores, at most 8: {DEFAULT_THREADS} here); the same lines")
    dump.set_defaults(run=_dump)

    check = commands.add_parser(
        "verify", help="check segments, indexes and partition files",
        description="Check a segment (.log with its index files), any other partition file, a KRaft snapshot, "
                    "a partition directory or a whole log directory: batch structure and checksums, index "
                    "entries against the log (as kafka-dump-log.sh --verify-index-only and "
                    "--index-sanity-check), snapshots, transaction indexes, the leader epoch checkpoint, and a "
                    "log directory's own files against its partitions (high watermarks, log start offsets, topic "
                    "ids, cluster ids). "
                    "Prints each problem and a summary. Exit status: 0 when all is well, 1 on any problem, "
                    "2 for a usage error (including a file whose kind its name does not say, without --type).")
    check.add_argument("paths", metavar="PATH", nargs="+",
                       help="a file, partition directory or log directory; behind a URI (s3://...), a segment or an "
                            "Aiven .rsm-manifest. Several log directories of one broker (JBOD) are also checked "
                            "against each other")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="text (default) or json: one JSON object per line")
    check.add_argument("--type", choices=file_kinds.KINDS, metavar="KIND",
                       help="check PATH as this kind whatever its name: " + ", ".join(file_kinds.KINDS))
    check.add_argument("--remote-root", metavar="DIR",
                       help="also check every remote segment under this tiered-storage root, a directory or a URI "
                            "(as dump's)")
    check.add_argument("--private-key", action="append", default=[], metavar="[ID=]PEM",
                       help="as dump's: the private key of an encrypted Aiven remote segment; repeatable")
    check.add_argument("--threads", type=_positive, default=DEFAULT_THREADS, metavar="N",
                       help="threads that check byte ranges of a large segment at once, cut at its offset index's "
                            f"entries (default: the cores, at most 8: {DEFAULT_THREADS} here); the same report")
    check.set_defaults(run=_verify)

    rec = commands.add_parser(
        "reconcile", help="what a cluster restarted on these brokers' disks would serve, and throw away",
        description="Read several brokers' log directories as one cluster restarted on exactly those disks: per "
                    "partition, the replica it would be served from (the leader the last metadata on the disks "
                    "elects), the log served, and for each replica the records the restart discards (a tail "
                    "its leader-epoch lineage does not share with the leader's). Also names partitions with no "
                    "replica or fewer than their replication factor, offline and unclean elections, open "
                    "transactions, consumer groups whose committed offsets fall outside the served log, and "
                    "disks of another cluster. Exit status: 0, 1 when a file did not read or a disk was left "
                    "out, 2 for a usage error.")
    rec.add_argument("dirs", nargs="+", metavar="DIR", help="a broker's log directory (holding meta.properties), "
                                                             "a URI of one (s3://...), or a glob of them")
    rec.add_argument("--format", choices=("text", "json"), default="text",
                     help="text (default) or json: one object a line, {\"type\": \"quorum\", ...} for a dynamic "
                          "quorum, {\"type\": \"partition\", ...} for each partition, then "
                          "{\"type\": \"problem\", ...}")
    rec.set_defaults(run=_reconcile)

    ingest = commands.add_parser("ingest", help="read segments with Spark and write Parquet",
                                 description="Read segment files, partition directories or log directories "
                                             "with kafkalog's Spark data source and write Parquet. Exit status: "
                                             "0, 1 when there was damage, 2 for a usage error.")
    ingest.add_argument("path", metavar="PATH", help="segment file, partition directory, log directory or glob")
    ingest.add_argument("--output", required=True, metavar="DIR", help="Parquet output directory")
    ingest.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    ingest.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a reader option, repeatable (e.g. isolation.level=read_committed)")
    ingest.set_defaults(run=_ingest)

    rst = commands.add_parser(
        "restore", help="produce the committed records back into a live cluster, with their consumer groups",
        description="Read SOURCEs (log directories, partition directories, URIs, or Parquet from `kafkalog ingest`) "
                    "as a read_committed consumer would, create the missing topics (partitions and configs from "
                    "the metadata log when there is one), produce every record to the same partition in offset "
                    "order with an idempotent librdkafka producer (_schemas first), write the offset map, and "
                    "commit each consumer group's offsets translated through it. Run again after an interruption: "
                    "nothing is produced twice. Exit status: 0, 1 when the target refused something (named with "
                    "its source record), 2 for a usage error.")
    rst.add_argument("sources", nargs="+", metavar="SOURCE")
    rst.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT", help="the target cluster")
    rst.add_argument("--offset-map", required=True, metavar="DIR",
                     help="the offset map (Parquet) and the state a second run resumes from")
    rst.add_argument("-X", action="append", default=[], metavar="KEY=VALUE",
                     help="a librdkafka property for the producer and admin client, repeatable "
                          "(e.g. -X security.protocol=SASL_SSL)")
    rst.add_argument("--config-file", "-F", action="append", default=[], metavar="FILE",
                     help="a properties file of librdkafka properties (key=value lines); -X wins")
    rst.add_argument("--topic-map", action="append", default=[], metavar="SRC=DST",
                     help="produce source topic SRC into target topic DST, repeatable")
    rst.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                     help="a reader option, repeatable (e.g. subscribe=orders, remoteRoot=DIR)")
    rst.add_argument("--original-headers", action="store_true",
                     help="add osodevops/kafka-backup's x-original-offset, x-original-timestamp and "
                          "x-source-partition headers to every record")
    rst.add_argument("--no-groups", action="store_true", help="do not commit the consumer groups' offsets")
    rst.add_argument("--threads", type=_positive, default=None, metavar="N",
                     help=f"threads that read the sources (default {DEFAULT_THREADS})")
    rst.set_defaults(run=_restore)
    return parser


def _escaping_streams() -> None:
    # A terminal or pipe that cannot show a character gets an escape for it, never a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _escaping_streams()
    try:
        args = build_parser().parse_args(argv)
        with requests_once():  # (a command asks an object store of each directory and file once)
            return args.run(args)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return EXIT_INTERRUPTED
    except UsageError as exc:
        print(f"kafkalog: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KafkalogError as exc:
        print(f"kafkalog: {exc}", file=sys.stderr)
        return EXIT_DAMAGED
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file that cannot be read (permissions, a device error)
        print(f"kafkalog: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_DAMAGED


if __name__ == "__main__":
    sys.exit(main())
