"""The CRC-32C of many v2 batches in one compiled call, without the GIL: the fast path's twin of `kafkalog.checksums`.

Spec: `kafka_record_batch.ksy`'s `crc` field, which covers the batch from its attributes to its end.

One call per batch from Python holds the GIL for its call overhead, and python-crc32c holds it for the
whole of a batch under 32 KiB: with a thread per byte range, that serialized the threads. Here a
kernel loops over the batches and calls ISA-L's `crc32_iscsi` (the CRC-32C, hardware-accelerated, in
the copy of ISA-L that python-isal, a dependency for gzip, already carries and exports). numba links
the call by the symbol's name (`jit.link`), so the compiled kernel stays cacheable. Where python-isal's extension
does not export the symbol, `AVAILABLE` is False and callers use `kafkalog.checksums` per batch.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from kafkalog.fast import jit

jit.configure()

AVAILABLE = jit.link("isal.isal_zlib", ("crc32_iscsi",))

# unsigned int crc32_iscsi(unsigned char *buffer, int len, unsigned int init_crc): no inversion of its own.
# The pointer is passed as an address: the same register in every C calling convention numba targets.
_crc32_iscsi = types.ExternalFunction("crc32_iscsi", types.uint32(types.uintp, types.intc, types.uint32))


@nb.njit(cache=True, nogil=True)
def _crc32c_each(buf, start, length, out):
    base = buf.ctypes.data
    for i in range(len(start)):
        out[i] = _crc32_iscsi(base + start[i], np.intc(length[i]), np.uint32(0xFFFFFFFF)) ^ np.uint32(0xFFFFFFFF)


def crc32c_each(buf: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The CRC-32C of each slice ``buf[start[i]:start[i] + length[i]]`` (slices inside `buf`, lengths < 2 GiB)."""
    start = np.ascontiguousarray(start, dtype=np.int64)
    length = np.ascontiguousarray(length, dtype=np.int64)
    if len(start) and (start.min() < 0 or length.min() < 0 or (start + length).max() > len(buf)):
        raise ValueError("a slice is not inside the buffer")  # a caller's bug: the kernel would read past it
    out = np.empty(len(start), dtype=np.uint32)
    _crc32c_each(buf, start, length, out)
    return out
