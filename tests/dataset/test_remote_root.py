"""A partition's history split between a remote storage root (LocalTieredStorage's layout) and its log
directory reads as the whole partition did, each segment once, whatever the split."""
from __future__ import annotations

import shutil

import pytest

import kafkalog
from kafkalog import file_names
from tests.paths import FIXTURES

ORDERS = FIXTURES / "partitions" / "orders-0"
TOPIC_ID = "q2b3TK0ZQEWqbpAAlJMZ0g"


def _tier(tmp_path, remote_count: int, local_from: int):
    """Copy orders-0's first `remote_count` segments to a remote root, and keep its segments from index
    `local_from` on in a log directory (an overlap when local_from < remote_count)."""
    bases = sorted(p.stem for p in ORDERS.glob("*.log"))
    root = tmp_path / "remote" / file_names.LOCAL_TIERED_STORAGE_DIR / f"orders-0-{TOPIC_ID}"
    root.mkdir(parents=True)
    for i, base in enumerate(bases[:remote_count]):
        segment_id = f"{i:022d}".replace("0", "A")
        for suffix in (".log", ".index", ".timeindex"):
            if (ORDERS / f"{base}{suffix}").exists():
                shutil.copy(ORDERS / f"{base}{suffix}", root / f"{base}-{segment_id}{suffix}")
    local = tmp_path / "data" / "orders-0"
    local.mkdir(parents=True)
    for base in bases[local_from:]:
        for f in ORDERS.glob(f"{base}.*"):
            shutil.copy(f, local / f.name)
    return tmp_path / "data", tmp_path / "remote"


@pytest.mark.parametrize("remote_count, local_from", [(3, 3), (3, 2), (4, 1), (4, 4), (1, 0)])
def test_remote_then_local_each_segment_once(tmp_path, remote_count, local_from):
    whole = kafkalog.read_table(ORDERS, includeKafkalogColumns=True)
    assert len(list(ORDERS.glob("*.log"))) >= 4
    data, root = _tier(tmp_path, remote_count, local_from)
    for path in (root, root / file_names.LOCAL_TIERED_STORAGE_DIR, root / file_names.LOCAL_TIERED_STORAGE_DIR / f"orders-0-{TOPIC_ID}"):
        got = kafkalog.read_table(data, remoteRoot=str(path), includeKafkalogColumns=True)
        assert got.column("offset").to_pylist() == whole.column("offset").to_pylist()
        assert got.column("value").equals(whole.column("value"))
        assert set(got.column("topic").to_pylist()) == {"orders"}
    # the Kafka source's offsets across the seam, through the remote segments' own indexes
    part = kafkalog.read_table(data, remoteRoot=str(root), startingOffsets=60, endingOffsets=130)
    assert part.column("offset").to_pylist() == [o for o in whole.column("offset").to_pylist() if 60 <= o < 130]


def test_the_remote_root_alone_reads_its_partitions(tmp_path):
    data, root = _tier(tmp_path, 4, 4)
    shutil.rmtree(data)
    data.mkdir()
    got = kafkalog.read_table(data, remoteRoot=str(root))
    expected = [o for o in kafkalog.read_table(ORDERS).column("offset").to_pylist()]
    assert got.column("offset").to_pylist() == expected[:len(got)] and len(got) > 0
