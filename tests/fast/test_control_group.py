"""Usual groups with control batches (issue 33): a transaction's COMMIT and ABORT markers (and KRaft's control
records) in a group that `engine.decode_group` took whole. The engine makes their `control_type` (each control
record's type by name, null on data rows) and the per-batch `is_control` in the one call that wraps the group; without
columns (verify's check), each control batch's item carries its control records' offsets and types. Here they are
held, column by column (types and null counts included), to what the walk of a group that is not usual makes
(`record_batch.CONTROL_GROUPS` off), and both to the object path's rows; a control key that does not parse leaves
its group to the walk, with today's worded damage.

The inputs are Kafka-written batches, whole: transactional producers' data, their markers written by
`MemoryRecords.withEndTransactionMarker` (tests/fixtures: segments and the payments-0 partition, two producers'
commits and aborts interleaved with snappy data), put one after the other as tests/fast/test_mixed_group.py does:
uncompressed and lz4 data with markers among it, a marker alone between compressed groups, markers only.
"""
from __future__ import annotations

import pytest

from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import engine, record_batch
from kafkalog.model import Decoder
from tests.fast.calls import count_group_calls
from tests.fast.test_fast_path import assert_same, counted, entries, fix_crcs, scanned
from tests.fast.test_mixed_group import PARTITIONS, SEGMENTS, _assert_identical
from tests.fast.test_usual_group import _group
from tests.paths import ROOT

_IS_CONTROL = 0x20


def _select(name: str, codec: int | None = None, control: bool | None = None) -> list[bytes]:
    """The batches of a Kafka-written fixture segment, whole: of `codec` (any: None), control batches or not."""
    data = (SEGMENTS / name).read_bytes()
    out = []
    for pos, length, magic in entries(data):
        attributes = int.from_bytes(data[pos + 21:pos + 23], "big")
        if magic == 2 and (codec is None or attributes & 7 == codec) and (
                control is None or bool(attributes & _IS_CONTROL) == control):
            out.append(data[pos:pos + 12 + length])
    return out


_MARKERS = _select("v2-transactions.log", control=True)  # COMMIT and ABORT, of producers 9001 and 9002
_LZ4 = _select("v2-lz4.log", 3) + _select("v2-transactions.log", 3)  # a plain producer's, a transactional one's

#: Kafka-written batches, markers among the data: (a marker sorts groups no other way than its codec, none).
CONTROLS = {
    # uncompressed: two transactional producers' data, a plain batch, commits and an abort, in one group
    "none, markers among the data": b"".join(_select("v2-transactions.log", 0)) + b"".join(_select("v2-none.log")),
    # lz4 groups, a marker alone between them (its own group: another codec), two markers together
    "lz4, markers alone and together": b"".join([_LZ4[0], _MARKERS[0], _LZ4[1], _MARKERS[1], _MARKERS[2],
                                                 *_LZ4[2:], _MARKERS[3]]),
    "markers only": b"".join(_MARKERS),
    "kraft control records": (SEGMENTS / "v2-kraft-control.log").read_bytes(),
    "sample transaction": (ROOT / "samples" / "v2-transaction.log").read_bytes(),
}


def _source(name: str):
    return CONTROLS.get(name) or ROOT / "tests" / "fixtures" / "partitions" / name


def test_the_inputs_hold_commits_aborts_and_groups_of_markers():
    assert len(_MARKERS) == 4 and len(_LZ4) >= 3
    types = read_segment_table(b"".join(_MARKERS), decoder=Decoder.OBJECT).column("control_type").to_pylist()
    assert sorted(set(types)) == ["ABORT", "COMMIT"]
    group, _pos = _group(CONTROLS["markers only"])
    assert group.usual and group.control_batches == group.taken == 4 and group.differs  # (two producers)
    group, _pos = _group(CONTROLS["none, markers among the data"])
    assert group.usual and 0 < group.control_batches < group.taken
    assert group.differs & 1 << engine.BATCH_COLUMNS.index("is_control")


def _old_path(source, monkeypatch, **options):
    with monkeypatch.context() as patched:
        patched.setattr(record_batch, "CONTROL_GROUPS", False)
        return read_segment_table(source, decoder=Decoder.FAST, **options)


@pytest.mark.parametrize("options", [{}, {"rows_per_batch": 3}], ids=["whole", "small batches"])
@pytest.mark.parametrize("name", [*CONTROLS, *(f"{p.parent.name}/{p.name}" for p in PARTITIONS
                                               if p.parent.name == "payments-0")])
def test_a_control_group_s_record_batch_is_the_walked_one_and_the_object_path_s(name, options, monkeypatch):
    source = _source(name)
    new = read_segment_table(source, decoder=Decoder.FAST, **options)
    _assert_identical(new, _old_path(source, monkeypatch, **options), name)
    assert_same(new, read_segment_table(source, decoder=Decoder.OBJECT, **options), name)


@pytest.mark.parametrize("name", [*CONTROLS, "payments-0/00000000000000000000.log"])
def test_a_check_of_a_control_group_gives_its_markers_as_the_object_path_does(name):
    # verify's scan (columns=False): each control batch's records' offsets and types (what its aborts come from)
    source = _source(name)
    assert scanned(source) == counted(source)


def test_the_product_path_takes_control_groups_in_one_call(monkeypatch):
    # Every group, of lz4 data, of a marker alone, of two markers, wrapped once (`_usual`), none walked (`_take`); for
    # a read and for a check without columns.
    calls = count_group_calls(monkeypatch)
    for name in ("lz4, markers alone and together", "none, markers among the data", "markers only"):
        source = CONTROLS[name]
        read_segment_table(source, decoder=Decoder.FAST)
        scanned(source)
    assert calls.get("_take", 0) == 0 and calls["_usual"] >= 2 * (5 + 1 + 1)


def _with_control_key(data: bytes, key: bytes) -> bytes:
    """The Kafka-written markers with the first one's control key (version, type: 4 bytes) replaced."""
    out = bytearray(data)
    pos, _length, _magic = next(iter(entries(data)))
    at = data.index(b"\x08\x00\x00\x00", pos + 61)  # (the key's length, zigzag 4, then version 0)
    out[at + 1:at + 5] = key
    return fix_crcs(bytes(out))


@pytest.mark.parametrize("key", [b"\xff\xff\x00\x01", b"\x00\x00\x00\x09", b"\x00\x00\x7f\xff", b"\x00\x00\xff\xff"],
                         ids=["does not parse", "unknown", "unknown, high", "negative"])
def test_a_control_key_that_does_not_parse_leaves_its_group_to_the_walk(key, monkeypatch):
    data = _with_control_key(CONTROLS["markers only"], key)
    group, _pos = _group(data)
    known = key[:2] == b"\x00\x00" and key[2] < 0x80  # (a negative type: left to the walk, as a key that does not parse)
    assert group.taken == 4 and group.usual == known
    fast, ref = read_segment_table(data, decoder=Decoder.FAST), read_segment_table(data, decoder=Decoder.OBJECT)
    assert_same(fast, ref, "a control key")
    assert fast.column("control_type").to_pylist()[0] == "UNKNOWN"
    assert (fast.column("damage").null_count == fast.num_rows) == (key[:2] == b"\x00\x00")
    _assert_identical(fast, _old_path(data, monkeypatch), "a control key")
    assert scanned(data) == counted(data)
