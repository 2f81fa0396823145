"""A log directory's `meta.properties`: which node and cluster it belongs to, read as Kafka's
`MetaProperties.Builder(Properties)` reads it.

No spec (the file is Java properties text) and no fast-path twin. The properties are read as
`java.util.Properties.load(InputStream)` reads them (ISO-8859-1, `\\` escapes, `=`, `:` or whitespace
between key and value, `#` and `!` comments, continued lines), by the `javaproperties` library.

    # KRaft, version 1                         # ZooKeeper, version 0
    version=1                                  version=0
    node.id=1                                  broker.id=0
    cluster.id=9ynljJJCRuGgbA7GpwFqZg          cluster.id=wZ_iXQAiQw-XrJaRqzK_cQ
    directory.id=1R3XrnpJAio8ejNfjOt1sA

Where Kafka fails, a `CorruptStructureError` names the file: a version other than 0 or 1 (an absent one is
0), version 1 without `node.id` or `cluster.id`, a `node.id` or `broker.id` that is not an int, a
`directory.id` that is not a Kafka Uuid. (`metadata/.../properties/MetaProperties.java`,
`MetaPropertiesVersion.java`, `PropertiesUtils.java`)
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

from kafkalog.errors import CorruptStructureError
from kafkalog.formats import text_files

VERSION, NODE_ID, BROKER_ID, CLUSTER_ID, DIRECTORY_ID = "version", "node.id", "broker.id", "cluster.id", "directory.id"
#: MetaPropertiesVersion: V0 (ZooKeeper mode: broker.id), V1 (KRaft: node.id).
VERSIONS = (0, 1)


@dataclass
class MetaProperties:
    """What `meta.properties` says.

    Attributes
    ----------
    version : int
        0 (written by a ZooKeeper-mode broker) or 1 (KRaft).
    node_id : int or None
        `node.id` (version 1) or `broker.id` (version 0, where it may be absent).
    cluster_id : str or None
        `cluster.id`; None only in version 0.
    directory_id : str or None
        `directory.id` (KRaft, since 3.7), as Kafka's `Uuid.toString` writes it.
    properties : dict of str to str
        Every property of the file, as read.
    """

    version: int
    node_id: int | None
    cluster_id: str | None
    directory_id: str | None = None
    properties: dict[str, str] = field(default_factory=dict)


def parse_meta_properties(data: bytes, path: str | None = None) -> MetaProperties:
    """Parse the file's bytes; a `CorruptStructureError` where Kafka fails."""
    # java.util.Properties' own rules, kept by a maintained library rather than copied here (imported here: with
    # urllib and ssl, a tenth of a second that a read of segments alone never pays)
    import javaproperties  # noqa: PLC0415

    try:
        props = javaproperties.load(io.BytesIO(data))
    except ValueError as e:  # javaproperties.InvalidUEscapeError, as Java's "Malformed \\uxxxx encoding"
        raise CorruptStructureError(f"not Java properties text: {e}", path=path) from None
    version_text = props.get(VERSION, "0")
    version = text_files.java_int(version_text)
    if version not in VERSIONS:
        raise CorruptStructureError(f"unknown meta.properties version {version_text!r} (Kafka reads 0 and 1)",
                                    path=path)
    node_key = BROKER_ID if version == 0 else NODE_ID
    node_id = None
    if node_key in props:
        node_id = text_files.java_int(props[node_key])
        if node_id is None:
            raise CorruptStructureError(f"{node_key} {props[node_key]!r} is not a base-10 int", path=path)
    elif version == 1:
        raise CorruptStructureError(f"version 1 without {NODE_ID}", path=path)
    cluster_id = props.get(CLUSTER_ID)
    if version == 1 and cluster_id is None:
        raise CorruptStructureError(f"version 1 without {CLUSTER_ID}", path=path)
    directory_id = None
    if DIRECTORY_ID in props:
        directory_id = text_files.kafka_uuid(props[DIRECTORY_ID])
        if directory_id is None:
            raise CorruptStructureError(f"{DIRECTORY_ID} {props[DIRECTORY_ID]!r} is not a Kafka Uuid", path=path)
    return MetaProperties(version=version, node_id=node_id, cluster_id=cluster_id, directory_id=directory_id,
                          properties=dict(props))


def read_meta_properties(path: str | os.PathLike) -> MetaProperties:
    """Read a log directory's `meta.properties`."""
    return parse_meta_properties(text_files.read_bytes(path), os.fspath(path))
