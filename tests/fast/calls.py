"""Which way `kafkalog.fast.record_batch` took the groups of a read: the calls of `BatchWalker._usual` (a group the
engine made into its record batch, wrapped once) and of `_take` (a group walked as one that is not usual), counted."""
from __future__ import annotations

from kafkalog.fast import record_batch


def count_group_calls(monkeypatch, also: tuple[str, ...] = ()) -> dict[str, int]:
    """Counts, by name, the calls of `_usual` and `_take` from here to the test's end (the dict fills as they come),
    and of the `BatchWalker` methods named in `also`."""
    calls: dict[str, int] = {}

    def counting(name, real):
        def counted(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return real(*args, **kwargs)
        return counted

    for name in ("_usual", *also):
        monkeypatch.setattr(record_batch.BatchWalker, name, counting(name, getattr(record_batch.BatchWalker, name)))
    monkeypatch.setattr(record_batch, "_take", counting("_take", record_batch._take))
    return calls
