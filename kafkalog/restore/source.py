"""What a restore reads: each topic's committed records, partition by partition in offset order.

Kafka's files are read with `kafkalog.read_arrow` through its public options only, as a read_committed consumer
reads them (`isolation.level=read_committed`): no control records, no records of aborted transactions, nothing at
or past a transaction still open (Kafka's last stable offset). Parquet written by `kafkalog ingest` (on the local
disk or behind a URI, listed through `pyarrow.fs`) is taken as it was written, less its damage rows and control rows.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from kafkalog.dataset.reader import plan_read, read_arrow
from kafkalog.errors import UsageError
from kafkalog.location import Location
from kafkalog.restore.options import INTERNAL_TOPICS, SCHEMAS_TOPIC, RestoreOptions

#: The columns a restore produces from, whatever the source.
COLUMNS = ["topic", "partition", "offset", "timestamp", "timestampType", "key", "value", "headers"]
#: What every read of Kafka's files is given (the user's reader options cannot turn these off).
FORCED_READ_OPTIONS = {"includeHeaders": "true", "isolation.level": "read_committed",
                       "includeControlRecords": "false", "decode": "false"}
#: A Kafka partition directory's name (`orders-0`, `__consumer_offsets-12`).
_PARTITION_DIR = re.compile(r"^.+-[0-9]+$")


@dataclass(frozen=True)
class Records:
    """A run of one source partition's records, in offset order, as the producer takes them.

    Built a column at a time (never a record at a time): the producer's loop only indexes these lists.
    """

    partition: int
    #: The source offsets, kept in Arrow: the offset map is written from them a column at a time.
    offsets: pa.Array
    #: The timestamp to produce in ms: 0 (librdkafka's "now", the target's time) for LogAppendTime records and
    #: records without one.
    timestamps: list[int]
    keys: list[bytes | None]
    values: list[bytes | None]
    #: Each record's headers; None for a record without any.
    headers: list[list[tuple[str, bytes | None]] | None]
    #: The source timestamps in ms (None: no timestamp), LogAppendTime ones too; only when asked for.
    source_timestamps: list[int | None] | None = None

    def __len__(self) -> int:
        return len(self.values)


def _listing(source: str) -> tuple[Any, str, list[Any]] | None:
    """(pyarrow filesystem, the source's path in it, the files under it or the file itself), None when nothing is
    there.

    Local paths and URIs (`s3://`, `file://`...) alike, through `pyarrow.fs` (the object path of Parquet)."""
    from pyarrow import fs as pafs

    try:
        if Location(source).is_uri:
            filesystem, path = pafs.FileSystem.from_uri(source)
        else:
            filesystem, path = pafs.LocalFileSystem(), str(Path(source).absolute())
        found = filesystem.get_file_info(path)
        if found.type == pafs.FileType.NotFound:
            return None
        if found.type != pafs.FileType.Directory:
            return filesystem, path, [found]
        entries = filesystem.get_file_info(pafs.FileSelector(path, recursive=True))
    except (OSError, pa.ArrowInvalid) as e:
        raise UsageError(f"{source}: cannot list: {e}") from None
    return filesystem, path, [e for e in entries if e.type == pafs.FileType.File]


def _is_parquet(source: str) -> bool:
    """A .parquet file, or a directory of them that holds no segment and no Kafka partition directory."""
    listing = _listing(source)
    if listing is None:
        return False
    _, root, files = listing
    if not any(f.base_name.endswith(".parquet") for f in files):
        return False
    # (Spark's part files, `part-00000-<uuid>.snappy.parquet`, look like a partition directory's name: only the
    # directories between the source and its files are asked)
    folders = {part for f in files for part in f.path[len(root):].strip("/").split("/")[:-1]}
    return not any(f.base_name.endswith(".log") for f in files) and not any(map(_PARTITION_DIR.match, folders))


def is_parquet(sources: list[str]) -> bool:
    """Whether the sources are Parquet (a .parquet file, or a directory whose files are .parquet), local or behind
    a URI."""
    kinds = {_is_parquet(s) for s in sources}
    if len(kinds) > 1:
        raise UsageError(f"{', '.join(sources)}: Parquet and Kafka's files cannot be restored in one run")
    return kinds == {True}


def _parquet(sources: list[str]) -> ds.Dataset:
    try:
        parts = []
        for s in sources:
            listing = _listing(s)
            assert listing is not None  # is_parquet said so
            filesystem, _, files = listing
            # (Spark's `_SUCCESS` and `.crc` files left out, as Spark reads the directory)
            paths = sorted(f.path for f in files
                           if f.base_name.endswith(".parquet") and not f.base_name.startswith(("_", ".")))
            parts.append(ds.dataset(paths, filesystem=filesystem, format="parquet", exclude_invalid_files=True))
        dataset = parts[0] if len(parts) == 1 else ds.dataset(parts)
    except (OSError, pa.ArrowInvalid) as e:
        raise UsageError(f"{', '.join(sources)}: cannot read as Parquet: {e}") from None
    missing = [c for c in COLUMNS if c not in dataset.schema.names]
    if missing:
        raise UsageError(f"{', '.join(sources)}: Parquet without the columns {', '.join(missing)} "
                         "(write it with `kafkalog ingest`, which keeps the headers)")
    return dataset


def _read_options(options: RestoreOptions) -> dict[str, str]:
    return {**options.read_options, **FORCED_READ_OPTIONS}


def topic_partitions(options: RestoreOptions) -> dict[str, set[int]]:
    """The source's topics to restore and their partitions seen in the files (internal topics left out)."""
    found: dict[str, set[int]] = {}
    if is_parquet(options.sources):
        table = _parquet(options.sources).to_table(columns=["topic", "partition"], filter=_parquet_filter())
        pairs = table.group_by(["topic", "partition"]).aggregate([]).to_pylist()
        for row in pairs:
            found.setdefault(row["topic"], set()).add(row["partition"])
    else:
        read = plan_read(options.sources, _read_options(options))
        for rng in read.ranges:
            seg = rng.segment
            if seg.topic is not None and seg.partition is not None:
                found.setdefault(seg.topic, set()).add(seg.partition)
    return {t: ps for t, ps in found.items() if t not in INTERNAL_TOPICS}


def restore_order(topics: list[str]) -> list[str]:
    """`_schemas` first (the registry's schema ids stay valid for the values after it), then by name."""
    return sorted(topics, key=lambda t: (t != SCHEMAS_TOPIC, t))


def _parquet_filter() -> pc.Expression:
    return pc.field("topic").is_valid()


def topic_batches(options: RestoreOptions, topic: str) -> Iterator[pa.RecordBatch]:
    """One topic's records in the restore's columns, each partition in offset order."""
    if is_parquet(options.sources):
        dataset = _parquet(options.sources)
        names = dataset.schema.names
        keep = pc.field("topic") == topic
        if "damage" in names:
            keep = keep & pc.field("damage").is_null()
        if "is_control" in names:
            keep = keep & ~pc.field("is_control")
        partitions = dataset.to_table(columns=["partition"], filter=keep).column("partition").unique().to_pylist()
        # One partition at a time in memory, sorted: Spark writes a partition's rows over several files.
        for partition in sorted(p for p in partitions if p is not None):
            table = dataset.to_table(columns=COLUMNS, filter=keep & (pc.field("partition") == partition))
            yield from table.sort_by("offset").to_batches()
        return
    reader = read_arrow(options.sources, threads=options.threads,
                        **{**_read_options(options), "subscribe": topic})
    yield from (batch.select(COLUMNS) for batch in reader)


def topic_runs(options: RestoreOptions, topic: str) -> Iterator[Records]:
    """One topic's records as runs of one partition, ready for the producer."""
    for batch in topic_batches(options, topic):
        yield from runs(batch, with_source_timestamps=options.original_headers)


def _millis(batch: pa.RecordBatch) -> pa.Array:
    stamps = batch.column("timestamp")
    if not pa.types.is_timestamp(stamps.type):
        return stamps.cast(pa.int64())
    unit = stamps.type.unit
    stamps = stamps.cast(pa.int64())
    if unit == "s":
        return pc.multiply(stamps, 1000)
    if unit != "ms":
        return pc.divide(stamps, 1000 if unit == "us" else 1_000_000)
    return stamps


def _headers(column: pa.Array) -> list[list[tuple[str, bytes | None]] | None]:
    """Each record's headers as (key, value) pairs; built only for the records that have any."""
    out: list[list[tuple[str, bytes | None]] | None] = [None] * len(column)
    if column.null_count == len(column):
        return out
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    bounds = column.offsets.to_numpy()
    lengths = np.diff(bounds)
    if column.null_count:
        lengths[~column.is_valid().to_numpy(zero_copy_only=False)] = 0
    having = np.flatnonzero(lengths)
    if not len(having):
        return out
    first, last = int(bounds[0]), int(bounds[-1])
    # The child array is the unsliced one: the offsets index into it.
    entries = column.values.slice(first, last - first)
    pairs = list(zip(entries.field("key").to_pylist(), entries.field("value").to_pylist(), strict=True))
    # A slice of the pairs for each record with headers, made by map() (not a loop of ours: the slowest part).
    slices = map(slice, (bounds[having] - first).tolist(), (bounds[having + 1] - first).tolist())
    lists: list[list[tuple[str, bytes | None]] | None] = list(map(pairs.__getitem__, slices))
    if len(having) == len(out):
        return lists
    for i, pairs_of in zip(having.tolist(), lists, strict=True):
        out[i] = pairs_of
    return out


def runs(batch: pa.RecordBatch, with_source_timestamps: bool = False) -> Iterator[Records]:
    """A batch as runs of one partition's records, each converted a column at a time."""
    partitions = batch.column("partition").to_numpy(zero_copy_only=False)
    if not len(partitions):
        return
    cuts = [0, *(np.flatnonzero(partitions[1:] != partitions[:-1]) + 1).tolist(), len(partitions)]
    source_stamps = _millis(batch)
    # LogAppendTime records (and those without a timestamp) take the target's time: 0 is librdkafka's "now".
    stamps = pc.if_else(pc.equal(batch.column("timestampType"), 1), 0, source_stamps).fill_null(0)
    for a, b in itertools.pairwise(cuts):
        part = batch.slice(a, b - a) if (a, b) != (0, len(partitions)) else batch
        yield Records(
            partition=int(partitions[a]),
            offsets=part.column("offset"),
            timestamps=stamps.slice(a, b - a).to_pylist(),
            keys=part.column("key").to_pylist(),
            values=part.column("value").to_pylist(),
            headers=_headers(part.column("headers")),
            source_timestamps=source_stamps.slice(a, b - a).to_pylist() if with_source_timestamps else None,
        )
