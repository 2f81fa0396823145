"""Where numba keeps the compiled kernels, so that a second process (or a Spark worker) does not compile again.

The cache is `$KAFKALOG_CACHE_DIR`, else `$XDG_CACHE_HOME/kafkalog/numba`, else
`~/.cache/kafkalog/numba`. Set `NUMBA_CACHE_DIR` to have numba's own setting win.
It must be configured before the kernels are imported: `kafkalog.columnar` does.
"""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    explicit = os.environ.get("KAFKALOG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kafkalog" / "numba"


def configure() -> None:
    """Point numba's on-disk cache at kafkalog's cache directory, unless NUMBA_CACHE_DIR says otherwise."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    import numba

    numba.config.CACHE_DIR = str(cache_dir())
