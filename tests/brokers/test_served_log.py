"""One disk as its broker's restart recovers it (kafkalog.log.served_log), against Kafka itself.

The disk (`recovery_4x`): `deleteRecords` before offset 317 on `deleted`, a transaction left open on `open-txn`,
and `prealloc` killed (kill -9) mid-produce with `log.preallocate=true`; the broker itself killed. The oracle: a
broker restarted on a copy of the disk, and a consumer reading every partition from earliest to latest, both
isolation levels. kafkalog reads the killed disk, as it was left."""
from __future__ import annotations

import base64
import json

import pyarrow.compute as pc
import pytest

import kafkalog
from kafkalog.cli import main
from kafkalog.verify import verify_path
from tests.brokers.scenarios import RECOVERY_TOPICS

pytestmark = pytest.mark.broker

ISOLATIONS = ["read_uncommitted", "read_committed"]


def _b64(b: bytes | None) -> str | None:
    return None if b is None else base64.b64encode(b).decode()


def consumed(directory, isolation: str, topic: str) -> tuple[dict, list[tuple]]:
    """The consumer's header line (its beginningOffsets and endOffsets) and its records (offset, key, value)."""
    lines = (directory / isolation / f"{topic}-0.json").read_text().splitlines()
    return json.loads(lines[0]), [(r["offset"], r["key"], r["value"]) for r in map(json.loads, lines[1:])]


def read(run, topic: str, isolation: str, **options) -> list[tuple]:
    table = kafkalog.read_table(run.data_dir, subscribe=topic, **{"kafka.isolation.level": isolation}, **options)
    return [(r["offset"], _b64(r["key"]), _b64(r["value"])) for r in table.to_pylist()]


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("topic", RECOVERY_TOPICS)
def test_read_arrow_is_what_the_restarted_broker_serves(recovery_4x, topic, isolation):
    _, expected = consumed(recovery_4x.consumed, isolation, topic)
    assert expected, "the restarted broker served nothing: no oracle"
    assert read(recovery_4x, topic, isolation) == expected


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("topic", ["deleted", "open-txn"])
def test_read_arrow_is_what_the_consumer_read_before_the_kill(recovery_4x, topic, isolation):
    _, expected = consumed(recovery_4x.work / "consumed-before", isolation, topic)
    assert read(recovery_4x, topic, isolation) == expected


@pytest.mark.parametrize("topic", RECOVERY_TOPICS)
def test_dump_json_is_what_the_restarted_broker_serves(recovery_4x, topic, capsys):
    assert main(["dump", "--format", "json", str(recovery_4x.data_dir / f"{topic}-0")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    records = [(r["offset"], r["key"], r["value"]) for r in lines if r["type"] == "record" and r["control_type"] is None]
    _, expected = consumed(recovery_4x.consumed, "read_uncommitted", topic)
    assert records == expected


def test_the_scenarios_left_what_they_test(recovery_4x):
    """The disk holds records below the log start offset, a transaction open and preallocated zeros."""
    bounds = {r["topic"]: r for r in kafkalog.partition_bounds(recovery_4x.data_dir).to_pylist()}
    assert bounds["deleted"]["log_start_offset"] == 317
    assert bounds["open-txn"]["last_stable_offset"] < bounds["open-txn"]["log_end_offset"]
    cut = bounds["prealloc"]
    assert cut["truncated_segment"] is not None and "all zero" in cut["truncated_reason"]
    assert cut["clean_shutdown"] is False


def test_partition_bounds_are_the_consumers_earliest_and_latest(recovery_4x):
    for row in kafkalog.partition_bounds(recovery_4x.data_dir).to_pylist():
        if row["topic"] not in RECOVERY_TOPICS:
            continue
        uncommitted, _ = consumed(recovery_4x.consumed, "read_uncommitted", row["topic"])
        committed, _ = consumed(recovery_4x.consumed, "read_committed", row["topic"])
        assert row["log_start_offset"] == uncommitted["log_start_offset"], row
        assert row["log_end_offset"] == uncommitted["end_offset"], row
        assert row["last_stable_offset"] == committed["end_offset"], row
        assert row["log_start_offset"] <= row["high_watermark"] <= row["log_end_offset"], row


def test_below_the_log_start_offset_read_on_request_and_marked(recovery_4x):
    table = kafkalog.read_table(recovery_4x.data_dir, subscribe="deleted", includeBelowLogStart=True)
    below = table.filter(table.column("below_log_start"))
    assert below.column("offset").to_pylist() == list(range(317))
    served = table.filter(pc.invert(table.column("below_log_start")))
    _, expected = consumed(recovery_4x.consumed, "read_uncommitted", "deleted")
    assert served.column("offset").to_pylist() == [o for o, _, _ in expected]


def test_a_start_below_the_log_start_offset_is_data_loss(recovery_4x):
    with pytest.raises(kafkalog.DataLossError, match="below the log start offset"):
        kafkalog.read_table(recovery_4x.data_dir, subscribe="deleted", startingOffsets='{"deleted":{"0":100}}')


def test_read_past_open_transactions_on_request(recovery_4x):
    """readPastOpenTransactions=true: what kafkalog gave before: the open transaction's records dropped, those
    after it returned."""
    _, uncommitted = consumed(recovery_4x.consumed, "read_uncommitted", "open-txn")
    _, committed = consumed(recovery_4x.consumed, "read_committed", "open-txn")
    got = read(recovery_4x, "open-txn", "read_committed", readPastOpenTransactions=True)
    assert got[: len(committed)] == committed
    assert len(got) == len(uncommitted) - 7  # the open transaction's seven records
    assert got[-1] == uncommitted[-1]


def test_verify_notes_the_recovered_tail_and_finds_no_problem(recovery_4x):
    report = verify_path(recovery_4x.data_dir / "prealloc-0")
    assert report.ok, report.problems
    assert any("Kafka's recovery ends the log here" in n for n in report.notes), report.notes


def test_a_stream_walks_on_from_its_last_trigger_while_the_broker_appends(recovery_4x):
    """While the broker appended to `prealloc` (a preallocated active segment, whose size never changes), a stream's
    triggers (`TailedLogs`, each with the producer paused) found the bounds a walk from the start finds, reading only
    what was appended since the last trigger (and one batch to check the bytes it resumes after), where a walk from
    the start reads the whole active segment again. Every end it found is an end the restarted broker served past."""
    found = json.loads((recovery_4x.work / "tailed.json").read_text())
    assert len(found) >= 10, found
    assert all(t["same"] for t in found), found
    ends = [t["end"] for t in found]
    assert ends == sorted(ends) and ends[0] > 0
    served, _ = consumed(recovery_4x.consumed, "read_uncommitted", "prealloc")
    assert ends[-1] <= served["end_offset"]
    resumed = [t for t in found[1:] if t["walks"][-1][1] > 0]  # the active segment walked on, not from its start
    assert len(resumed) >= len(found) - 3, found  # (not where a segment rolled, nor the first)
    for t in resumed:
        active_walked = t["walks"][-1][2] - t["walks"][-1][1]
        assert t["scanned"] < t["scanned_from_start"], t
        # what was appended, read by the walk and the open-transaction search, and one batch checked (< 64 KiB)
        assert t["scanned"] <= 2 * active_walked + 65536, t
    # (No ratio of the sums: how much the producer appends between two triggers, against the segment's size, is a
    # matter of timing; under load it appended more, and the sums' ratio fell below 3 with every trigger in bounds.)
