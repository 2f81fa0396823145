"""What `kafkalog dump` and `kafkalog verify` read, planned from their arguments: each FILE (a file of a kind,
a partition or log directory, on the local disk or behind a URI), the remote segments under
`--remote-root`, the offsets of a stitched history that no segment holds, and the bytes to read (for the
progress bar and the choice of the fast path).

The command layer parses arguments and calls `dump_targets` or `verify_targets`; a `UsageError` says why a
FILE cannot be read. (Start-up: the planner, `kafkalog.dataset.plan`, and the remote-root listing are
imported only for directories behind URIs and `--remote-root`.)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kafkalog import file_names
from kafkalog.dataset import cluster, fs
from kafkalog.errors import UsageError
from kafkalog.location import Location
from kafkalog.log import file_kinds
from kafkalog.uri_path import AnyPath, UriPath, as_path, glob_uri


@dataclass(frozen=True)
class Target:
    """One thing to read: a file of a kind (`partitions` None), or a directory's partition directories (on the
    local disk or behind a URI)."""

    location: Location
    kind: str | None
    partitions: list[AnyPath] | None = None

    @property
    def path(self) -> AnyPath:
        """The file or directory named, on the local disk (a `Path`) or behind a URI (a `UriPath`)."""
        return as_path(str(self.location))

    @property
    def is_log_dir(self) -> bool:
        """A log directory's partitions (not a partition directory named on its own)."""
        return self.partitions is not None and self.partitions != [self.path]

    @property
    def bootstrap(self) -> AnyPath | None:
        """A log directory's `bootstrap.checkpoint`, read after its partitions; None for anything else."""
        if not self.is_log_dir:
            return None
        found = self.path / file_names.BOOTSTRAP_CHECKPOINT
        return found if found.is_file() else None


@dataclass
class DumpTargets:
    """What `dump` reads, in order: the remote segments of `--remote-root` (`remote`), then the FILEs (`files`)."""

    remote: list[Target]
    files: list[Target]
    #: Offsets of a stitched history that no remote or local segment holds, by the location of the segment after them.
    gaps: dict[str, str] = field(default_factory=dict)
    #: The record-batch bytes to read.
    record_bytes: int = 0

    @property
    def all(self) -> list[Target]:
        return self.remote + self.files


@dataclass
class VerifyTargets:
    """What `verify` checks: PATH, then the remote segments of `--remote-root`."""

    path: Location
    remote: list[Target]
    #: The record-batch bytes of PATH, and the bytes of its offset and time indexes.
    record_bytes: int
    index_bytes: int


def dump_targets(names: list[str], forced: str | None, remote_root: str | None,
                 private_keys: tuple[str, ...] = ()) -> DumpTargets:
    """dump's FILEs (`forced`: --type) and --remote-root's segments, stitched with the FILEs' history."""
    if not names and remote_root is None:
        raise UsageError("dump: name a FILE, or a tiered-storage root with --remote-root")
    files = cluster.served_targets(names, file_targets(names, forced))
    remote, gaps = remote_root_targets(remote_root, files, private_keys)
    return DumpTargets(remote, files, gaps, record_bytes(remote + files))


def verify_targets(name: str, remote_root: str | None) -> VerifyTargets:
    """verify's PATH and --remote-root's segments (without the FILEs' history: each is checked on its own)."""
    path = Location(name)
    if path.is_uri:
        found = fs.info(path)
        total, index_total = (found.size if found is not None else 0), 0
    else:
        local = path.path
        if not local.exists():
            raise UsageError(f"{name}: no such file or directory")
        if local.is_dir():
            total = record_bytes([Target(path, None, file_kinds.directory_partitions(local) or [])])
        else:
            total = local.stat().st_size
        index_total = _index_bytes(local)
    remote, _ = remote_root_targets(remote_root)
    return VerifyTargets(path, remote, total, index_total)


def file_targets(names: list[str], forced: str | None) -> list[Target]:
    """A target for each argument; a UsageError for one kafkalog cannot read."""
    targets: list[Target] = []
    for name in names:
        location = Location(name)
        if location.is_uri:
            targets += _uri_targets(location, forced)
            continue
        path = location.path
        if not path.exists():
            raise UsageError(f"{name}: no such file or directory")
        if path.is_dir():
            if forced is not None:
                raise file_kinds.type_of_a_directory(path)
            partitions = file_kinds.directory_partitions(path)
            if partitions is None:
                raise file_kinds.no_kafka_files(path)
            targets.append(Target(location, None, partitions))
        else:
            kind = file_kinds.kind_of(path, forced)
            if kind is None:
                raise file_kinds.unknown_kind(path)
            manifest = file_kinds.aiven_manifest_of(path) if forced is None else None
            if manifest is not None:  # an Aiven .log object: its segment, through the manifest beside it
                location, kind = Location(str(manifest)), file_kinds.RSM_MANIFEST
            targets.append(Target(location, kind))
    return targets


def _uri_targets(uri: Location, forced: str | None) -> list[Target]:
    """What a URI (or a glob of URIs: `*` does not cross a `/`) names, read as the same on the local disk is: a
    file of a kind (a segment, an Aiven manifest, a checkpoint...); a partition or log directory, by its partition
    directories (so that a broker's log directory prints its served log, and several brokers' disks their served
    replicas); any other directory, every segment the planner finds there (`kafkalog.dataset.plan.list_segments`:
    a tiered-storage root's), by partition and offset."""
    try:
        found = glob_uri(str(uri))
        if not found:
            raise UsageError(f"{uri}: no such object")
        return [t for one in found for t in _uri_target(one, forced)]
    except OSError as e:
        raise UsageError(f"{uri}: cannot read it: {e}") from None


def _uri_target(path: UriPath, forced: str | None) -> list[Target]:
    """The targets of one file or directory behind a URI (see `_uri_targets`)."""
    from kafkalog.dataset import plan  # (start-up: see the module's docstring)

    location = Location(str(path))
    if path.is_dir() and forced is None:
        try:
            partitions = file_kinds.directory_partitions(path)
        except UsageError:  # a tiered storage's partition folder: its segments, as the planner lists them
            partitions = None
        if partitions is not None:
            return [Target(location, None, partitions)]
        segments = plan.list_segments(str(location))
        if not segments:
            raise UsageError(f"{location}: no Kafka segments here")
        return [segment_target(s.location) for s in segments]
    if path.is_dir():
        raise file_kinds.type_of_a_directory(path)
    kind = file_kinds.kind_of(path, forced)
    if kind is None:
        raise file_kinds.unknown_kind(path)
    return [Target(location, kind)]


def remote_root_targets(root: str | None, local: Sequence[Target] = (),
                        private_keys: tuple[str, ...] = ()) -> tuple[list[Target], dict[str, str]]:
    """--remote-root: every remote segment under a tiered-storage root (LocalTieredStorage's `.log` files,
    Aiven's `.rsm-manifest`s), by topic, partition and start offset; and the gaps of the stitched history.

    With `local` targets (dump's FILEs), the history is stitched by the planner read_arrow and Spark use
    (`kafkalog.dataset.plan.wanted_segments`): a segment both remote and local is read once, from the local
    disk; where the log directories hold `__remote_log_metadata`, only the segments whose copy finished, on the
    partition's leader epoch lineage, are read, Aiven's objects are found where their custom metadata puts
    them, and offsets no segment holds are returned as gaps (data loss)."""
    if root is None:
        return [], {}
    # (start-up: see the module's docstring)
    from kafkalog.dataset import plan, remote_roots
    from kafkalog.dataset.options import DamageMode, parse_options

    try:
        found = fs.info(root)
        if found is None or not found.is_dir:
            raise UsageError(f"--remote-root {root}: no such directory")
        if not local:
            return [segment_target(s.location) for s in remote_roots.list_remote_segments(root)], {}
        options = parse_options({"remoteRoot": root, "mode": DamageMode.PERMISSIVE,
                                 **({"remotePrivateKey": ",".join(private_keys)} if private_keys else {})})
        # Each FILE as read_arrow would take it: a log or partition directory, or the partition of a segment.
        paths = [str(t.location) if t.partitions else str(t.location.parent)
                 for t in local if t.partitions or t.kind == file_kinds.LOG]
        gaps: dict[str, str] = {}
        on_disk = {s.location for path in paths for s in plan.list_segments(path)}
        remote = [s.location for s in plan.wanted_segments(paths, options, gaps=gaps) if s.location not in on_disk]
    except OSError as e:  # a URI whose store does not answer
        raise UsageError(f"--remote-root {root}: cannot list it: {e}") from None
    return [segment_target(location) for location in remote], gaps


def segment_target(location: str) -> Target:
    """A segment a listing found: an Aiven manifest, or a `.log`."""
    kind = file_kinds.RSM_MANIFEST if file_names.is_manifest_name(location) else file_kinds.LOG
    return Target(Location(location), kind)


def record_bytes(targets: list[Target]) -> int:
    """The record-batch bytes `targets` hold (a directory's segments and KRaft snapshots, its bootstrap.checkpoint)."""
    total = 0
    for target in targets:
        if target.partitions is None and target.location.is_uri:
            total += fs.info(target.location).size  # type: ignore[union-attr]
        elif target.partitions is None:
            total += target.location.path.stat().st_size if target.kind in file_kinds.RECORD_FILES else 0
        else:
            files = file_kinds.record_files(target.partitions)
            if target.bootstrap is not None:
                files.append(target.bootstrap)
            total += sum(p.stat().st_size for p in files)
    return total


def _index_bytes(path: Path) -> int:
    """The bytes of the index files verify reads with `path`: beside a segment, or in a directory's partitions."""
    indexes = (file_names.INDEX_SUFFIX, file_names.TIME_INDEX_SUFFIX)
    if path.is_dir():
        dirs = file_kinds.directory_partitions(path) or []
        return sum(f.stat().st_size for d in dirs for f in d.iterdir() if f.suffix in indexes)
    if path.suffix in indexes:
        return path.stat().st_size
    return sum(p.stat().st_size for p in (path.with_suffix(s) for s in indexes) if p.is_file())
