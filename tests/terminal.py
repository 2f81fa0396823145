"""A `kafkalog` command run with its standard error on a terminal (a pseudo-terminal), where it shows progress."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys


def with_stderr_on_a_terminal(args: list[str], stdout, env: dict[str, str] | None = None,
                              cwd: str | os.PathLike | None = None) -> tuple[int, str]:
    """(exit status, what the terminal showed) of `python -m kafkalog.cli ARGS`."""
    main, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "kafkalog.cli", *args], stdout=stdout, stderr=secondary, env=env,
                            cwd=cwd)
    os.close(secondary)
    seen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    return proc.wait(timeout=60), seen.decode("utf-8", "replace")
