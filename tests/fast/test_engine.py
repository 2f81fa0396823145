"""The compiled engine (`kafkalog.fast.engine`, Cython, built at install) reads v2 groups as the numba kernels do.

`decode_runs(..., engine=True)` reads the v2 groups' CRCs, LZ4 and zstd batches and records with the
engine; the runs must hold the same rows, and the same items with the same damage, as the numba kernels'
reading, on every fixture and sample Kafka wrote and on seeded mutations of them (the fast-path tests'
and the damage fuzz corpus' kinds of damage, CRCs made valid again so that the damage reaches the records).
"""
from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from kafkalog.entries import EntryScanner
from kafkalog.fast import compiled, engine, kernels
from kafkalog.fast.segment import decode_runs
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES
from tests.fast.test_fast_path import FILES, fix_crcs, mutate
from tests.log.test_damage_fuzz import mutations, with_fixed_crc


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


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_fixture_reads_the_same_with_the_engine(path):
    data = path.read_bytes()
    assert_same(data, path.name)
    assert_same(data, f"{path.name}, small tables", table_rows=3)
    assert_same(data, f"{path.name}, record columns only", record_columns_only=True)


@pytest.mark.parametrize("seed", range(3))
def test_mutations_read_the_same_with_the_engine(seed):
    rng = random.Random(seed)
    sources = [p.read_bytes() for p in FILES if 0 < p.stat().st_size < 64 * 1024]
    for i in range(60):
        data = mutate(rng.choice(sources), rng)
        if rng.random() < 0.6:
            data = fix_crcs(data)
        assert_same(data, f"seed {seed} mutation {i}", table_rows=rng.choice([5, 4096]))


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
