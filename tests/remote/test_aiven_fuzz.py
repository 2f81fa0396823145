"""Seeded fuzzing of Aiven's objects: manifests (their JSON values and their bytes), variable chunk indexes (the
codec's bytes in their zstd frame), `.log` and `.indexes` objects, each damaged many ways. Every read ends, soon,
with the segment's bytes before the damage and `DamagedDataError`s whose messages are sentences about the data.

A few seconds in CI; longer by hand: KAFKALOG_FUZZ_ROUNDS=5000 pytest tests/remote/test_aiven_fuzz.py
"""
from __future__ import annotations

import base64
import json
import os
import random
import time

import pytest
import zstandard

from kafkalog.errors import DamagedDataError, RemoteObjectError
from kafkalog.log.segment import SegmentReader
from kafkalog.remote import aiven_object
from kafkalog.remote.aiven_keys import Keyring
from kafkalog.remote.aiven_manifest import INDEX_NAMES
from tests.log.test_damage_fuzz import FORBIDDEN, mutations
from tests.remote.test_aiven import write

ROUNDS = int(os.environ.get("KAFKALOG_FUZZ_ROUNDS", "60"))
#: Values a hostile manifest puts anywhere: wrong types, Java's edges and past them, deep and long ones.
HOSTILE = [None, True, -1, 0, 1, 2**31 - 1, 2**31, 2**63, -(2**63) - 1, 1e308, "", "x", "../../etc", [], {},
           [[[[[[]]]]]], "A" * 100_000, 10**4000, {"type": "variable"}]


def _paths(doc, at=()):
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*at, k))


def _set(doc, path, value):
    if not path:
        return value
    out = json.loads(json.dumps(doc))
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return out


def _chunk_index_frames(text: str, rng: random.Random):
    """The chunk-size codec inside a variable index's frame, damaged, and framed again by zstd's own writer."""
    raw = zstandard.ZstdDecompressor().decompress(base64.b64decode(text))
    for _, _, damaged in mutations(raw, rng, 1):
        yield base64.b64encode(zstandard.ZstdCompressor(write_content_size=True).compress(damaged)).decode()


def _read(manifest: str, context) -> int:
    try:
        m = aiven_object.read_manifest(manifest)
    except RemoteObjectError as exc:
        _check(exc, context)
        return 0
    for name in INDEX_NAMES:
        try:
            aiven_object.read_index(manifest, name, manifest=m)
        except RemoteObjectError as exc:
            _check(exc, context)
    with aiven_object.AivenSegmentFile(manifest, keyring=Keyring(), manifest=m) as f, SegmentReader(f) as reader:
        count = sum(len(b.records) for b in reader)
        for damage in reader.damage:
            _check(damage, context)
    return count


def _check(error: BaseException, context) -> None:
    assert isinstance(error, DamagedDataError), (context, error)
    assert error.path is not None, (context, error)
    text = str(error)
    assert not FORBIDDEN.search(error.message), (context, text)
    assert len(error.message.split()) >= 3 and len(text) < 2000, (context, text)


@pytest.mark.parametrize("compression", [False, True])
def test_damaged_aiven_objects_read_to_an_end_with_clear_messages(tmp_path, compression):
    written = write(tmp_path, chunk_size=1000, compression=compression)
    manifest, log, indexes = (written.manifest.read_bytes(), written.log.read_bytes(), written.indexes.read_bytes())
    doc = json.loads(manifest)
    paths = list(_paths(doc))
    rng = random.Random(f"aiven-{compression}")
    whole = _read(str(written.manifest), "whole")
    assert whole == 106
    for round_ in range(ROUNDS):
        target = rng.choice(["json", "manifest", "chunk index", "log", "indexes"])
        written.manifest.write_bytes(manifest)
        written.log.write_bytes(log)
        written.indexes.write_bytes(indexes)
        if target == "json":
            path = rng.choice(paths)
            written.manifest.write_text(json.dumps(_set(doc, path, rng.choice(HOSTILE))))
            context = (round_, target, path)
        elif target == "chunk index" and compression:
            text = next(_chunk_index_frames(doc["chunkIndex"]["transformedChunks"], rng))
            written.manifest.write_text(json.dumps(_set(doc, ("chunkIndex", "transformedChunks"), text)))
            context = (round_, target)
        else:
            source, at = {"log": (log, written.log), "indexes": (indexes, written.indexes)}.get(
                target, (manifest, written.manifest))
            kind, pos, damaged = next(mutations(source, rng, 1))
            at.write_bytes(damaged)
            context = (round_, target, kind, pos)
        began = time.monotonic()
        _read(str(written.manifest), context)
        assert time.monotonic() - began < 10, context
