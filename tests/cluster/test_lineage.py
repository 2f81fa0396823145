"""Where a follower's fetch truncates it: the examples of KIP-101 and KIP-279, worked as Kafka's
`LeaderEpochFileCache.endOffsetFor` and `AbstractFetcherThread.getOffsetTruncationState` work them."""
from __future__ import annotations

from kafkalog.cluster.lineage import EpochStart, assign, end_offset_for, loaded, truncation_offset


def lineage(*pairs: tuple[int, int]) -> list[EpochStart]:
    return [EpochStart(e, s) for e, s in pairs]


def test_end_offset_for_an_epoch_is_where_the_next_one_starts():
    cache = lineage((0, 0), (2, 100), (5, 250))
    assert end_offset_for(cache, 0, 300) == (0, 100)
    assert end_offset_for(cache, 1, 300) == (0, 100)  # unknown: the largest epoch below, its end
    assert end_offset_for(cache, 5, 300) == (5, 300)  # the latest: the log end
    assert end_offset_for(cache, 7, 300) == (-1, -1)
    assert end_offset_for(lineage((3, 40)), 1, 90) == (1, 40)  # below every epoch: where the first starts
    assert end_offset_for([], 1, 90) == (-1, -1)


def test_a_follower_that_shares_the_leaders_lineage_keeps_its_log():
    leader = lineage((0, 0), (1, 100))
    assert truncation_offset(lineage((0, 0), (1, 100)), 150, 150, leader, 200) == 150


def test_an_old_leaders_unreplicated_tail_goes():
    """KIP-101's scenario: the old leader wrote offsets 100-149 in epoch 0 that no follower copied; the new
    leader (epoch 1) wrote its own from 100."""
    old_leader = lineage((0, 0))
    new_leader = lineage((0, 0), (1, 100))
    assert truncation_offset(old_leader, 150, 90, new_leader, 180) == 100


def test_a_follower_with_an_epoch_the_leader_never_had_asks_again():
    """KIP-279: the follower's epoch 2 (an unclean leader's) is unknown to the leader; it truncates to the end of
    its epoch 1, then asks for epoch 1, which the leader's lineage ends at 120."""
    follower = lineage((0, 0), (1, 100), (2, 150))
    leader = lineage((0, 0), (1, 100), (3, 120))
    assert truncation_offset(follower, 200, 0, leader, 300) == 120


def test_a_leader_whose_log_is_shorter_cuts_the_follower_at_its_end():
    follower = lineage((0, 0), (4, 50))
    leader = lineage((0, 0), (4, 50))
    assert truncation_offset(follower, 90, 50, leader, 70) == 70


def test_without_epochs_the_follower_falls_back_to_its_high_watermark():
    assert truncation_offset([], 90, 40, lineage((0, 0)), 70) == 40


def test_start_up_cuts_the_checkpoint_to_the_log():
    """`truncateFromEnd` at the log end, `truncateFromStart` at the log start (the entry below moves up)."""
    assert loaded([(0, 0), (1, 100), (2, 200)], 150, 200) == lineage((1, 150))
    assert loaded([(0, 0), (1, 100), (2, 200)], 0, 201) == lineage((0, 0), (1, 100), (2, 200))


def test_assign_replaces_the_entries_a_new_epoch_contradicts():
    cache = lineage((0, 0), (3, 100), (4, 150))
    assign(cache, 3, 90)  # an earlier start of epoch 3: epochs 3 and 4 from 100 on go
    assert cache == lineage((0, 0), (3, 90))
    assign(cache, 3, 120)  # the same epoch, later: nothing to do
    assert cache == lineage((0, 0), (3, 90))
    assign(cache, -1, 130)  # magic 0/1 batches have no epoch
    assert cache == lineage((0, 0), (3, 90))
