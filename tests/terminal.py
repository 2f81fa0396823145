"""A `kafkalog` command run with its standard error on a terminal (a pseudo-terminal), where it shows progress.

The terminal is read until the command exits, however long it is silent (Spark's start-up under load can be
silent for minutes): a reader that gave up and closed it would make the command's next write to stderr fail
(EIO), and the command fail for a reason of the test's own.
"""
from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time

#: How long a command may run before it is taken for hung: its process group is killed, and the test fails
#: with all the terminal showed.
TIMEOUT_S = 1200.0
#: After the command exits, how long its children (a Spark JVM's daemons) may keep the terminal open.
_DRAIN_S = 10.0


class TerminalCommandTimeout(AssertionError):
    """The command ran past TIMEOUT_S; the message holds all the terminal showed."""


def with_stderr_on_a_terminal(args: list[str], stdout, env: dict[str, str] | None = None,
                              cwd: str | os.PathLike | None = None, timeout: float = TIMEOUT_S) -> tuple[int, str]:
    """(exit status, all the terminal showed) of `python -m kafkalog.cli ARGS`."""
    main, secondary = pty.openpty()
    # its own process group: on a timeout, the command and what it started (Spark's JVM) are killed together
    proc = subprocess.Popen([sys.executable, "-m", "kafkalog.cli", *args], stdout=stdout, stderr=secondary, env=env,
                            cwd=cwd, start_new_session=True)
    os.close(secondary)
    seen = bytearray()
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    lingering = False  # children of the exited command still hold the terminal
    try:
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > _DRAIN_S:
                lingering = True
                break
            if now > deadline:
                break
            ready, _, _ = select.select([main], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: every writer closed the terminal (the command and its children exited)
                break
            if not chunk:
                break
            seen += chunk
        status = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise TerminalCommandTimeout(f"kafkalog {' '.join(args)} ran past {timeout:.0f} s; the terminal showed:\n"
                                     f"{seen.decode('utf-8', 'replace')}") from None
    finally:
        os.close(main)
        if proc.poll() is None or lingering:  # timed out, or interrupted: nothing it started is left running
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return status, seen.decode("utf-8", "replace")
