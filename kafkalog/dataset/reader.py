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
consumer, at most a few batches each, and handed out in the order one thread gives.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa

from kafkalog.dataset import plan
from kafkalog.dataset.options import OPTIONS, ReadOptions, parse_options
from kafkalog.dataset.registry_values import RegistryColumns
from kafkalog.dataset.rows import read_range
from kafkalog.dataset.schema import output_arrow_schema
from kafkalog.errors import UsageError

Paths = str | os.PathLike | Sequence[str | os.PathLike]

#: Byte ranges a thread reads when there is more than one: small enough to share a large segment.
THREAD_RANGE_BYTES = 16 * 1024 * 1024


def _cores() -> int:
    """The cores this process may run on (a container's or a `taskset`'s, where the platform says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


#: The cores, at most 8: each thread's range holds up to `AHEAD_BYTES` of batches ahead of the consumer.
DEFAULT_THREADS = min(8, _cores())
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
    schema = output_arrow_schema(read_options.include_headers, read_options.kafkalog_columns)
    if read_options.decode:
        schema = schema.append(pa.field("key_decoded", pa.string())).append(pa.field("value_decoded", pa.string()))
    registry = RegistryColumns.for_read(_paths(path)[0], read_options) if read_options.registry else None
    if registry is not None:
        schema = registry.schema(schema)
    return Read(ranges, read_options, schema, registry)


def read_arrow(path: Paths, *, threads: int | None = None, **options: object) -> pa.RecordBatchReader:
    """The records under `path` with the Kafka source's options, as a `pyarrow.RecordBatchReader`.

    `path` is a segment file, a partition directory, a log directory, a glob or a URI (or a list of
    them). `options` are the Kafka source's (`kafkalog.dataset.options.OPTIONS`), named as in Spark
    (``includeHeaders=True``, ``**{"kafka.isolation.level": "read_committed"}``) or in snake_case
    (``include_headers=True``). `threads` decode byte ranges at once; the rows come out in the order one
    thread gives. The default is the cores this process may use, at most 8. Bad
    input and damage, under the default ``failOnDataLoss=true``, raise a `KafkalogError` naming the
    file and byte position.
    """
    n = threads if threads is not None else DEFAULT_THREADS
    if n < 1:
        raise UsageError(f"threads must be at least 1, got {n}")
    read = plan_read(path, options, threads=n)
    return pa.RecordBatchReader.from_batches(read.schema, _batches(read, n))


def read_table(path: Paths, *, threads: int | None = None, **options: object) -> pa.Table:
    """All of `read_arrow`'s batches as one `pyarrow.Table`."""
    return read_arrow(path, threads=threads, **options).read_all()


def _paths(path: Paths) -> list[str]:
    if isinstance(path, (str, os.PathLike)):
        return [os.fspath(path)]
    if isinstance(path, Sequence) and path and all(isinstance(p, (str, os.PathLike)) for p in path):
        return [os.fspath(p) for p in path]
    raise UsageError(f"read_arrow reads a path, a URI or a list of them, got {type(path).__name__}")


def _batches(read: Read, threads: int) -> Iterator[pa.RecordBatch]:
    if threads == 1 or len(read.ranges) <= 1:
        for rng in read.ranges:
            yield from read_range(rng, read.options, registry=read.registry)
        return
    yield from _Ahead(read, threads)


_DONE = object()


class _RangeQueue:
    """The batches of one range waiting for the consumer: at most `limit` bytes of them (and always one, however
    large), so that a range ahead can decode most of itself while the one before is handed out."""

    def __init__(self, limit: int):
        self.limit = limit
        self.items: deque[tuple[object, int]] = deque()
        self.bytes = 0
        self.changed = threading.Condition()

    def put(self, item: object, size: int, stop: threading.Event) -> bool:
        with self.changed:
            while self.items and self.bytes + size > self.limit:
                if stop.is_set():
                    return False
                self.changed.wait(0.1)
            if stop.is_set():
                return False
            self.items.append((item, size))
            self.bytes += size
            self.changed.notify_all()
            return True

    def get(self) -> object:
        with self.changed:
            while not self.items:
                self.changed.wait()
            item, size = self.items.popleft()
            self.bytes -= size
            self.changed.notify_all()
            return item


class _Ahead:
    """Ranges decoded on a pool of threads, handed out in range order.

    Each range fills a queue of at most `AHEAD_BYTES` of batches; at most `threads` ranges past the one
    being handed out are started. Memory is so bounded by threads x `AHEAD_BYTES`, whatever the data.
    """

    def __init__(self, read: Read, threads: int):
        self.read = read
        self.threads = threads
        self.stop = threading.Event()

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        ranges = self.read.ranges
        queues = [_RangeQueue(AHEAD_BYTES) for _ in ranges]
        pool = ThreadPoolExecutor(self.threads, thread_name_prefix="kafkalog-read")
        started = 0
        try:
            for i in range(len(ranges)):
                while started < len(ranges) and started <= i + self.threads:
                    pool.submit(self._fill, ranges[started], queues[started])
                    started += 1
                while True:
                    item = queues[i].get()
                    if item is _DONE:
                        break
                    if isinstance(item, BaseException):
                        raise item
                    yield item
        finally:
            self.stop.set()  # producers waiting for room see it and return
            pool.shutdown(wait=True, cancel_futures=True)

    def _fill(self, rng: plan.SegmentRange, out: _RangeQueue) -> None:
        try:
            for batch in read_range(rng, self.read.options, registry=self.read.registry):
                if not out.put(batch, batch.nbytes, self.stop):
                    return
        except BaseException as e:  # handed to the consumer, who raises it in order
            out.put(e, 0, self.stop)
            return
        out.put(_DONE, 0, self.stop)
