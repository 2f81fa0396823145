"""Remote segments on the partition's leader epoch lineage, as the broker's
`RemoteLogManager.isRemoteSegmentWithinLeaderEpochs` decides: the cases of Kafka's own
`RemoteLogManagerTest.testRemoteSegmentWithinLeaderEpochs*` (those that do not turn on the log end offset,
which kafkalog leaves to the local log)."""
from __future__ import annotations

import pytest

from kafkalog.dataset.remote_roots import SegmentState, within_lineage

LINEAGE = [(0, 0), (1, 10), (2, 20), (3, 30), (4, 40), (5, 50), (7, 70)]
OVERLAPPING = [(7, 51), (9, 100)]


def _segment(start: int, end: int, epochs: dict[int, int]) -> SegmentState:
    return SegmentState("id", "t", 0, start, end, 1, tuple(epochs.items()))


@pytest.mark.parametrize("start, end, epochs, lineage, within", [
    (15, 35, {1: 15, 2: 20, 3: 30}, LINEAGE, True),
    (15, 19, {1: 15}, LINEAGE, True),
    (0, 5, {0: 0}, LINEAGE, True),
    (70, 75, {7: 70}, LINEAGE, True),
    (15, 29, {1: 15, 2: 20}, LINEAGE, True),
    (55, 85, {5: 55, 6: 60, 7: 70}, LINEAGE, False),
    (15, 45, {1: 15, 2: 20, 4: 40}, LINEAGE, False),
    (5, 25, {1: 5, 2: 20}, LINEAGE, False),
    (15, 35, {1: 15, 2: 20}, LINEAGE, False),
    (14, 150, {5: 14, 7: 15, 9: 100}, OVERLAPPING, True),
    (2, 7, {2: 5, 3: 6}, OVERLAPPING, False),
    (15, 250, {7: 15, 9: 100, 10: 200}, OVERLAPPING, False),
    (75, 100, {8: 75}, OVERLAPPING, False),
    (15, 150, {7: 15, 9: 101}, OVERLAPPING, False),
    (99, 150, {9: 99}, OVERLAPPING, False),
])
def test_kafkas_own_cases(start, end, epochs, lineage, within):
    assert within_lineage(_segment(start, end, epochs), lineage) is within
