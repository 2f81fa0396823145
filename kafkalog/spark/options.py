"""Reader options: names, defaults and validation (option names are case-insensitive, as in Spark)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from kafkalog.arrow import DEFAULT_ROWS_PER_BATCH, DROPMALFORMED, FAILFAST, PERMISSIVE
from kafkalog.errors import UsageError

READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"
DEFAULT_MAX_PARTITION_BYTES = 128 * 1024 * 1024

#: option name (as documented) -> one-line description, for the docs and error messages
OPTIONS = {
    "includeControlRecords": "true/false (default false): also return control records (transaction markers, KRaft records)",
    "isolation.level": "read_uncommitted (default) or read_committed: drop records of aborted transactions",
    "startingOffset": "first offset to return (inclusive)",
    "endingOffset": "offset to stop at (exclusive, as Kafka's end offsets)",
    "startingTimestamp": "return only records with timestamp >= this (ms since the epoch)",
    "endingTimestamp": "return only records with timestamp < this (ms since the epoch)",
    "validateChecksums": "true (default) / false: a batch whose CRC does not match is damage",
    "mode": "PERMISSIVE (default), DROPMALFORMED or FAILFAST: what to do with damaged data",
    "maxPartitionBytes": "split segments larger than this into byte ranges (default 134217728 = 128 MiB)",
    "rowsPerBatch": "rows per Arrow batch handed to Spark (default 10000)",
    "decode": "true/false (default false): add key_decoded and value_decoded, internal-topic records as JSON",
}


@dataclass(frozen=True)
class ReadOptions:
    include_control_records: bool = False
    isolation_level: str = READ_UNCOMMITTED
    starting_offset: int | None = None
    ending_offset: int | None = None
    starting_timestamp: int | None = None
    ending_timestamp: int | None = None
    validate_checksums: bool = True
    mode: str = PERMISSIVE
    max_partition_bytes: int = DEFAULT_MAX_PARTITION_BYTES
    rows_per_batch: int = DEFAULT_ROWS_PER_BATCH
    decode: bool = False  # internal topics (kafkalog.internal_topics_arrow)

    @property
    def read_committed(self) -> bool:
        return self.isolation_level == READ_COMMITTED


def _bool(name: str, value: str) -> bool:
    v = str(value).strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    raise UsageError(f"option {name}: expected true or false, got {value!r}")


def _int(name: str, value: str, minimum: int | None = None) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise UsageError(f"option {name}: expected an integer, got {value!r}") from None
    if minimum is not None and n < minimum:
        raise UsageError(f"option {name}: must be at least {minimum}, got {n}")
    return n


def parse_options(options: Mapping[str, str]) -> ReadOptions:
    """Validate Spark reader options; unknown names are an error (a typo would silently read everything)."""
    known = {name.lower(): name for name in OPTIONS}
    given: dict[str, str] = {}
    for key, value in options.items():
        if key.lower() == "path" or key.lower() == "paths":
            continue
        if key.lower() not in known:
            raise UsageError(f"unknown option {key!r}; kafkalog reads: {', '.join(OPTIONS)}")
        given[known[key.lower()]] = value
    kw: dict[str, object] = {}
    if "includeControlRecords" in given:
        kw["include_control_records"] = _bool("includeControlRecords", given["includeControlRecords"])
    if "isolation.level" in given:
        level = str(given["isolation.level"]).strip().lower()
        if level not in (READ_UNCOMMITTED, READ_COMMITTED):
            raise UsageError(f"option isolation.level: expected read_uncommitted or read_committed, got {level!r}")
        kw["isolation_level"] = level
    for name, attr in (("startingOffset", "starting_offset"), ("endingOffset", "ending_offset"),
                       ("startingTimestamp", "starting_timestamp"), ("endingTimestamp", "ending_timestamp")):
        if name in given:
            kw[attr] = _int(name, given[name])
    if "validateChecksums" in given:
        kw["validate_checksums"] = _bool("validateChecksums", given["validateChecksums"])
    if "mode" in given:
        mode = str(given["mode"]).strip().upper()
        if mode not in (PERMISSIVE, DROPMALFORMED, FAILFAST):
            raise UsageError(f"option mode: expected PERMISSIVE, DROPMALFORMED or FAILFAST, got {given['mode']!r}")
        kw["mode"] = mode
    if "maxPartitionBytes" in given:
        kw["max_partition_bytes"] = _int("maxPartitionBytes", given["maxPartitionBytes"], minimum=1)
    if "rowsPerBatch" in given:
        kw["rows_per_batch"] = _int("rowsPerBatch", given["rowsPerBatch"], minimum=1)
    if "decode" in given:
        kw["decode"] = _bool("decode", given["decode"])
    return ReadOptions(**kw)
