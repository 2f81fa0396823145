"""A read the compiled engine serves does not load pandas (issue 33: start-up).

A fresh process reads `samples/v2-none.log` with `read_table`: neither pandas nor pyarrow's compute functions
(about 0.035 s) must be imported, and the rows
(offsets, keys, values) must be the object path's. Then the same process reads a legacy segment, on the
engine too: still no pandas. Last, `to_pandas` imports pandas, so the check can see a module
loaded. Only where the engine was compiled: without it, every read is the object path's.

Nor does the first read load what only other reads use (`LATER`, `NEVER`): the cluster layer, Aiven's objects,
the internal topics' decoders, a log directory's readers, the planner's entry walk, a thread pool. Each is
imported where it is used; the same process then reads a log directory with decode=true on two threads, which
loads `LATER`, so that the check can see them.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pytest

from kafkalog.dataset.decode import read_segment
from kafkalog.fast import compiled
from kafkalog.model import Decoder
from tests.paths import ROOT

#: Modules a read of one small segment file does not use, and a log directory's read with decode=true on two
#: threads does (issue 33: start-up: together about 60 ms of a fresh process's CPU, from source).
LATER = ("concurrent.futures", "kafkalog.dataset.internal_topics", "kafkalog.formats.internal_topics",
         "kafkalog.log.log_dir", "kafkalog.log.partition")
#: Modules neither read uses: several brokers' disks (the cluster layer), a broker's log directory's served log
#: (the fixture is partitions without their log directory's files), Aiven's objects, the planner's entry walk,
#: the registry's decoders, Kafka 0.7.
NEVER = ("kafkalog.cluster.metadata", "kafkalog.cluster.served", "kafkalog.log.served_log", "kafkalog.remote.aiven_object",
         "kafkalog.remote.aiven_custom_metadata", "kafkalog.dataset.cuts", "kafkalog.dataset.kafka_07_rows",
         "kafkalog.dataset.registry_values")

CHILD = """
import json, sys
import kafkalog
from kafkalog.fast import compiled
table = kafkalog.read_table("samples/v2-none.log")
loaded = sorted(m for m in ("pandas", "pyarrow.compute") if m in sys.modules)
small = sorted(m for m in LATER + NEVER if m in sys.modules)
rows = table.select(["offset", "key", "value"]).to_pylist()  # (after the check: it may load pandas)
kafkalog.read_table("samples/v1-none.log")
legacy_loaded = sorted(m for m in ("pandas",) if m in sys.modules)
directory = kafkalog.read_table("tests/fixtures/partitions", subscribe="orders", decode=True, threads=2)
kafkalog.read_table("samples/v2-transaction.log", **{"isolation.level": "read_committed"})
compute_later = "pyarrow.compute" in sys.modules  # (a read_committed read's mask is Arrow compute's)
table.to_pandas()
print(json.dumps({"engine": compiled.AVAILABLE, "loaded": loaded, "rows": repr(rows),
                  "legacy_loaded": legacy_loaded, "pandas_later": "pandas" in sys.modules, "small": small,
                  "compute_later": compute_later,
                  "later": sorted(m for m in LATER if m in sys.modules), "directory_rows": directory.num_rows}))
"""


@pytest.mark.skipif(not compiled.AVAILABLE, reason="the compiled engine was not built: every read is the object path's")
def test_a_fresh_process_reads_a_small_v2_segment_without_pandas():
    done = subprocess.run([sys.executable, "-c", f"LATER, NEVER = {LATER!r}, {NEVER!r}\n{CHILD}"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    child = json.loads(done.stdout.strip().splitlines()[-1])
    assert child["engine"]
    assert child["loaded"] == []
    assert child["small"] == [], "a read of one small segment file loaded modules only other reads use"
    assert child["directory_rows"] == 663
    assert child["later"] == sorted(LATER), "the log directory's read did not load them: the check could not see them"
    reference = pa.Table.from_batches(read_segment(ROOT / "samples" / "v2-none.log", decoder=Decoder.OBJECT))
    assert reference.num_rows == 6
    assert child["rows"] == repr(reference.select(["offset", "key", "value"]).to_pylist())
    assert child["legacy_loaded"] == []
    assert child["pandas_later"], "to_pandas did not load pandas: the checks above could not see a module loaded"
    assert child["compute_later"], "a read_committed read did not load pyarrow.compute: the check could not see it"


#: What `kafkalog verify` and `kafkalog dump` of a segment do not load (issue 33: start-up, about 0.06 s CPU
#: together): pyarrow's compute functions (control records' types are the engine's too), the package metadata
#: (`--version` reads it), and, for verify, dump's line writers.
COMMAND_CHILD = """
import contextlib, io, json, sys
from kafkalog import cli
cli.FAST_PATH_MIN_BYTES = 0  # (the engine's path, as for a large segment)
WATCHED = ("pyarrow.compute", "importlib.metadata", "kafkalog.dump.segment_lines")
seen = {}
for command in (["verify", "samples/v2-none.log"], ["dump", "samples/v2-none.log"],
                ["dump", "tests/fixtures/segments/v2-transactions.log"]):
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(command)
    seen[" ".join(command)] = [code, sorted(m for m in WATCHED if m in sys.modules)]
import kafkalog
kafkalog.read_table("samples/v2-transaction.log", **{"isolation.level": "read_committed"})
seen["read_committed"] = [0, sorted(m for m in WATCHED if m in sys.modules)]
cli._version()
seen["version"] = [0, sorted(m for m in WATCHED if m in sys.modules)]
print(json.dumps(seen))
"""


@pytest.mark.skipif(not compiled.AVAILABLE, reason="the compiled engine was not built: every read is the object path's")
def test_verify_and_dump_load_neither_compute_functions_nor_package_metadata():
    done = subprocess.run([sys.executable, "-c", COMMAND_CHILD], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["verify samples/v2-none.log"] == [0, []]
    assert seen["dump samples/v2-none.log"] == [0, ["kafkalog.dump.segment_lines"]]
    assert seen["dump tests/fixtures/segments/v2-transactions.log"] == [0, ["kafkalog.dump.segment_lines"]]
    # The checks can see these modules loaded: a read_committed read's mask is Arrow compute's, --version reads
    # metadata.
    assert seen["read_committed"][1] == ["kafkalog.dump.segment_lines", "pyarrow.compute"]
    assert seen["version"][1] == ["importlib.metadata", "kafkalog.dump.segment_lines", "pyarrow.compute"]
