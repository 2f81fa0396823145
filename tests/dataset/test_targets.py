"""What dump and verify read, planned from their arguments below the command layer (`kafkalog.dataset.targets`)."""
from __future__ import annotations

import shutil

import pytest

from kafkalog.dataset import targets
from kafkalog.errors import UsageError
from kafkalog.location import Location
from kafkalog.log import file_kinds
from tests.paths import FIXTURES

ORDERS = FIXTURES / "partitions" / "orders-0"


def test_a_partition_directory_is_one_target_with_its_partition_and_its_record_bytes():
    planned = targets.dump_targets([str(ORDERS)], None, None)
    assert planned.remote == [] and planned.gaps == {}
    assert planned.files == [targets.Target(Location(str(ORDERS)), None, [ORDERS])]
    assert planned.files[0].bootstrap is None
    assert planned.record_bytes == sum(p.stat().st_size for p in ORDERS.glob("*.log"))


def test_a_file_is_a_target_of_the_kind_its_name_says_or_of_type():
    log = ORDERS / "00000000000000000106.log"
    index = ORDERS / "00000000000000000106.index"
    planned = targets.dump_targets([str(log), str(index)], None, None)
    assert [(t.location, t.kind) for t in planned.files] == [(Location(str(log)), file_kinds.LOG),
                                                              (Location(str(index)), file_kinds.INDEX)]
    assert planned.record_bytes == log.stat().st_size  # (an index holds no record batches)
    forced = targets.dump_targets([str(index)], file_kinds.LOG, None)
    assert forced.files[0].kind == file_kinds.LOG


def test_what_cannot_be_read_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="name a FILE"):
        targets.dump_targets([], None, None)
    with pytest.raises(UsageError, match="no such file or directory"):
        targets.dump_targets([str(tmp_path / "missing")], None, None)
    shutil.copy(ORDERS / "00000000000000000000.log", tmp_path / "copy.bin")
    with pytest.raises(UsageError, match="cannot tell from its name"):
        targets.dump_targets([str(tmp_path / "copy.bin")], None, None)
    with pytest.raises(UsageError, match=r"--remote-root .*: no such directory"):
        targets.dump_targets([str(ORDERS)], None, str(tmp_path / "missing"))


def test_verify_plans_its_path_and_the_bytes_of_its_indexes():
    log = ORDERS / "00000000000000000106.log"
    planned = targets.verify_targets(str(log), None)
    assert planned.path == Location(str(log)) and planned.remote == []
    assert planned.record_bytes == log.stat().st_size
    assert planned.index_bytes == sum(log.with_suffix(s).stat().st_size for s in (".index", ".timeindex"))


def test_a_directory_behind_a_uri_is_planned_as_the_same_on_the_local_disk(tmp_path):
    """A partition directory behind a URI (here file://) is one target of its partition directory, as on the local
    disk, with the same record bytes; a glob of URIs names each match; what names nothing, a file of no kind and
    --type for a directory are usage errors, as locally."""
    uri = ORDERS.as_uri()
    planned = targets.dump_targets([uri], None, None)
    assert [(str(t.location), t.kind, [str(p) for p in t.partitions or []]) for t in planned.files] == \
        [(uri, None, [uri])]
    assert not planned.files[0].is_log_dir and planned.files[0].bootstrap is None
    assert planned.record_bytes == targets.dump_targets([str(ORDERS)], None, None).record_bytes
    globbed = targets.dump_targets([ORDERS.parent.as_uri() + "/orders-[0]"], None, None)
    assert [str(t.location) for t in globbed.files] == [uri]
    with pytest.raises(UsageError, match="no such object"):
        targets.dump_targets([ORDERS.parent.as_uri() + "/nothing-*"], None, None)
    shutil.copy(ORDERS / "00000000000000000000.log", tmp_path / "copy.bin")
    with pytest.raises(UsageError, match="cannot tell from its name"):
        targets.dump_targets([(tmp_path / "copy.bin").as_uri()], None, None)
    with pytest.raises(UsageError, match="--type names the kind of a file"):
        targets.dump_targets([uri], file_kinds.LOG, None)
