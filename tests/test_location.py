"""A local path or a URI, one type for both (`kafkalog.location.Location`): a URI is never made a `Path`."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from kafkalog.location import Location

URI = "s3://bucket/logs/orders-0/00000000000000000000.log"


def test_a_uri_keeps_its_double_slash_where_a_path_would_lose_it():
    location = Location(URI)
    assert location.is_uri
    assert str(location) == URI
    assert location.name == "00000000000000000000.log"
    assert location.suffix == ".log"
    assert location.parent == Location("s3://bucket/logs/orders-0")
    assert location.parent.join("00000000000000000000.index") == Location(URI.replace(".log", ".index"))
    assert location.with_suffix(".timeindex") == Location(URI.replace(".log", ".timeindex"))
    with pytest.raises(ValueError, match="a URI, not a local path"):
        location.path  # noqa: B018


def test_a_uri_of_a_directory_ends_with_or_without_its_slash():
    assert Location("s3://bucket/logs/").name == "logs"
    assert Location("s3://bucket/logs/").join("orders-0") == Location("s3://bucket/logs/orders-0")


def test_a_local_path_answers_as_pathlib_does(tmp_path):
    local = tmp_path / "orders-0" / "00000000000000000000.log"
    location = Location.of(local)
    assert not location.is_uri
    assert location.path == local
    assert location.name == local.name and location.suffix == local.suffix
    assert location.parent.path == local.parent
    assert location.parent.join("leader-epoch-checkpoint").path == local.parent / "leader-epoch-checkpoint"
    assert location.with_suffix(".index").path == local.with_suffix(".index")
    assert Location("orders-0/").name == "orders-0"
    assert Location("leader-epoch-checkpoint").suffix == Path("leader-epoch-checkpoint").suffix == ""
    assert Location(".hidden").suffix == Path(".hidden").suffix == ""


def test_it_is_given_back_as_given_travels_to_executors_and_sorts_as_its_string():
    assert Location.of(Location(URI)) == Location(URI)
    assert str(Location.of(Path("a") / "b")) == os.path.join("a", "b")
    assert pickle.loads(pickle.dumps(Location(URI))) == Location(URI)
    assert sorted([Location("s3://b/2"), Location("s3://b/10")]) == [Location("s3://b/10"), Location("s3://b/2")]
    assert not isinstance(Location(URI), os.PathLike)  # (nothing opens a URI as a local file by mistake)
