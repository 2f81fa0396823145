"""Where numba keeps the compiled kernels, so that a second process (or a Spark worker) does not compile again.

The cache is `$KAFKALOG_CACHE_DIR`, else `$XDG_CACHE_HOME/kafkalog/numba`, else
`~/.cache/kafkalog/numba`, in a folder named by a hash of the kernels' sources:
numba checks a cached function against its own file only, not against the
functions it calls from other files, so a changed generated kernel must not
meet code compiled against the old one. Set `NUMBA_CACHE_DIR` to have numba's
own setting win. It must be configured before the kernels are imported: the line
writers (`kafkalog.fast.line_parts` and the others) do.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

#: The modules whose compiled code calls each other: a change to one invalidates the cache of all.
KERNEL_MODULES = ("kafkalog._generated.kafka_kernels", "kafkalog._generated.kafka_kernel_columns",
                  "kafkalog.fast.line_parts", "kafkalog.fast.json_lines", "kafkalog.fast.kafka_lines",
                  "kafkalog.fast.text_lines")


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

    digest = hashlib.sha256(numba.__version__.encode())
    for name in KERNEL_MODULES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None  # our own modules, installed with this one
        digest.update(Path(spec.origin).read_bytes())
    numba.config.CACHE_DIR = str(cache_dir() / digest.hexdigest()[:16])  # type: ignore[attr-defined]  # set at run time
