"""Aborted transactions and read_committed visibility on the transactional partition."""
from __future__ import annotations

import base64
from collections import Counter

from kafkalog.log.partition import Partition
from kafkalog.log.transactions import ReadCommitted, partition_transactions, scan_transactions, txn_index_aborted
from tests.log.partition.partition_expected import PARTITIONS, partition

EXPECTED = [(t["producer_id"], t["first_offset"], t["last_offset"])
            for t in partition("payments-0")["aborted_transactions"]]


def _triples(txns):
    return [(t.producer_id, t.first_offset, t.last_offset) for t in txns]


def test_aborted_transactions_from_control_records_and_from_txnindex_agree_with_the_writer():
    p = Partition(PARTITIONS / "payments-0")
    assert len(EXPECTED) == 9
    assert _triples(scan_transactions(b for _, b in p.batches()).aborted) == EXPECTED
    assert _triples(txn_index_aborted(p)) == EXPECTED
    state = partition_transactions(p)
    assert _triples(state.aborted) == EXPECTED and state.last_stable_offset is None
    assert all(t.last_stable_offset is not None for t in state.aborted)  # the .txnindex entries won the merge


def _expected_invisible():
    """From the writer's records: control records, and records of a producer (its `producer` header)
    inside one of that producer's aborted transactions."""
    invisible = set()
    for r in partition("payments-0")["records"]:
        if r["control_type"] is not None:
            invisible.add(r["offset"])
            continue
        producer = dict((k, base64.b64decode(v).decode()) for k, v in r["headers"]).get("producer")
        if producer and any(f"p{pid}" == producer and first <= r["offset"] <= last for pid, first, last in EXPECTED):
            invisible.add(r["offset"])
    return invisible


def test_read_committed_hides_aborted_records_and_markers():
    p = Partition(PARTITIONS / "payments-0")
    visibility = ReadCommitted(partition_transactions(p))
    invisible = {r.offset for _, b in p.batches() if not visibility.batch_visible(b) for r in b.records}
    want = _expected_invisible()
    assert invisible == want
    reasons = Counter(visibility.invisible_reason(b) for _, b in p.batches())
    assert reasons["aborted"] > 0 and reasons["control"] > 0 and reasons["unstable"] == 0


def test_visibility_of_one_segment_alone_is_the_same():
    # What a Spark split sees: the .txnindex entries (no log scan) decide for any subset of batches.
    p = Partition(PARTITIONS / "payments-0")
    visibility = ReadCommitted(partition_transactions(p, scan_log=False))
    last = p.log_segments[-1]
    got = {r.offset for s, b in p.batches() if s is last and not visibility.batch_visible(b) for r in b.records}
    assert got == {o for o in _expected_invisible() if o >= last.base_offset}


def test_open_transaction_sets_the_last_stable_offset():
    batches = [b for _, b in Partition(PARTITIONS / "payments-0").batches()]
    cut = next(n for n, b in enumerate(batches) if b.is_control and b.records[0].control_type == "ABORT")
    state = scan_transactions(batches[:cut])  # the log as it was just before the first ABORT marker
    assert state.open_transactions[3000] == 14 and state.last_stable_offset == 14
    assert all(first > 14 for pid, first in state.open_transactions.items() if pid != 3000)
    visibility = ReadCommitted(state)
    assert all(visibility.invisible_reason(b) == "unstable" for b in batches[:cut] if b.base_offset >= 14
               and not b.is_control)
    assert all(visibility.batch_visible(b) for b in batches[:cut] if b.base_offset < 14 and not b.is_control)


def test_non_transactional_partition_hides_only_markers():
    p = Partition(PARTITIONS / "orders-0")
    visibility = ReadCommitted(partition_transactions(p))
    hidden = [b for _, b in p.batches() if not visibility.batch_visible(b)]
    assert hidden and all(b.is_control for b in hidden)
