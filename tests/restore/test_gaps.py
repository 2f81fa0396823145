"""A partition a refusal left with records delivered past the refused one (in flight when it was refused): the
first run's error names them exactly, the offset map's state keeps them, and a second run with that map holds that
partition back (the others are restored) and says at its end what to do."""
from __future__ import annotations

from kafkalog.restore.offset_map import State
from kafkalog.restore.produce import Gap, offset_ranges
from kafkalog.restore.run import held_back, held_back_error

GAP = Gap("orders", 0, "orders-copy", 0, 300, [(301, 300), (302, 301), (303, 302), (306, 303)])


def test_offset_ranges():
    assert offset_ranges([3, 4, 5, 9, 11, 12]) == "3-5, 9, 11-12"
    assert offset_ranges([7]) == "7"
    assert offset_ranges([]) == ""


def test_the_records_past_the_refused_one_named_exactly():
    assert GAP.describe() == ("4 record(s) after it were delivered anyway (they were in flight): source offsets "
                              "301-303, 306 at target offsets 300-303 of orders-copy-0")


def test_a_second_run_holds_the_partition_back(tmp_path):
    identity = {"sources": ["/data"], "read_options": {}, "topic_map": {"orders": "orders-copy"}}
    state = State.open(tmp_path, identity)
    state.starts[State.key("orders-copy", 0)] = 0
    state.gaps[State.key("orders-copy", 0)] = GAP.to_json()
    state.save()
    again = State.open(tmp_path, identity)
    assert Gap.from_json(again.gaps["orders-copy/0"]) == GAP
    assert held_back(again, ["orders-copy/1"]) == {}  # the other partitions resume
    gaps = held_back(again, ["orders-copy/1", "orders-copy/0"])
    assert gaps == {"orders-copy/0": GAP}
    assert held_back_error(again, list(gaps.values())) == (
        "1 target partition(s) not resumed, the others were restored:\n"
        f"  target orders-copy-0: an earlier run with the offset map {tmp_path} had source orders-0 offset 300 "
        "refused, and 4 record(s) after it were delivered anyway (they were in flight): source offsets 301-303, 306 "
        "at target offsets 300-303 of orders-copy-0: the partition misses that record before them, so this offset "
        "map does not resume it (no record produced to it); once the refusal's cause is fixed, restore orders into a "
        "new topic (--topic-map orders=NEW) with a new --offset-map directory")
