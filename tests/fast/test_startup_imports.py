"""A read the compiled engine serves does not load pandas (issue 33: start-up).

A fresh process reads `samples/v2-none.log` with `read_table`: pandas must not be imported, and the rows
(offsets, keys, values) must be the object path's. Then the same process reads a legacy segment, on the
engine too: still no pandas. Last, `to_pandas` imports pandas, so the check can see a module
loaded. Only where the engine was compiled: without it, every read is the object path's.
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

CHILD = """
import json, sys
import kafkalog
from kafkalog.fast import compiled
table = kafkalog.read_table("samples/v2-none.log")
loaded = sorted(m for m in ("pandas",) if m in sys.modules)
rows = table.select(["offset", "key", "value"]).to_pylist()  # (after the check: it may load pandas)
kafkalog.read_table("samples/v1-none.log")
legacy_loaded = sorted(m for m in ("pandas",) if m in sys.modules)
table.to_pandas()
print(json.dumps({"engine": compiled.AVAILABLE, "loaded": loaded, "rows": repr(rows),
                  "legacy_loaded": legacy_loaded, "pandas_later": "pandas" in sys.modules}))
"""


@pytest.mark.skipif(not compiled.AVAILABLE, reason="the compiled engine was not built: every read is the object path's")
def test_a_fresh_process_reads_a_small_v2_segment_without_pandas():
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    child = json.loads(done.stdout.strip().splitlines()[-1])
    assert child["engine"]
    assert child["loaded"] == []
    reference = pa.Table.from_batches(read_segment(ROOT / "samples" / "v2-none.log", decoder=Decoder.OBJECT))
    assert reference.num_rows == 6
    assert child["rows"] == repr(reference.select(["offset", "key", "value"]).to_pylist())
    assert child["legacy_loaded"] == []
    assert child["pandas_later"], "to_pandas did not load pandas: the checks above could not see a module loaded"
