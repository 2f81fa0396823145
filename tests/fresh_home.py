"""A child interpreter whose home and cache directories are empty folders, to see what a read writes there.

Nothing is generated, compiled or cached at run time (issue 33): the fast path is compiled when the package is
installed. A read that wrote under `~/.cache` or `$XDG_CACHE_HOME` (as numba's kernel cache did) would leave
files in these folders.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

#: Variables that would send a child's files elsewhere than its home (bytecode, numba's and our old cache).
REDIRECTS = ("PYTHONPYCACHEPREFIX", "NUMBA_CACHE_DIR", "KAFKALOG_CACHE_DIR")


def run_in_empty_home(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter with HOME and XDG_CACHE_HOME empty folders under `tmp_path`; assert that
    it succeeds and that both folders are still empty after it."""
    home, cache = tmp_path / "home", tmp_path / "xdg-cache"
    home.mkdir()
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTS}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(cache))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    written = sorted(str(p.relative_to(tmp_path)) for p in (*home.rglob("*"), *cache.rglob("*")))
    assert written == [], f"a read wrote into the home or cache directory: {written}"
    return done
