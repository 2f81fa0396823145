#!/usr/bin/env python3
"""Write tests/brokers/fixtures: small directories real brokers wrote, kept as regression fixtures.

- killed-4.3.1/unclean-0: a partition of Kafka 4.3.1 killed (kill -9) in the middle of produce
  (tests/brokers/scenarios.py killed_4x): its active segment's index files are still preallocated
  (segment.index.bytes 4096), the time index ends in zero slots that Kafka's --index-sanity-check
  calls corrupt.
- kraft-3.9.2/__consumer_offsets-N/00000000000000000000.log: the segment of Kafka 3.9.2's
  __consumer_offsets (tests/brokers/scenarios.py kraft_39) that holds the consumer-protocol group
  g-consumer: its ConsumerGroupMemberMetadataValue has the tagged, nullable ClassicMemberMetadata
  written as null (a presence marker 0), which kafkalog's spec once read as a struct.
- log-dirs/kraft-4.3.1, log-dirs/zk-3.9.2: whole log directories of a KRaft 4.3.1 broker and a ZooKeeper-mode
  3.9.2 broker, stopped cleanly after producing to a topic `t` of two partitions: meta.properties (versions 1
  and 0), the offset checkpoints, .kafka_cleanshutdown, partition.metadata, quorum-state (KRaft's
  __cluster_metadata-0, whose segments are left out) and the segments of t-0 and t-1.

Run from the repository root, after `python scripts/kafka_jars.py`:
    PYTHONPATH=.:scripts python tests/brokers/make_fixtures.py
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.brokers import scenarios
from tests.brokers.harness import Broker, run_scenario

OUT = Path(__file__).resolve().parent / "fixtures"


_SEGMENT_FILES = shutil.ignore_patterns("0*.log", "0*.index", "0*.timeindex", "0*.snapshot")


def _metadata_segments(directory: str, names: list[str]) -> set[str]:
    """The metadata log's segments, left out of a log directory's copy (its small files stay)."""
    return _SEGMENT_FILES(directory, names) if Path(directory).name == "__cluster_metadata-0" else set()


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kafkalog-broker-fixtures-") as tmp:
        run = scenarios.killed_4x(Path(tmp))
        dest = OUT / f"killed-{run.version}" / "unclean-0"
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for f in sorted((run.data_dir / "unclean-0").iterdir()):
            shutil.copy2(f, dest / f.name)
        print(f"wrote {dest}")
    with tempfile.TemporaryDirectory(prefix="kafkalog-broker-fixtures-") as tmp:
        run = scenarios.kraft_39(Path(tmp))
        for old in (OUT / f"kraft-{run.version}").glob("__consumer_offsets-*"):
            shutil.rmtree(old)
        for log in sorted(run.data_dir.glob("__consumer_offsets-*/*.log")):
            if b"g-consumer" in log.read_bytes():
                dest = OUT / f"kraft-{run.version}" / log.parent.name
                dest.mkdir(parents=True)
                shutil.copy2(log, dest / log.name)
                print(f"wrote {dest / log.name}")
    for version, mode in ((scenarios.NEWEST_4X, "kraft"), (scenarios.NEWEST_39, "zk")):
        with tempfile.TemporaryDirectory(prefix="kafkalog-broker-fixtures-") as tmp:
            b = Broker(version, mode, Path(tmp)).start()
            try:
                run_scenario(b, [scenarios._topic("t", 2), ["produce", "t", "none", "2", "50", "plain", "100",
                                                             "noheaders"]])
            finally:
                b.stop()
            dest = OUT / "log-dirs" / f"{mode}-{version}"
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(b.data_dir, dest, ignore=_metadata_segments)
            print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
