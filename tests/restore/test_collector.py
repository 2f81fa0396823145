"""The restore's pause of the cyclic collector gives it back as it found it: to a caller that had it enabled or
disabled, to nested restores and to restores running at once in threads."""
from __future__ import annotations

import gc
import threading

import pytest

from kafkalog.restore.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_as_found():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_given_back_as_found(enabled):
    (gc.enable if enabled else gc.disable)()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer restore still produces
    assert gc.isenabled() == enabled


def test_given_back_after_an_error():
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("refused")
    assert gc.isenabled()


def test_threads_overlapping_give_it_back_once_the_last_ends():
    gc.enable()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def first():
        with collector_paused():
            first_in.set()
            second_in.wait(60)
        first_out.set()

    def second():
        first_in.wait(60)
        with collector_paused():
            second_in.set()
            first_out.wait(60)
            seen["while the second still produces"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert seen == {"while the second still produces": False}
    assert gc.isenabled()
