"""What stopped a walk of record sections, and a section's damage codes beside the generated `ERRORS`.

The compiled engine's walk (`kafkalog.fast.engine`) returns them; a test holds its enums equal to these.
"""
from __future__ import annotations

# What stopped the engine's `walk`: the sections' end, or a walk's worth of rows.
WALK_DONE, WALK_FULL = 0, 1
# Damage codes of a section beside the generated ERRORS (which are all >= 2 and < this).
BODY_TRAILING = 1_000  # a record has bytes after its last header
SECTION_TRAILING = 1_001  # bytes follow the declared number of records
