"""The reader options parsed once into typed values: the damage mode and the offset limits."""
from __future__ import annotations

import pytest

from kafkalog.dataset.options import (
    ByPartition,
    DamageMode,
    Earliest,
    EveryPartition,
    Latest,
    parse_options,
    partition_value,
)
from kafkalog.errors import UsageError


def test_the_damage_mode_is_decided_once():
    assert parse_options({}).mode is DamageMode.FAILFAST and not parse_options({}).warn_dropped
    lenient = parse_options({"failOnDataLoss": "false"})
    assert lenient.mode is DamageMode.DROPMALFORMED and lenient.warn_dropped and not lenient.fail_on_data_loss
    # `mode` overrides failOnDataLoss for damage, and drops without warnings.
    explicit = parse_options({"failOnDataLoss": "false", "mode": " dropmalformed"})
    assert explicit.mode is DamageMode.DROPMALFORMED and not explicit.warn_dropped
    permissive = parse_options({"mode": "PERMISSIVE"})
    assert permissive.mode is DamageMode.PERMISSIVE and permissive.kafkalog_columns
    with pytest.raises(UsageError, match=r"^option mode: expected PERMISSIVE, DROPMALFORMED or FAILFAST, got 'lax'$"):
        parse_options({"mode": "lax"})


def test_offsets_and_timestamps_are_typed():
    assert parse_options({}).starting_offsets == Earliest() and parse_options({}).ending_offsets == Latest()
    assert parse_options({}, streaming=True).starting_offsets == Latest()
    every = parse_options({"startingOffsets": "150", "endingOffsets": " latest "})
    assert every.starting_offsets == EveryPartition(150) and every.ending_offsets == Latest()
    by = parse_options({"startingOffsets": '{"orders":{"0":23,"1":-2}}', "endingOffsets": "{}"})
    assert by.starting_offsets == ByPartition({"orders": {0: 23, 1: -2}}) and by.ending_offsets == Latest()
    assert partition_value(by.starting_offsets, "orders", 0) == 23
    assert partition_value(by.starting_offsets, "orders", 2) is None
    assert partition_value(by.starting_offsets, None, None) is None
    assert partition_value(Earliest(), "orders", 0) is None
    times = parse_options({"startingTimestamp": "1700000000000", "endingOffsetsByTimestamp": '{"t":{"3":5}}'})
    assert times.starting_timestamps == EveryPartition(1700000000000)
    assert times.ending_timestamps == ByPartition({"t": {3: 5}})
    with pytest.raises(UsageError, match=r"latest .-1. is not a valid start"):
        parse_options({"startingOffsets": '{"orders":{"0":-1}}'})
    with pytest.raises(UsageError, match=r"earliest .-2. is not a valid end"):
        parse_options({"endingOffsets": "-2"})
