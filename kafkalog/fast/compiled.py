"""The fast path's v2 batches through the compiled engine (`kafkalog.fast.engine`, Cython, built at install).

The engine is the first step of issue 33: the numba kernels of the v2 path compiled ahead of time from the
same specs. `decode_runs(..., engine=True)` (`WalkOptions.engine`; `read_segment`, under `read_arrow`, sets it
where the engine was compiled) reads v2 batches with it: the entry scan, the batch headers, CRC-32C, LZ4 and
zstd decompression, snappy's blocks, and the record walks with the building of the Arrow buffers, each one
call without the GIL. Legacy messages, the indexes and the line writers stay on the numba kernels. Spec:
`kafka_record.ksy`; twin: `kafkalog.fast.kernels` (`walk_sections` with `BatchWalker.columns`).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from kafkalog.compression import Output
from kafkalog.fast import arrays

try:
    from kafkalog.fast import engine  # type: ignore[attr-defined]  # (a compiled module: no stubs)
except ImportError:  # an install that did not compile it (a source tree never installed)
    engine = None

#: Whether the engine was compiled and found every C function it calls.
AVAILABLE = engine is not None and bool(engine.AVAILABLE)


def crc32c_each(buf: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The CRC-32C of each slice ``buf[start[i]:start[i] + length[i]]``, as int64."""
    return engine.crc32c_each(buf, np.ascontiguousarray(start, dtype=np.int64),
                              np.ascontiguousarray(length, dtype=np.int64)).astype(np.int64)


def decompress_batches(codec: int, buf: np.ndarray, pos: np.ndarray, size: np.ndarray, out: Output, room: int,
                       group_bytes: int) -> np.ndarray:
    """`kafkalog.fast.compression.decompress_batches` through the engine: LZ4 and zstd in one call; snappy's blocks
    found by the engine and each decompressed by cramjam, as the numba path does; gzip by python-isal, a batch a
    call (no kernel on either path). The lengths of the batches taken, decompressed into `out` one after the
    other from its `end` (moved past them)."""
    if codec not in (engine.LZ4, engine.ZSTD):
        # (imported here: the module compiles numba kernels, which a reader of LZ4, zstd or none never loads)
        from kafkalog.fast import compression as fast_compression  # noqa: PLC0415

        return fast_compression.decompress_batches(codec, buf, pos, size, out, room, group_bytes,
                                                   find_snappy_blocks=engine.snappy_blocks)
    if not len(pos) or not out.reserve(group_bytes + room):
        return np.empty(0, dtype=np.int64)
    lengths = np.empty(len(pos), dtype=np.int64)
    target = np.frombuffer(out.buffer, dtype=np.uint8)
    taken = engine.decompress_batches(codec, buf, np.ascontiguousarray(pos, dtype=np.int64),
                                      np.ascontiguousarray(size, dtype=np.int64), target, out.end, room, group_bytes,
                                      lengths)
    del target  # (a view would keep the buffer from growing)
    out.end += int(lengths[:taken].sum())
    return lengths[:taken]


def header_lists(walked, struct_type: pa.StructType) -> pa.Array:
    """The `headers` column of a walk: each row's list of (key, value). A key that is not UTF-8 is decoded with
    replacement characters, as Kafka (and the object path) decode header keys."""
    keys = walked.header_keys
    if walked.bad_key >= 0:
        raw = pa.Array.from_buffers(pa.binary(), len(keys), keys.buffers())
        keys = arrays.strings([b.decode("utf-8", "replace") for b in raw.to_pylist()])
    struct = pa.StructArray.from_arrays([keys, walked.header_values], fields=list(struct_type))
    offsets = pa.Array.from_buffers(pa.int32(), walked.rows + 1, [None, walked.header_offsets])
    return pa.ListArray.from_arrays(offsets, struct)


def walk(buf: np.ndarray, sections, state: np.ndarray, batch_headers: np.ndarray, max_rows: int):
    """`engine.walk` of a group's `record_groups.Sections` (whose results it fills): (why it stopped, `Walked`)."""
    def dense(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)

    return engine.walk(buf, dense(sections.pos), dense(sections.end), dense(sections.count), dense(sections.partial),
                       state, dense(batch_headers), sections.good, sections.err, sections.err_pos,
                       sections.trailing_at, max_rows)


def scan_entries(buf: np.ndarray, pos: int, start_limit: int, max_entry: int, out: np.ndarray) -> tuple[int, int, int]:
    """`kernels.scan_entries` by the engine (a `kafkalog.entries.ChunkScan`)."""
    return engine.scan_entries(buf, pos, start_limit, max_entry, out)


def parse_batch_headers(buf: np.ndarray, entries: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """The v2 header of each entry (rows of a `kafkalog.entries` table) as a row, its error code into `errors`."""
    from kafkalog.formats.framing import LOG_OVERHEAD

    table = np.empty((len(entries), engine.KAFKA_RECORD_BATCH_WIDTH), dtype=np.int64)
    engine.parse_batch_headers(buf, np.ascontiguousarray(entries[:, engine.ENTRY_POS]),
                               LOG_OVERHEAD + entries[:, engine.ENTRY_LENGTH], table, errors)
    return table
