"""Record lines of the batches the fast path read, written a run of batches at a time by a compiled
formatter (`kafkalog.fast.json_lines`, `text_lines`, `kafka_lines`: `kafkalog.fast.lines`, built at install) and
handed out a batch at a time.

The formatters write the same bytes as the printers that take one `Record` at a time
(`kafkalog.dump.records`, `kafkalog.dump.kafka_dump_log`), which print every batch these do not take.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafkalog.log.record_list import TableRecords

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from kafkalog.fast.batch_lines import RunText
    from kafkalog.fast.runs import Items, Run


#: A batch of more rows than this has its lines formatted a block at a time (a run's lines are formatted
#: whole, once for all its batches).
BLOCK_ROWS = 65536


@dataclass
class RunLines:
    #: The compiled formatter: (a run's table, what else the lines say) -> (the lines as bytes, where each
    #: row's line starts).
    write: Callable[..., tuple[np.ndarray, np.ndarray]]
    #: A run of plain batches' lines, batch lines included (`kafkalog.fast.batch_lines.run_text` with the
    #: format's parts): (its items, its table) -> the lines, or None where a batch is not for it.
    whole_run: Callable[[Items, pa.Table], RunText | None] | None = None
    _key: tuple = ()
    _text: np.ndarray | None = None
    _starts: np.ndarray | None = None

    def of(self, records, *args: object) -> Iterator[memoryview] | None:
        """The lines of a batch's records, a block at a time, or None when the object path made them (no
        columns to format). `args` go to the formatter: a run is formatted again when they change (rarely: a
        batch's timestamp type)."""
        if not isinstance(records, TableRecords) or not len(records):
            return None  # (no rows: nothing to write, and perhaps no table to write them from)
        if len(records) > BLOCK_ROWS:
            return self._blocks(records, args)
        if len(self._key) != 1 + len(args) or self._key[0] is not records.source or self._key[1:] != args:
            self._text, self._starts = self.write(records.source, *args)
            self._key = (records.source, *args)
        text, starts = self._text, self._starts
        assert text is not None and starts is not None  # written above for this source
        return iter((text[starts[records.start]:starts[records.end]].data,))

    def whole(self, run: Run) -> Iterator[memoryview] | None:
        """Every line of a run `kafkalog.log.segment.batch_runs` gave whole (its batches' lines, each followed by its
        records'), or None when they are written a batch at a time: a control batch, another format's, or a batch
        of more rows than a block (a large batch's lines are written a block of its rows at a time)."""
        items = run.items
        if self.whole_run is None or int((items.row_end - items.row_start).max()) > BLOCK_ROWS:
            return None
        text = self.whole_run(items, run.table)
        return None if text is None else text.views()

    def _blocks(self, records: TableRecords, args: tuple) -> Iterator[memoryview]:
        """A large batch's lines, formatted a block of its rows at a time: its lines are never all held."""
        for start in range(records.start, records.end, BLOCK_ROWS):
            text, starts = self.write(records.source_table.slice(start, min(BLOCK_ROWS, records.end - start)), *args)
            yield text[:starts[-1]].data
