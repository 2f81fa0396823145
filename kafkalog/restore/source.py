"""What a restore reads: each topic's committed records, partition by partition in offset order.

Kafka's files are read with `kafkalog.read_arrow` through its public options only, as a read_committed consumer
reads them (`isolation.level=read_committed`): no control records, no records of aborted transactions, nothing at
or past a transaction still open (Kafka's last stable offset). Parquet written by `kafkalog ingest` is taken as it
was written, less its damage rows and control rows.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from kafkalog.dataset.reader import plan_read, read_arrow
from kafkalog.errors import UsageError
from kafkalog.restore.options import INTERNAL_TOPICS, SCHEMAS_TOPIC, RestoreOptions

#: The columns a restore produces from, whatever the source.
COLUMNS = ["topic", "partition", "offset", "timestamp", "timestampType", "key", "value", "headers"]
#: What every read of Kafka's files is given (the user's reader options cannot turn these off).
FORCED_READ_OPTIONS = {"includeHeaders": "true", "isolation.level": "read_committed",
                       "includeControlRecords": "false", "decode": "false"}


@dataclass(frozen=True)
class Records:
    """A batch of one source topic's records: Python lists, each record's timestamp in ms (None: no timestamp)."""

    partitions: list[int]
    offsets: list[int]
    timestamps: list[int | None]
    log_append_time: list[bool]
    keys: list[bytes | None]
    values: list[bytes | None]
    headers: list[list[tuple[str, bytes | None]] | None]


def is_parquet(sources: list[str]) -> bool:
    """Whether the sources are Parquet (a .parquet file, or a directory whose files are .parquet)."""
    kinds = set()
    for s in sources:
        p = Path(s)
        if p.is_file():
            kinds.add(p.suffix == ".parquet")
        elif p.is_dir():
            kinds.add(any(p.rglob("*.parquet")) and not any(p.glob("*-[0-9]*")) and not any(p.rglob("*.log")))
        else:
            kinds.add(False)
    if len(kinds) > 1:
        raise UsageError(f"{', '.join(sources)}: Parquet and Kafka's files cannot be restored in one run")
    return kinds == {True}


def _parquet(sources: list[str]) -> ds.Dataset:
    try:
        dataset = ds.dataset(sources, format="parquet", exclude_invalid_files=True)
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


def records(batch: pa.RecordBatch) -> Records:
    """A batch as the lists the producer takes."""
    stamps = batch.column("timestamp")
    if pa.types.is_timestamp(stamps.type):
        unit = stamps.type.unit
        stamps = stamps.cast(pa.int64())
        if unit == "s":
            stamps = pc.multiply(stamps, 1000)
        elif unit != "ms":
            stamps = pc.divide(stamps, 1000 if unit == "us" else 1_000_000)
    kinds = batch.column("timestampType").to_pylist()
    return Records(
        partitions=batch.column("partition").to_pylist(),
        offsets=batch.column("offset").to_pylist(),
        timestamps=stamps.to_pylist(),
        log_append_time=[k == 1 for k in kinds],
        keys=batch.column("key").to_pylist(),
        values=batch.column("value").to_pylist(),
        headers=[None if h is None else [(e["key"], e["value"]) for e in h]
                 for h in batch.column("headers").to_pylist()],
    )
