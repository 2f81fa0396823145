"""What a walk of the fast path over a segment's range reads, shared by the decoders of its entries."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pyarrow as pa

from kafkalog.fast.columns import RECORD_SCHEMA, Repeated


class TableSink(Protocol):
    """Where rows go: a run being built (`kafkalog.fast.runs.RunBuilder`)."""

    def add_table(self, table: pa.Table) -> None: ...


@dataclass(slots=True)
class WalkOptions:
    """What a walk over a segment's range reads, and the constant columns its decoders share."""

    path: str | None
    topic: str | None
    partition: int | None
    #: The most bytes a batch may decompress to (`max_decompressed_bytes`).
    limit: int
    #: False: batch headers and CRCs only.
    records: bool = True
    #: False: every record parsed and checked, no columns made.
    columns: bool = True
    #: Only the columns a `Record` holds.
    record_columns_only: bool = False
    #: A batch whose records decompress past this many bytes is read in parts, a window at a time
    #: (`kafkalog.fast.streamed_batch`); at most the limit.
    stream_bytes: int = 1 << 62
    #: Columns whose value is the same on many rows, made once and sliced.
    repeated: Repeated = field(default_factory=Repeated)

    def keep(self, run: TableSink, table: pa.Table) -> None:
        """A table of rows into the run, with the columns asked for."""
        run.add_table(table.select(RECORD_SCHEMA.names) if self.record_columns_only else table)
