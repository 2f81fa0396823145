"""`kafkalog dump`'s lines of a run of plain v2 batches: every batch's line written by one compiled call
(`kafkalog.fast.lines.batch_lines`, without the GIL) from the run's batch headers, handed out with its records'
lines (`json_lines`, `text_lines`, `kafka_lines`) as views.

Twins: `kafkalog.dump.records.batch_json_line` and `batch_text`, and `kafkalog.dump.kafka_dump_log.batch_line`,
which write one `Batch`'s line in Python and stay the reference (and write every batch line this does not: legacy
entries, damaged batches, control batches, the object path's). Each format's batch line is given here as steps
(`JSON_BATCH`, `TEXT_BATCH`, `KAFKA_BATCH`): a literal, then perhaps a batch field written as a decimal, a
boolean or a name, only where a condition on another field holds (the delete horizon's). The tests hold each to
its twin on every batch of every fixture, and on headers made to take every branch. The fields are those
`kafkalog.fast.runs.batch_of` gives a plain batch, the header's columns (spec: `kafka_record_batch.ksy`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from kafkalog._generated import kafka_kernel_columns as k
from kafkalog.compression import CODEC_NAMES
from kafkalog.fast.line_parts import BatchLines, BlockWriter, compiled, text_of
from kafkalog.fast.runs import Items
from kafkalog.model import CREATE_TIME, LOG_APPEND_TIME

# What a step writes after its literal.
LITERAL, DECIMAL, BOOLEAN, NAME = range(4)

#: A run's record lines are written a block of about this many bytes at a time, each handed out before the next is
#: written: a block stays in the core's cache until it is written out, and its memory is what the next one takes
#: (a run's lines whole were tens of MB of fresh pages, faulted in, then grown by copies).
BLOCK_BYTES = 1024 * 1024
#: At most this many rows a block (where each line starts: 8 bytes a row).
BLOCK_ROWS = 8192

#: The batch fields a step may write or test, in the rows of `fields`' matrix.
FIELDS = ("position", "size", "magic", "base_offset", "last_offset", "count", "compression", "crc", "crc_valid",
          "timestamp_type", "max_timestamp", "producer_id", "producer_epoch", "base_sequence", "last_sequence",
          "partition_leader_epoch", "is_transactional", "is_control", "delete_horizon_ms", "has_delete_horizon")
_ROW = {name: i for i, name in enumerate(FIELDS)}

#: The names a NAME step writes, by the field's value: Kafka's codec ids, and timestamp types 0 and 1.
CODECS = tuple(CODEC_NAMES[c] for c in range(len(CODEC_NAMES)))
TIMESTAMP_TYPES = (CREATE_TIME, LOG_APPEND_TIME)


@dataclass(frozen=True)
class Step:
    """`literal`, then the field `field` as `kind` says (`NAME`: `names[value]`); only where the field `when`
    (if any) is `when_value`."""

    literal: str
    kind: int = LITERAL
    field: str = ""
    names: tuple[str, ...] = ()
    when: str = ""
    when_value: int = 1


def _fields(*pairs: tuple[str, str], json: bool = False) -> list[Step]:
    """Parts of (literal, field): decimals, booleans and names as each format writes the field."""
    out = []
    for literal, name in pairs:
        if name in ("crc_valid", "is_transactional", "is_control"):
            out.append(Step(literal, BOOLEAN, name))
        elif name in ("compression", "timestamp_type"):
            names = CODECS if name == "compression" else TIMESTAMP_TYPES
            out.append(Step(literal, NAME, name, tuple(f'"{n}"' for n in names) if json else names))
        else:
            out.append(Step(literal, DECIMAL, name))
    return out


#: `dump.records.batch_json_line`.
JSON_BATCH = (
    *_fields(('{"type":"batch","position":', "position"), (',"size":', "size"), (',"magic":', "magic"),
             (',"base_offset":', "base_offset"), (',"last_offset":', "last_offset"), (',"count":', "count"),
             (',"compression":', "compression"), (',"crc":', "crc"), (',"crc_valid":', "crc_valid"),
             (',"timestamp_type":', "timestamp_type"), (',"max_timestamp":', "max_timestamp"),
             (',"producer_id":', "producer_id"), (',"producer_epoch":', "producer_epoch"),
             (',"base_sequence":', "base_sequence"), (',"last_sequence":', "last_sequence"),
             (',"partition_leader_epoch":', "partition_leader_epoch"),
             (',"is_transactional":', "is_transactional"), (',"is_control":', "is_control"), json=True),
    Step(',"delete_horizon_ms":'),
    Step("", DECIMAL, "delete_horizon_ms", when="has_delete_horizon"),
    Step("null", when="has_delete_horizon", when_value=0),
    Step("}\n"),
)

#: `dump.records.batch_text` of a v2 batch.
TEXT_BATCH = (
    *_fields(("baseOffset: ", "base_offset"), (" lastOffset: ", "last_offset"), (" count: ", "count"),
             (" magic: ", "magic"), (" compression: ", "compression"), (" position: ", "position"),
             (" size: ", "size"), (" CreateTime/LogAppendTime: ", "timestamp_type"),
             (" maxTimestamp: ", "max_timestamp"), (" crc: ", "crc"), (" isValid: ", "crc_valid"),
             (" producerId: ", "producer_id"), (" producerEpoch: ", "producer_epoch"),
             (" baseSequence: ", "base_sequence"), (" lastSequence: ", "last_sequence"),
             (" partitionLeaderEpoch: ", "partition_leader_epoch"), (" isTransactional: ", "is_transactional"),
             (" isControl: ", "is_control")),
    Step(" deleteHorizonMs: ", DECIMAL, "delete_horizon_ms", when="has_delete_horizon"),
    Step("\n"),
)

#: `dump.kafka_dump_log.batch_line` of a v2 batch (`DumpLogSegments.printBatchLevel`).
KAFKA_BATCH = (
    *_fields(("baseOffset: ", "base_offset"), (" lastOffset: ", "last_offset"), (" count: ", "count"),
             (" baseSequence: ", "base_sequence"), (" lastSequence: ", "last_sequence"),
             (" producerId: ", "producer_id"), (" producerEpoch: ", "producer_epoch"),
             (" partitionLeaderEpoch: ", "partition_leader_epoch"), (" isTransactional: ", "is_transactional"),
             (" isControl: ", "is_control")),
    Step(" deleteHorizonMs: OptionalLong[", DECIMAL, "delete_horizon_ms", when="has_delete_horizon"),
    Step("]", when="has_delete_horizon"),
    Step(" deleteHorizonMs: OptionalLong.empty", when="has_delete_horizon", when_value=0),
    *_fields((" position: ", "position"), (" ", "timestamp_type")),
    *_fields((": ", "max_timestamp"), (" size: ", "size"), (" magic: ", "magic"),
             (" compresscodec: ", "compression"), (" crc: ", "crc"), (" isvalid: ", "crc_valid")),
    Step("\n"),
)


@dataclass(frozen=True)
class Template:
    """A batch line's steps as the compiled writer reads them: one row per step (literal start and length in
    `literals`, kind, field row, first name in `names`, condition's field row or -1, its value)."""

    steps: np.ndarray
    literals: np.ndarray
    name_starts: np.ndarray
    names: np.ndarray
    #: The most bytes one batch's line takes.
    most: int

    @classmethod
    def of(cls, steps: tuple[Step, ...]) -> Template:
        rows, literals, names = [], b"", [b""]
        most = 0
        for step in steps:
            text = step.literal.encode()
            first = len(names) - 1
            names.extend(n.encode() for n in step.names)
            rows.append((len(literals), len(text), step.kind, _ROW.get(step.field, 0), first,
                         _ROW[step.when] if step.when else -1, step.when_value))
            literals += text
            most += len(text) + {LITERAL: 0, DECIMAL: 20, BOOLEAN: 5}.get(step.kind, 0) \
                + max((len(n.encode()) for n in step.names), default=0)
        name_starts = np.cumsum([0] + [len(n) for n in names[1:]], dtype=np.int64)
        return cls(np.array(rows, dtype=np.int64), np.frombuffer(literals, dtype=np.uint8),
                   name_starts, np.frombuffer(b"".join(names), dtype=np.uint8), most)


#: The formats' templates, made once (each range of a segment printed on threads has a printer of its own).
JSON_TEMPLATE, TEXT_TEMPLATE, KAFKA_TEMPLATE = (Template.of(steps) for steps in (JSON_BATCH, TEXT_BATCH, KAFKA_BATCH))


#: The header columns (`kafka_record_batch.ksy`'s, as `kafkalog.fast.runs.Items.header` holds them) the compiled
#: `batch_fields` reads, in its order.
HEADER_COLUMNS = np.array([k.KAFKA_RECORD_BATCH__BASE_OFFSET, k.KAFKA_RECORD_BATCH__LAST_OFFSET_DELTA,
                           k.KAFKA_RECORD_BATCH__NUM_RECORDS, k.KAFKA_RECORD_BATCH__ATTRIBUTES__COMPRESSION,
                           k.KAFKA_RECORD_BATCH__CRC, k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE,
                           k.KAFKA_RECORD_BATCH__MAX_TIMESTAMP, k.KAFKA_RECORD_BATCH__PRODUCER_ID,
                           k.KAFKA_RECORD_BATCH__PRODUCER_EPOCH, k.KAFKA_RECORD_BATCH__BASE_SEQUENCE,
                           k.KAFKA_RECORD_BATCH__PARTITION_LEADER_EPOCH,
                           k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_TRANSACTIONAL,
                           k.KAFKA_RECORD_BATCH__ATTRIBUTES__IS_CONTROL, k.KAFKA_RECORD_BATCH__BASE_TIMESTAMP,
                           k.KAFKA_RECORD_BATCH__ATTRIBUTES__HAS_DELETE_HORIZON], dtype=np.int64)


def _int64s(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)  # (the run's own arrays: no copy)


def fields(items: Items) -> np.ndarray | None:
    """The batch fields of a run's plain v2 batches (FIELDS' rows, one column per batch), as `runs.batch_of`
    gives them (the last sequence as `javaint.increment_sequence` makes it, the last offset wrapping as Java's long
    does), in one compiled call (`kafkalog.fast.lines.batch_fields`); None when a batch is not one the templates print
    (not v2, a codec without a name)."""
    out = np.empty((len(FIELDS), len(items)), dtype=np.int64)
    if not compiled.batch_fields(_int64s(items.header), HEADER_COLUMNS, _int64s(items.position), _int64s(items.size),
                                 _int64s(items.magic), len(CODECS), out):
        return None
    return out


@dataclass
class RunText:
    """A run's lines, each batch's then its records', written by `records` a block at a time, the batch lines among
    the records'."""

    records: BlockWriter
    rows: int  # of the run's table
    batches: int

    def views(self) -> Iterator[memoryview]:
        """The lines in order, a block of about `BLOCK_BYTES` at a time, as views (each written out, then let go
        before the next is written, which may take its memory); once: the writer goes on from its last block."""
        while (view := compiled.next_block(self.records, BLOCK_BYTES, BLOCK_ROWS)) is not None:
            yield view
            del view


def run_text(template: Template, blocks: Callable[..., BlockWriter], items: Items, table: pa.Table,
             by_timestamp_type: bool = False) -> RunText | None:
    """A run's lines: each batch's (`template`), then its records' (`blocks(table, batches=...)`, or with
    `by_timestamp_type` `blocks(table, the timestamp type's name, batches=...)`, a block at a time); None unless
    every batch is a plain v2 data batch (no control batch), of one timestamp type where `by_timestamp_type`, and
    the batches' rows are the table's, one batch after the other."""
    batch_fields = fields(items)
    if batch_fields is None or batch_fields[_ROW["is_control"]].any():
        return None
    if len(items) and (items.row_start[0] != 0 or items.row_end[-1] != table.num_rows
                       or (items.row_start[1:] != items.row_end[:-1]).any()):
        return None  # (not the rows of one batch after the other: written a batch at a time)
    lines = BatchLines(*batch_lines(template, batch_fields), np.ascontiguousarray(items.row_start, dtype=np.int64))
    if by_timestamp_type:
        types = batch_fields[_ROW["timestamp_type"]]
        if (types != types[0]).any():
            return None
        records = blocks(table, TIMESTAMP_TYPES[int(types[0])], batches=lines)
    else:
        records = blocks(table, batches=lines)
    return RunText(records, table.num_rows, len(items))


def batch_lines(template: Template, batch_fields: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each batch's line (`template` of its column of `batch_fields`) as bytes, and where each starts (n + 1
    positions)."""
    starts = np.empty(batch_fields.shape[1] + 1, dtype=np.int64)
    text = compiled.batch_lines(template.steps, template.literals, template.name_starts, template.names,
                                np.ascontiguousarray(batch_fields, dtype=np.int64), template.most, starts)
    return text_of(text), starts
