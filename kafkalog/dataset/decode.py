"""THE decoding seam of the dataset reader: segment bytes in, Arrow record batches out.

Everything the dataset reader (`kafkalog.read_arrow`, the Spark source, the UDFs and
`ingest`) knows about decoding records is behind the two functions here,
`decode_segment_range` and `scan_transaction_markers`. Decoding itself is
`kafkalog.arrow.reader.read_segment`, whose batches are `RAW_ARROW_SCHEMA`.

Rows come out in file order: each batch's records (data and control), and in
PERMISSIVE mode one row per damage, where only `segment`, `batch_position` and
`damage` are set. `timestamp` is still Kafka's int64 milliseconds here.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa

from kafkalog.arrow import reader as arrow
from kafkalog.log.segment import SegmentReader
from kafkalog.model import Batch
from kafkalog.dataset import fs
from kafkalog.dataset.options import DEFAULT_ROWS_PER_BATCH, FAILFAST, PERMISSIVE
from kafkalog.errors import RemoteObjectError
from kafkalog.fast.columns import damage_rows

ABORT = "ABORT"


@dataclass(frozen=True)
class DecodeOptions:
    validate_checksums: bool = True
    mode: str = PERMISSIVE
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH
    #: Stop at the first undamaged v2 batch whose base offset is >= this (an exclusive end offset).
    stop_offset: int | None = None
    #: The private keys of encrypted Aiven remote segments (option remotePrivateKey).
    private_keys: str | None = None


def decode_segment_range(
    source: str | bytes,
    *,
    start: int = 0,
    end: int | None = None,
    segment: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    options: DecodeOptions = DecodeOptions(),
) -> Iterator[pa.RecordBatch]:
    """Decode the entries that start in bytes [start, end) of a segment into `RAW_ARROW_SCHEMA` batches.

    `source` is a location (local path or URI, see `kafkalog.dataset.fs`) or the segment's bytes.
    FAILFAST raises the first damage as a `DamagedDataError` naming file and byte position.
    """
    name = segment if segment is not None else (source if isinstance(source, str) else None)
    try:
        file = fs.open_binary(source, options.private_keys) if isinstance(source, str) else None
    except RemoteObjectError as exc:
        # A remote segment whose manifest does not read: its one damage row, the other segments read on.
        if options.mode == FAILFAST:
            raise
        if options.mode == PERMISSIVE:
            yield from damage_rows([exc], name).to_batches()
        return
    try:
        yield from arrow.read_segment(file if file is not None else source, name=name, start=start, end=end,
                                    topic=topic, partition=partition, mode=options.mode,
                                    validate_checksums=options.validate_checksums,
                                    rows_per_batch=options.rows_per_batch, stop_offset=options.stop_offset)
    finally:
        if file is not None:
            file.close()


def scan_transaction_markers(
    ranges: list[tuple[str, int, int]],
    lookahead: list[tuple[str, int, int]] = (),
    private_keys: str | None = None,
) -> dict[int, list[tuple[int, str]]]:
    """Transaction markers that decide the transactions of `ranges`: producer id -> [(offset, type)].

    Reads batch headers only (records of transaction-marker batches). Every marker in `ranges`
    is returned; then `lookahead` (what follows in the partition) is scanned until each producer
    with transactional data in `ranges` after its last marker there has its next marker. A
    producer whose transaction has no marker anywhere has no entry after its data.
    """
    markers: dict[int, list[tuple[int, str]]] = defaultdict(list)
    pending: set[int] = set()

    def scan(location: str, start: int, end: int, in_range: bool) -> bool:
        with fs.open_binary(location, private_keys) as f:
            reader = SegmentReader(f, name=location, start=start, end=end, decode_records=False)
            for batch in reader:
                if not batch.is_transactional:
                    continue
                pid = batch.producer_id
                if batch.is_control:
                    if in_range or pid in pending:
                        markers[pid].append((batch.base_offset, _marker_type(f, location, batch)))
                        pending.discard(pid)
                        if not in_range and not pending:
                            return True
                elif in_range:
                    pending.add(pid)
        return False

    for location, start, end in ranges:
        scan(location, start, end, True)
    for location, start, end in lookahead:
        if not pending or scan(location, start, end, False):
            break
    return dict(markers)


def _marker_type(f, location: str, batch: Batch) -> str:
    reader = SegmentReader(f, name=location, start=batch.position, end=batch.position + 1)
    for decoded in reader:
        for record in decoded.records:
            return record.control_type or "UNKNOWN"
    return "UNKNOWN"
