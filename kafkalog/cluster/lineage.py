"""A replica's leader-epoch lineage, and where a follower's fetch truncates it (KIP-101, KIP-279).

The lineage is the `leader-epoch-checkpoint`'s entries, as a broker's start-up leaves them
(`LeaderEpochFileCache`: cut at the log end, the first entry moved up to the log start offset), with the
epochs of the batches recovery reads after the recovery point assigned as `LeaderEpochFileCache.assign`
does. Without a checkpoint that reads, it is the epochs of every batch served.

A follower asks the leader for the end offset of its latest epoch; the leader answers with the largest
epoch it knows at or below it, and where that epoch ends in its log (`LeaderEpochFileCache.endOffsetFor`).
The follower truncates to the smaller of that and its own end of the same epoch, or, when it does not know
the leader's epoch, to the end of its largest epoch below, and asks again
(`AbstractFetcherThread.getOffsetTruncationState`).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

UNDEFINED_EPOCH = -1
UNDEFINED_OFFSET = -1


@dataclass(frozen=True)
class EpochStart:
    epoch: int
    start_offset: int


def assign(lineage: list[EpochStart], epoch: int, start_offset: int) -> None:
    """`LeaderEpochFileCache.assign`: a new latest epoch (or an earlier start of the latest) replaces every
    entry it contradicts (an epoch not below it, or a start not below its start)."""
    if epoch < 0:
        return
    if lineage and not (epoch != lineage[-1].epoch or start_offset < lineage[-1].start_offset):
        return
    while lineage and (lineage[-1].epoch >= epoch or lineage[-1].start_offset >= start_offset):
        lineage.pop()
    lineage.append(EpochStart(epoch, start_offset))


def loaded(entries: Iterable[tuple[int, int]], log_start: int, log_end: int) -> list[EpochStart]:
    """The checkpoint's entries as start-up leaves them: `truncateFromEnd(log_end)` removes those starting at
    or after the log end, `truncateFromStart(log_start)` moves the last one below the log start up to it."""
    lineage: list[EpochStart] = []
    for epoch, start in entries:
        assign(lineage, epoch, start)
    lineage = [e for e in lineage if e.start_offset < log_end]
    below = [e for e in lineage if e.start_offset <= log_start]
    if below:
        lineage = [EpochStart(below[-1].epoch, log_start)] + [e for e in lineage if e.start_offset > log_start]
    return lineage


def end_offset_for(lineage: list[EpochStart], requested: int, log_end: int) -> tuple[int, int]:
    """`LeaderEpochFileCache.endOffsetFor`: (the largest epoch at or below `requested`, where it ends)."""
    if requested == UNDEFINED_EPOCH or not lineage:
        return UNDEFINED_EPOCH, UNDEFINED_OFFSET
    if lineage[-1].epoch == requested:
        return requested, log_end
    higher = next((e for e in lineage if e.epoch > requested), None)
    if higher is None:
        return UNDEFINED_EPOCH, UNDEFINED_OFFSET
    floor = [e for e in lineage if e.epoch <= requested]
    return (floor[-1].epoch if floor else requested), higher.start_offset


def truncation_offset(follower: list[EpochStart], follower_end: int, follower_hw: int,
                      leader: list[EpochStart], leader_end: int) -> int:
    """Where a follower with this lineage and log end truncates its log when it fetches from this leader.

    The leader is taken as just elected: a new epoch starts at its log end, as `Partition.makeLeader`
    assigns it, so its own latest epoch ends there too."""
    leader = [*leader, EpochStart((leader[-1].epoch if leader else 0) + 1, leader_end)]
    lineage, end = list(follower), follower_end
    for _ in range(len(follower) + 2):  # each round drops at least the follower's latest epoch
        if not lineage:
            # nothing to ask with: the fetch starts at the follower's high watermark
            return min(follower_hw, end)
        leader_epoch, leader_offset = end_offset_for(leader, lineage[-1].epoch, leader_end)
        if leader_offset == UNDEFINED_OFFSET:
            return min(follower_hw, end)
        own_epoch, own_offset = end_offset_for(lineage, leader_epoch, end)
        if own_epoch == UNDEFINED_EPOCH:
            return min(leader_offset, end)
        if own_epoch != leader_epoch:
            end = min(own_offset, end)
            lineage = [e for e in lineage if e.start_offset < end]
            continue
        return min(own_offset, leader_offset, end)
    return min(follower_hw, end)
