"""The offset map (source topic, partition, offset -> target offset) as Parquet, and the state a second run
resumes from.

The map's directory holds `state.json` and Parquet parts `map-<run>-<n>.parquet`, each a run of delivery reports
written whole (to a temporary name, then renamed). Delivery reports come in produce order per partition (the
producer is idempotent), so each partition's rows form a prefix of its records.

`state.json` holds, for each target partition, the target's end offset before this restore's first record went
to it (`start`). The restore's producer is idempotent and not transactional, so its records take consecutive
offsets: the record at place i of a source partition's committed records lands at `start + i`, as long as
nothing else writes to the target partition. A second run reads the target's end offsets: every record before
place `end - start` was delivered, reported or not, and is not produced again.
"""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from kafkalog.errors import UsageError

STATE = "state.json"
MAP_SCHEMA = pa.schema([
    ("source_topic", pa.string()), ("source_partition", pa.int32()), ("source_offset", pa.int64()),
    ("target_topic", pa.string()), ("target_partition", pa.int32()), ("target_offset", pa.int64()),
])
#: Offsets that mostly go up by one, names and partitions that repeat: delta-encoded offsets, dictionaries for the
#: rest (a part is a few kB, and a third of the CPU of Parquet's defaults).
PARQUET_OPTIONS: dict[str, Any] = {
    "use_dictionary": ["source_topic", "source_partition", "target_topic", "target_partition"],
    "column_encoding": {"source_offset": "DELTA_BINARY_PACKED", "target_offset": "DELTA_BINARY_PACKED"},
}
#: Rows kept before a part is written (and at least every few seconds, at the caller's poll).
FLUSH_ROWS = 200_000


@dataclass
class State:
    """What a restore writes before producing: what it reads, and each target partition's start."""

    path: Path
    identity: dict[str, Any]
    #: "target_topic/partition" -> the target's end offset before this restore's first record there.
    starts: dict[str, int] = field(default_factory=dict)
    #: "target_topic/partition" -> a gap a refusal left there (`kafkalog.restore.produce.Gap` as JSON): records
    #: delivered past a refused one. Such a partition is not resumed.
    gaps: dict[str, dict[str, Any]] = field(default_factory=dict)

    @staticmethod
    def key(topic: str, partition: int) -> str:
        return f"{topic}/{partition}"

    @classmethod
    def open(cls, directory: Path, identity: dict[str, Any]) -> State:
        """The directory's state, or a new one; a map of another restore (other sources or options) is refused."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / STATE
        if not path.exists():
            return cls(path, identity)
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise UsageError(f"{path}: not a restore's state: {e}") from None
        if saved.get("identity") != identity:
            raise UsageError(f"{directory}: this offset map belongs to another restore "
                             f"({saved.get('identity')}); choose a new --offset-map directory")
        return cls(path, identity, {k: int(v) for k, v in saved.get("starts", {}).items()},
                   dict(saved.get("gaps", {})))

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"identity": self.identity, "starts": self.starts, "gaps": self.gaps},
                                  indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


class MapWriter:
    """Rows of the map, added a partition's run at a time, written as Parquet parts."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.run = uuid.uuid4().hex[:8]
        self.parts = 0
        self.tables: list[pa.Table] = []
        self.pending = 0
        self.written = 0

    def add(self, source_topic: str, source_partition: int, source_offsets: pa.Array,
            target_topic: str, target_partition: int, target_offsets: np.ndarray) -> None:
        """Rows of one source partition: its source offsets and the target offsets they landed at."""
        n = len(source_offsets)
        if not n:
            return
        self.tables.append(pa.table([
            pa.repeat(pa.scalar(source_topic, pa.string()), n), pa.repeat(pa.scalar(source_partition, pa.int32()), n),
            source_offsets.cast(pa.int64()),
            pa.repeat(pa.scalar(target_topic, pa.string()), n), pa.repeat(pa.scalar(target_partition, pa.int32()), n),
            pa.array(target_offsets, pa.int64()),
        ], schema=MAP_SCHEMA))
        self.pending += n

    def flush(self) -> None:
        if not self.pending:
            return
        table = pa.concat_tables(self.tables)
        name = self.directory / f"map-{self.run}-{self.parts:06d}.parquet"
        tmp = name.with_suffix(".tmp")
        pq.write_table(table, tmp, **PARQUET_OPTIONS)
        os.replace(tmp, name)
        self.parts += 1
        self.written += table.num_rows
        self.tables = []
        self.pending = 0


def read_map(directory: Path, source_topic: str | None = None, source_partition: int | None = None) -> pa.Table:
    """The map's rows (of one source partition when named), sorted by source offset."""
    files = sorted(str(p) for p in directory.glob("map-*.parquet"))
    if not files:
        return MAP_SCHEMA.empty_table()
    dataset = ds.dataset(files, schema=MAP_SCHEMA, format="parquet")
    where = None
    if source_topic is not None:
        where = pc.field("source_topic") == source_topic
        if source_partition is not None:
            where = where & (pc.field("source_partition") == source_partition)
    return dataset.to_table(filter=where).sort_by([("source_topic", "ascending"), ("source_partition", "ascending"),
                                                   ("source_offset", "ascending")])


def mapped_counts(directory: Path) -> dict[tuple[str, int], int]:
    """Rows the map holds for each source partition."""
    table = read_map(directory)
    if table.num_rows == 0:
        return {}
    counts = table.group_by(["source_topic", "source_partition"]).aggregate([("source_offset", "count")])
    return {(r["source_topic"], r["source_partition"]): r["source_offset_count"] for r in counts.to_pylist()}
