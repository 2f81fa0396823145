"""A small input is read without the compiled kernels, and says the same.

`kafkalog dump` and `verify` read through the compiled kernels only when the input is large enough to repay
loading them (`kafkalog.cli.FAST_PATH_MIN_BYTES`); below it the Kaitai parsers alone read it. What they
print must not depend on that: every sample and fixture is dumped in the three formats, and verified, both
ways, and the output compared byte for byte. The start-up itself is measured in benchmarks/startup.py;
here what it rests on is checked: which modules a command on a small file loads.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafkalog import cli
from kafkalog.log import segment
from kafkalog.log.segment import SegmentReader
from kafkalog.model import Decoder
from tests.paths import FIXTURES, ROOT, SAMPLES

FILES = sorted([*SAMPLES.glob("*.log"), *(FIXTURES / "segments").glob("*.log")])
DIRECTORIES = sorted([*(FIXTURES / "partitions").glob("*-[0-9]"), *(FIXTURES / "internal").glob("*-[0-9]")])
#: (the compiled engine and line writers too: below the threshold the Kaitai parsers alone read the file)
NEVER_FOR_A_SMALL_FILE = ("kafkalog.fast.engine", "kafkalog.fast.lines", "pandas", "pyspark", "Crypto.Cipher",
                          "fastavro", "grpc_tools", "jsonschema", "pyarrow.compute", "pyarrow.fs")


def _run(monkeypatch, args: list[str], fast: bool, many: int = segment.MANY_RECORDS) -> tuple[int, bytes, str]:
    monkeypatch.setattr(cli, "FAST_PATH_MIN_BYTES", 0 if fast else 1 << 62)
    monkeypatch.setattr(segment, "MANY_RECORDS", many)
    raw, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = cli.main(args)
    out.flush()
    return code, raw.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", FILES + DIRECTORIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_kernels_and_the_kaitai_parsers_print_the_same(monkeypatch, path):
    for args in (["dump", "--format", "json"], ["dump", "--format", "text", "--full"], ["dump", "--format", "kafka"],
                 ["verify", "--format", "json"]):
        fast = _run(monkeypatch, [*args, str(path)], fast=True)
        slow = _run(monkeypatch, [*args, str(path)], fast=False)
        assert slow == fast, (args, path)
        # the object path handing the rest of a file to the kernels at its first batch of 3 offsets or more
        assert _run(monkeypatch, [*args, str(path)], fast=False, many=3) == fast, (args, path)
        assert fast[1] or fast[0] != 0 or path.stat().st_size == 0, (args, path)  # something was printed


def test_a_small_file_is_read_without_the_kernels_and_what_it_does_not_use(tmp_path):
    script = ("import sys\nfrom kafkalog import cli\n"
              f"for args in {[['dump', '--format', f] for f in ('json', 'text', 'kafka')] + [['verify']]!r}:\n"
              f"    assert cli.main([*args, {str(SAMPLES / 'v2-gzip.log')!r}]) == 0\n"
              f"print(sorted(m for m in {NEVER_FOR_A_SMALL_FILE!r} if m in sys.modules), file=sys.stderr)\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip().splitlines()[-1] == "[]"
    # and a large one (here: any, with the threshold at 0) is read through the kernels and printed by the compiled
    # line writers
    script = script.replace("from kafkalog import cli\n", "from kafkalog import cli\ncli.FAST_PATH_MIN_BYTES = 0\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    loaded = res.stderr.strip().splitlines()[-1]
    assert "'kafkalog.fast.engine'" in loaded and "'kafkalog.fast.lines'" in loaded, loaded


def test_a_batch_of_many_records_is_left_to_the_kernels():
    """A small file read the small way: by the Kaitai parsers, until a batch that may hold more records than they
    read in a moment (a million records in a few kilobytes, say): from that batch on, by the kernels."""
    with SegmentReader(SAMPLES / "v2-gzip.log", decoder=Decoder.AUTO) as reader:
        assert sum(len(b.records) for b in reader) == 6 and reader.fast_path_from is None
    hostile = FIXTURES / "hostile" / "v2-zstd-1m-records.log"
    with SegmentReader(hostile, decoder=Decoder.AUTO) as reader:
        counts = [len(b.records) for b in reader]
        assert reader.fast_path_from is not None and sum(counts) == 1_000_000


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts the process's threads in /proc, which a single core would not tell apart")
def test_the_command_line_keeps_numpy_from_starting_blas_threads():
    # OpenBLAS starts a thread per core when numpy is imported, each spinning for work about 0.1 s: the command
    # line, which does no linear algebra, sets OPENBLAS_NUM_THREADS=1 first; `import kafkalog` imports no numpy.
    # (threads named as the main one: BLAS's are; pyarrow's allocator's background thread is not)
    count = ("import os; main = open('/proc/self/comm').read(); "
             "print(sum(open(f'/proc/self/task/{t}/comm').read() == main for t in os.listdir('/proc/self/task')))")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}

    def threads(code: str) -> int:
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
        assert res.returncode == 0, res.stderr
        return int(res.stdout.split()[-1])

    assert threads(f"import sys, kafkalog; assert 'numpy' not in sys.modules; {count}") == 1
    assert threads(f"from kafkalog import cli; import numpy; {count}") == 1
    assert threads(f"import numpy; {count}") > 1  # (numpy alone does start them: the check can see them)
