"""v2 batches waiting to be walked together by the fast path, and their records sections.

Shared by `kafkalog.fast.record_batch` (groups of whole batches) and `kafkalog.fast.streamed_batch` (a window of
one batch past the decompression limit). Specs: `kafka_record_batch.ksy` and `kafka_record.ksy`, which the
compiled engine's walk (`kafkalog.fast.compiled`) reads; twin: the object path's `kafkalog.formats.record_batch`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.compression import Output
from kafkalog.errors import DamagedDataError

#: Decompressed bytes held for one walk before it runs: little enough to stay in a core's cache from the
#: codec's output to the walk and the Arrow copies. (8 MiB groups cut the GIL-held share of a read by about 2
#: points of 20-25 and cost 4-6% more CPU: docs/performance.md, issue 33.)
GROUP_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class Sections:
    """The records sections of a group's batches, and how far the engine's walk got in each."""

    pos: np.ndarray  # where each section starts in the group's buffer
    end: np.ndarray  # and ends
    count: np.ndarray  # records each batch declares
    partial: np.ndarray  # 1 for what decompressed before damage
    good: np.ndarray  # records parsed
    err: np.ndarray  # a generated error code or a `walk_codes` damage code: what stopped the section, 0 for nothing
    err_pos: np.ndarray  # where
    trailing_at: np.ndarray  # the record with bytes after its body, or -1
    rows: np.ndarray  # rows each section has given so far

    @classmethod
    def of(cls, group: Group) -> Sections:
        n = group.count
        partial = np.zeros(n, dtype=np.int64)
        partial[list(group.partial)] = 1
        declared = group.batch_headers[:, k.KAFKA_RECORD_BATCH__NUM_RECORDS].copy()
        return cls(group.starts, group.starts + group.lengths, declared,
                   partial, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                   np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64))


class Group:
    """v2 batches waiting to be walked together: their headers and where their records are, added a span at a
    time."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.spans: list[tuple[np.ndarray, ...]] = []  # the columns of each span added, in order
        self.count = 0
        self.bytes = 0
        #: Sparse, by section: the damage found before the walk, and the decompression error of a section
        #: that is what decompressed before it.
        self.damage: dict[int, list[DamagedDataError]] = {}
        self.partial: dict[int, DamagedDataError] = {}
        self.control_damage: dict[int, list[tuple[int, DamagedDataError]]] = {}  # (record index, damage)
        self.offset_of_last: dict[int, int] = {}
        self.controls: dict[int, list[tuple[int, int, str]]] = {}  # (record index, offset, type)
        self.sections: Sections | None = None  # while the group is walked
        self.chunk: np.ndarray | None = None
        self.buffer: np.ndarray | None = None  # (a view of the output buffer holds it at its size)
        #: The buffer the sections of compressed batches are decompressed into; None when the sections are
        #: in the chunk (uncompressed batches).
        self.output: Output | None = None
        #: What the engine's `decode_group` walked of these batches: (why it stopped, the `Walked` rows, the
        #: walk's state), until the walker takes it.
        self.first: tuple | None = None

    def use(self, output: Output) -> None:
        if self.output is None:
            output.clear(2 * GROUP_BYTES)  # (a group holds GROUP_BYTES and one batch more)
            self.output = output

    def add(self, batch_headers: np.ndarray, position: np.ndarray, size: np.ndarray, magic: np.ndarray,
            starts: np.ndarray, lengths: np.ndarray, damage: dict[int, list[DamagedDataError]],
            partial: Mapping[int, DamagedDataError], chunk: np.ndarray | None) -> None:
        """Batches with their headers and where their records are: chunk[starts:starts + lengths] when they are
        not compressed, else in the output buffer (what decompressed before the error in `partial`). `damage`
        and `partial` are keyed by the index in these batches."""
        self.spans.append((batch_headers, position, size, magic, starts, lengths))
        self.damage.update((self.count + i, d) for i, d in damage.items())
        self.partial.update((self.count + i, e) for i, e in partial.items())
        self.count += len(batch_headers)
        self.bytes += int(lengths.sum())
        self.chunk = chunk

    @property
    def walked(self) -> Sections:
        """`sections`, while the group is walked."""
        assert self.sections is not None, "the group is not being walked"
        return self.sections

    @property
    def sealed_buffer(self) -> np.ndarray:
        """`buffer`, once the group is sealed."""
        assert self.buffer is not None, "the group is not sealed"
        return self.buffer

    def seal(self) -> None:
        """The spans as whole columns, for the walk: `batch_headers`, `positions`, `sizes`, `magics`, `starts`,
        `lengths`, and the `buffer` the sections are in."""
        batch_headers, self.positions, self.sizes, self.magics, self.starts, self.lengths = (
            np.concatenate(column) if len(self.spans) > 1 else column[0] for column in zip(*self.spans, strict=True))
        self.batch_headers = np.ascontiguousarray(batch_headers)
        self.buffer = self.chunk if self.output is None else np.frombuffer(self.output.buffer, dtype=np.uint8)
