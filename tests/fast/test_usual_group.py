"""The usual group (issue 33): plain v2 batches that `engine.decode_group` took whole, walked to the end, without damage
or control batch, handed to Arrow in one call (`engine.Group.record_batch`).

The product's reads are held to the object path row for row in tests/fast/test_fast_path.py; here the engine's own
record batch is held to the object path's rows (its constant columns taken from them), the groups that are not usual
are said to be so (and read as before), and the record batch's memory goes back to the engine when Arrow lets it go.
"""
from __future__ import annotations

import gc
import itertools
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import compiled, engine
from kafkalog.fast.columns import SCHEMA
from kafkalog.model import Decoder
from tests.fast.calls import count_group_calls
from tests.fast.test_fast_path import FILES, assert_same, both, fix_crcs
from tests.paths import ROOT

#: Kafka-written segments whose first batches (up to another codec's) make a usual group: of several codecs, headers,
#: LogAppendTime, offset and timestamp deltas, compacted (gaps, a batch left empty), an idempotent producer.
USUAL = [p for p in FILES if p.name.startswith("v2-") and "kraft" not in p.name and "transaction" not in p.name]
#: The columns the engine does not make: taken from the constants.
CONSTANT_NAMES = [name for name in SCHEMA.names if name not in engine.GROUP_COLUMNS]
LAYOUT = [-1 - engine.GROUP_COLUMNS.index(name) if name in engine.GROUP_COLUMNS else CONSTANT_NAMES.index(name)
          for name in SCHEMA.names]


def _segment(name: str) -> bytes:
    return next(p for p in FILES if p.name == name).read_bytes()


def _group(data: bytes, max_rows: int = 1 << 20, check: bool = False):
    """`decode_group` of every entry of `data`, and the entries' positions."""
    buf = np.frombuffer(data, dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    pos = np.ascontiguousarray(table[:n, 0])
    group = engine.decode_group(buf, pos, 12 + table[:n, 1], np.empty(8 << 20, dtype=np.uint8), 4 << 20, max_rows,
                                -1, check)
    return group, pos


@pytest.mark.parametrize("path", USUAL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_usual_group_s_record_batch_is_the_object_path_s_rows(path):
    data = path.read_bytes()
    group, pos = _group(data)
    assert group.usual and group.taken
    ref = read_segment_table(data, decoder=Decoder.OBJECT)
    ref = ref.filter(pc.is_in(ref.column("batch_position"), pa.array(pos[:group.taken])))
    assert group.rows == ref.num_rows
    longer = pa.concat_tables([ref, ref]).combine_chunks()  # (constants of more rows than the group's)
    constants = pa.RecordBatch.from_pydict({c: longer.column(c).combine_chunks() for c in CONSTANT_NAMES})
    batch = group.record_batch(compiled.constants(constants), LAYOUT, SCHEMA, pos[:group.taken])
    batch.validate(full=True)
    assert_same(pa.Table.from_batches([batch]), ref, path.name)


def test_a_usual_group_s_record_batch_takes_the_first_rows_of_longer_constants():
    data = _segment("v2-none.log")
    ref = read_segment_table(data, decoder=Decoder.OBJECT)
    group, pos = _group(data)
    longer = pa.concat_tables([ref, ref]).combine_chunks()  # (the constant columns of twice the rows)
    constants = pa.RecordBatch.from_pydict({c: longer.column(c).combine_chunks() for c in CONSTANT_NAMES})
    batch = group.record_batch(compiled.constants(constants), LAYOUT, SCHEMA, pos)
    batch.validate(full=True)
    assert batch.num_rows == ref.num_rows and pa.Table.from_batches([batch]).equals(ref)


def _producer_ids_differ() -> bytes:
    """Two Kafka-written segments' batches one after the other, their producers' ids made different."""
    first, second = _segment("v2-none.log"), bytearray(_segment("v2-none.log"))
    second[43:51] = (int.from_bytes(second[43:51], "big", signed=True) + 7).to_bytes(8, "big", signed=True)
    return first + fix_crcs(bytes(second))


def test_groups_that_are_not_usual_are_said_to_be_so_and_read_as_before():
    controls = (ROOT / "samples" / "v2-transaction.log").read_bytes()
    # a control batch (a marker), KRaft's control batches: usual, their control records' keys parsing (a key that does
    # not, or a group that holds one: tests/fast/test_control_group.py)
    assert _group(controls)[0].taken == 2 and _group(controls)[0].usual and _group(controls)[0].control_batches == 1
    assert _group(controls, check=True)[0].usual
    kraft = _segment("v2-kraft-control.log")
    assert _group(kraft)[0].usual and _group(kraft)[0].control_batches
    full, _pos = _group(_segment("v2-none.log"), max_rows=2)  # the walk stopped after two rows
    assert full.why == engine.WALK_FULL and not full.usual
    differ = _producer_ids_differ()
    group, _pos = _group(differ)
    # batch-level fields that differ: usual, those columns made per batch (tests/fast/test_mixed_group.py)
    assert group.taken > 1 and group.usual and group.differs == 1 << engine.BATCH_COLUMNS.index("producer_id")
    assert _group(differ, check=True)[0].usual  # (a check makes no columns)
    damaged = _segment("damaged-record-count.log")  # bytes after the declared records
    group, _pos = _group(damaged)
    assert group.taken and not group.usual
    for data in (controls, kraft, differ, damaged):
        assert_same(*both(data), "a group that is not usual")


def test_a_header_key_that_is_not_utf8_makes_a_group_not_usual_with_columns():
    source = bytearray(_segment("v2-headers.log"))
    source[source.index(b"tombstone-header")] = 0xFF
    data = fix_crcs(bytes(source))
    assert not _group(data)[0].usual
    assert _group(data, check=True)[0].usual
    assert_same(*both(data), "a header key that is not UTF-8")


def test_a_group_s_buffers_are_wrapped_once():
    data = _segment("v2-none.log")
    ref = read_segment_table(data, decoder=Decoder.OBJECT)
    constants = compiled.constants(pa.RecordBatch.from_pydict({c: ref.column(c).combine_chunks()
                                                               for c in CONSTANT_NAMES}))
    group, pos = _group(data)
    group.record_batch(constants, LAYOUT, SCHEMA, pos)
    with pytest.raises(ValueError):
        group.record_batch(constants, LAYOUT, SCHEMA, pos)
    with pytest.raises(ValueError):
        group.walked  # noqa: B018
    group, pos = _group(data)
    assert group.walked.rows == ref.num_rows
    with pytest.raises(ValueError):
        group.record_batch(constants, LAYOUT, SCHEMA, pos)
    checked, pos = _group(data, check=True)
    with pytest.raises(ValueError):
        checked.record_batch(constants, LAYOUT, SCHEMA, pos)
    group, pos = _group(data)
    with pytest.raises(ValueError):
        group.record_batch(constants, LAYOUT, SCHEMA, pos[:-1])  # a position per batch


def test_a_usual_group_s_memory_goes_back_to_the_engine_when_arrow_lets_it_go_in_another_thread():
    # Batches enough for the walk's buffers to be of the sizes the engine's pool keeps; the record batch dropped in
    # another thread (Arrow's release calls back into the engine there).
    one = _segment("v2-none.log")
    data = one * max(1, (2 << 20) // len(one))
    group, pos = _group(data)
    assert group.usual
    ref = read_segment_table(one, decoder=Decoder.OBJECT)
    longer = pa.concat_tables([ref] * (group.rows // ref.num_rows)).combine_chunks()
    constants = compiled.constants(pa.RecordBatch.from_pydict({c: longer.column(c).combine_chunks()
                                                               for c in CONSTANT_NAMES}))
    held = [group.record_batch(constants, LAYOUT, SCHEMA, pos)]
    del group
    assert held[0].num_rows == longer.num_rows
    kept = engine.pool_counts()["kept"]

    def drop():
        held.clear()
        gc.collect()

    worker = threading.Thread(target=drop)
    worker.start()
    worker.join()
    assert engine.pool_counts()["kept"] > kept


@pytest.mark.parametrize("columns", [True, False], ids=["read_arrow", "verify"])
def test_the_product_path_takes_a_usual_group_whole_without_a_walk_of_its_own(columns, monkeypatch):
    # Kafka-written plain batches: each group wrapped once (`_usual`), none walked or made into columns by Python;
    # read as the object path reads them (a read's rows; verify's count of records, which checks without columns).
    from kafkalog import verify

    calls = count_group_calls(monkeypatch, also=("columns", "controls_only"))  # (`_take`: a group walked by Python)
    path = ROOT / "tests" / "fixtures" / "segments" / "v2-none.log"
    ref = read_segment_table(path, decoder=Decoder.OBJECT)
    calls.clear()
    if columns:
        assert_same(read_segment_table(path, decoder=Decoder.FAST), ref, path.name)
    else:
        report = verify.verify_path(path, report=verify.VerifyReport(threads=1))
        assert report.records == ref.num_rows and report.ok
    assert calls.pop("_usual") and not calls


def test_the_byte_ranges_of_a_segment_export_its_constant_columns_once(monkeypatch):
    # The walks of a segment's byte ranges (a read on threads) share its constant columns (`Repeated`), and the
    # engine's export of them: exported once for the segment, not once a range.
    from kafkalog.dataset.decode import read_segment
    from kafkalog.fast.columns import Repeated

    data = _segment("v2-none.log")
    buf = np.frombuffer(data, dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    assert n >= 2
    calls = []
    monkeypatch.setattr(compiled, "constants", lambda batch: calls.append(batch) or engine.Constants(batch))
    shared = Repeated()
    cuts = [0, *table[1:n, 0].tolist(), len(data)]
    parts = [pa.Table.from_batches(list(read_segment(data, start=a, end=b, repeated=shared)), schema=SCHEMA)
             for a, b in itertools.pairwise(cuts)]
    assert len(calls) == 1, len(calls)  # (once a range before: as many as the ranges)
    assert pa.concat_tables(parts).equals(read_segment_table(data))


def test_a_walk_s_usual_groups_look_their_constant_columns_up_once(monkeypatch):
    # The walker keeps the last usual group's constant columns: the next groups of the same values take them without
    # asking `Repeated` again (groups made small here: several in a segment), and their rows are the same.
    from kafkalog.fast import record_batch
    from kafkalog.fast.columns import Repeated

    data = _segment("v2-none.log")
    ref = read_segment_table(data)
    asked = []
    batch = Repeated.batch
    monkeypatch.setattr(Repeated, "batch", lambda self, key, *args: asked.append(key) or batch(self, key, *args))
    monkeypatch.setattr(record_batch, "GROUP_BYTES", 64)
    calls = []
    usual = record_batch.BatchWalker._usual
    monkeypatch.setattr(record_batch.BatchWalker, "_usual", lambda self, *args: calls.append(1) or usual(self, *args))
    assert read_segment_table(data).equals(ref)
    assert len(calls) >= 2 and len(asked) == 1, (len(calls), asked)


@pytest.mark.parametrize(("value", "type_"), [(7, pa.int32()), (-1, pa.int64()), (2, pa.int32()), (True, pa.bool_()),
                                              (False, pa.bool_()), (None, pa.int32()), ("topic", pa.string()),
                                              ("", pa.string()), (None, pa.string()), (1 << 40, pa.int32())])
def test_constant_columns_are_the_value_in_the_column_s_type(value, type_):
    # (made in the column's own type; a value that does not fit it is cast, wrapped as numpy casts it, as before)
    from kafkalog.fast.columns import Repeated

    repeated = Repeated()
    for n in (3, 5000, 4):  # (made, made again longer, sliced)
        column = repeated.column(value, type_, n)
        column.validate(full=True)
        assert column.type == type_ and len(column) == n
        expected = np.full(n, value).astype(np.int32).tolist() if value == 1 << 40 else [value] * n
        assert column.to_pylist() == expected
