"""numba's kernels compiled into their on-disk cache ahead of the tests that use them (`python -m tests.warm_kernels`).

A fresh clone compiles every kernel once: numba's cache is per source path (`kafkalog.fast.jit`), so nothing of
another clone's serves. That is a minute or two of one core, paid by whichever test first reads through the
kernels. tests/conftest.py starts this module beside a large run, at a low priority: it compiles them on the core
the tests leave idle (while the brokers start, say), and the tests then load them from the cache. It reads the
samples and fixtures through every door that compiles a kernel, the doors the suite uses first first: what it
prints is thrown away; a test that gets there before it compiles what it needs itself, as without it.
"""
from __future__ import annotations

import contextlib
import io
import sys

from tests.paths import FIXTURES, SAMPLES


def _cli(args: list[str]) -> None:
    from kafkalog import cli

    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO(), encoding="utf-8")), \
            contextlib.redirect_stderr(io.StringIO()):
        cli.main(args)


def main() -> int:
    from kafkalog import cli, read_arrow

    cli.FAST_PATH_MIN_BYTES = 0  # the kernels, whatever the size
    files = sorted(SAMPLES.glob("*.log"))
    directories = sorted((FIXTURES / "partitions").glob("*-[0-9]"))
    # verify and dump --format json first: the broker tests, which the suite runs first, read through them
    for args in (["verify"], ["dump", "--format", "json"], ["dump", "--format", "kafka"],
                 ["dump", "--format", "text", "--full"]):
        for path in [*directories, *files]:
            _cli([*args, str(path)])
    for path in [*directories, *files]:
        with contextlib.suppress(Exception):
            read_arrow(str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
