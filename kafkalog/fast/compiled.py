"""The fast path's face of the compiled engine (`kafkalog.fast.engine`, Cython, built at install).

The engine holds every loop of the fast path but dump's line writers, compiled ahead of time from the specs
(issue 33): the entry scan, the v2 batch headers and legacy messages, CRC-32C, LZ4, zstd, snappy and gzip
decompression, the record walks with the building of the Arrow buffers, the legacy messages' byte fields
and the index slots, each one call without the GIL. `kafkalog.fast.segment.decode_runs` reads through it where
it was built (`AVAILABLE`), and through the object path otherwise. Spec: `kafka_record.ksy` and the others
`generated/kafka_kernels.pxi` parses; twin: the generated Kaitai parsers (the object path).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.fast import arrays

try:
    from kafkalog.fast import engine  # type: ignore[attr-defined]  # (a compiled module: no stubs)
except ImportError:  # an install that did not compile it (a source tree never installed)
    engine = None

#: Whether the engine was compiled and found every C function it calls (the codecs' and the CRC's).
AVAILABLE = engine is not None and bool(engine.AVAILABLE)
#: The codecs (`kafka_record_batch.ksy`'s ids) of the batches `decode_group` takes.
GROUP_CODECS = frozenset(engine.GROUP_CODECS) if engine is not None else frozenset()
#: The columns of a usual group's record batch the engine makes (`engine.Group.record_batch`).
GROUP_COLUMNS: tuple[str, ...] = tuple(engine.GROUP_COLUMNS) if engine is not None else ()
#: The batch-level columns the engine makes per batch for a usual group whose batches' fields differ
#: (`engine.Group.differs`).
BATCH_COLUMNS: tuple[str, ...] = tuple(engine.BATCH_COLUMNS) if engine is not None else ()
#: Whether the engine was compiled: its parsers (entries, headers, messages, index slots) call no C library.
BUILT = engine is not None


def crc32c_each(buf: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The CRC-32C of each slice ``buf[start[i]:start[i] + length[i]]``, as int64."""
    return engine.crc32c_each(buf, np.ascontiguousarray(start, dtype=np.int64),
                              np.ascontiguousarray(length, dtype=np.int64)).astype(np.int64)


def header_lists(walked, struct_type: pa.StructType) -> pa.Array:
    """The `headers` column of a walk: each row's list of (key, value). A key that is not UTF-8 is decoded with
    replacement characters, as Kafka (and the object path) decode header keys."""
    keys = walked.header_keys
    if walked.bad_key >= 0:
        raw = pa.Array.from_buffers(pa.binary(), len(keys), keys.buffers())
        keys = arrays.strings([b.decode("utf-8", "replace") for b in raw.to_pylist()])
    # (from the buffers as they are: the engine wrote them in Arrow's layout, and `from_arrays` would check the
    # offsets again, row by row, holding the GIL)
    struct = pa.Array.from_buffers(struct_type, len(keys), [None], children=[keys, walked.header_values])
    return pa.Array.from_buffers(pa.list_(struct_type), walked.rows, [None, walked.header_offsets], children=[struct])


def walk(buf: np.ndarray, sections, state: np.ndarray, batch_headers: np.ndarray, max_rows: int, check: bool = False):
    """`engine.walk` of a group's `record_groups.Sections` (whose results it fills): (why it stopped, `Walked`).
    `check`: every record checked, none copied (`engine.walk`'s check mode)."""
    def dense(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)

    return engine.walk(buf, dense(sections.pos), dense(sections.end), dense(sections.count), dense(sections.partial),
                       state, dense(batch_headers), sections.good, sections.err, sections.err_pos,
                       sections.trailing_at, max_rows, check)


def decode_group(buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: np.ndarray, room: int, max_rows: int,
                 group_bytes: int, check: bool = False):
    """`engine.decode_group`: plain v2 batches (entries buf[pos:pos + size]) as one group, in one call without the
    GIL; an `engine.Group`. `check`: the walk checks every record without copying it (`engine.walk`'s)."""
    return engine.decode_group(buf, pos, np.ascontiguousarray(size, dtype=np.int64), out, room, max_rows, group_bytes,
                               check)


def constants(batch: pa.RecordBatch):
    """`engine.Constants`: a record batch of constant columns (each all null or none null) exported once, for
    `engine.Group.record_batch` to slice."""
    return engine.Constants(batch)


def scan_entries(buf: np.ndarray, pos: int, start_limit: int, max_entry: int, out: np.ndarray) -> tuple[int, int, int]:
    """The entry scan (a `kafkalog.entries.ChunkScan`): entries whole in buf[pos:], starting before `start_limit`,
    into `out` (position, size, magic); (entries, position reached, why it stopped)."""
    return engine.scan_entries(buf, pos, start_limit, max_entry, out)


def hop_entries(fd: int, pos: int, start_limit: int, file_end: int, max_entry: int, out: np.ndarray
                ) -> tuple[int, int, int]:
    """The entry hop (a `kafkalog.entries.EntryHop`): entries of the file `fd` from `pos` found by their first 17
    bytes alone, starting before `start_limit` and whole before `file_end`, into `out` (file position, size, magic,
    offset field); (entries, position reached, why it stopped)."""
    return engine.hop_entries(fd, pos, start_limit, file_end, max_entry, out)

def parse_batch_headers(buf: np.ndarray, entries: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """The v2 header of each entry (rows of a `kafkalog.entries` table) as a row, its error code into `errors`."""
    from kafkalog.formats.framing import LOG_OVERHEAD

    table = np.empty((len(entries), engine.KAFKA_RECORD_BATCH_WIDTH), dtype=np.int64)
    engine.parse_batch_headers(buf, np.ascontiguousarray(entries[:, engine.ENTRY_POS]),
                               LOG_OVERHEAD + entries[:, engine.ENTRY_LENGTH], table, errors)
    return table


def parse_legacy_entries(buf: np.ndarray, entries: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each legacy entry `entries[rows[i]]` (rows of a `kafkalog.entries` table) as column i of a column-major
    message table (`KAFKA_MESSAGE_SET__ENTRY__*` rows), and its error code."""
    table = np.empty((k.KAFKA_MESSAGE_SET__ENTRY__WIDTH, len(rows)), dtype=np.int64)
    errors = np.empty(len(rows), dtype=np.int64)
    engine.parse_legacy_entries(buf, np.ascontiguousarray(entries, dtype=np.int64),
                                np.ascontiguousarray(rows, dtype=np.int64), table, errors)
    return table, errors


def walk_messages(buf: np.ndarray, pos: int, end: int, table: np.ndarray) -> tuple[int, int, int]:
    """A wrapper's inner messages buf[pos:end] into the columns of `table`: (entries, error code, position);
    error code 1 means the table is full."""
    return engine.walk_messages(buf, pos, end, table)


def index_slots(buf: np.ndarray, table: np.ndarray, time_index: bool) -> None:
    """Every whole slot of an offset index (or a time index) into the columns of `table`."""
    if time_index:
        engine.parse_time_index_slots(buf, table)
    else:
        engine.parse_offset_index_slots(buf, table)


def gather_pair(buf: np.ndarray, a_pos: np.ndarray, a_size: np.ndarray, b_pos: np.ndarray, b_size: np.ndarray,
                a_utf8: bool) -> tuple:
    """Two byte fields of the same rows in Arrow's layout: (a_offsets, a_data, a_nulls, b_offsets, b_data,
    b_nulls, the first row whose field a is not UTF-8 when `a_utf8`, else -1)."""
    def dense(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)

    return engine.gather_pair(buf, dense(a_pos), dense(a_size), dense(b_pos), dense(b_size), a_utf8)


def scaled_in_range(values: np.ndarray, low: int, high: int, scale: int) -> tuple[np.ndarray, np.ndarray, int]:
    """`engine.scaled_in_range`: (values * scale where low <= value <= high else 0, the validity bitmap of those in
    range, how many are not), one pass without the GIL."""
    return engine.scaled_in_range(np.ascontiguousarray(values, dtype=np.int64), low, high, scale)


def ids_by_length(offsets: np.ndarray, ids: np.ndarray, out: np.ndarray) -> None:
    """`engine.ids_by_length`: `out[i]`, the id (`ids`, by length in bytes, the last for longer ones) of each string
    of an Arrow string array's `offsets`, without the GIL."""
    engine.ids_by_length(np.ascontiguousarray(offsets, dtype=np.int32), ids, out)


def kafka_columns(ms: np.ndarray, low: int, high: int, scale: int, type_offsets: np.ndarray, type_at: int,
                  type_ids: np.ndarray, header_offsets: np.ndarray, header_at: int) -> tuple:
    """`engine.kafka_columns`: an Arrow batch's `timestamp` scaled where in [low, high] (values, validity bitmap,
    nulls), its `timestampType` ids by the names' lengths (written from `type_at`), and its `headers`' validity
    bitmap of the lists that are not empty (from bit `header_at`; None without `header_offsets`) with its nulls:
    one pass without the GIL."""
    return engine.kafka_columns(np.ascontiguousarray(ms, dtype=np.int64), low, high, scale, type_offsets, type_at,
                                type_ids, header_offsets, header_at)


def repeat_each(values: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    """`engine.repeat_each`: ``np.repeat(values, counts)`` (int64, n rows in all), without the GIL."""
    values, counts = np.ascontiguousarray(values, dtype=np.int64), np.ascontiguousarray(counts, dtype=np.int64)
    return engine.repeat_each(values, counts, n)
