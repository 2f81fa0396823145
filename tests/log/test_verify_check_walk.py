"""`kafkalog verify` reads records with the engine's check mode (every record parsed and checked, no key, value or
header copied: `kafkalog.fast.engine.walk`'s `check`): its problems and counts on damaged fixtures and seeded
mutations of every fixture are those of the object path, which builds every record (the reference).

tests/fast/test_engine.py holds the engine's check mode to its copying walk call by call; here, the whole command's
report.
"""
from __future__ import annotations

import random
import re

import pytest

from kafkalog.model import Decoder
from kafkalog.verify import VerifyReport, verify_path
from tests.fast.test_fast_path import FILES, fix_crcs, mutate

DAMAGED = [p for p in FILES if p.name.startswith("damaged-")]


def report_of(path, decoder: Decoder) -> tuple:
    report = verify_path(path, report=VerifyReport(decoder=decoder, threads=1))
    problems = [re.sub(r" at 0x[0-9a-f]+", " at 0x...", str(p)) for p in report.problems]
    return problems, report.batches, report.records


def test_the_damaged_fixtures_verify_the_same_with_and_without_copying_records(tmp_path):
    assert len(DAMAGED) >= 10
    for source in DAMAGED:
        log = tmp_path / "00000000000000000000.log"
        log.write_bytes(source.read_bytes())
        fast = report_of(log, Decoder.FAST)
        assert fast[0], source.name  # (damaged: the test can fail)
        assert fast == report_of(log, Decoder.OBJECT), source.name


@pytest.mark.parametrize("seed", range(3))
def test_mutations_verify_the_same_with_and_without_copying_records(tmp_path, seed):
    rng = random.Random(3300 + seed)
    sources = [p.read_bytes() for p in FILES if 0 < p.stat().st_size < 64 * 1024]
    log = tmp_path / "00000000000000000000.log"
    damaged = 0
    for i in range(40):
        data = mutate(rng.choice(sources), rng)
        log.write_bytes(fix_crcs(data) if rng.random() < 0.6 else data)
        fast = report_of(log, Decoder.FAST)
        damaged += bool(fast[0])
        assert fast == report_of(log, Decoder.OBJECT), f"seed {seed} mutation {i}"
    assert damaged >= 10
