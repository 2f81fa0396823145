"""Kafka 0.7 messages: from the generated parser to `Entry07` and `Message07`, offsets as 0.7 gives them.

Spec: `kafka_07_log.ksy`. Twin: none (0.7 logs are rare; the object path reads them in every door).

One shallow entry of a `.kafka` file becomes one `Entry07`, with the messages 0.7's deep iteration
(`ByteBufferMessageSet.internalIterator`) hands out of it. Offsets are byte offsets in the partition,
as that iterator gives them (`MessageAndOffset.offset`, what a 0.7 consumer commits):

- an uncompressed message gets the offset of the byte after its entry (the next entry's offset);
- every message of a compressed wrapper gets the wrapper's own offset, except the last one, which
  gets the offset after the wrapper. Messages of a wrapper inside a wrapper count as the outer
  wrapper's: 0.7 decompresses them too and its outer iterator numbers them all.

Damage follows 0.7's iterator: it throws at a message whose CRC does not match, at a magic other than 0
and 1, at a codec other than gzip and snappy, at data that does not decompress, and at an inner entry
whose size is negative, or past the end of the inner set while it is the set's first entry; it stops
quietly at a later inner entry cut short. Here each is a damage of the entry, the messages before it kept.
Decompression is bounded: all the levels of one entry together decompress to at most the limit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from kaitaistruct import BytesIO, KaitaiStream

from kafkalog._generated.kafka_07_log import Kafka07Log
from kafkalog.checksums import crc32
from kafkalog.compression import CODEC_NAMES, decompress, max_decompressed_bytes
from kafkalog.errors import ChecksumError, CorruptStructureError, DamagedDataError, DecompressionError
from kafkalog.formats.parse_errors import PARSE_ERRORS, describe

Message: TypeAlias = Kafka07Log.Message  # the generated parsers are untyped: Any to mypy
EntryHeader: TypeAlias = Kafka07Log.EntryHeader

#: `MessageSet.LogOverhead`: the int32 size before each message.
LOG_OVERHEAD = 4
#: `Message.MinHeaderSize`: magic and CRC of a magic 0 message; 0.7's FileMessageSet stops at a smaller entry.
MIN_MESSAGE_SIZE = 5
#: The file suffix of 0.7's segments (`Log.FileSuffix`).
SUFFIX = ".kafka"
NONE = "none"


@dataclass
class Message07:
    """A message as 0.7's deep iteration hands it out: no key, no timestamp."""

    #: `MessageAndOffset.offset`: the byte offset 0.7's iterator gives this message (see the module doc).
    offset: int
    magic: int
    crc: int
    crc_valid: bool
    payload: bytes


@dataclass
class Entry07:
    """One shallow entry of a 0.7 segment: a message, or a compressed wrapper and its messages."""

    #: Byte position of the entry in its file.
    position: int
    #: Byte offset of the entry in the partition (the file's base offset + position): a fetch from here
    #: returns this entry first.
    offset: int
    #: 4 + the message size: the entry's bytes in the file.
    size: int
    magic: int
    compression: str
    crc: int
    crc_valid: bool
    #: The message's payload as stored: a wrapper's is its compressed message set.
    payload: bytes = b""
    messages: list[Message07] = field(default_factory=list)
    damage: list[DamagedDataError] = field(default_factory=list)

    @property
    def next_offset(self) -> int:
        """The offset after the entry: the shallow iterator's `MessageAndOffset.offset`, and where 0.7's
        `DumpLogSegments` says the next message is."""
        return self.offset + self.size


def entry_size(header: bytes) -> int:
    """The message size an entry's 4 leading bytes declare."""
    return int(EntryHeader(KaitaiStream(BytesIO(header))).len_message)


def decode_entry(message: bytes, position: int, offset: int, path: str | None) -> Entry07:
    """Decode one entry whose message is `message` (the bytes after its size), at byte `position` of its
    file and byte `offset` of the partition; damage is in `Entry07.damage`."""
    size = LOG_OVERHEAD + len(message)
    try:
        parsed = Message(KaitaiStream(BytesIO(message)))
    except PARSE_ERRORS as exc:
        entry = Entry07(position, offset, size, -1, NONE, -1, False)
        entry.damage.append(CorruptStructureError(f"message does not parse: {describe(exc)}", path=path,
                                                  position=position))
        return entry
    crc_valid = _crc_valid(parsed)
    entry = Entry07(position, offset, size, parsed.magic, _codec_name(parsed), parsed.crc, crc_valid, _payload(parsed))
    if not crc_valid:
        entry.damage.append(ChecksumError(f"message CRC-32 of the payload is {_payload_crc(parsed)}, the message "
                                          f"says {parsed.crc} (0.7: InvalidMessageException)",
                                          path=path, position=position))
    if int(parsed.codec) == 0:
        entry.messages.append(Message07(entry.next_offset, parsed.magic, parsed.crc, crc_valid, parsed.payload))
        return entry
    _deep(parsed, entry, path)
    for message_ in entry.messages[:-1]:
        message_.offset = entry.offset
    if entry.messages:
        entry.messages[-1].offset = entry.next_offset
    return entry


def _deep(wrapper: Message, entry: Entry07, path: str | None) -> None:
    """The messages of a wrapper in 0.7's deep order, nested wrappers expanded in place; no recursion, and
    every level's decompressed bytes counted against one limit."""
    budget = max_decompressed_bytes()
    # A stack of inner message sets being walked: (bytes, KaitaiStream, entries read so far).
    stack: list[tuple[bytes, KaitaiStream, int]] = []
    pending: Message | None = wrapper
    while True:
        if pending is not None:
            problem = _unknown_codec(pending)
            if problem is not None:
                entry.damage.append(CorruptStructureError(problem, path=path, position=entry.position))
                return
            try:
                data = decompress(int(pending.codec), pending.payload_compressed.data, 1, budget)
            except DecompressionError as exc:
                entry.damage.append(exc.with_location(path, entry.position))
                return
            budget -= len(data)
            stack.append((data, KaitaiStream(BytesIO(data)), 0))
            pending = None
        if not stack:
            return
        data, io, count = stack[-1]
        remaining = len(data) - io.pos()
        if remaining < LOG_OVERHEAD:  # (0.7: fewer than 4 bytes left ends the set)
            stack.pop()
            continue
        at = io.pos()
        size = entry_size(io.read_bytes(LOG_OVERHEAD))
        if size < 0 or size > remaining - LOG_OVERHEAD:
            if count == 0 or size < 0:
                entry.damage.append(CorruptStructureError(
                    f"inner message {len(entry.messages)} (byte {at} of a decompressed message set): its size is "
                    f"{size} bytes, {remaining - LOG_OVERHEAD} remain (0.7: InvalidMessageSizeException)",
                    path=path, position=entry.position))
                return
            stack.pop()  # 0.7 ends a message set quietly at a later entry cut short
            continue
        stack[-1] = (data, io, count + 1)
        body = io.read_bytes(size)
        try:
            inner = Message(KaitaiStream(BytesIO(body)))
        except PARSE_ERRORS as exc:
            entry.damage.append(CorruptStructureError(
                f"inner message {len(entry.messages)} does not parse: {describe(exc)}", path=path,
                position=entry.position))
            return
        if not _crc_valid(inner):
            entry.damage.append(ChecksumError(
                f"inner message {len(entry.messages)}: CRC-32 of the payload is {_payload_crc(inner)}, the message "
                f"says {inner.crc} (0.7: InvalidMessageException)", path=path, position=entry.position))
            return
        if int(inner.codec) == 0:
            entry.messages.append(Message07(-1, inner.magic, inner.crc, True, inner.payload))
        else:
            pending = inner


def _unknown_codec(message: Message) -> str | None:
    codec = int(message.codec)
    if codec in (1, 2):
        return None
    return f"compression codec {codec} is not one of 0.7's (gzip 1, snappy 2) (0.7: UnknownCodecException)"


def _codec_name(message: Message) -> str:
    codec = int(message.codec)
    return CODEC_NAMES[codec] if codec in (0, 1, 2) else f"unknown({codec})"


def _payload(message: Message) -> bytes:
    return message.payload if int(message.codec) == 0 else message.payload_compressed.data


def _payload_crc(message: Message) -> int:
    return crc32(_payload(message))


def _crc_valid(message: Message) -> bool:
    return _payload_crc(message) == message.crc
