"""Producer state snapshots (`.snapshot`), read as Kafka's `ProducerStateManager.readSnapshot` does.

Spec: `kafka_producer_snapshot.ksy`. No fast-path twin: the files are small.

The file is parsed with the generated `kafka_producer_snapshot` parser; the
CRC-32C over everything from byte 6 (the entry count) to the end is checked
here, since Kaitai Struct has none. `readSnapshot` throws on a bad version,
a CRC mismatch or a schema error; kafkalog reports the same as damage, and
keeps the entries of a snapshot whose only problem is its CRC.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

from kaitaistruct import KaitaiStream

from kafkalog._generated.kafka_producer_snapshot import KafkaProducerSnapshot
from kafkalog.errors import ChecksumError, CorruptStructureError, DamagedDataError
from kafkalog.formats.index import base_offset_of
from kafkalog.formats.parse_errors import PARSE_ERRORS, describe
from kafkalog.sources import open_path

PRODUCER_ENTRIES_OFFSET = 6  # ProducerStateManager.PRODUCER_ENTRIES_OFFSET: the CRC covers from here to the end


@dataclass(frozen=True)
class ProducerSnapshotEntry:
    """One producer's state, with Kafka's snapshot schema field names."""

    producer_id: int
    epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int


@dataclass
class ProducerSnapshot:
    offset: int | None
    version: int | None
    crc: int | None
    computed_crc: int | None
    producer_entries: list[ProducerSnapshotEntry] = field(default_factory=list)
    damage: list[DamagedDataError] = field(default_factory=list)

    @property
    def crc_valid(self) -> bool:
        return self.crc is not None and self.crc == self.computed_crc


def decode_snapshot(data: bytes, path: str | None = None, offset: int | None = None) -> ProducerSnapshot:
    snap = ProducerSnapshot(offset=offset, version=None, crc=None, computed_crc=None)
    if len(data) >= 2:
        header = KafkaProducerSnapshot.Header(KaitaiStream(io.BytesIO(data)))
        snap.version, snap.crc = header.version, header.crc if header.has_crc else None
    if len(data) >= PRODUCER_ENTRIES_OFFSET:
        import crc32c  # noqa: PLC0415  (its import reads package metadata: start-up of reads that never get here)

        snap.computed_crc = crc32c.crc32c(data[PRODUCER_ENTRIES_OFFSET:])
    try:
        parsed = KafkaProducerSnapshot(KaitaiStream(io.BytesIO(data)))
    except PARSE_ERRORS as exc:
        what = "unknown snapshot version" if snap.version not in (None, 1) else "snapshot does not parse"
        snap.damage.append(CorruptStructureError(f"{what}: {describe(exc)}", path=path, position=0))
        return snap
    if not snap.crc_valid:
        snap.damage.append(ChecksumError(
            f"snapshot is corrupt (CRC is no longer valid): stored crc {snap.crc}, computed crc {snap.computed_crc}",
            path=path, position=2))
    snap.producer_entries = [
        ProducerSnapshotEntry(e.producer_id, e.epoch, e.last_sequence, e.last_offset, e.offset_delta,
                              e.timestamp, e.coordinator_epoch, e.current_txn_first_offset)
        for e in parsed.producer_entries
    ]
    return snap


def read_snapshot(path: str | os.PathLike) -> ProducerSnapshot:
    with open_path(path) as f:
        data = f.read()
    try:
        offset = base_offset_of(path)
    except ValueError:
        offset = None
    return decode_snapshot(data, os.fspath(path), offset)
