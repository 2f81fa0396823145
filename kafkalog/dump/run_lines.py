"""Record lines of the batches the fast path read, written a block of rows of a run at a time (about a MiB) by a
compiled formatter (`kafkalog.fast.json_lines`, `text_lines`, `kafka_lines`: `kafkalog.fast.lines`, built at install)
and handed out a batch at a time; or a run's every line, its batch lines among its records', a block at a time.

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
    from kafkalog.fast.line_parts import BlockWriter
    from kafkalog.fast.runs import Items, Run


#: A batch's lines are handed out a block of at most this many of its rows at a time (and of about
#: `kafkalog.fast.batch_lines.BLOCK_BYTES`): a large batch's lines are never all held.
BLOCK_ROWS = 65536


@dataclass
class RunLines:
    #: The compiled formatter of a run's record lines a block at a time: (a run's table, what else the lines say)
    #: -> a `kafkalog.fast.line_parts.BlockWriter`.
    blocks: Callable[..., BlockWriter]
    #: A run of plain batches' lines, batch lines included (`kafkalog.fast.batch_lines.run_text` with the
    #: format's parts): (its items, its table) -> the lines, or None where a batch is not for it.
    whole_run: Callable[[Items, pa.Table], RunText | None] | None = None
    _key: tuple = ()
    _writer: BlockWriter | None = None
    _text: np.ndarray | None = None  # the last block written, of rows _first to _end of the source
    _starts: np.ndarray | None = None
    _first: int = 0
    _end: int = 0

    def of(self, records, *args: object) -> Iterator[memoryview] | None:
        """The lines of a batch's records, a block at a time, or None when the object path made them (no
        columns to format). `args` go to the formatter: a run is formatted again when they change (rarely: a
        batch's timestamp type). A block holds the lines of the batches after this one as far as it reaches: they
        are handed out from it."""
        if not isinstance(records, TableRecords) or not len(records):
            return None  # (no rows: nothing to write, and perhaps no table to write them from)
        if len(self._key) != 1 + len(args) or self._key[0] is not records.source or self._key[1:] != args:
            self._writer = self.blocks(records.source, *args)
            self._key = (records.source, *args)
            self._text = self._starts = None
        return self._views(records.start, records.end)

    def _views(self, start: int, end: int) -> Iterator[memoryview]:
        from kafkalog.fast.batch_lines import BLOCK_BYTES  # (loaded with the fast path, which made the records)

        while start < end:
            if self._text is None or not self._first <= start < self._end:
                assert self._writer is not None  # (made with the key)
                self._text = None  # (let go before the next is written, which may take its memory)
                rows = self._key[0].num_rows
                self._text, self._starts, written, _ = self._writer(start, min(BLOCK_ROWS, rows - start),
                                                                    BLOCK_BYTES, 0)
                self._first, self._end = start, start + written
            stop = min(end, self._end)
            text, starts, first = self._text, self._starts, self._first
            assert starts is not None
            yield text[starts[start - first]:starts[stop - first]].data
            start = stop

    def whole(self, run: Run) -> Iterator[memoryview] | None:
        """Every line of a run `kafkalog.log.segment.batch_runs` gave whole (its batches' lines, each followed by its
        records'), a block at a time, or None when they are written a batch at a time: a control batch, another
        format's."""
        if self.whole_run is None:
            return None
        text = self.whole_run(run.items, run.table)
        return None if text is None else text.views()
