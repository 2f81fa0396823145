"""A Kafka 0.7 segment (`<20-digit byte offset>.kafka`) read entry by entry, as 0.7's `FileMessageSet` reads it.

    for entry in read_entries("events-0/00000000000000000225.kafka", damage=damage):
        entry.offset, [(m.offset, m.payload) for m in entry.messages]

Each entry is read whole (its size bounded by `max_entry_bytes` and by the bytes the file has), then
decoded by `kafkalog.formats.kafka_07_log`. The file's base offset is the number its name starts with
(0 for another name). Where 0.7's `FileMessageSet` iterator stops, the read ends with a damage in `damage`,
worded as what 0.7's recovery (`FileMessageSet.recover`, run on the last segment after an unclean
shutdown) does there: it truncates the log at the first entry that is cut short (fewer than 4 bytes of size,
or fewer bytes than the size says), whose size is below 5, or whose CRC does not match. An entry whose CRC
does not match is still read (its damage says so), and the read goes on after it: the size around it holds.
"""
from __future__ import annotations

from collections.abc import Iterator

from kafkalog import file_names
from kafkalog.errors import CorruptStructureError, DamagedDataError, TruncatedError
from kafkalog.formats.kafka_07_log import LOG_OVERHEAD, MIN_MESSAGE_SIZE, Entry07, decode_entry, entry_size
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES
from kafkalog.sources import Source, open_source

_RECOVERY = "0.7's recovery truncates the log here"


def read_entries(source: Source, *, name: str | None = None, start: int = 0, end: int | None = None,
                 base_offset: int | None = None, max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
                 damage: list[DamagedDataError] | None = None) -> Iterator[Entry07]:
    """The entries that start in bytes [start, end) of a 0.7 segment, in file order.

    `source` is a path, bytes or a seekable binary file; `name` names it in errors (a path's own name
    by default). `base_offset` is the file's byte offset in the partition (by default the number its
    name starts with, else 0). Damage that ends the read goes to `damage`.
    """
    damage = damage if damage is not None else []
    f, owned, own_name = open_source(source)
    name = name if name is not None else own_name
    if base_offset is None:
        base_offset = (file_names.base_offset_of(name) if name else None) or 0
    try:
        size = f.seek(0, 2)
        stop = size if end is None else min(end, size)
        position = start
        while position < stop:
            f.seek(position)
            header = f.read(LOG_OVERHEAD)
            if len(header) < LOG_OVERHEAD:
                damage.append(TruncatedError(f"partial entry at the end: {len(header)} bytes left, an entry's size "
                                             f"takes {LOG_OVERHEAD} ({_RECOVERY})", path=name, position=position))
                return
            length = entry_size(header)
            if length < MIN_MESSAGE_SIZE:
                damage.append(CorruptStructureError(
                    f"entry size {length} is below the minimum of {MIN_MESSAGE_SIZE} bytes (Message.MinHeaderSize): "
                    f"0.7 reads no further ({_RECOVERY})", path=name, position=position))
                return
            left = size - position - LOG_OVERHEAD
            if length > left:
                damage.append(TruncatedError(f"partial entry at the end: its size is {length} bytes, {left} remain "
                                             f"({_RECOVERY})", path=name, position=position))
                return
            if length > max_entry_bytes:
                damage.append(CorruptStructureError(
                    f"entry size {length} is above the limit of {max_entry_bytes} bytes (max_entry_bytes); "
                    "the entry is skipped", path=name, position=position))
                position += LOG_OVERHEAD + length
                continue
            entry = decode_entry(f.read(length), position, base_offset + position, name)
            yield entry
            position += entry.size
    finally:
        if owned:
            f.close()
