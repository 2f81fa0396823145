"""The compiled engine (`kafkalog.fast.engine`, Cython, built at install) reads v2 groups as the numba kernels do.

`decode_runs(..., engine=True)` reads the v2 groups' CRCs, LZ4 and zstd batches and records with the
engine; the runs must hold the same rows, and the same items with the same damage, as the numba kernels'
reading, on every fixture and sample Kafka wrote and on seeded mutations of them (the fast-path tests'
and the damage fuzz corpus' kinds of damage, CRCs made valid again so that the damage reaches the records).
"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from kafkalog.entries import EntryScanner
from kafkalog.fast import compiled, engine, kernels
from kafkalog.fast.segment import decode_runs
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES
from tests.fast.test_fast_path import FILES, entries as kernels_entries, fix_crcs, mutate
from tests.log.test_damage_fuzz import mutations, with_fixed_crc
from tests.paths import ROOT


def read(data: bytes, use_engine: bool, **options):
    """Every run's rows as one table, each item as a tuple, and the structural damage."""
    damage: list = []
    with EntryScanner(data, name="00000000000000000000.log", start=0, end=None,
                      max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=damage) as scanner:
        runs = list(decode_runs(scanner, "t", 0, engine=use_engine, **options))
    tables = [r.table for r in runs if r.table is not None]
    items = [(i.position, i.size, i.magic, i.base_offset, i.row_end - i.row_start, i.is_batch,
              [str(d) for d in i.damage], i.part, i.more, i.controls, i.batch is not None)
             for r in runs for i in r.items]
    return (pa.concat_tables(tables) if tables else None), items, [str(d) for d in damage]


def assert_same(data: bytes, what: str, **options) -> None:
    table, items, damage = read(data, True, **options)
    ref_table, ref_items, ref_damage = read(data, False, **options)
    assert items == ref_items, what
    assert damage == ref_damage, what
    if ref_table is None:
        assert table is None, what
        return
    assert table.schema == ref_table.schema, what
    for name in ref_table.schema.names:
        assert table.column(name).equals(ref_table.column(name)), f"{what}: column {name}"


def test_the_engine_is_compiled_and_finds_its_c_functions():
    assert compiled.AVAILABLE
    assert engine.__file__.endswith((".so", ".pyd"))  # built at install, not a Python module


def test_the_compiled_engine_is_not_older_than_its_sources():
    # An editable install compiles the engine in place once: a later change to its sources needs the set-up's
    # `pip install -e .` again, or these tests would read the old code.
    built = Path(engine.__file__)
    if not built.is_relative_to(ROOT):
        pytest.skip("the engine is installed from a wheel, without its sources")
    for source in (ROOT / "kafkalog" / "fast" / "engine.pyx", ROOT / "generated" / "kafka_kernels.pxi"):
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
    assert engine.KAFKA_RECORD_BATCH_WIDTH == kernels.k.KAFKA_RECORD_BATCH__WIDTH


def test_the_engine_finds_snappy_blocks_as_the_kernel_does():
    from kafkalog.compression import XERIAL_MAGIC
    from kafkalog.fast import compression

    assert engine.XERIAL_MAGIC == XERIAL_MAGIC
    rng = random.Random(7)
    for path in [p for p in FILES if "snappy" in p.name]:
        data = bytearray(path.read_bytes())
        for trial in range(30):
            if trial:  # damage: the framing's lengths and varints are what the finder reads
                for _ in range(rng.randint(1, 4)):
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            buf = np.frombuffer(bytes(data), dtype=np.uint8)
            starts = [p for p, _length, magic in kernels_entries(bytes(data)) if magic == 2]
            pos = np.array([p + 61 for p in starts], dtype=np.int64)
            size = np.array([int.from_bytes(data[p + 8:p + 12], "big", signed=True) - 49 for p in starts],
                            dtype=np.int64)
            keep = (size >= 0) & (pos + size <= len(buf))
            pos, size = pos[keep], size[keep]
            for blocks, room, cap in ((4096, 1 << 22, 1 << 23), (3, 1 << 22, 1 << 23), (4096, 100, 1 << 23),
                                      (4096, 1 << 22, 1000)):
                got = [np.zeros(blocks, dtype=np.int64) for _ in range(3)] + [np.zeros(len(pos), dtype=np.int64)]
                want = [np.zeros(blocks, dtype=np.int64) for _ in range(3)] + [np.zeros(len(pos), dtype=np.int64)]
                a = engine.snappy_blocks(buf, pos, size, room, cap, 1 << 22, *got)
                b = compression._snappy_blocks(buf, pos, size, room, cap, 1 << 22, *want)
                assert (int(a[0]), bool(a[1])) == (int(b[0]), bool(b[1])), (path.name, trial)
                found = int(a[0])
                used = int(want[3][found - 1]) if found else 0
                assert all((g[:used] == w[:used]).all() for g, w in zip(got[:3], want[:3])), (path.name, trial)
                assert (got[3][:found] == want[3][:found]).all(), (path.name, trial)


def test_the_engine_scans_entries_as_the_kernel_does():
    for path in FILES:
        buf = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        for start_limit, rows in ((len(buf), 4096), (len(buf) // 2, 4096), (len(buf), 2), (0, 8)):
            a, b = np.zeros((rows, 3), dtype=np.int64), np.zeros((rows, 3), dtype=np.int64)
            for max_entry in (1 << 28, 100):
                assert engine.scan_entries(buf, 0, start_limit, max_entry, a) == kernels.scan_entries(
                    buf, 0, start_limit, max_entry, b), path.name
                assert (a == b).all(), path.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_fixture_reads_the_same_with_the_engine(path):
    data = path.read_bytes()
    assert_same(data, path.name)
    assert_same(data, f"{path.name}, small tables", table_rows=3)
    assert_same(data, f"{path.name}, record columns only", record_columns_only=True)
    assert_same(data, f"{path.name}, without columns", columns=False)
    assert_same(data, f"{path.name}, headers only", records=False)
    # Batches whose records decompress past a window of 300 bytes: read a window at a time (streamed_batch).
    assert_same(data, f"{path.name}, streamed", max_decompressed_bytes=300)
    assert_same(data, f"{path.name}, streamed without columns", max_decompressed_bytes=300, columns=False)


@pytest.mark.parametrize("seed", range(3))
def test_mutations_read_the_same_with_the_engine(seed):
    rng = random.Random(seed)
    sources = [p.read_bytes() for p in FILES if 0 < p.stat().st_size < 64 * 1024]
    for i in range(60):
        data = mutate(rng.choice(sources), rng)
        if rng.random() < 0.6:
            data = fix_crcs(data)
        assert_same(data, f"seed {seed} mutation {i}", table_rows=rng.choice([5, 4096]))
        assert_same(data, f"seed {seed} mutation {i}, without columns, streamed", columns=False,
                    max_decompressed_bytes=rng.choice([300, 1 << 28]))


@pytest.mark.parametrize("path", [p for p in FILES if p.name.startswith(("v2-", "mixed")) and p.stat().st_size < 256 * 1024][:6],
                         ids=lambda p: p.name)
def test_the_damage_fuzz_corpus_reads_the_same_with_the_engine(path):
    data = path.read_bytes()
    rng = random.Random(path.name)
    for kind, pos, damaged in mutations(data, rng, 40):
        assert_same(with_fixed_crc(damaged, pos), f"{path.name} {kind} at {pos}")


def test_the_walk_stops_and_resumes_where_walk_sections_does():
    # Three records of one section, a table of two rows: WALK_FULL after two, then the third.
    path = next(p for p in FILES if p.name == "v2-none.log")
    data = np.frombuffer(path.read_bytes()[61:], dtype=np.uint8)
    count = int.from_bytes(path.read_bytes()[57:61], "big")
    assert count >= 3
    length = int.from_bytes(path.read_bytes()[8:12], "big") - 49
    pos, end = np.array([0]), np.array([length])
    declared, partial = np.array([count]), np.zeros(1, dtype=np.int64)
    headers = np.zeros((1, kernels.k.KAFKA_RECORD_BATCH__WIDTH), dtype=np.int64)
    state = np.array([0, 0, 0])
    good, err, err_pos, trailing = (np.zeros(1, dtype=np.int64) for _ in range(4))
    trailing -= 1
    why, walked = engine.walk(data, pos, end, declared, partial, state, headers, good, err, err_pos, trailing, 2)
    assert (why, walked.rows, state[0], state[2]) == (engine.WALK_FULL, 2, 0, 2)
    why, rest = engine.walk(data, pos, end, declared, partial, state, headers, good, err, err_pos, trailing, 100)
    assert (why, rest.rows, good[0], err[0]) == (engine.WALK_DONE, count - 2, count, 0)


def _uniform_v2(path) -> bool:
    return path.name.startswith("v2-") and any(c in path.name for c in ("none", "lz4", "zstd"))


@pytest.mark.parametrize("path", [p for p in FILES if _uniform_v2(p)], ids=lambda p: p.name)
def test_a_group_in_one_call_reads_what_the_numba_path_reads(path):
    data = path.read_bytes()
    ref, _items, _damage = read(data, False)
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
    assert group.taken == 1 and group.walked.rows == group.headers[0, kernels.k.KAFKA_RECORD_BATCH__NUM_RECORDS]


@pytest.mark.parametrize("name", ["v2-lz4-1m-records", "v2-lz4-count-2g", "v2-none-1m-records",
                                  "v2-zstd-1m-empty-headers", "v2-zstd-1m-records", "v2-zstd-count-2g"])
def test_the_hostile_inputs_read_the_same_with_the_engine(name):
    # Kafka-encoded batches of a million records or a count of 2^31-1 (tests/fixtures/hostile).
    assert_same((ROOT / "tests" / "fixtures" / "hostile" / f"{name}.log").read_bytes(), name)


def test_the_engine_reads_without_numba():
    # The engine is compiled ahead: reading v2 batches with it alone loads neither numba nor llvmlite.
    snippet = (
        "import sys, numpy as np\n"
        "from kafkalog.fast import compiled\n"
        "e = compiled.engine\n"
        f"buf = np.frombuffer(open({str(ROOT / 'samples' / 'v2-lz4.log')!r}, 'rb').read(), dtype=np.uint8)\n"
        "t = np.zeros((64, 3), dtype=np.int64)\n"
        "n, _, _ = e.scan_entries(buf, 0, len(buf), 1 << 28, t)\n"
        "g = e.decode_group(buf, np.ascontiguousarray(t[:n, 0]), 12 + t[:n, 1], np.empty(1 << 20, dtype=np.uint8),\n"
        "                   1 << 20, 1 << 20)\n"
        "print(g.walked.rows, 'numba' in sys.modules, 'llvmlite' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True)
    rows, numba, llvmlite = out.stdout.split()
    assert int(rows) > 0 and (numba, llvmlite) == ("False", "False")
