"""Usual groups whose batches' fields differ (issue 33): batches of several producers, transactional and not, of
changed producer and leader epochs, of both timestamp types, one after the other in a group that `engine.decode_group`
took whole. The engine makes the batch-level columns that differ per batch (`engine.Group.differs`) in the one call
that wraps the group; here its record batches are held, column by column (types and null counts included), to what
the walk of a group that is not usual makes (`record_batch.MIXED_GROUPS` off), and both to the object path's rows.

The inputs are Kafka-written batches: partitions written with several producers and leader epochs
(tests/fixtures/partitions), and the batches of Kafka-written fixture segments put one after the other (each batch
whole, as Kafka wrote it).
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import engine, record_batch
from kafkalog.model import Decoder
from tests.fast.calls import count_group_calls
from tests.fast.test_fast_path import assert_same, both, entries
from tests.fast.test_usual_group import _group
from tests.paths import ROOT

SEGMENTS = ROOT / "tests" / "fixtures" / "segments"
_IS_CONTROL, _IS_TRANSACTIONAL = 0x20, 0x10


def _batches(name: str, codec: int) -> bytes:
    """The data batches (not control batches) of a Kafka-written fixture segment compressed with `codec`, whole."""
    data = (SEGMENTS / name).read_bytes()
    out = b""
    for pos, length, magic in entries(data):
        attributes = int.from_bytes(data[pos + 21:pos + 23], "big")
        if magic == 2 and attributes & 7 == codec and not attributes & _IS_CONTROL:
            out += data[pos:pos + 12 + length]
    return out


#: Kafka-written batches of one codec each whose batch-level fields differ from batch to batch.
MIXED = {
    # no producer, a transactional producer's, a plain batch, an idempotent producer's (its epoch 3), leader epochs
    # 4, 0 and 2**31 - 1
    "several producers": b"".join(_batches(name, 0) for name in (
        "v2-none.log", "v2-transactions.log", "v2-idempotent.log", "v2-small.log", "v2-large-offsets.log")),
    "both timestamp types": _batches("v2-none.log", 0) + _batches("v2-log-append-time.log", 0),
    "lz4, several producers and timestamp types": b"".join(_batches(name, 3) for name in (
        "v2-lz4.log", "v2-transactions.log", "v2-log-append-time.log", "v2-lz4-small.log")),
}
#: Segments of partitions Kafka's classes wrote with several producers and leader epochs, read whole.
PARTITIONS = sorted((ROOT / "tests" / "fixtures" / "partitions").glob("*/*.log"))


def test_the_inputs_make_usual_groups_whose_every_batch_level_field_differs():
    differs = 0
    for data in MIXED.values():
        group, _pos = _group(data)
        assert group.usual and group.differs and group.taken == len(list(entries(data)))
        differs |= group.differs
    # every column the engine makes per batch, made (but `is_control`: these are data batches; with control batches,
    # tests/fast/test_control_group.py)
    assert differs == (1 << len(engine.BATCH_COLUMNS)) - 1 - (1 << engine.BATCH_COLUMNS.index("is_control"))


def _walked(source, monkeypatch, **options) -> pa.Table:
    """The fast path's rows with the usual groups whose fields differ walked as before."""
    with monkeypatch.context() as patched:
        patched.setattr(record_batch, "MIXED_GROUPS", False)
        return read_segment_table(source, decoder=Decoder.FAST, **options)


def _assert_identical(new: pa.Table, old: pa.Table, what: str) -> None:
    assert new.schema == old.schema and new.num_rows == old.num_rows, what
    for name in old.schema.names:
        a, b = new.column(name).combine_chunks(), old.column(name).combine_chunks()
        assert a.type == b.type and a.null_count == b.null_count, f"{what}: column {name}"
        assert a.equals(b), f"{what}: column {name}: {a.to_pylist()[:8]} against {b.to_pylist()[:8]}"


@pytest.mark.parametrize("options", [{}, {"rows_per_batch": 3}], ids=["whole", "small batches"])
@pytest.mark.parametrize("name", [*MIXED, *(f"{p.parent.name}/{p.name}" for p in PARTITIONS)])
def test_a_mixed_group_s_record_batch_is_the_walked_one_byte_for_byte(name, options, monkeypatch):
    source = MIXED.get(name) or ROOT / "tests" / "fixtures" / "partitions" / name
    new = read_segment_table(source, decoder=Decoder.FAST, **options)
    _assert_identical(new, _walked(source, monkeypatch, **options), name)
    assert_same(new, read_segment_table(source, decoder=Decoder.OBJECT, **options), name)


def test_the_product_path_takes_a_mixed_group_in_one_call(monkeypatch):
    # Several producers' batches: the group wrapped once (`_usual`), not walked by Python (`_take`); for a read and
    # for a check without columns (verify's), as the object path reads them.
    calls = count_group_calls(monkeypatch)
    data = MIXED["several producers"]
    fast, ref = both(data)
    assert calls == {"_usual": 1}
    assert_same(fast, ref, "several producers")
    assert ref.column("producer_id").unique().to_pylist() == [-1, 9001, 424242]
    assert sorted(ref.column("is_transactional").unique().to_pylist()) == [False, True]
