"""A broker's log directory's own files: what Kafka keeps beside the partitions' data.

    state = read_log_dir_state(Path("/var/lib/kafka/data"))
    state.meta.cluster_id, state.meta.node_id       # meta.properties
    state.high_watermarks[("orders", 0)]            # replication-offset-checkpoint
    state.log_start_offsets.get(("orders", 0))      # log-start-offset-checkpoint
    state.problems                                  # files that do not read, each named

Each file reads through its `formats` module. A missing file is no problem: Kafka creates the checkpoints
when it starts, writes `log-start-offset-checkpoint` and `cleaner-offset-checkpoint` only where they have
something to say, and `.kafka_cleanshutdown` only on a clean shutdown. A file that does not read is a
problem, named with what is wrong, and the others are read on: a checkpoint that Kafka would refuse is read
as empty, as a broker that cannot read it has nothing from it.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from kafkalog.errors import DamagedDataError
from kafkalog.file_names import (
    CLEAN_SHUTDOWN,
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    META_PROPERTIES,
    RECOVERY_POINT_OFFSET_CHECKPOINT,
    REPLICATION_OFFSET_CHECKPOINT,
)
from kafkalog.formats.meta_properties import MetaProperties, read_meta_properties
from kafkalog.formats.offset_checkpoint import read_offset_checkpoint
from kafkalog.uri_path import AnyPath, UriPath, as_path

T = TypeVar("T")

#: Offsets by (topic, partition).
Offsets = dict[tuple[str, int], int]


@dataclass
class LogDirState:
    """What a log directory's own files say.

    Attributes
    ----------
    path : pathlib.Path or kafkalog.uri_path.UriPath
        The log directory.
    meta : MetaProperties or None
        `meta.properties` (None when absent or unreadable).
    high_watermarks, recovery_points, log_start_offsets, cleaner_offsets : dict of (str, int) to int
        The four offset checkpoints (`replication-offset-checkpoint`, `recovery-point-offset-checkpoint`,
        `log-start-offset-checkpoint`, `cleaner-offset-checkpoint`), empty when absent or unreadable.
    clean_shutdown : bool
        `.kafka_cleanshutdown` is present: the broker stopped cleanly, and its next start-up skips recovery.
    problems : list of str
        Each file that is there but does not read, named, with what is wrong.
    unreadable : dict of pathlib.Path to str
        The same, by file: what is wrong with it (its message alone, without the file's name).
    """

    path: AnyPath
    meta: MetaProperties | None = None
    high_watermarks: Offsets = field(default_factory=dict)
    recovery_points: Offsets = field(default_factory=dict)
    log_start_offsets: Offsets = field(default_factory=dict)
    cleaner_offsets: Offsets = field(default_factory=dict)
    clean_shutdown: bool = False
    problems: list[str] = field(default_factory=list)
    unreadable: dict[AnyPath, str] = field(default_factory=dict)

    def partitions(self) -> set[tuple[str, int]]:
        """Every (topic, partition) a checkpoint names."""
        return (set(self.high_watermarks) | set(self.recovery_points) | set(self.log_start_offsets)
                | set(self.cleaner_offsets))


def read_log_dir_state(log_dir: str | os.PathLike) -> LogDirState:
    """Read a log directory's `meta.properties`, offset checkpoints and clean-shutdown marker.

    Parameters
    ----------
    log_dir : str or os.PathLike
        A broker's log directory (one of its `log.dirs`): a local path, or a URI.

    Returns
    -------
    LogDirState
        What the files say; `problems` names each one that does not read.
    """
    path = as_path(log_dir)
    state = LogDirState(path=path)
    state.meta = _optional(path / META_PROPERTIES, read_meta_properties, state)
    for name, attribute in ((REPLICATION_OFFSET_CHECKPOINT, "high_watermarks"),
                            (RECOVERY_POINT_OFFSET_CHECKPOINT, "recovery_points"),
                            (LOG_START_OFFSET_CHECKPOINT, "log_start_offsets"),
                            (CLEANER_OFFSET_CHECKPOINT, "cleaner_offsets")):
        checkpoint = _optional(path / name, read_offset_checkpoint, state)
        if checkpoint is not None:
            setattr(state, attribute, checkpoint.offsets)
    state.clean_shutdown = (path / CLEAN_SHUTDOWN).is_file()
    return state


def log_dir_of(partition_dir: str | os.PathLike) -> AnyPath:
    """The log directory a partition directory is in: its parent."""
    path = as_path(partition_dir)
    return path.parent if isinstance(path, UriPath) else Path(os.path.abspath(path)).parent


#: The files only a log directory holds (never a partition directory).
LOG_DIR_FILES = (META_PROPERTIES, REPLICATION_OFFSET_CHECKPOINT, RECOVERY_POINT_OFFSET_CHECKPOINT,
                 LOG_START_OFFSET_CHECKPOINT, CLEANER_OFFSET_CHECKPOINT, CLEAN_SHUTDOWN)


def holds_log_dir_files(directory: str | os.PathLike) -> bool:
    """Whether a directory holds any of a log directory's own files (`LOG_DIR_FILES`): a log directory, whatever
    its name says (`/var/lib/kafka-1` reads as a partition directory's name)."""
    return any((as_path(directory) / name).exists() for name in LOG_DIR_FILES)


def partition_log_dir_state(partition_dir: str | os.PathLike) -> LogDirState | None:
    """The state of the log directory a partition directory is in; None when that directory has none of a log
    directory's own files (a partition directory copied on its own)."""
    log_dir = log_dir_of(partition_dir)
    if not holds_log_dir_files(log_dir):
        return None
    return read_log_dir_state(log_dir)


def _optional(path: AnyPath, read: Callable[[AnyPath], T], state: LogDirState) -> T | None:
    """`read(path)`, None when the file is absent; a file that does not read adds its problem."""
    if not path.exists():
        return None
    try:
        return read(path)
    except DamagedDataError as e:
        detail = e.message
    except OSError as e:
        detail = f"cannot read: {e.strerror or e}"
    state.unreadable[path] = detail
    state.problems.append(f"{path}: {detail}")
    return None
