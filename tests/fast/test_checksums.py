"""The compiled engine's CRC-32C of many slices (`kafkalog.fast.compiled.crc32c_each`, ISA-L's `crc32_iscsi`)
against python-crc32c's, one slice at a time."""
from __future__ import annotations

import os
import sys

import crc32c
import numpy as np
import pytest

from kafkalog.fast import compiled


def test_isal_symbol_is_used_on_this_platform():
    # CI's Linux wheels of python-isal export crc32_iscsi; without it the threads would share the GIL again.
    if sys.platform == "linux":
        assert compiled.AVAILABLE


@pytest.mark.skipif(not compiled.AVAILABLE, reason="the engine was not built, or python-isal does not export crc32_iscsi")
def test_slices_match_crc32c():
    rng = np.random.default_rng(7)
    data = os.urandom(70_000)
    buf = np.frombuffer(data, dtype=np.uint8)
    # Empty slices, single bytes, unaligned starts, and slices past 32 KiB (where python-crc32c changes mode).
    start = np.array([0, 0, 1, 3, 17, 100, 5, 0, *rng.integers(0, 30_000, 50).tolist()], dtype=np.int64)
    length = np.array([0, 1, 1, 7, 64, 40_000, 33_000, 70_000, *rng.integers(0, 40_000, 50).tolist()], dtype=np.int64)
    got = compiled.crc32c_each(buf, start, length)
    assert got.tolist() == [crc32c.crc32c(data[s:s + n]) for s, n in zip(start.tolist(), length.tolist(), strict=True)]


@pytest.mark.skipif(not compiled.AVAILABLE, reason="the engine was not built, or python-isal does not export crc32_iscsi")
def test_slice_outside_the_buffer_is_refused():
    buf = np.zeros(10, dtype=np.uint8)
    with pytest.raises(ValueError):
        compiled.crc32c_each(buf, np.array([5]), np.array([6]))
    with pytest.raises(ValueError):
        compiled.crc32c_each(buf, np.array([-1]), np.array([2]))
