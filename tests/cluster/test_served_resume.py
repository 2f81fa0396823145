"""Several brokers' disks read again (a stream's next trigger) resume each replica's recovery walk where a segment
only grew, as one disk's do (tests/log/test_served_log.py): three copies of a real 4.3.1 broker's log directory
(tests/brokers/fixtures/log-dirs), node ids 1-3, as killed brokers leave them (no clean shutdown marker: every
segment from the recovery point is walked), their t-1 segment cut after its first batch, then grown back."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kafkalog.cluster.served import cluster_view
from kafkalog.dataset import plan
from kafkalog.dataset.options import parse_options
from kafkalog.dataset.served import TailedLogs
from tests.log.test_served_log import FIXTURE, SECOND_BATCH, SEGMENT

NODES = (1, 2, 3)


@pytest.fixture
def disks(tmp_path) -> list[Path]:
    out = []
    for n in NODES:
        d = tmp_path / f"node-{n}" / "data"
        shutil.copytree(FIXTURE, d)
        meta = d / "meta.properties"
        text = re.sub(r"node\.id=\d+", f"node.id={n}", meta.read_text())
        meta.write_text(re.sub(r"directory\.id=\S", f"directory.id={'ABCD'[n]}", text))  # (a UUID each)
        (d / ".kafka_cleanshutdown").unlink()
        out.append(d)
    return out


def _segments(disks: list[Path]) -> list[Path]:
    return [d / "t-1" / SEGMENT for d in disks]


def _summary(view) -> list:
    """What a view says (bounds compare without how they were found), partition by partition."""
    return [(p.topic, p.partition, p.leader, p.election, [(r.broker, r.bounds, r.discarded_from) for r in p.replicas])
            for p in view.partitions]


def test_a_view_of_the_disks_resumes_the_walks_of_the_last_one(disks):
    whole = _segments(disks)[0].read_bytes()
    for seg in _segments(disks):
        seg.write_bytes(whole[:SECOND_BATCH])  # offset 0 only, as each broker had written it at the last trigger
    paths = [str(d) for d in disks]
    first = cluster_view(paths)
    walks = [first.replica_bounds()[str(s.parent)].walks[str(s)] for s in _segments(disks)]
    assert [(w.valid_bytes, w.resumed_from, w.scanned_bytes) for w in walks] == [(SECOND_BATCH, 0, SECOND_BATCH)] * 3

    grown = _segments(disks)[:2]
    for seg in grown:  # 1-31 appended on two disks; the third broker's copy changed (its last batch rewritten)
        seg.write_bytes(whole)
    changed = bytearray(whole[:SECOND_BATCH])
    changed[70] ^= 1
    _segments(disks)[2].write_bytes(bytes(changed))
    again = cluster_view(paths, previous=first.replica_bounds())
    assert _summary(again) == _summary(cluster_view(paths))  # what a view from the start says
    bounds = again.replica_bounds()
    for seg in grown:  # the batch checked (offset 0's), then the one appended: not the segment again from its start
        walk = bounds[str(seg.parent)].walks[str(seg)]
        assert (walk.resumed_from, walk.valid_bytes, walk.scanned_bytes) == (SECOND_BATCH, len(whole), len(whole))
        assert bounds[str(seg.parent)].recovered_end_offset == 32
    third = bounds[str(_segments(disks)[2].parent)]
    walk = third.walks[str(_segments(disks)[2])]
    assert (walk.resumed_from, third.recovered_end_offset) == (0, 0)  # its CRC does not match: from its start
    # t-0 did not change: one batch checked on each disk, nothing walked
    t0 = [bounds[str(d / "t-0")].walks[str(d / "t-0" / SEGMENT)] for d in disks]
    assert all(w.resumed_from == w.valid_bytes > 0 and w.scanned_bytes < w.valid_bytes for w in t0)


def test_a_streams_reads_of_the_disks_keep_the_replicas_bounds_from_one_trigger_to_the_next(disks):
    """What a stream's trigger asks (`plan.wanted_segments` with its `TailedLogs`): each replica's bounds kept, the
    next trigger's walks resuming from them."""
    whole = _segments(disks)[0].read_bytes()
    for seg in _segments(disks):
        seg.write_bytes(whole[:SECOND_BATCH])
    pattern = str(disks[0].parent.parent / "*" / "data")
    options = parse_options({"subscribe": "t"}, streaming=True)
    logs = TailedLogs()
    before = {s.location for s in plan.wanted_segments(pattern, options, logs=logs)}
    assert {str(s.parent) for s in _segments(disks)} <= set(logs.replica_bounds)
    for seg in _segments(disks):
        seg.write_bytes(whole)
    logs.next_trigger()
    after = {s.location for s in plan.wanted_segments(pattern, options, logs=logs)}
    assert after == before
    for seg in _segments(disks):
        walk = logs.replica_bounds[str(seg.parent)].walks[str(seg)]
        assert (walk.resumed_from, walk.scanned_bytes) == (SECOND_BATCH, len(whole))
