"""A batch's records made from the fast path's Arrow columns, a block at a time.

A batch can hold a million tiny records in a few kilobytes; as `Record`
objects they would take gigabytes. `TableRecords` keeps the columns and
makes `Record`s only for the block being looked at, so reading any batch costs
memory in proportion to its bytes.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload

from kafkalog.model import Header, Record

if TYPE_CHECKING:
    import pyarrow as pa  # (the tables come from the fast path, which imports pyarrow itself)

BLOCK = 4096
_COLUMNS = ["offset", "timestamp", "sequence", "key", "value", "headers", "control_type"]


class TableRecords(Sequence):
    """The records in rows [start, end) of a `kafkalog.fast.columns.SCHEMA` table, as a read-only sequence
    of `Record`."""

    def __init__(self, table: pa.Table | None, start: int, end: int):
        #: The whole table the rows are part of (a fast-path run), and the rows: consumers that work on
        #: columns (`kafkalog.fast.json_lines`) take a run at a time.
        self.source, self.start, self.end = table, start, end if table is None else min(end, table.num_rows)
        # Made when asked for: `dump` formats a whole run from `source` and never needs a batch's own slice.
        self._table: pa.Table | None = None
        self._cache: tuple[int, list[Record]] | None = None

    def __len__(self) -> int:
        return max(0, self.end - self.start)

    @property
    def source_table(self) -> pa.Table:
        """`source`, which records read with columns have (all the records anyone reads)."""
        assert self.source is not None, "records read without columns"
        return self.source

    @property
    def table(self) -> pa.Table | None:
        """The records' columns (offset, timestamp, sequence, key, value, headers, control_type); None when empty."""
        if self._table is None and self.end > self.start:
            self._table = self.source_table.select(_COLUMNS).slice(self.start, self.end - self.start)
        return self._table

    def __iter__(self) -> Iterator[Record]:
        for start in range(0, len(self), BLOCK):
            yield from self._block(start)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("record index out of range")
        start = index - index % BLOCK
        return self._block(start)[index - start]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __repr__(self) -> str:
        return f"TableRecords({len(self)} records)"

    def _block(self, start: int) -> list[Record]:
        if self._cache is not None and self._cache[0] == start:
            return self._cache[1]
        table = self.table
        assert table is not None  # a block of records that are there
        block = table.slice(start, BLOCK).combine_chunks()
        cols = block.select([*_COLUMNS[:5], "control_type"]).to_pydict()
        # Headers from the flat key and value arrays: a dict per header would cost four times more.
        keys: list = []
        values: list = []
        bounds = [0]
        if block.num_rows:
            lists = block.column("headers").chunk(0)
            bounds = lists.offsets.to_pylist()
            # A slice's offsets point into the whole run's header array: only this block's headers are converted
            # (a control batch's block would otherwise convert every header of its run).
            first = bounds[0]
            key_array, value_array = lists.values.slice(first, bounds[-1] - first).flatten()
            keys, values, bounds = key_array.to_pylist(), value_array.to_pylist(), [b - first for b in bounds]
        headers = [[Header(k, v) for k, v in zip(keys[a:b], values[a:b], strict=True)] if b > a else []
                   for a, b in itertools.pairwise(bounds)]
        records = [
            Record(offset=o, timestamp=t, sequence=s, key=k, value=v, headers=hs, control_type=c)
            for o, t, s, k, v, hs, c in zip(cols["offset"], cols["timestamp"], cols["sequence"], cols["key"],
                                            cols["value"], headers, cols["control_type"], strict=True)
        ]
        self._cache = (start, records)
        return records


class StreamedRecords:
    """The records of a batch read past the decompression limit (`kafkalog.fast.streamed_batch`): a part at a
    time, each a `TableRecords`, made as they are read. They can be read once, in order; their number is
    known only at the end, so there is no len()."""

    def __init__(self, first: TableRecords, rest: Iterator[TableRecords]):
        self.first = first
        self.rest = rest
        self._started = False

    def parts(self) -> Iterator[TableRecords]:
        if self._started:
            raise RuntimeError("the records of a batch read past the decompression limit are read once")
        self._started = True
        yield self.first
        yield from self.rest

    def __iter__(self) -> Iterator[Record]:
        for part in self.parts():
            yield from part

    def drain(self) -> None:
        """Read the parts no one read, so that the reader goes on after the batch."""
        for _ in self.rest:
            pass

    def __repr__(self) -> str:
        return "StreamedRecords(a batch read past the decompression limit)"


def parts_of(records: Sequence[Record] | StreamedRecords) -> Iterator[Sequence[Record]]:
    """A batch's records as the sequences they come in: one, or a streamed batch's parts."""
    if isinstance(records, StreamedRecords):
        yield from records.parts()
    else:
        yield records

