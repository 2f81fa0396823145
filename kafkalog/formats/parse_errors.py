"""What the generated parsers raise on bytes that do not fit their spec, and how to say it.

The Kaitai runtime's messages name the spec's internal paths (`/types/header/seq/0`)
and print objects by their Python repr; `describe` turns them into a sentence
about the data, in Kafka's terms (quoting the exception Kafka itself throws
where there is one).
"""
from __future__ import annotations

import re

from kaitaistruct import (
    EndOfStreamError,
    KaitaiStruct,
    KaitaiStructError,
    NoTerminatorFoundError,
    ValidationFailedError,
)

#: Kaitai's validation errors, a read past the end of a (sub)stream, a negative size.
PARSE_ERRORS = (KaitaiStructError, EOFError, ValueError)

# (generated class, spec path of the checked field) -> sentence; {value} is the value read.
_CHECKS: dict[tuple[str, str], str] = {
    ("KafkaVarint", "/seq/9"):
        "a varint runs past its 10th byte (Kafka: \"Varlong is too long, most significant bit in the 10th "
        "byte is set\")",
    ("KafkaRecord.RecordBody", "/types/record_body/seq/7"):
        "negative header count {value} (Kafka: \"Found invalid number of record headers {value}\")",
    ("KafkaRecord.Header", "/types/header/seq/0"):
        "negative header key length {value} (Kafka: \"Invalid negative header key size {value}\")",
    ("KafkaRecordBatch", "/seq/1"):
        "batch length {value} is below the 49 bytes that follow it in a record batch header "
        "(Kafka: \"Record batch is corrupt (the size is smaller than the minimum allowed overhead 61)\")",
    ("KafkaRecordBatch", "/seq/3"):
        "magic byte {value} in a record batch, which needs magic 2",
    ("KafkaRecordBatch", "/seq/12"):
        "negative record count {value} (Kafka: \"Found invalid record count {value} in magic v2 batch\")",
    ("KafkaMessageSet.Entry", "/types/entry/seq/1"):
        "message size {value} is below the minimum of 14 bytes (Kafka: \"Record size {value} is less than "
        "the minimum record overhead (14)\")",
    ("KafkaMessageSet.Message", "/types/message/seq/1"):
        "magic byte {value} in a legacy message, which needs magic 0 or 1",
    ("KafkaLog.LogEntry", "/types/log_entry/instances/len_rest"):
        "entry size {value} is below the minimum of 14 bytes",
    ("KafkaLog.LogEntry", "/types/log_entry/instances/magic"):
        "magic byte {value} is not a message format Kafka writes (0, 1 or 2)",
    ("Kafka07Log.Message", "/types/message/seq/0"):
        "magic byte {value} in a Kafka 0.7 message, which needs magic 0 or 1 (0.7: UnknownMagicByteException)",
    ("Kafka07Log.Entry", "/types/entry/seq/0"):
        "entry size {value} is below the minimum of 5 bytes (Message.MinHeaderSize)",
    ("KafkaControlRecord", "/seq/0"):
        "control record key version {value} is negative (Kafka: \"Invalid version found for control "
        "record: {value}. May indicate data corruption\")",
    ("KafkaControlRecord.EndTxnMarker", "/types/end_txn_marker/seq/0"):
        "end transaction marker version {value} is negative (Kafka: \"Invalid version found for end "
        "transaction marker: {value}. May indicate data corruption\")",
    ("KafkaProducerSnapshot", "/seq/0"):
        "snapshot version {value} is not 1 (Kafka: \"Snapshot contained an unknown file version {value}\")",
    ("KafkaProducerSnapshot", "/seq/2"):
        "negative producer entry count {value}",
}

_WHAT: dict[str, str] = {
    "KafkaVarint": "a varint", "KafkaRecord": "a record", "KafkaRecord.RecordBody": "a record",
    "KafkaRecord.Header": "a record header", "KafkaRecordBatch": "the record batch header",
    "KafkaMessageSet.Entry": "a message", "KafkaMessageSet.Message": "a message",
    "KafkaControlRecord": "the control record key", "KafkaControlRecord.EndTxnMarker": "the end transaction marker",
    "KafkaProducerSnapshot": "the producer snapshot", "Kafka07Log.Message": "a Kafka 0.7 message",
    "Kafka07Log.Entry": "a Kafka 0.7 entry", "KafkaLog.LogEntry": "an entry header",
}


def _raisers(exc: BaseException) -> list[str]:
    """The qualified names of the generated types whose code raised `exc`, outermost first."""
    names: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, KaitaiStruct) and (not names or names[-1] != type(owner).__qualname__):
            names.append(type(owner).__qualname__)
        tb = tb.tb_next
    return names


def _ends_early(owners: list[str], needed: int, available: int) -> str | None:
    """A v2 record cut short, as Kafka's DefaultRecordBatch and DefaultRecord say it."""
    inner = owners[-2:] if owners and owners[-1] == "KafkaVarint" else owners[-1:]
    if inner == ["KafkaRecord", "KafkaVarint"]:  # its length: no record where the batch declares one
        return ("the records end before this one (Kafka: \"Incorrect declared batch size, premature EOF "
                "reached\")")
    if inner == ["KafkaRecord"]:  # its body
        return (f"its length says {needed} bytes, {available} remain (Kafka: \"Invalid record size: expected "
                f"{needed} bytes in record payload, but instead the buffer has only {available} remaining "
                "bytes.\")")
    if inner == ["KafkaMessageSet.Entry"]:  # a legacy message's bytes after its size field
        return f"its size says {needed} bytes, {available} remain"
    if inner and inner[0] in ("KafkaRecord.RecordBody", "KafkaRecord.Header"):
        return (f"its fields run past its length: {needed} more byte(s) needed, {available} remain "
                "(Kafka: \"Found invalid record structure\")")
    return None


def _value(actual: object) -> object:
    # A varint field is checked as the object; its number is what the data says.
    return getattr(actual, "value", actual)


def describe(exc: BaseException) -> str:
    """A one-line account of a parse error in Kafka's terms, without the parser's internals."""
    owners = _raisers(exc)
    owner = owners[-1] if owners else None
    where = _WHAT.get(owner or "", "the data")
    if isinstance(exc, ValidationFailedError):
        template = _CHECKS.get((owner or "", exc.src_path or ""))
        value = _value(getattr(exc, "actual", None))
        if template is not None:
            return template.format(value=value)
        return f"a field of {where} holds {value}, a value Kafka does not write"
    if isinstance(exc, NoTerminatorFoundError):
        return f"{where} ends before the terminating byte of a field"
    if isinstance(exc, EndOfStreamError):
        return _ends_early(owners, exc.bytes_needed, exc.bytes_available) or (
            f"{where} ends early: a field needs {exc.bytes_needed} byte(s), {exc.bytes_available} remain")
    if isinstance(exc, EOFError):
        return f"{where} ends early"
    invalid = re.fullmatch(r"requested invalid (-\d+) amount of bytes", str(exc))
    if invalid:
        return f"{where} declares a negative length ({invalid.group(1)})"
    if re.fullmatch(r"cannot seek to invalid position -?\d+", str(exc)):
        return f"{where} points outside its data"
    # Anything else the runtime raises: keep its words, never its internals.
    text = re.sub(r"(/(types|seq|instances)/\S*|<[^>]* at 0x[0-9a-f]+>)", "", str(exc)).strip(" :")
    return f"{where} does not parse" + (f": {text}" if text else "")
