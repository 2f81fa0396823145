"""kafkalog.errors: every class exported by the package, `with_location` copies, UsageError a ValueError."""
from __future__ import annotations

import inspect

import pytest

import kafkalog
from kafkalog import errors
from kafkalog.errors import DecompressionError, EncryptionKeyError, RemoteObjectError, TruncatedError, UsageError

ERROR_CLASSES = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
                 if issubclass(cls, BaseException) and cls.__module__ == errors.__name__]


def test_every_error_class_is_exported():
    assert len(ERROR_CLASSES) >= 14
    for cls in ERROR_CLASSES:
        assert cls.__name__ in kafkalog.__all__, cls.__name__
        assert getattr(kafkalog, cls.__name__) is cls


def test_usage_error_is_a_value_error():
    with pytest.raises(ValueError, match="threads must be at least 1"):
        kafkalog.read_arrow(".", threads=0)
    assert issubclass(UsageError, kafkalog.KafkalogError)


def test_with_location_places_a_copy_and_keeps_the_original():
    try:
        raise TruncatedError("batch ends after 12 of 70 bytes")
    except TruncatedError as exc:
        found = exc
    located = found.with_location("00000000000000000000.log", 118)
    assert type(located) is TruncatedError and located is not found
    assert str(located) == "00000000000000000000.log: byte 118: batch ends after 12 of 70 bytes"
    assert located.__traceback__ is None
    assert found.path is None and found.position is None
    # None keeps what the error already says.
    assert str(located.with_location(None, None)) == str(located)
    assert located.with_location(None, 5).path == "00000000000000000000.log"


def test_with_location_keeps_a_subclass_and_its_attributes():
    decompression = DecompressionError("lz4 frame ends early", partial=b"abc").with_location("s.log", 61)
    assert type(decompression) is DecompressionError and decompression.partial == b"abc"
    key = EncryptionKeyError("no private key unwraps key pair k1", path="obj", readable_until=7)
    moved = key.with_location("s.log", 9, message="wrapped key: no private key unwraps key pair k1")
    assert type(moved) is EncryptionKeyError and isinstance(moved, RemoteObjectError)
    assert moved.readable_until == 7
    assert str(moved) == "s.log: byte 9: wrapped key: no private key unwraps key pair k1"
    assert moved.args == ("wrapped key: no private key unwraps key pair k1",)
    assert key.message == "no private key unwraps key pair k1"
