"""What stopped a walk of record sections, and a section's damage codes beside the generated `ERRORS`.

Shared by the numba kernels (`kafkalog.fast.kernels`) and the readers of the compiled engine's walks, which
must not load numba to compare a code (issue 33: a read the engine serves never imports numba).
"""
from __future__ import annotations

# What stopped `walk_sections` (and the engine's `walk`).
WALK_DONE, WALK_FULL, WALK_HEADERS_FULL = 0, 1, 2
# Damage codes of a section beside the generated ERRORS (which are all >= 2 and < this).
BODY_TRAILING = 1_000  # a record has bytes after its last header
SECTION_TRAILING = 1_001  # bytes follow the declared number of records
