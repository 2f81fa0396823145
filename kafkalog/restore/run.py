"""`restore`: the one function `kafkalog restore` calls. Topics first, then each topic's records (`_schemas`
first), then the consumer groups."""
from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from kafkalog.errors import TargetRefusedError, UsageError
from kafkalog.progress import CountProgress
from kafkalog.restore import groups as group_offsets, source, topics
from kafkalog.restore.collector import collector_paused
from kafkalog.restore.offset_map import MapWriter, State, mapped_counts
from kafkalog.restore.options import FORCED, PRODUCER_DEFAULTS, RestoreOptions, producer_settings
from kafkalog.restore.prefetch import Prefetch
from kafkalog.restore.produce import RESTORE_ELSEWHERE, Gap, Lane, Producing
from kafkalog.restore.source import Records


@dataclass
class RestoreReport:
    """What a restore did."""

    created_topics: list[str] = field(default_factory=list)
    #: source "topic-partition" -> records produced by this run
    produced: dict[str, int] = field(default_factory=dict)
    #: source "topic-partition" -> records an earlier run had delivered (not produced again)
    resumed: dict[str, int] = field(default_factory=dict)
    delivered: int = 0
    groups: dict[str, int] = field(default_factory=dict)
    #: "group topic-partition": committed offsets of partitions that were not restored
    groups_skipped: list[str] = field(default_factory=list)
    #: target partitions another client wrote to during the restore (resuming them is not exact)
    foreign: dict[str, int] = field(default_factory=dict)
    #: target "topic-partition"s not resumed: an earlier run left records past a refused one there
    held_back: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        rate = self.delivered / self.seconds if self.seconds else 0.0
        out = [f"kafkalog restore: {self.delivered} record(s) delivered in {self.seconds:.1f} s ({rate:.0f}/s), "
               f"{sum(self.resumed.values())} delivered by an earlier run"]
        if self.created_topics:
            out.append(f"  created topics: {', '.join(self.created_topics)}")
        for tp, n in sorted(self.produced.items()):
            resumed = self.resumed.get(tp, 0)
            out.append(f"  {tp}: {n} produced" + (f", {resumed} already there" if resumed else ""))
        for group, n in sorted(self.groups.items()):
            out.append(f"  group {group}: {n} offset(s) committed")
        for skipped in self.groups_skipped:
            out.append(f"  group offset not restored (its partition was not restored): {skipped}")
        for tp in self.held_back:
            out.append(f"  {tp}: not resumed (an earlier run left records past a refused one there)")
        for tp, n in sorted(self.foreign.items()):
            out.append(f"  warning: {tp}: {n} record(s) landed at offsets another client's records took")
        return out


def _identity(options: RestoreOptions) -> dict[str, Any]:
    return {"sources": list(options.sources), "read_options": dict(sorted(options.read_options.items())),
            "topic_map": dict(sorted(options.topic_map.items()))}


def _target_ends(admin: Any, partitions: list[tuple[str, int]], timeout: float = 60.0) -> dict[tuple[str, int], int]:
    """The target's end offsets (high watermarks) of these partitions.

    A topic just created answers errors until its leader is elected (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
    or librdkafka's "Failed to query partition leaders: No leaders found", which it does not mark retriable), so
    every error is asked again, in calls of at most 10 s, until `timeout`; only then is it the target's refusal.
    Before each retry the erring topics' metadata is asked for by name: librdkafka's leader lookup for
    `list_offsets` never asks again for a topic its cache holds as unknown, and that entry can outlive its 100 ms
    (it is queued behind the entries of the first full listing, which live `metadata.max.age.ms`), so without it
    a topic a broker had not yet seen when first asked stays "No leaders found" for 15 minutes.
    """
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import OffsetSpec

    out: dict[tuple[str, int], int] = {}
    todo = list(partitions)
    deadline = time.monotonic() + timeout
    while todo:
        left = deadline - time.monotonic()
        futures = admin.list_offsets({TopicPartition(t, p): OffsetSpec.latest() for t, p in todo},
                                     request_timeout=max(1.0, min(10.0, left)))
        retry = []
        for tp, future in futures.items():
            try:
                out[(tp.topic, tp.partition)] = future.result().offset
            except KafkaException as e:
                if time.monotonic() < deadline:
                    retry.append((tp.topic, tp.partition))
                    continue
                err = e.args[0]
                raise TargetRefusedError(f"target {tp.topic}-{tp.partition}: cannot read its end offset: "
                                         f"{err.str() if hasattr(err, 'str') else err}") from None
        todo = retry
        if todo:
            time.sleep(0.5)
            for topic in sorted({t for t, _ in todo}):
                with contextlib.suppress(KafkaException):  # (the next list_offsets says what is wrong)
                    admin.list_topics(topic=topic, timeout=max(1.0, min(10.0, deadline - time.monotonic())))
    return out


def _produce(producing: Producing, reading: Prefetch[tuple[str, Records]],
             lanes_by_topic: dict[str, dict[int, Lane]]) -> None:
    """Every run read, to its lane, until the end or the first refusal; `_schemas` delivered before the rest."""
    with collector_paused():  # (the records' objects hold no cycles; see kafkalog.restore.collector)
        previous = None
        for topic, run in reading:
            if previous == source.SCHEMAS_TOPIC and topic != previous:
                producing.finish()  # the schemas are in before any value that names them
            previous = topic
            lane = lanes_by_topic[topic].get(run.partition)
            if lane is not None:  # (None: a partition held back, see `held_back`)
                producing.send(lane, run)
            if producing.stopped:
                return


def held_back(state: State, keys: list[str]) -> dict[str, Gap]:
    """The target partitions (of `keys`) where an earlier run left records past a refused one: not resumed, since
    the refused record would be missing before them for good."""
    return {key: Gap.from_json(state.gaps[key]) for key in keys if key in state.gaps}


def held_back_error(state: State, gaps: list[Gap]) -> str:
    """What a run that held partitions back says at its end: each one, what is on it, and what to do."""
    lines = [f"{len(gaps)} target partition(s) not resumed, the others were restored:"]
    for gap in gaps:
        refused = f"offset {gap.refused}" if gap.refused is not None else "a record"
        lines.append(
            f"  target {gap.target_topic}-{gap.target_partition}: an earlier run with the offset map "
            f"{state.path.parent} had source {gap.source_topic}-{gap.source_partition} {refused} refused, and "
            f"{gap.describe()}: the partition misses that record before them, so this offset map does not resume "
            f"it (no record produced to it); {RESTORE_ELSEWHERE.format(topic=gap.source_topic)}")
    return "\n".join(lines)


def restore(options: RestoreOptions, out: TextIO | None = None) -> RestoreReport:
    """Restore the sources' committed records, topics and consumer groups into the target cluster.

    Parameters
    ----------
    options : RestoreOptions
        What to read, the target and its client configuration, and the offset map's directory.
    out : file-like, optional
        Where the report's lines go: by default `sys.stdout` as it is when the restore ends.

    Returns
    -------
    RestoreReport
        What was created, produced, found delivered by an earlier run, and committed.

    Raises
    ------
    kafkalog.TargetRefusedError
        The target refused a topic, a record (named by its source topic, partition and offset) or a group's
        offsets. What was delivered before it is in the offset map; a second run goes on from there. Also, at
        the end of a run that restored everything else, when it held back target partitions where an earlier run
        left records past a refused one (resuming them would leave that record missing before them for good).
    kafkalog.UsageError
        Sources that hold nothing to restore, or an offset map of another restore.

    Notes
    -----
    While it produces, Python's cyclic garbage collector is paused, for the whole process (CPython has one): the
    records' objects hold no cycles, and collecting them costs more than converting them. The collector is put
    back as it was found (disabled stays disabled) when the last restore running in the process ends.
    """
    from confluent_kafka.admin import AdminClient

    t0 = time.monotonic()
    report = RestoreReport()
    config: dict[str, str | int | float | bool] = {**producer_settings(options.bootstrap_server, options.config)}
    admin_config: dict[str, str | int | float | bool] = {k: v for k, v in config.items()
                                                         if k not in PRODUCER_DEFAULTS and k not in FORCED}
    admin = AdminClient(admin_config)
    writer = MapWriter(options.offset_map)
    producing = Producing(config, writer, options.original_headers, CountProgress.for_stderr())
    seen = source.topic_partitions(options)
    if not seen:
        raise UsageError(f"{', '.join(options.sources)}: no topic to restore here")
    order = source.restore_order(list(seen))
    # Reading starts on its thread now, while the target's topics are prepared (`_schemas` first, then by name).
    reading = Prefetch((topic, run) for topic in order for run in source.topic_runs(options, topic))
    lanes_by_topic: dict[str, dict[int, Lane]] = {}
    try:
        wanted = topics.source_topics(options.sources, seen)
        targets = {options.target_topic(t): st for t, st in wanted.items()}
        report.created_topics = topics.prepare_targets(admin, targets)

        state = State.open(options.offset_map, _identity(options))
        gaps = held_back(state, [State.key(options.target_topic(t), p) for t in seen for p in sorted(seen[t])])
        report.held_back = [f"{g.target_topic}-{g.target_partition}" for g in gaps.values()]
        pairs = [(options.target_topic(t), p) for t in seen for p in sorted(seen[t])]
        ends = _target_ends(admin, pairs)
        mapped = mapped_counts(options.offset_map)
        for topic in seen:
            target = options.target_topic(topic)
            lanes_by_topic[topic] = {}
            for p in sorted(seen[topic]):
                key = State.key(target, p)
                if key in gaps:
                    continue
                end = ends[(target, p)]
                start = state.starts.setdefault(key, end)
                if end < start:
                    raise UsageError(f"target {target}-{p} ends at offset {end}, before where this restore started "
                                     f"({start}): the topic was deleted or truncated; use a new --offset-map "
                                     "directory")
                lane = Lane(topic, p, target, p, start, end - start, mapped.get((topic, p), 0))
                lanes_by_topic[topic][p] = lane
                producing.lane(lane)
        state.save()  # before the first record: a second run knows where each target partition started
        _produce(producing, reading, lanes_by_topic)
    finally:
        reading.close()
        producing.finish()
        if producing.progress is not None:
            producing.progress.close()
    for lanes in lanes_by_topic.values():
        for lane in lanes.values():
            name = f"{lane.source_topic}-{lane.source_partition}"
            report.produced[name] = lane.produced
            if lane.skip:
                report.resumed[name] = min(lane.skip, lane.place)
            if lane.foreign:
                report.foreign[f"{lane.target_topic}-{lane.target_partition}"] = lane.foreign
    report.delivered = producing.delivered
    report.seconds = time.monotonic() - t0
    left = [gap for lanes in lanes_by_topic.values() for lane in lanes.values() if (gap := lane.gap()) is not None]
    if left:  # before the error: a second run with this map must not resume these partitions
        state.gaps.update({State.key(g.target_topic, g.target_partition): g.to_json() for g in left})
        state.save()
    producing.raise_refusal(writer.written)

    if options.groups:
        committed = group_offsets.committed_offsets(options.sources, options.read_options, options.threads)
        restored = [(lane.target_topic, lane.target_partition) for lanes in lanes_by_topic.values()
                    for lane in lanes.values()]
        translated, skipped = group_offsets.translate(committed, options.offset_map, options.topic_map,
                                                      _target_ends(admin, restored))
        report.groups = group_offsets.commit(admin, translated)
        report.groups_skipped = [f"{c.group} {c.topic}-{c.partition}" for c in skipped]
    report.seconds = time.monotonic() - t0
    for line in report.lines():
        print(line, file=sys.stdout if out is None else out)
    if gaps:
        raise TargetRefusedError(held_back_error(state, list(gaps.values())))
    return report
