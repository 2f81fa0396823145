"""Whole `.index` and `.timeindex` files as columns, read by the compiled engine.

Specs: `kafka_offset_index.ksy` and `kafka_time_index.ksy` (the generated parsers
`parse_kafka_offset_index__index_entry` and `parse_kafka_time_index__time_index_entry`, compiled in
`kafkalog.fast.engine`). Twin: `kafkalog.formats.index`, which reads single slots for lookups, and
every slot where the engine was not built. `kafkalog verify` reads every slot of an index,
preallocated ones included: a million for a fresh 10 MiB offset index, which only a compiled loop
reads in time.
"""
from __future__ import annotations

import numpy as np

from kafkalog.fast import compiled
from kafkalog.formats.index import OffsetIndex, TimeIndex


def slot_columns(index: OffsetIndex | TimeIndex) -> np.ndarray:
    """Every slot of the file, preallocated ones included, as the spec's fields by column (`index.fields`)."""
    return _columns(index, index.slots)


def entry_columns(index: OffsetIndex | TimeIndex) -> np.ndarray:
    """The slots up to the first preallocated one (`len(index)`: the entries) as `slot_columns` gives them; the
    zero-filled end of a preallocated index (most of a fresh 10 MiB one) is not read."""
    return _columns(index, len(index))


def entries(index: OffsetIndex | TimeIndex) -> list:
    """The index's entries (its slots up to the first preallocated one), read by the engine."""
    return index.entries_of(entry_columns(index))


def _columns(index: OffsetIndex | TimeIndex, count: int) -> np.ndarray:
    if not compiled.BUILT:
        return index.slot_table(count)
    buf = np.frombuffer(index.slot_bytes(count), dtype=np.uint8)
    table = np.empty((len(index.fields), count), dtype=np.int64)
    compiled.index_slots(buf, table, time_index=not isinstance(index, OffsetIndex))
    return table
