"""Transaction indexes (`.txnindex`), read as Kafka's `TransactionIndex` does.

Spec: `kafka_txn_index.ksy`. No fast-path twin: the files are small.

Parsed with the generated `kafka_txn_index` parser. As Kafka's iterator,
entries are read while 34 bytes remain (a partial entry at the end is
reported, not read), and an entry whose version (the first byte, as
`AbortedTxn.version()` reads it) is above 0 ends the read.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

from kaitaistruct import KaitaiStream

from kafkalog._generated.kafka_txn_index import KafkaTxnIndex
from kafkalog.errors import CorruptStructureError, DamagedDataError, TruncatedError
from kafkalog.sources import open_path

ENTRY_SIZE = 34  # AbortedTxn.TOTAL_SIZE
CURRENT_VERSION = 0  # AbortedTxn.CURRENT_VERSION


@dataclass(frozen=True)
class AbortedTxn:
    """An aborted transaction: Kafka's `AbortedTxn`, fields snake_cased.

    `last_stable_offset` is None for one found from the control records of a
    log rather than read from a `.txnindex`.
    """

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int | None = None
    version: int = CURRENT_VERSION


@dataclass
class TxnIndexFile:
    entries: list[AbortedTxn] = field(default_factory=list)
    damage: list[DamagedDataError] = field(default_factory=list)


def decode_txn_index(data: bytes, path: str | None = None) -> TxnIndexFile:
    result = TxnIndexFile()
    parsed = KafkaTxnIndex(KaitaiStream(io.BytesIO(data)))
    for n, e in enumerate(parsed.entries):
        version = e.version >> 8  # the high byte, signed, as AbortedTxn.version() reads it
        if version > CURRENT_VERSION:
            result.damage.append(CorruptStructureError(
                f"entry {n}: unexpected aborted transaction version {version}, current version is {CURRENT_VERSION}",
                path=path, position=n * ENTRY_SIZE))
            return result
        result.entries.append(AbortedTxn(e.producer_id, e.first_offset, e.last_offset, e.last_stable_offset, version))
    if parsed.trailing:
        result.damage.append(TruncatedError(
            f"partial entry at the end: {len(parsed.trailing)} bytes left, an entry takes {ENTRY_SIZE}",
            path=path, position=len(data) - len(parsed.trailing)))
    return result


def read_txn_index(path: str | os.PathLike) -> TxnIndexFile:
    with open_path(path) as f:
        return decode_txn_index(f.read(), os.fspath(path))
