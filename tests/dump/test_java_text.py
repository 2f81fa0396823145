"""`--format kafka` decodes keys, values and header keys as Kafka does (`Utils.utf8`: Java's
`new String(bytes, UTF_8)`): `kafkalog.javatext.java_utf8` and its compiled twin in
`kafkalog.fast.lines` (`java_text`) held to Java's decoder itself (tests/dump/java/Utf8Text.java, kafka-clients
of the 4.3.1 set), on seeded random bytes that are mostly almost UTF-8, in one JVM start; and whole
segments of such keys and values (v2 and v1, written with Kafka's MemoryRecords by
tests/dump/java/Utf8Segments.java) printed as Kafka 4.4.0's DumpLogSegments prints them."""
from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
from pathlib import Path

import kafka_jars

from kafkalog.cli import main as kafkalog_main
from kafkalog.dump import kafka_dump_log
from kafkalog.dump.records import escape
from kafkalog.fast.line_parts import compiled
from kafkalog.javatext import java_utf8
from kafkalog.model import Batch, Record
from tests.brokers.harness import java
from tests.dump import dump_log_segments as dls

PROGRAM = Path(__file__).resolve().parent / "java" / "Utf8Text.java"
SEGMENTS = Path(__file__).resolve().parent / "java" / "Utf8Segments.java"

#: Leads, continuations at the edges of their ranges, and whole characters: surrogates (ED A0..BF), overlong
#: forms (C0, C1, E0 80..9F, F0 80..8F), past U+10FFFF (F4 90.., F5..F7), bytes never in UTF-8 (F8..FF).
_PIECES = [bytes([b]) for b in (0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8,
                                0xFF, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0x0A, 0x41)] + \
    [s.encode() for s in ("é", "中", "\ud7ff", "\ue000", "\uffff", "😀", "\U0010ffff")] + \
    [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xb8\xad", b"\xe0\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80"]


def _cases(n: int, seed: int = 31) -> list[bytes]:
    rng = random.Random(seed)
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
    return compiled.java_text(data).decode("utf-8")


def test_the_python_and_compiled_decoders_replace_what_is_not_utf8_as_java_does():
    cases = _cases(4000)
    decoded = _java_decoded(cases)
    assert len(decoded) == len(cases)
    assert decoded[0] == "\ufffd"  # the encoded surrogate of the issue: one U+FFFD, where Python writes three
    assert bytes.fromhex("edb8ad").decode("utf-8", "replace") == "\ufffd" * 3
    assert sum(c.decode("utf-8", "replace") != d for c, d in zip(cases, decoded, strict=True)) > 100  # the cases tell them apart
    assert [c for c, d in zip(cases, decoded, strict=True) if java_utf8(c) != d] == []
    assert [c for c, d in zip(cases, decoded, strict=True) if _compiled(c) != escape(d)] == []


def test_a_record_line_prints_its_key_value_and_header_keys_as_java_decodes_them():
    batch = Batch(position=0, size=0, magic=2, base_offset=0, last_offset=0, count=1, compression="none", crc=0,
                  crc_valid=True, timestamp_type="CreateTime", max_timestamp=0, producer_id=-1, producer_epoch=-1,
                  base_sequence=-1, last_sequence=-1, partition_leader_epoch=0, is_transactional=False,
                  is_control=False, delete_horizon_ms=None)
    record = Record(offset=0, timestamp=0, sequence=-1, key=b"k\xed\xa0", value=b"v\xed\xb8\xadw", headers=[])
    assert kafka_dump_log.record_line(batch, record).endswith(" key: k\ufffd payload: v\ufffdw")



def _printable_cases(n: int) -> list[bytes]:
    """Almost UTF-8 that decodes to no control character or line separator, which Kafka's tool prints as they
    are (its line broken) and kafkalog escapes: no C0 byte, DEL, C2 (C2 80..9F are the C1 controls) or E2
    (U+2028, U+2029)."""
    rng = random.Random(44)
    pieces = [p for p in _PIECES if p[0] not in (0x0A, 0xC2)]
    allowed = [b for b in range(0x20, 0x100) if b not in (0x7F, 0xC2, 0xE2)]
    return [b"".join(rng.choice(pieces) if rng.random() < 0.8 else bytes([rng.choice(allowed)])
                     for _ in range(rng.randrange(0, 10))) for _ in range(n)]


def test_segments_of_almost_utf8_keys_and_values_print_as_kafkas_tool_prints_them(tmp_path):
    cases = _printable_cases(400)
    res = subprocess.run([java(), "-cp", os.pathsep.join(kafka_jars.classpath("3.9.2")), str(SEGMENTS), str(tmp_path)],
                         input="".join(c.hex() + "\n" for c in cases), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    files = [tmp_path / d / "00000000000000000000.log" for d in ("utf8-v2-0", "utf8-v1-0")]
    dumped = dls.run("4.4.0", files, "--deep-iteration", "--print-data-log")
    for f in files:
        theirs = dumped[f]
        assert theirs.exception is None and len(theirs.lines) > 400, (f, theirs.exception)
        assert sum("\ufffd" in line for line in theirs.lines) > 100
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert kafkalog_main(["dump", "--format", "kafka", str(f)]) == 0
        ours = out.getvalue().splitlines()
        # (the message: the first line that differs of those both printed, strict=False; None when one printed more)
        assert ours == theirs.lines, next(((a, b) for a, b in zip(theirs.lines, ours, strict=False) if a != b), None)
