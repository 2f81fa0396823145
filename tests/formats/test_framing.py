"""The framing sizes kafkalog names are the places of the fields in `kafka_log.ksy`'s entry header."""
from __future__ import annotations

from io import BytesIO

import pytest
import yaml
from kaitaistruct import KaitaiStream

from kafkalog.formats import framing
from tests.paths import ROOT, SAMPLES


def _header_bytes() -> bytes:
    data = (SAMPLES / "v2-transaction.log").read_bytes()
    return data[:framing.V2_HEADER_SIZE]


def test_the_sizes_are_where_the_spec_puts_the_fields():
    data = _header_bytes()
    io = KaitaiStream(BytesIO(data))
    header = framing.EntryHeader(io)
    assert io.pos() == framing.V2_HEADER_SIZE and header.has_v2
    short = framing.entry_header(data[:framing.HEADER_SIZE_UP_TO_MAGIC])
    assert short.has_magic and not short.has_v2 and short.magic == 2
    sizes_only = framing.entry_header(data[:framing.LOG_OVERHEAD])
    assert not sizes_only.has_magic and sizes_only.len_rest == header.len_rest
    with pytest.raises(EOFError):
        framing.entry_header(data[:framing.LOG_OVERHEAD - 1])


def test_the_least_entry_size_is_the_specs():
    spec = yaml.safe_load((ROOT / "schemas" / "kafka_log.ksy").read_text())
    assert spec["types"]["log_entry"]["instances"]["len_rest"]["valid"]["min"] == framing.MIN_ENTRY_SIZE


def test_the_header_reads_what_kafka_wrote():
    header = framing.entry_header(_header_bytes())
    # samples/v2-transaction.log: the first batch holds offsets 0-2 (README's dump of it)
    assert (header.base_offset, header.magic, header.v2.last_offset_delta) == (0, 2, 2)
    assert header.v2.max_timestamp == 1700000000002
