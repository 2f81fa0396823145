"""KRaft's `quorum-state` (in `__cluster_metadata-0`): the election state a controller or broker last
persisted, read as Kafka's `FileQuorumStateStore` reads it.

No spec (the file is JSON) and no fast-path twin. One JSON object, Kafka's `QuorumStateData` as its
generated `QuorumStateDataJsonConverter` writes it, plus `data_version`:

    {"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,
     "currentVoters":[{"voterId":1}],"data_version":0}
    {"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}

Version 0 (static voters, `controller.quorum.voters`) has `clusterId`, `appliedOffset` and
`currentVoters`; version 1 (KIP-853, dynamic quorums) drops them and adds `votedDirectoryId`. Where Kafka
fails, a `CorruptStructureError` names the file: text that is not a JSON object, no `data_version`, a
field its version requires that is missing or of the wrong type. Fields of other versions and unknown
fields are read or ignored as Kafka does. Kafka reads the first line alone. (`raft/.../FileQuorumStateStore.java`,
`raft/src/main/resources/common/message/QuorumStateData.json`)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from kafkalog.errors import CorruptStructureError
from kafkalog.formats import text_files
from kafkalog.formats.json_depth import loads

DATA_VERSION = "data_version"
#: QuorumStateData's validVersions.
VERSIONS = (0, 1)
_JSON_DEPTH = 4  # an object of voters' objects: nothing Kafka writes nests deeper


@dataclass
class QuorumState:
    """A `quorum-state` file's fields (each None where its version has none).

    Attributes
    ----------
    data_version : int
        0 or 1.
    leader_id, leader_epoch, voted_id : int
        The leader and epoch this node last knew, and whom it voted for in that epoch (-1: none).
    voted_directory_id : str or None
        The directory id of the voted-for replica (version 1).
    cluster_id : str or None
        Version 0 only (written empty by 3.x and 4.x).
    applied_offset : int or None
        Version 0 only.
    current_voters : list of int or None
        The voters' ids (version 0 only; None where written as null).
    """

    data_version: int
    leader_id: int
    leader_epoch: int
    voted_id: int
    voted_directory_id: str | None = None
    cluster_id: str | None = None
    applied_offset: int | None = None
    current_voters: list[int] | None = None


def parse_quorum_state(data: bytes, path: str | None = None) -> QuorumState:
    """Parse the file's bytes; a `CorruptStructureError` where Kafka fails."""
    lines = text_files.lines(text_files.decode_utf8(data, path))
    if not lines:
        raise CorruptStructureError("empty: the file ended before its line", path=path)
    try:
        obj = loads(lines[0], _JSON_DEPTH)  # Kafka reads the first line alone
    except ValueError as e:  # json.JSONDecodeError and JsonDepthError are ValueErrors
        raise CorruptStructureError(f"not JSON: {e}", path=path) from None
    if not isinstance(obj, dict):
        raise CorruptStructureError("not a JSON object", path=path)
    if DATA_VERSION not in obj:
        raise CorruptStructureError(f"no {DATA_VERSION} field", path=path)
    version = _int(obj, DATA_VERSION, text_files.INT32, path)
    if version not in VERSIONS:
        raise CorruptStructureError(f"unknown {DATA_VERSION} {version} (QuorumStateData has versions 0 and 1)",
                                    path=path)
    state = QuorumState(data_version=version, leader_id=_int(obj, "leaderId", text_files.INT32, path),
                        leader_epoch=_int(obj, "leaderEpoch", text_files.INT32, path),
                        voted_id=_int(obj, "votedId", text_files.INT32, path))
    if version >= 1 or "votedDirectoryId" in obj:
        state.voted_directory_id = _uuid(obj, "votedDirectoryId", path)
    if version == 0 or "clusterId" in obj:
        state.cluster_id = _str(obj, "clusterId", path)
    if version == 0 or "appliedOffset" in obj:
        state.applied_offset = _int(obj, "appliedOffset", text_files.INT64, path)
    if version == 0 or "currentVoters" in obj:
        state.current_voters = _voters(obj, path)
    return state


def read_quorum_state(path: str | os.PathLike) -> QuorumState:
    """Read a KRaft `quorum-state` file."""
    return parse_quorum_state(text_files.read_bytes(path), os.fspath(path))


def _field(obj: dict, name: str, path: str | None) -> Any:
    if name not in obj:
        raise CorruptStructureError(f"no {name} field, which data_version {obj[DATA_VERSION]} requires", path=path)
    return obj[name]


def _int(obj: dict, name: str, bounds: tuple[int, int], path: str | None) -> int:
    value = _field(obj, name, path)
    if isinstance(value, bool) or not isinstance(value, int) or not bounds[0] <= value <= bounds[1]:
        kind = "an int32" if bounds == text_files.INT32 else "an int64"
        raise CorruptStructureError(f"{name} {value!r} is not {kind}", path=path)
    return value


def _str(obj: dict, name: str, path: str | None) -> str:
    value = _field(obj, name, path)
    if not isinstance(value, str):
        raise CorruptStructureError(f"{name} {value!r} is not a string", path=path)
    return value


def _uuid(obj: dict, name: str, path: str | None) -> str:
    text = _str(obj, name, path)
    value = text_files.kafka_uuid(text)
    if value is None:
        raise CorruptStructureError(f"{name} {text!r} is not a Kafka Uuid", path=path)
    return value


def _voters(obj: dict, path: str | None) -> list[int] | None:
    value = _field(obj, "currentVoters", path)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CorruptStructureError(f"currentVoters {value!r} is not a list of voters", path=path)
    return [_int(v | {DATA_VERSION: obj[DATA_VERSION]}, "voterId", text_files.INT32, path) for v in value]
