"""The compiled engine (`kafkalog.fast.engine`, Cython, built at install): its calls against the object path.

The product's reads through the engine are held to the object path (the generated Kaitai parsers) row for
row and damage for damage in tests/fast/test_fast_path.py, test_streamed_batch.py, tests/log and
tests/verify*; here each call of the engine on its own: the walk's stops, a group in one call, the legacy
messages, the index slots and the byte fields' copies, against what the Kaitai parsers and Python read.
"""
from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from kafkalog._generated import kafka_kernel_columns as k

from kafkalog.dataset.decode import read_segment_table
from kafkalog.fast import compiled, engine, index as fast_index, walk_codes
from kafkalog.formats.index import OffsetIndex, TimeIndex
from kafkalog.model import Decoder
from tests.fast.test_fast_path import FILES, assert_same, both, entries as object_entries, fix_crcs, mutate
from tests.fresh_home import run_in_empty_home
from tests.paths import ROOT


def test_the_engine_is_compiled_and_finds_its_c_functions():
    assert compiled.AVAILABLE
    assert engine.__file__.endswith((".so", ".pyd"))  # built at install, not a Python module


def test_the_compiled_engine_is_not_older_than_its_sources():
    # An editable install compiles the engine in place once: a later change to its sources needs the set-up's
    # `pip install -e .` again, or these tests would read the old code.
    from kafkalog.fast import lines

    if not Path(engine.__file__).is_relative_to(ROOT):
        pytest.skip("the engine is installed from a wheel, without its sources")
    fast = ROOT / "kafkalog" / "fast"
    sources = [*fast.glob("*.pyx"), *fast.glob("*.pxi"), ROOT / "generated" / "kafka_kernels.pxi"]
    assert {"engine.pyx", "lines.pyx", "buffers.pxi", "arrow_c.pxi"} <= {s.name for s in sources}
    for built in (Path(engine.__file__), Path(lines.__file__)):  # (each is rebuilt whenever either is)
        for source in sources:
            assert built.stat().st_mtime >= source.stat().st_mtime, (
                f"{built.name} is older than {source.name}: run `pip install -e .` to compile it again")


def test_the_engine_frames_entries_as_kafkalog_does():
    from kafkalog import entries
    from kafkalog.formats import framing

    assert (engine.ENTRY_POS, engine.ENTRY_LENGTH, engine.ENTRY_MAGIC) == (
        entries.ENTRY_POS, entries.ENTRY_LENGTH, entries.ENTRY_MAGIC)
    assert (engine.SCAN_END, engine.SCAN_STOP, engine.SCAN_FULL) == (entries.SCAN_END, entries.SCAN_STOP,
                                                                     entries.SCAN_FULL)
    assert (engine.LOG_OVERHEAD, engine.HEADER_SIZE_UP_TO_MAGIC, engine.MIN_ENTRY_SIZE) == (
        framing.LOG_OVERHEAD, framing.HEADER_SIZE_UP_TO_MAGIC, framing.MIN_ENTRY_SIZE)
    assert engine.KAFKA_RECORD_BATCH_WIDTH == k.KAFKA_RECORD_BATCH__WIDTH
    assert (engine.WALK_DONE, engine.WALK_FULL) == (walk_codes.WALK_DONE, walk_codes.WALK_FULL)


def test_the_walk_stops_after_its_rows_and_resumes_where_it_stopped():
    # Three records of one section, a table of two rows: WALK_FULL after two, then the third.
    path = next(p for p in FILES if p.name == "v2-none.log")
    data = np.frombuffer(path.read_bytes()[61:], dtype=np.uint8)
    count = int.from_bytes(path.read_bytes()[57:61], "big")
    assert count >= 3
    length = int.from_bytes(path.read_bytes()[8:12], "big") - 49
    pos, end = np.array([0]), np.array([length])
    declared, partial = np.array([count]), np.zeros(1, dtype=np.int64)
    headers = np.zeros((1, k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)
    state = np.array([0, 0, 0])
    good, err, err_pos, trailing = (np.zeros(1, dtype=np.int64) for _ in range(4))
    trailing -= 1
    why, walked = engine.walk(data, pos, end, declared, partial, state, headers, good, err, err_pos, trailing, 2)
    assert (why, walked.rows, state[0], state[2]) == (engine.WALK_FULL, 2, 0, 2)
    why, rest = engine.walk(data, pos, end, declared, partial, state, headers, good, err, err_pos, trailing, 100)
    assert (why, rest.rows, good[0], err[0]) == (engine.WALK_DONE, count - 2, count, 0)


def _uniform_v2(path) -> bool:
    return path.name.startswith("v2-") and any(c in path.name for c in ("none", "lz4", "zstd", "snappy", "gzip"))


@pytest.mark.parametrize("path", [p for p in FILES if _uniform_v2(p)], ids=lambda p: p.name)
def test_a_group_in_one_call_reads_what_the_object_path_reads(path):
    data = path.read_bytes()
    ref = read_segment_table(data, decoder=Decoder.OBJECT)
    buf = np.frombuffer(data, dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    v2 = table[:n][table[:n, engine.ENTRY_MAGIC] == 2]
    out = np.empty(8 << 20, dtype=np.uint8)
    group = engine.decode_group(buf, np.ascontiguousarray(v2[:, 0]), 12 + v2[:, 1], out, 4 << 20, 1 << 20)
    assert group.taken == len(v2) and group.why == engine.WALK_DONE
    assert (group.columns[5] == 0).all() and (group.columns[4] == group.columns[2]).all()  # no damage, all records
    walked = group.walked
    rows = ref.filter(pc.equal(ref.column("magic"), 2))
    assert walked.rows == rows.num_rows
    for name in ("offset", "timestamp", "sequence", "key", "value"):
        assert pa.array(getattr(walked, name)).cast(rows.schema.field(name).type).equals(
            rows.column(name).combine_chunks()), name
    headers = compiled.header_lists(walked, rows.schema.field("headers").type.value_type)
    assert headers.equals(rows.column("headers").combine_chunks())


@pytest.mark.parametrize("check", [False, True], ids=["copy", "check"])
def test_validity_bitmaps_are_arrow_s_bytes_when_the_first_null_comes_late(check):
    # The walk writes no bitmap until a column's first null, then the bytes of the rows before it at once: Kafka's
    # uncompressed batches of several fixtures one after the other (the first null after hundreds of valid rows,
    # rows not a multiple of 8) read as the object path reads them, each bitmap byte for byte as Arrow packs it (the bits past
    # the last row 0).
    names = ["samples/v2-none.log", "samples/v2-none.log", "tests/fixtures/segments/v2-offset-deltas.log",
             "tests/fixtures/segments/v2-none.log", "tests/fixtures/segments/v2-headers.log",
             "tests/fixtures/segments/v2-small.log"]
    data = b""
    for name in names:
        source = (ROOT / name).read_bytes()
        data += b"".join(source[pos:pos + 12 + length] for pos, length, magic in object_entries(source)
                         if magic == 2 and source[pos + 22] & 7 == 0)
    ref = read_segment_table(data, decoder=Decoder.OBJECT)
    buf = np.frombuffer(data, dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    group = engine.decode_group(buf, np.ascontiguousarray(table[:n, 0]), 12 + table[:n, 1], np.empty(0, np.uint8),
                                4 << 20, 1 << 20, -1, check)
    assert group.taken == n and group.why == engine.WALK_DONE and group.walked.rows == ref.num_rows
    walked = group.walked
    header_values = pc.list_flatten(ref.column("headers").combine_chunks()).field("value")
    columns = [(walked.key, ref.column("key").combine_chunks())]
    if not check:
        columns += [(walked.value, ref.column("value").combine_chunks()), (walked.header_values, header_values)]
    for got, want in columns:
        assert want.null_count and np.flatnonzero(np.asarray(want.is_null()))[0] > 16  # (the test can fail)
        assert got.null_count == want.null_count
        packed = np.packbits(np.asarray(want.is_valid()), bitorder="little").tobytes()
        assert got.buffers()[0].to_pybytes() == packed
        if not check:
            assert got.equals(want)


def test_header_keys_that_are_not_utf8_read_as_the_object_path_reads_them():
    # The walk passes a header key's ASCII bytes 8 at a time before UTF-8's rules: each byte of Kafka-written keys of
    # 16 and 10 bytes (one ending in a 4-byte character) made one that UTF-8 refuses or that starts a sequence,
    # CRCs made valid again, reads as the object path reads it (the key decoded with replacement characters).
    source = (ROOT / "tests" / "fixtures" / "segments" / "v2-headers.log").read_bytes()
    cases = 0
    for key in (b"tombstone-header", "emoji-\N{GRINNING FACE}".encode()):
        at = source.index(key)
        for i in range(len(key)):
            for byte in (0xFF, 0x80, 0xC3, 0xF0):
                data = bytearray(source)
                data[at + i] = byte
                assert_same(*both(fix_crcs(bytes(data))), f"{key!r} byte {i} = {byte:#x}")
                cases += 1
    assert cases == 4 * 26


def test_short_header_keys_that_are_not_utf8_read_as_the_object_path_reads_them():
    # A key under 8 bytes (or the last bytes of a longer one) is passed over by two loads that may overlap: each byte
    # of Kafka-written keys of 1, 5, 9 and 12 bytes made one that UTF-8 refuses or that starts a sequence reads as
    # the object path reads it (an ASCII key so changed always reads with a replacement character).
    source = (ROOT / "tests" / "fixtures" / "segments" / "v2-headers.log").read_bytes()
    cases = 0
    for key in (b"b", b"empty", "日本語".encode(), b"content-type"):
        at = source.index(bytes([2 * len(key)]) + key) + 1  # (the key after its length's varint)
        for i in range(len(key)):
            for byte in (0xFF, 0x80, 0xC3, 0xF0):
                data = bytearray(source)
                data[at + i] = byte
                fast, ref = both(fix_crcs(bytes(data)))
                assert_same(fast, ref, f"{key!r} byte {i} = {byte:#x}")
                if key.isascii():
                    keys = pc.list_flatten(ref.column("headers").combine_chunks()).field("key").to_pylist()
                    assert any("\ufffd" in k for k in keys), f"{key!r} byte {i} = {byte:#x}"
                cases += 1
    assert cases == 4 * 27


def test_a_group_in_one_call_stops_at_a_batch_it_does_not_take():
    # A CRC that does not match stops the group before that batch; the batches before it are read.
    path = next(p for p in FILES if p.name == "v2-lz4.log")
    data = bytearray(path.read_bytes())
    buf = np.frombuffer(bytes(data), dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    assert n >= 2
    second = int(table[1, 0])
    data[second + 17] ^= 0xFF  # the second batch's CRC
    buf = np.frombuffer(bytes(data), dtype=np.uint8)
    group = engine.decode_group(buf, np.ascontiguousarray(table[:n, 0]), 12 + table[:n, 1],
                                np.empty(8 << 20, dtype=np.uint8), 4 << 20, 1 << 20)
    assert group.taken == 1 and group.walked.rows == group.headers[0, k.KAFKA_RECORD_BATCH__NUM_RECORDS]


def test_a_group_in_one_call_stops_when_its_records_fill_the_group():
    # Compressed batches are taken until their records reach group_bytes: `full`, and the next batch is plain.
    path = next(p for p in FILES if p.name == "v2-zstd.log")
    buf = np.frombuffer(path.read_bytes(), dtype=np.uint8)
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    assert n >= 2
    group = engine.decode_group(buf, np.ascontiguousarray(table[:n, 0]), 12 + table[:n, 1],
                                np.empty(8 << 20, dtype=np.uint8), 4 << 20, 1 << 20, 1)
    assert group.taken == 1 and group.full
    whole = engine.decode_group(buf, np.ascontiguousarray(table[:n, 0]), 12 + table[:n, 1],
                                np.empty(8 << 20, dtype=np.uint8), 4 << 20, 1 << 20)
    assert whole.taken == n and not whole.full


@pytest.mark.parametrize("name", ["v2-none.log", "v2-lz4.log", "v2-zstd.log"])
def test_the_product_path_reads_a_group_of_plain_batches_in_one_engine_call(name, monkeypatch):
    # Issue 33: each group of plain batches is one call (headers, CRC-32C, decompression and the walk without the
    # GIL), not a call for the CRCs, one for the codec and one for the walk with Python between them.
    calls: dict[str, int] = {}

    def counting(call, fn):
        def counted(*args):
            calls[call] = calls.get(call, 0) + 1
            return fn(*args)
        return counted

    for call in ("decode_group", "walk", "crc32c_each"):
        monkeypatch.setattr(compiled, call, counting(call, getattr(compiled, call)))
    data = (ROOT / "samples" / name).read_bytes()
    table = read_segment_table(data)
    assert table.num_rows and table.column("damage").null_count == table.num_rows
    assert calls == {"decode_group": 1}, calls


def test_the_engine_writes_nothing_into_the_home_or_cache_directory(tmp_path):
    # The engine is compiled ahead (issue 33): reading v2 batches with it compiles and caches nothing.
    snippet = (
        "import numpy as np\n"
        "from kafkalog.fast import compiled\n"
        "e = compiled.engine\n"
        f"buf = np.frombuffer(open({str(ROOT / 'samples' / 'v2-lz4.log')!r}, 'rb').read(), dtype=np.uint8)\n"
        "t = np.zeros((64, 3), dtype=np.int64)\n"
        "n, _, _ = e.scan_entries(buf, 0, len(buf), 1 << 28, t)\n"
        "g = e.decode_group(buf, np.ascontiguousarray(t[:n, 0]), 12 + t[:n, 1], np.empty(1 << 20, dtype=np.uint8),\n"
        "                   1 << 20, 1 << 20)\n"
        "print(g.walked.rows)\n")
    assert int(run_in_empty_home(snippet, tmp_path).stdout) > 0


def test_the_empty_home_check_sees_a_file_written_into_the_cache(tmp_path):
    # (so that the checks above can fail: what numba's kernel cache did, a child does here)
    with pytest.raises(AssertionError, match="kernels"):
        run_in_empty_home("import os\nos.makedirs(os.path.expanduser('~/.cache/kafkalog/kernels'))", tmp_path)


LEGACY = [p for p in FILES if p.name.startswith(("v0-", "v1-", "mixed", "damaged-v1"))]


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: p.name)
def test_legacy_entries_parse_as_the_kaitai_parser_reads_them(path):
    from kaitaistruct import BytesIO, KaitaiStream

    from kafkalog.formats.message_set import Entry
    from kafkalog.formats.parse_errors import PARSE_ERRORS

    data = path.read_bytes()
    found = [(p, n) for p, n, magic in object_entries(data) if magic < 2]
    assert found
    table = np.array([[p, n, 0] for p, n in found], dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)
    messages, errors = compiled.parse_legacy_entries(buf, table, np.arange(len(found)))
    for i, (p, n) in enumerate(found):
        try:
            entry = Entry(KaitaiStream(BytesIO(data[p:p + 12 + n])))
        except PARSE_ERRORS:
            assert errors[i] != 0, (path.name, p)
            continue
        assert errors[i] == 0, (path.name, p)
        m = messages[:, i]
        message = entry.message
        assert (m[k.KAFKA_MESSAGE_SET__ENTRY__OFFSET], m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__CRC],
                m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__MAGIC], m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__LEN_KEY],
                m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__LEN_VALUE]) == (
            entry.offset, message.crc, message.magic, message.len_key, message.len_value), (path.name, p)
        key_pos, key_size = m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__KEY__POS], m[k.KAFKA_MESSAGE_SET__ENTRY__MESSAGE__KEY__SIZE]
        if key_size >= 0:
            assert data[key_pos:key_pos + key_size] == message.key, (path.name, p)


@pytest.mark.parametrize("path", [p for p in FILES if p.name.startswith(("v0-none", "v1-none", "v0-compacted"))],
                         ids=lambda p: p.name)
def test_inner_messages_walk_as_the_kaitai_parser_reads_them(path):
    # A message set's entries one after the other (a wrapper's inner set has the same layout as a segment's).
    from kafkalog._generated.kafka_message_set import KafkaMessageSet
    from kaitaistruct import BytesIO, KaitaiStream

    data = path.read_bytes()
    ref = KafkaMessageSet(KaitaiStream(BytesIO(data))).entries
    buf = np.frombuffer(data, dtype=np.uint8)
    for rows in (3, 4096):  # a table that fills (error code 1: walk on from where it stopped) and one that holds all
        table = np.zeros((k.KAFKA_MESSAGE_SET__ENTRY__WIDTH, rows), dtype=np.int64)
        offsets, pos = [], 0
        while True:
            n, err, pos = compiled.walk_messages(buf, pos, len(data), table)
            offsets += table[k.KAFKA_MESSAGE_SET__ENTRY__OFFSET, :n].tolist()
            if err != 1:
                break
        assert (err, pos) == (0, len(data)), path.name
        assert offsets == [e.offset for e in ref], path.name
    with pytest.raises(ValueError):
        compiled.walk_messages(buf, 0, len(data) + 1, table)  # past the buffer: a caller's bug, refused


INDEXES = sorted((ROOT / "tests" / "fixtures" / "partitions").glob("*/*.index")) + sorted(
    (ROOT / "tests" / "fixtures" / "partitions").glob("*/*.timeindex"))


@pytest.mark.parametrize("path", INDEXES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_index_slots_read_as_the_kaitai_parser_reads_them(path):
    kind = OffsetIndex if path.suffix == ".index" else TimeIndex
    for data in (path.read_bytes(), path.read_bytes() + b"\x07" * 5):  # and with a part of a slot after the last
        with kind(io.BytesIO(data), base_offset=0) as ours, kind(io.BytesIO(data), base_offset=0) as reference:
            got, want = fast_index.slot_columns(ours), reference.slot_table()
        assert got.shape == want.shape and (got == want).all(), path.name


def test_byte_fields_copy_as_python_slices_them():
    rng = random.Random(3)
    buf_bytes = bytes(rng.choice([0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF, 0x80, 0xF0, 0x9F]) for _ in range(4000))
    buf = np.frombuffer(buf_bytes, dtype=np.uint8)
    for trial in range(200):
        n = rng.randrange(0, 12)
        sizes = [rng.choice([-1, 0, rng.randrange(1, 9)]) for _ in range(2 * n)]
        poss = [rng.randrange(0, len(buf_bytes) - 10) for _ in range(2 * n)]
        a_pos, a_size = np.array(poss[:n], dtype=np.int64), np.array(sizes[:n], dtype=np.int64)
        b_pos, b_size = np.array(poss[n:], dtype=np.int64), np.array(sizes[n:], dtype=np.int64)
        a_offsets, a_data, a_nulls, b_offsets, b_data, b_nulls, bad = compiled.gather_pair(
            buf, a_pos, a_size, b_pos, b_size, True)
        for pos, size, offsets, data, nulls in ((a_pos, a_size, a_offsets, a_data, a_nulls),
                                                (b_pos, b_size, b_offsets, b_data, b_nulls)):
            want = [buf_bytes[p:p + z] if z >= 0 else None for p, z in zip(pos.tolist(), size.tolist(), strict=True)]
            got = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
            assert [w or b"" for w in want] == got.to_pylist(), trial
            assert nulls == sum(w is None for w in want), trial
        strings = [buf_bytes[p:p + z] for p, z in zip(a_pos.tolist(), a_size.tolist(), strict=True) if z > 0]
        valid = []
        for p, z in zip(a_pos.tolist(), a_size.tolist(), strict=True):
            try:
                buf_bytes[p:p + max(z, 0)].decode("utf-8")
                valid.append(True)
            except UnicodeDecodeError:
                valid.append(False)
        assert bad == (valid.index(False) if False in valid else -1), (trial, strings)
    with pytest.raises(ValueError):  # a field past the buffer: a caller's bug, refused before any copy
        compiled.gather_pair(buf, np.array([len(buf_bytes) - 2]), np.array([5]), np.array([0]), np.array([1]), False)


def test_legacy_reads_and_verify_write_nothing_into_the_home_or_cache_directory(tmp_path):
    # Legacy messages (plain and wrapped), the indexes and verify run on the engine, compiled ahead: nothing
    # is compiled or cached at run time.
    partition = ROOT / "tests" / "fixtures" / "partitions" / "payments-0"
    snippet = (
        "from kafkalog.dataset.decode import read_segment_table\n"
        "from kafkalog.model import Decoder\n"
        "from kafkalog.verify import verify_path\n"
        f"segments = {str(ROOT / 'tests' / 'fixtures' / 'segments')!r}\n"
        "n = sum(read_segment_table(f'{segments}/{name}', decoder=Decoder.FAST).num_rows\n"
        "        for name in ('v0-gzip.log', 'v1-lz4.log', 'mixed-formats.log', 'v0-none.log'))\n"
        f"report = verify_path({str(partition)!r})\n"
        "assert report.index_entries > 0 and report.ok, report.summary()\n"
        "print(n)\n")
    assert int(run_in_empty_home(snippet, tmp_path).stdout) > 0


def _walks(buf: np.ndarray, check: bool, max_rows: int) -> list:
    """Every v2 batch of a segment through `decode_group` (and `walk` after each stop), in check mode or not: what
    each call gives that a check needs (the sections' results, the stops, each row's section, offset and control
    type, a control record's key, the first header key that is not UTF-8)."""
    table = np.zeros((4096, 3), dtype=np.int64)
    n, _pos, _why = engine.scan_entries(buf, 0, len(buf), 1 << 28, table)
    v2 = table[:n][table[:n, engine.ENTRY_MAGIC] == 2]
    pos, size = np.ascontiguousarray(v2[:, 0]), np.ascontiguousarray(12 + v2[:, 1])
    out = np.empty(8 << 20, dtype=np.uint8)
    got, i = [], 0

    def rows(walked) -> tuple:
        controls = np.flatnonzero(walked.control != -1).tolist()
        return (walked.rows, walked.row_section.tolist(), walked.offset.tolist(), walked.control.tolist(),
                [walked.key[r].as_py() for r in controls], walked.bad_key)

    while i < len(v2):
        group = engine.decode_group(buf, pos[i:], size[i:], out, 4 << 20, max_rows, 1 << 16, check)
        got.append(("group", i, group.taken, group.full, group.why, group.headers.tolist(), rows(group.walked)))
        state, why, c = group.state, group.why, group.columns
        walked_buf = buf if not group.taken or group.headers[0, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION] == 0 \
            else out
        while why == engine.WALK_FULL:
            why, walked = engine.walk(walked_buf, c[0].copy(), c[1].copy(), c[2].copy(), c[3].copy(), state,
                                      group.headers, c[4], c[5], c[6], c[7], max_rows, check)
            got.append(("walk", why, state.tolist(), rows(walked)))
        got.append(("sections", c.tolist()))
        i += max(group.taken, 1)
    return got


@pytest.mark.parametrize("max_rows", [3, 1 << 20])
def test_a_walk_that_checks_finds_what_a_walk_that_copies_finds(max_rows):
    # `kafkalog verify`'s walk (check mode: no key, value or header copied) against the walk that builds the
    # columns: the same batches taken, stops, sections' results (records parsed, damage and where) and rows, on
    # every fixture and on seeded mutations of them (with their CRCs made valid again, to reach the records).
    rng = random.Random(33)
    sources = [p.read_bytes() for p in FILES]
    cases = list(sources)
    small = [s for s in sources if 0 < len(s) < 64 * 1024]
    for _ in range(300):
        data = mutate(rng.choice(small), rng)
        cases.append(fix_crcs(data) if rng.random() < 0.7 else data)
    damaged = 0
    for data in cases:
        buf = np.frombuffer(data, dtype=np.uint8)
        copied = _walks(buf, False, max_rows)
        assert _walks(buf, True, max_rows) == copied
        damaged += any(step[0] == "sections" and any(step[1][5]) for step in copied)
    assert damaged >= 30  # (the mutations reach the records' parsers: the test can fail)


def test_the_per_batch_helpers_give_what_numpy_gives():
    """`repeat_each`, `scaled_in_range` and `ids_by_length` (the dataset layer's per-Arrow-batch loops without the
    GIL) against numpy on random inputs, edges included, and refusing counts that would write past their rows; below
    and from `engine.RELEASE_ROWS` (a short call keeps the GIL: the same loop, called as it is)."""
    rng = np.random.default_rng(7)
    release = compiled.engine.RELEASE_ROWS
    for i in range(50):
        values = rng.integers(-2**40, 2**40, size=int(rng.integers(0, 40) if i % 2 else rng.integers(release // 2,
                                                                                                     2 * release)))
        counts = rng.integers(0, 5, size=len(values))
        assert np.array_equal(compiled.repeat_each(values, counts, int(counts.sum())), np.repeat(values, counts))
        low, high, scale = -2**35, 2**35, 1000
        out, bitmap, nulls = compiled.scaled_in_range(values, low, high, scale)
        inside = (values >= low) & (values <= high)
        assert np.array_equal(out, np.where(inside, values * scale, 0))
        assert np.array_equal(np.unpackbits(bitmap, bitorder="little")[:len(values)].astype(bool), inside)
        assert nulls == int((~inside).sum())
    with pytest.raises(ValueError):
        compiled.repeat_each(np.arange(3), np.array([1, 1, 1]), 4)
    with pytest.raises(ValueError):
        compiled.repeat_each(np.arange(3), np.array([2, -1, 2]), 3)
    for copies in (1, release):
        names = pa.array(["CreateTime", None, "", "LogAppendTime", "x" * 40] * copies)
        ids = np.array([9, 8, 7, 6], dtype=np.int32)  # by length 0, 1, 2; 3 and longer: the last
        out = np.empty(len(names), dtype=np.int32)
        compiled.ids_by_length(np.frombuffer(names.buffers()[1], dtype=np.int32), ids, out)
        lengths = [len(s or "") for s in names.to_pylist()]
        assert out.tolist() == [int(ids[n]) if n < len(ids) - 1 else int(ids[-1]) for n in lengths]
