"""The exceptions kafkalog raises on purpose.

Every problem with the data itself is a `DamagedDataError` that names the file
(when there is one), the byte position where the damage starts and what is
wrong, so that a caller can report it and keep what was read before it.

Each class carries its `kind`: the word `kafkalog verify` prints for it and its
JSON output (and Spark's damage rows) use, so that the two never drift apart.
"""
from __future__ import annotations

import copy
from typing import Self


class KafkalogError(Exception):
    """Base of kafkalog's own exceptions."""

    kind = "error"


class DamagedDataError(KafkalogError):
    """Bytes that are not what Kafka writes: the file is damaged or not a Kafka file."""

    kind = "damaged"

    def __init__(self, message: str, *, path: str | None = None, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.position = position

    def with_location(self, path: str | None, position: int | None, *, message: str | None = None) -> Self:
        """A copy of this error placed at `position` in `path` (a decoder does not know where it is), with
        `message` when given: the same class with the same extra attributes (`partial`, `readable_until`).

        `path` or `position` None keeps this error's own.
        """
        located = copy.copy(self)  # a new exception: no traceback, cause or context of this one
        located.path = path if path is not None else self.path
        located.position = position if position is not None else self.position
        if message is not None:
            located.message = message
            located.args = (message,)
        return located

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.position is not None:
            where.append(f"byte {self.position}")
        return ": ".join([*where, self.message])


class TruncatedError(DamagedDataError):
    """The data ends inside an entry, as a crash or an interrupted copy leaves a segment."""

    kind = "truncated"


class CorruptStructureError(DamagedDataError):
    """A length, count or magic byte that cannot be, or fields that do not fit their entry."""

    kind = "corrupt_structure"


class ChecksumError(DamagedDataError):
    """A batch or message whose CRC does not match its bytes."""

    kind = "checksum"


class DecompressionError(DamagedDataError):
    """Compressed data that does not decompress, or decompresses to more than the limit allows.

    `partial` holds what was decompressed before the damage: Kafka's streaming
    decoders hand out the records in it, and so does kafkalog.
    """

    kind = "decompression"

    def __init__(self, message: str, *, path: str | None = None, position: int | None = None,
                 partial: bytes = b""):
        super().__init__(message, path=path, position=position)
        self.partial = partial


class DecompressionLimitError(DecompressionError):
    """More decompressed bytes than `max_decompressed_bytes` lets kafkalog hold at once.

    Kafka's reader has no such limit; kafkalog has one so that a small batch cannot
    fill memory (a decompression bomb). The fast path reads a batch past it a window
    at a time, as Kafka streams it, so what is refused is a single record (or the
    bytes after a batch's declared records) that does not fit, and, on the object
    path alone (`Decoder.OBJECT`), a batch past it. Raise the limit to read it.
    """


class UndecodableRecordError(DamagedDataError):
    """A record of an internal topic whose key or value is not what Kafka writes there."""

    kind = "undecodable_record"


class RemoteObjectError(DamagedDataError):
    """A tiered-storage object that does not give back its segment's bytes: a manifest whose sizes the object
    does not have, a chunk that fails GCM authentication or whose zstd frame does not decode, a missing object.

    `path` is the object and `position` the byte in it where the problem starts. `readable_until` is how far
    into the segment (its original bytes) everything before the problem reads: a reader hands out what is there
    and reports the rest as this damage.
    """

    kind = "remote_object"

    def __init__(self, message: str, *, path: str | None = None, position: int | None = None,
                 readable_until: int = 0):
        super().__init__(message, path=path, position=position)
        self.readable_until = readable_until


class EncryptionKeyError(RemoteObjectError):
    """An encrypted tiered-storage object whose data key no private key given unwraps (none given, or the wrong one)."""

    kind = "encryption_key"


class UsageError(KafkalogError, ValueError):
    """A call or command line that asks for something kafkalog cannot do.

    Also a `ValueError`, as pyarrow's `ArrowInvalid` is: a caller catching bad arguments that way catches it.
    """

    kind = "usage"


class FileNameError(UsageError):
    """A file or directory named as Kafka names its files, with a number Kafka never gives and does not load: a
    partition past a Java int, an offset past a Java long. Named by its name, or `at` its whole path."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason

    def at(self, path: object) -> FileNameError:
        return FileNameError(str(path), self.reason)


class DataLossError(KafkalogError):
    """Offsets asked for are no longer in the files (failOnDataLoss=true), as Kafka's source reports."""

    kind = "data_loss"


class OffsetGapError(DamagedDataError):
    """Offsets a tiered partition's history must hold (it is never compacted) that no remote or local segment
    holds: a remote segment missing from the remote storage root. A damage row in PERMISSIVE mode."""

    kind = "offset_gap"


class UndecodableValueError(DamagedDataError):
    """A record key or value framed for a schema registry that does not decode with its schema: an id the schema
    store lacks, bytes too short for the prefix, a body its schema does not read, a schema or reference that does
    not resolve. The record and its raw bytes stay; only the decoded form is missing."""

    kind = "undecodable_value"


class TargetRefusedError(KafkalogError):
    """`kafkalog restore`: the target cluster refused what a restore asks of it (authorization, a topic with fewer
    partitions than the source, a record past its max.message.bytes, a config it does not take). Names the source
    record (topic, partition, offset) where it happened, when there is one; what was restored before it stays, and
    its offset map is written."""

    kind = "target_refused"
