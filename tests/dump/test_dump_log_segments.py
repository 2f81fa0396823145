"""`kafkalog dump --format kafka` against the real kafka-dump-log.sh (`DumpLogSegments`) of Kafka 3.9, 4.3 and 4.4.

Every file of the fixtures and samples that the tool reads (segments, KRaft snapshots, offset and
time indexes, producer snapshots, transaction indexes) is dumped by Kafka's own tool from Maven Central's jars (`--deep-iteration --print-data-log`, with the internal topic's
decoder flag where the file is an internal topic's), and by kafkalog with the matching
`--kafka-version`. The lines must be the same. Where Kafka's tool dies with an exception, the lines
it printed before it are kafkalog's too.

The differences kafkalog knows of and has not removed yet are listed in `KNOWN_DIFFERENT`, with
why; a file listed there must differ (so that fixing it fails here, and the list is shortened), and
every other file must not.
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from kafkalog.cli import main as kafkalog_main
from tests.dump import dump_log_segments as dls
from tests.paths import FIXTURES, SAMPLES

KINDS = (".log", ".checkpoint", ".index", ".timeindex", ".snapshot", ".txnindex")
FILES = sorted(p for tree in (SAMPLES, FIXTURES / "segments", FIXTURES / "partitions", FIXTURES / "internal")
               for p in tree.rglob("*") if p.suffix in KINDS and p.is_file())

# Internal-topic records print as Kafka's decoders print them (their JsonConverters' JSON: tagged fields where
# the schema declares them, at their defaults left out; the record types and versions each Kafka version
# knows; Kafka's words for a value cut short; the remote-log metadata objects' toString()), except:
# - Kafka 3.9 fails on the RegisterBrokerRecord v4 (Kafka 4's) of the hand-made metadata log ("Failed to
#   deserialize record with type 0") for a reason its classes do not say, where it reads v3 of
#   BrokerRegistrationChangeRecord, also past its versions, without a complaint.
KNOWN_DIFFERENT = {
    "3.9.2": {"tests/fixtures/internal/__cluster_metadata-0/00000000000000000000.log",
              "tests/fixtures/internal/__cluster_metadata-0/00000000000000000100-0000000001.checkpoint"},
    "4.3.1": set(),
    "4.4.0": set(),
}


#: Files of a topic the version does not have.
NOT_IN = {"3.9.2": {"tests/fixtures/internal/__share_group_state-0/00000000000000000000.log"}, "4.3.1": set(), "4.4.0": set()}


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> dict[Path, Path]:
    return dls.copy_as_kafka_names(FILES, tmp_path_factory.mktemp("kafka-names"))


@pytest.fixture(scope="module", params=sorted(dls.VERSIONS))
def kafka_dumps(request, copies) -> tuple[str, dict[Path, dls.Dumped]]:
    version = request.param
    # (the files of a topic this version does not have, the share-group state of Kafka 4, left out)
    return version, dls.run_decoded(version, list(copies.values()))


def _ours(path: Path, kafka_version: str) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = kafkalog_main(["dump", "--format", "kafka", "--kafka-version", kafka_version, str(path)])
    # Damage goes to stderr, where it does not disturb the lines scripts parse, and sets the exit status.
    assert status == (1 if err.getvalue() else 0), (path, status, err.getvalue())
    return out.getvalue().splitlines()


def _same(theirs: dls.Dumped, ours: list[str]) -> bool:
    if theirs.exception is None:
        return ours == theirs.lines
    # Kafka's tool died inside the last record it began to print: kafkalog goes on from there.
    *whole, last = theirs.lines
    return ours[:len(whole)] == whole and len(ours) > len(whole) and ours[len(whole)].startswith(last)


def test_every_file_is_dumped_by_both(copies, kafka_dumps):
    version, dumped = kafka_dumps
    assert len(FILES) >= 140 and {p.suffix for p in FILES} == set(KINDS)
    missing = {str(orig.relative_to(SAMPLES.parent)) for orig, copy in copies.items() if copy not in dumped}
    assert missing == NOT_IN[version]


def test_kafkalog_prints_kafkas_lines(copies, kafka_dumps):
    version, dumped = kafka_dumps
    root = SAMPLES.parent
    differ = set()
    for orig, copy in copies.items():
        if copy not in dumped:
            continue
        if not _same(dumped[copy], _ours(copy, dls.VERSIONS[version])):
            differ.add(str(orig.relative_to(root)))
    assert differ == KNOWN_DIFFERENT[version]


def test_the_two_versions_differ_where_kafka_changed(copies, kafka_dumps):
    # Kafka 4 prints a leader change as JSON and a legacy record's crc without Kafka 3's stray brace.
    version, dumped = kafka_dumps
    v1 = next(copy for orig, copy in copies.items() if orig.match("segments/v1-none.log"))
    kraft = next(copy for orig, copy in copies.items() if orig.name == "v2-kraft-control.log")
    text = "\n".join(dumped[v1].lines + dumped[kraft].lines)
    if version.startswith("3."):
        assert "crc: 1661556589}" in text and "controlType: LEADER_CHANGE(2)" in text
    else:
        assert "crc: 1661556589 key" in text and " LeaderChange: {" in text
    # Kafka 4.4 prints a transaction's state by its name (here an id that is no state, as a string).
    txn = next(copy for orig, copy in copies.items() if orig.match("internal/__transaction_state-0/*.log"))
    txn_text = "\n".join(dumped[txn].lines)
    assert ('"transactionStatus":"15"' in txn_text) == (version == "4.4.0")
    assert ('"transactionStatus":15,' in txn_text) == (version == "4.3.1")
