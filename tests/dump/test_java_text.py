"""`--format kafka` decodes keys, values and header keys as Kafka does (`Utils.utf8`: Java's
`new String(bytes, UTF_8)`): `kafkalog.javatext.java_utf8` and its compiled twin in
`kafkalog.fast.line_parts` held to Java's decoder itself (tests/dump/java/Utf8Text.java, kafka-clients
of the 4.3.1 set), on seeded random bytes that are mostly almost UTF-8, in one JVM start."""
from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import kafka_jars
import numpy as np

from kafkalog.dump import kafka_dump_log
from kafkalog.dump.records import escape
from kafkalog.fast.line_parts import put_escaped_text
from kafkalog.javatext import java_utf8
from kafkalog.model import Batch, Record
from tests.dump.dump_log_segments import java

PROGRAM = Path(__file__).resolve().parent / "java" / "Utf8Text.java"

#: Leads, continuations at the edges of their ranges, and whole characters: surrogates (ED A0..BF), overlong
#: forms (C0, C1, E0 80..9F, F0 80..8F), past U+10FFFF (F4 90.., F5..F7), bytes never in UTF-8 (F8..FF).
_PIECES = [bytes([b]) for b in (0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8,
                                0xFF, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0x0A, 0x41)] + \
    [s.encode() for s in ("é", "中", "\ud7ff", "\ue000", "\uffff", "😀", "\U0010ffff")] + \
    [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xb8\xad", b"\xe0\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80"]


def _cases(n: int) -> list[bytes]:
    rng = random.Random(31)
    cases = [bytes.fromhex("edb8ad"), b"", b"\xed", b"\xed\xa0", b"\xf0\x90\x80", b"\xe4\xb8"]
    while len(cases) < n:
        parts = rng.randrange(1, 10)
        cases.append(b"".join(rng.choice(_PIECES) if rng.random() < 0.8 else bytes([rng.randrange(256)])
                              for _ in range(parts)))
    return cases


def _java_decoded(cases: list[bytes]) -> list[str]:
    res = subprocess.run([java(), "-cp", os.pathsep.join(kafka_jars.classpath("4.3.1")), str(PROGRAM)],
                         input="".join(c.hex() + "\n" for c in cases), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return [bytes.fromhex(line).decode("utf-8") for line in res.stdout.splitlines()]


def _compiled(data: bytes) -> str:
    src = np.frombuffer(data, dtype=np.uint8)
    out = np.empty(4 * len(data) + 4, dtype=np.uint8)
    return bytes(out[:put_escaped_text(out, 0, src, 0, len(src))]).decode("utf-8")


def test_the_python_and_compiled_decoders_replace_what_is_not_utf8_as_java_does():
    cases = _cases(4000)
    decoded = _java_decoded(cases)
    assert len(decoded) == len(cases)
    assert decoded[0] == "\ufffd"  # the encoded surrogate of the issue: one U+FFFD, where Python writes three
    assert bytes.fromhex("edb8ad").decode("utf-8", "replace") == "\ufffd" * 3
    assert sum(c.decode("utf-8", "replace") != d for c, d in zip(cases, decoded)) > 100  # the cases tell them apart
    assert [c for c, d in zip(cases, decoded) if java_utf8(c) != d] == []
    assert [c for c, d in zip(cases, decoded) if _compiled(c) != escape(d)] == []


def test_a_record_line_prints_its_key_value_and_header_keys_as_java_decodes_them():
    batch = Batch(position=0, size=0, magic=2, base_offset=0, last_offset=0, count=1, compression="none", crc=0,
                  crc_valid=True, timestamp_type="CreateTime", max_timestamp=0, producer_id=-1, producer_epoch=-1,
                  base_sequence=-1, last_sequence=-1, partition_leader_epoch=0, is_transactional=False,
                  is_control=False, delete_horizon_ms=None)
    record = Record(offset=0, timestamp=0, sequence=-1, key=b"k\xed\xa0", value=b"v\xed\xb8\xadw", headers=[])
    assert kafka_dump_log.record_line(batch, record).endswith(" key: k\ufffd payload: v\ufffdw")
