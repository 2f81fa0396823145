"""Kafka's files as one Arrow stream, with the Kafka source's options: `read_arrow` and `read_table`.

    import kafkalog
    reader = kafkalog.read_arrow("/var/lib/kafka/data", subscribe="orders", includeHeaders=True,
                                 startingOffsets='{"orders":{"0":150}}')
    duckdb.sql("SELECT partition, count(*) FROM reader GROUP BY ALL")

`read_arrow` takes what Spark's ``spark.read.format("kafkalog").load(path)`` takes (a segment, a
partition directory, a log directory, a glob or a URI, and the Kafka source's options,
`kafkalog.dataset.options`) and gives the same rows in the same columns, as a
`pyarrow.RecordBatchReader` (which carries the Arrow PyCapsule stream interface). It plans with
the planner Spark's driver uses (`kafkalog.dataset.plan`) and reads each byte range as a Spark task
does (`kafkalog.dataset.rows.read_range`), on `threads` threads: ranges are decoded ahead of the
consumer, at most a few Arrow batches each, and handed out in the order one thread gives.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from kafkalog.dataset import cluster, plan
from kafkalog.dataset.options import OPTIONS, ReadOptions, parse_options
from kafkalog.dataset.rows import read_range, read_range_shaped
from kafkalog.dataset.schema import output_arrow_schema
from kafkalog.errors import UsageError
from kafkalog.fast.columns import Repeated
from kafkalog.threads import DEFAULT_THREADS, in_order
from kafkalog.uri_path import requests_once

if TYPE_CHECKING:  # (the registry's decoders: imported by a read that decodes values)
    from kafkalog.dataset.registry_values import RegistryColumns

Paths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

#: Byte ranges a thread reads when there is more than one: small enough to share a large segment, and for the
#: columns of a range ahead of the consumer (about 2.5 times its bytes) to come from the engine's pool of freed memory
#: (64 MiB) rather than fresh pages: with 16 MiB, two threads took 20-35 blocks a read anew (2,000-2,800 page faults,
#: against 0.2 blocks and ~550 faults with 8 MiB), for about 1 ms more planning (a cut more every 8 MiB).
#: (The scanner's chunk size: a range, cut at the first batch at least this far on, is a chunk and a tail of a batch
#: or so, which the scanner reads with the chunk, in one read (`kafkalog.entries.chunk_buffer_bytes`): one read, walk,
#: run and Arrow piece a range, where its last batch apart was another of each, with the GIL held.)
THREAD_RANGE_BYTES = 8 * 1024 * 1024
#: Bytes of Arrow batches each range may decode ahead of the consumer: most of a range (a 16 MiB range of
#: LZ4 records is about 40 MiB of columns), so that the threads are not kept waiting for the consumer.
AHEAD_BYTES = 48 * 1024 * 1024


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", name).replace(".", "_").lower()


#: snake_case alias -> the Kafka source's option name (`include_headers` -> `includeHeaders`).
ALIASES = {_snake(name): name for name in OPTIONS}


def spark_options(options: Mapping[str, object]) -> dict[str, str]:
    """Keyword arguments as the Kafka source's string options: Spark's names or snake_case aliases;
    booleans, numbers, lists of topics and JSON-like dicts in their Python form."""
    out: dict[str, str] = {}
    for key, value in options.items():
        name = ALIASES.get(key, key)
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, Mapping):
            text = json.dumps(value)
        elif isinstance(value, (list, tuple, set, frozenset)) and name == "subscribe":
            text = ",".join(str(t) for t in value)
        else:
            text = str(value)
        out[name] = text
    return out


@dataclass(frozen=True)
class Read:
    """A planned read: its ranges, its options and the schema of what it gives."""

    ranges: list[plan.SegmentRange]
    options: ReadOptions
    schema: pa.Schema
    #: Registry-framed keys and values to decode (valueFormat, valueSubject, ...), with their schema store.
    registry: RegistryColumns | None = None


def plan_read(path: Paths, options: Mapping[str, object], *, threads: int = 1) -> Read:
    """Validate the options and plan the byte ranges of `path`, as Spark's driver does."""
    given = spark_options(options)
    read_options = parse_options(given)
    if threads > 1 and "maxPartitionBytes" not in given:
        # Large segments are cut at offset-index entries so that the threads can share them.
        read_options = dataclasses.replace(read_options, max_partition_bytes=THREAD_RANGE_BYTES)
    paths = _paths(path)
    try:
        # Several paths are planned as one read: a partition in two of them is stitched once (remoteRoot).
        ranges = plan.plan(paths, read_options)
    except OSError as e:
        raise UsageError(f"{', '.join(paths)}: cannot read: {e.strerror or e}") from None
    schema = output_arrow_schema(read_options.include_headers, read_options.kafkalog_columns,
                                 read_options.include_below_log_start)
    if read_options.read_replicas:
        schema = schema.append(cluster.BROKER_FIELD).append(cluster.RENAMED_FIELD)
    if read_options.decode:
        schema = schema.append(pa.field("key_decoded", pa.string())).append(pa.field("value_decoded", pa.string()))
    registry = None
    if read_options.registry:
        # (imported here: fastavro, protobuf and jsonschema, which a read that decodes no values never loads)
        from kafkalog.dataset.registry_values import RegistryColumns  # noqa: PLC0415

        registry = RegistryColumns.for_read(_paths(path)[0], read_options)
    if registry is not None:
        schema = registry.schema(schema)
    return Read(ranges, read_options, schema, registry)


def read_arrow(path: Paths, *, threads: int | None = None, **options: object) -> pa.RecordBatchReader:
    """The records under `path` with the Kafka source's options, as a `pyarrow.RecordBatchReader`.

    The rows and columns are those of ``spark.read.format("kafkalog").load(path)``, planned by the
    planner Spark's driver uses; they come out in the order one thread gives, whatever `threads` is.

    Parameters
    ----------
    path : str, os.PathLike or sequence of them
        A segment file (``.log``), a partition directory, a log directory, a glob or a URI
        (``s3://...``, any ``pyarrow.fs`` scheme), or a list of them.
    threads : int, optional
        Byte ranges decoded at once. The default is the cores this process may use, at most 8.
    **options
        The Kafka source's options (`kafkalog.dataset.options.OPTIONS`), named as in Spark
        (``includeHeaders=True``, ``**{"kafka.isolation.level": "read_committed"}``) or in snake_case
        (``include_headers=True``); values as Spark's strings or in their Python form (booleans,
        numbers, lists of topics, dicts of offsets).

    Returns
    -------
    pyarrow.RecordBatchReader
        The records, batch by batch; it carries the Arrow PyCapsule stream interface, so DuckDB, Polars
        and pyarrow read it as it streams.

    Raises
    ------
    kafkalog.UsageError
        An unknown option, an option's bad value, `threads` below 1, or a path with no Kafka files.
    kafkalog.DamagedDataError
        Damage in a segment under the default ``failOnDataLoss=true``, naming the file and the byte
        position (with ``failOnDataLoss=false`` the damaged batch is skipped). Raised as the reader
        reaches it.

    See Also
    --------
    read_table : The same records as one `pyarrow.Table`.

    Examples
    --------
    >>> import kafkalog
    >>> reader = kafkalog.read_arrow("samples/v2-lz4.log")
    >>> reader.schema.names
    ['key', 'value', 'topic', 'partition', 'offset', 'timestamp', 'timestampType']
    >>> reader.read_all().num_rows
    6

    A topic's partitions under a log directory, from an offset on, with the records' headers:

    >>> reader = kafkalog.read_arrow("tests/fixtures/partitions", subscribe="orders", include_headers=True,
    ...                              startingOffsets={"orders": {"0": 5, "1": -2}})
    >>> "headers" in reader.schema.names
    True
    """
    n = threads if threads is not None else DEFAULT_THREADS
    if n < 1:
        raise UsageError(f"threads must be at least 1, got {n}")
    with requests_once():  # (the planning asks an object store of each directory and file once)
        read = plan_read(path, options, threads=n)
    return pa.RecordBatchReader.from_batches(read.schema, _arrow_batches(read, n))


def read_table(path: Paths, *, threads: int | None = None, **options: object) -> pa.Table:
    """All of `read_arrow`'s batches as one `pyarrow.Table`.

    Parameters
    ----------
    path : str, os.PathLike or sequence of them
        A segment file (``.log``), a partition directory, a log directory, a glob or a URI
        (``s3://...``, any ``pyarrow.fs`` scheme), or a list of them.
    threads : int, optional
        Byte ranges decoded at once. The default is the cores this process may use, at most 8.
    **options
        The Kafka source's options, as `read_arrow` takes them.

    Returns
    -------
    pyarrow.Table
        Every record, in the order `read_arrow` gives them.

    Raises
    ------
    kafkalog.UsageError
        An unknown option, an option's bad value, `threads` below 1, or a path with no Kafka files.
    kafkalog.DamagedDataError
        Damage in a segment under the default ``failOnDataLoss=true``, naming the file and the byte
        position.

    See Also
    --------
    read_arrow : The same records as a stream of batches.

    Examples
    --------
    >>> import kafkalog
    >>> table = kafkalog.read_table("tests/fixtures/partitions", subscribe="orders")
    >>> table.num_rows
    663
    >>> table.slice(0, 2).select(["partition", "offset", "key"]).to_pylist()
    [{'partition': 0, 'offset': 0, 'key': b'order-0'}, {'partition': 0, 'offset': 1, 'key': b'order-1'}]
    """
    return read_arrow(path, threads=threads, **options).read_all()


def _paths(path: Paths) -> list[str]:
    if isinstance(path, (str, os.PathLike)):
        return [os.fspath(path)]
    if isinstance(path, Sequence) and path and all(isinstance(p, (str, os.PathLike)) for p in path):
        return [os.fspath(p) for p in path]
    raise UsageError(f"read_arrow reads a path, a URI or a list of them, got {type(path).__name__}")


def _arrow_batches(read: Read, threads: int) -> Iterator[pa.RecordBatch]:
    if threads == 1 or len(read.ranges) <= 1:
        one = _SegmentColumns(1)  # (a large segment is several ranges on one thread too: 128 MiB each)
        for rng in read.ranges:
            yield from read_range(rng, read.options, registry=read.registry, repeated=one.of(rng.segment))
        return
    # Each range holds up to AHEAD_BYTES of batches ahead of the consumer, whatever the data.
    shared = _SegmentColumns(threads + 2)
    pieces = [functools.partial(_range_arrow_batches, rng, read, shared) for rng in read.ranges]
    for shaped in in_order(pieces, threads, AHEAD_BYTES, name="kafkalog-read"):
        yield from shaped


def _range_arrow_batches(rng: plan.SegmentRange, read: Read, shared: _SegmentColumns
                         ) -> Iterator[tuple[list[pa.RecordBatch], int]]:
    # (the Arrow batches shaped together are handed over at once: a hand-off, and the GIL, per few of them)
    for shaped in read_range_shaped(rng, read.options, registry=read.registry, repeated=shared.of(rng.segment)):
        # Slices of one shaped batch: its buffers, whole, are what they hold (`nbytes` of each slice, which walks
        # every column's offsets to size its part, was 20 us an Arrow batch with the GIL held: 2% of a read).
        yield shaped, shaped[0].get_total_buffer_size()


class _SegmentColumns:
    """The constant columns (topic, partition, the batches' fields: `kafkalog.fast.columns.Repeated`) that the byte
    ranges of one segment share on a read's threads, made once for the segment, not once a range (a 205 MB segment
    is 25 ranges of `THREAD_RANGE_BYTES`: each made them anew, a tenth of a read's CPU, in fresh memory).

    Held for the last `keep` segments asked about only: the ranges in flight are at most the threads' and the
    one handed out, in file order, so a read of many segments does not keep every segment's columns."""

    def __init__(self, keep: int):
        self._keep = keep
        self._held: OrderedDict[tuple[str, str | None, int | None], Repeated] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, segment: plan.Segment) -> Repeated:
        """The columns of `segment`'s ranges (its location, topic and partition are in every walk's columns)."""
        key = (segment.location, segment.topic, segment.partition)
        with self._lock:
            repeated = self._held.get(key)
            if repeated is None:
                repeated = self._held[key] = Repeated()  # type: ignore[no-untyped-call]
                while len(self._held) > self._keep:
                    self._held.popitem(last=False)
            else:
                self._held.move_to_end(key)
            return repeated
