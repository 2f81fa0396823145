"""Aborted transactions, and which records a read_committed consumer does not see.

    state = partition_transactions(Partition("payments-0"))   # .txnindex files + control records
    visible = ReadCommitted(state)
    for segment, batch in partition.batches():
        if visible.batch_visible(batch):
            ...

A read_committed consumer does not see:
- control batches (transaction markers and other control records);
- the batches of an aborted transaction: transactional batches of producer P
  at offsets from the transaction's first offset to its ABORT marker (Kafka's
  consumer skips them using the broker's list of aborted transactions, which
  comes from the `.txnindex` files, `CompletedFetch`/`TransactionIndex`);
- anything at or after the last stable offset (LSO): the first offset of a
  transaction that has no marker yet; a broker serves read_committed fetches
  only up to it.

A transaction is found from the control records as the broker's
`ProducerAppendInfo` tracks it: it starts at the first transactional data
batch of a producer with no transaction open, and ends at that producer's
COMMIT or ABORT marker (a marker with no open transaction covers only itself,
`CompletedTxn(firstOffset = marker offset)`). `.txnindex` entries are used as
well, so a transaction whose start lies in a deleted segment keeps its real
first offset. Visibility depends only on a batch and the list, so it can be
decided for any subset of batches (e.g. one Spark split) once the list is known.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkalog.formats.txn_index import AbortedTxn, read_txn_index
from kafkalog.log.partition import Partition
from kafkalog.model import Batch

ABORT, COMMIT = "ABORT", "COMMIT"


@dataclass
class TransactionState:
    """What the log says about transactions: aborted ones, and those still open at its end."""

    aborted: list[AbortedTxn] = field(default_factory=list)
    #: Producer id -> first offset of its transaction that has no marker yet.
    open_transactions: dict[int, int] = field(default_factory=dict)

    @property
    def last_stable_offset(self) -> int | None:
        """First offset of the earliest open transaction; None when none is open (the LSO is the log end)."""
        return min(self.open_transactions.values()) if self.open_transactions else None


def scan_transactions(batches: Iterable[Batch]) -> TransactionState:
    """Transactions from the batches of a partition, in offset order (control records must be decoded)."""
    state = TransactionState()
    open_txns = state.open_transactions
    for batch in batches:
        if batch.magic < 2 or not batch.is_transactional:
            continue
        pid = batch.producer_id
        if not batch.is_control:
            open_txns.setdefault(pid, batch.base_offset)
            continue
        for record in batch.records:
            if record.control_type in (ABORT, COMMIT):
                first = open_txns.pop(pid, record.offset)
                if record.control_type == ABORT:
                    state.aborted.append(AbortedTxn(pid, first, record.offset))
    return state


def txn_index_aborted(partition: Partition) -> list[AbortedTxn]:
    """The entries of every `.txnindex` of the partition, in segment order."""
    found: list[AbortedTxn] = []
    for segment in partition.segments:
        if segment.txnindex is not None:
            found.extend(read_txn_index(segment.txnindex).entries)
    return found


def merge_aborted(*sources: Iterable[AbortedTxn]) -> list[AbortedTxn]:
    """One list by (producer, marker offset); the first source's entry wins (pass .txnindex entries first)."""
    merged: dict[tuple[int, int], AbortedTxn] = {}
    for source in sources:
        for txn in source:
            merged.setdefault((txn.producer_id, txn.last_offset), txn)
    return sorted(merged.values(), key=lambda t: (t.first_offset, t.last_offset))


def partition_transactions(partition: Partition, *, scan_log: bool = True) -> TransactionState:
    """Aborted and open transactions of a partition: `.txnindex` entries, plus the control records when
    `scan_log` (a full read of the log; without it open transactions are unknown)."""
    indexed = txn_index_aborted(partition)
    if not scan_log:
        return TransactionState(aborted=merge_aborted(indexed))
    scanned = scan_transactions(batch for _, batch in partition.batches())
    return TransactionState(aborted=merge_aborted(indexed, scanned.aborted),
                            open_transactions=scanned.open_transactions)


class ReadCommitted:
    """Decides what a read_committed consumer sees, batch by batch."""

    def __init__(self, state: TransactionState | Iterable[AbortedTxn], last_stable_offset: int | None = None):
        if isinstance(state, TransactionState):
            aborted, lso = state.aborted, state.last_stable_offset
        else:
            aborted, lso = list(state), None
        self.last_stable_offset = last_stable_offset if last_stable_offset is not None else lso
        self._ranges: dict[int, tuple[list[int], list[int]]] = {}
        for txn in sorted(aborted, key=lambda t: t.first_offset):
            firsts, lasts = self._ranges.setdefault(txn.producer_id, ([], []))
            firsts.append(txn.first_offset)
            lasts.append(txn.last_offset)

    def aborted(self, batch: Batch) -> bool:
        """A transactional data batch inside an aborted transaction of its producer."""
        if not batch.is_transactional or batch.is_control:
            return False
        ranges = self._ranges.get(batch.producer_id)
        if ranges is None:
            return False
        firsts, lasts = ranges
        n = bisect.bisect_right(firsts, batch.base_offset) - 1
        return n >= 0 and batch.base_offset <= lasts[n]

    def batch_visible(self, batch: Batch) -> bool:
        if batch.is_control or self.aborted(batch):
            return False
        return self.last_stable_offset is None or batch.base_offset < self.last_stable_offset

    def invisible_reason(self, batch: Batch) -> str | None:
        """None for a visible batch, else 'control', 'aborted' or 'unstable' (at or after the LSO)."""
        if batch.is_control:
            return "control"
        if self.aborted(batch):
            return "aborted"
        if self.last_stable_offset is not None and batch.base_offset >= self.last_stable_offset:
            return "unstable"
        return None
