"""A Kafka 0.7 segment's messages as the decoder's Arrow rows (`RAW_ARROW_SCHEMA`), for read_arrow and Spark.

Each message of 0.7's deep iteration is a row: `offset` is the byte offset 0.7's iterator gives it
(`kafkalog.formats.kafka_07_log`), `value` its payload, `key` null, `timestamp` -1 (NoTimestampType),
`magic` the message's own (0 or 1, 0.7's magic: not the later formats'), `compression` its entry's codec,
`batch_position` its entry's byte position in the file. The producer fields are -1, as Kafka reports
them for messages that have none. Damage is handed out as `kafkalog.dataset.decode` hands out a
segment's: a row of its own (PERMISSIVE), the entry left out (DROPMALFORMED), or raised (FAILFAST).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from kafkalog.dataset.options import DamageMode
from kafkalog.errors import ChecksumError, DamagedDataError
from kafkalog.fast.columns import SCHEMA, damage_rows
from kafkalog.formats.kafka_07_log import Entry07
from kafkalog.log.kafka_07_segment import read_entries
from kafkalog.model import NO_TIMESTAMP, NO_TIMESTAMP_TYPE
from kafkalog.sources import Source

#: The values of the columns a 0.7 message does not have.
_ABSENT: dict[str, Any] = {"timestamp": NO_TIMESTAMP, "timestamp_type": NO_TIMESTAMP_TYPE, "key": None,
                           "headers": [], "producer_id": -1, "producer_epoch": -1, "sequence": -1,
                           "is_transactional": False, "is_control": False, "control_type": None,
                           "partition_leader_epoch": -1, "damage": None}


def read_kafka07(source: Source, *, name: str | None, start: int = 0, end: int | None = None,
                 topic: str | None = None, partition: int | None = None,
                 mode: DamageMode = DamageMode.PERMISSIVE, validate_checksums: bool = True,
                 rows_per_batch: int = 65536) -> Iterator[pa.RecordBatch]:
    """The rows of the entries that start in bytes [start, end) of a 0.7 segment (a path, bytes or a file),
    `rows_per_batch` at most per Arrow batch; memory is one entry's messages and one batch's rows."""
    rows: dict[str, list[Any]] = {n: [] for n in SCHEMA.names}
    ending: list[DamagedDataError] = []
    for entry in read_entries(source, name=name, start=start, end=end, damage=ending):
        damages = [d for d in entry.damage if validate_checksums or not isinstance(d, ChecksumError)]
        if damages and mode is DamageMode.FAILFAST:
            raise damages[0]
        if not (damages and mode is DamageMode.DROPMALFORMED):
            _add(rows, entry, name, topic, partition)
        if damages and mode is DamageMode.PERMISSIVE:
            yield from _flush(rows)
            yield from damage_rows(damages, name).to_batches()
        if len(rows["offset"]) >= rows_per_batch:
            yield from _flush(rows, rows_per_batch)
    yield from _flush(rows, rows_per_batch)
    if ending and mode is DamageMode.FAILFAST:
        raise ending[0]
    if ending and mode is DamageMode.PERMISSIVE:
        yield from damage_rows(ending, name).to_batches()


def _add(rows: dict[str, list[Any]], entry: Entry07, name: str | None, topic: str | None,
         partition: int | None) -> None:
    n = len(entry.messages)
    for column, value in _ABSENT.items():
        rows[column] += [value] * n
    rows["topic"] += [topic] * n
    rows["partition"] += [partition] * n
    rows["offset"] += [m.offset for m in entry.messages]
    rows["value"] += [m.payload for m in entry.messages]
    rows["magic"] += [m.magic for m in entry.messages]
    rows["compression"] += [entry.compression] * n
    rows["segment"] += [name] * n
    rows["batch_position"] += [entry.position] * n


def _flush(rows: dict[str, list[Any]], rows_per_batch: int | None = None) -> Iterator[pa.RecordBatch]:
    if not rows["offset"]:
        return
    table = pa.Table.from_pydict(rows, schema=SCHEMA)
    for values in rows.values():
        values.clear()
    yield from table.to_batches(max_chunksize=rows_per_batch)
