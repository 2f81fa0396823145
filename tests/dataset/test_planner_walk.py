"""The planner's walk (`dataset.cuts`, issue 30) finds the entries one reader finds, as the entry-by-entry walk
(`EntryScanner.entry_headers`) finds them: the same positions, offset fields and magics, and the same damage
where the entries end, whatever the window (entries whole in it, cut by it, larger than it). The segments are
Kafka-written: every format and codec, damaged ones, and the lying-index property of test_hostile_doors."""
from __future__ import annotations

import pytest

from kafkalog.dataset.cuts import EntryWalk, window_entries
from kafkalog.entries import HOP_BYTES, EntryScanner
from kafkalog.fast import compiled
from kafkalog.log.segment import DEFAULT_MAX_ENTRY_BYTES
from tests.paths import FIXTURES, SAMPLES

SEGMENTS = sorted([*SAMPLES.glob("*.log"), *(FIXTURES / "segments").glob("*.log"),
                   *(FIXTURES / "partitions" / "orders-0").glob("*.log")])
#: Windows below an entry header, below most entries, about a batch, and the default.
WINDOWS = [17, 40, 300, 5000, 0]


def _scanner(path, damage):
    return EntryScanner(path, start=0, end=None, max_entry_bytes=DEFAULT_MAX_ENTRY_BYTES, damage=damage)


def _one_by_one(path) -> tuple[list[tuple[int, int, int]], list[str]]:
    damage: list = []
    with _scanner(path, damage) as scanner:
        found = [(pos, h.base_offset, h.magic) for pos, h in scanner.entry_headers()]
    return found, [str(d) for d in damage]


#: The hop's thresholds: never (windows only), from the first entry on, and the default (entries of 4 KiB).
HOPS = [None, 0, HOP_BYTES]


@pytest.mark.parametrize("path", SEGMENTS, ids=lambda p: p.name)
def test_the_windowed_walk_finds_what_the_walk_entry_by_entry_finds(path):
    expected = _one_by_one(path)
    assert expected[0] or expected[1] or path.stat().st_size == 0
    for window in WINDOWS:
        for hop_bytes in HOPS:
            damage: list = []
            found = []
            hopped = 0
            with _scanner(path, damage) as scanner:
                for w in scanner.entry_windows(compiled.scan_entries, None if hop_bytes is None else compiled.hop_entries,
                                               window, hop_bytes or 0):
                    positions, offsets, magics = window_entries(w)
                    found += zip(positions.tolist(), offsets.tolist(), magics.tolist(), strict=True)
                    hopped += w[4] is not None
            assert (found, [str(d) for d in damage]) == expected, (path.name, window, hop_bytes)
            # (hopping from the first entry on: every segment with a whole entry is hopped, at least in part)
            assert hopped or hop_bytes != 0 or not expected[0], (path.name, window)


def test_a_hop_stops_where_an_entry_is_not_whole(tmp_path):
    """A segment cut short in its last entry, and one whose last entry's size is below the minimum: the hop takes
    the entries before, and the window read there says what is wrong, as the walk entry by entry does."""
    source = max((p for p in SEGMENTS if len(_one_by_one(p)[0]) > 3 and not _one_by_one(p)[1]),
                 key=lambda p: p.stat().st_size)
    data = source.read_bytes()
    entries, _ = _one_by_one(source)
    last = entries[-1][0]
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[:-5])
    small = tmp_path / "small.log"
    small.write_bytes(data[:last + 8] + (3).to_bytes(4, "big") + data[last + 12:])
    for path in (cut, small):
        expected = _one_by_one(path)
        assert expected[1] and len(expected[0]) == len(entries) - 1, path.name
        damage: list = []
        with _scanner(path, damage) as scanner:
            windows = list(scanner.entry_windows(compiled.scan_entries, compiled.hop_entries, 0, 0))
        found = [e for w in windows for e in zip(*(a.tolist() for a in window_entries(w)), strict=True)]
        assert (found, [str(d) for d in damage]) == expected, path.name
        assert windows[0][4] is not None, path.name  # (hopped)


@pytest.mark.parametrize("window", [40, 300, 0])
@pytest.mark.parametrize("path", SEGMENTS[::5], ids=lambda p: p.name)
def test_the_walk_answers_as_entry_by_entry(path, window):
    """Questions in increasing order on one walk, as the planner asks them, across window boundaries."""
    entries, _ = _one_by_one(path)
    size = path.stat().st_size
    probes = range(0, size + 3, max(1, size // 40))
    for target in (0, 5, 10**6):
        with EntryWalk(str(path), window=window) as walk:
            for probe in probes:
                got = walk.at_or_after(probe)
                want = next((e for e in entries if e[0] >= probe), None)
                assert (got and (got.position, got.base_offset, got.magic)) == want, (path.name, probe)
        for probe in probes:  # (the planner asks start_for once, first, on a walk of its own)
            want_best = 0
            for pos, offset, _ in entries:
                if pos > probe or offset > target:
                    break
                want_best = pos
            with EntryWalk(str(path), window=window) as walk:
                assert walk.start_for(probe, target) == want_best, (path.name, probe, target)
                # ... and then at_or_after from where it stopped
                want = next((e for e in entries if e[0] >= probe + 1), None)
                got = walk.at_or_after(probe + 1)
                assert (got and (got.position, got.base_offset, got.magic)) == want, (path.name, probe, target)


@pytest.mark.parametrize("path", SEGMENTS[::3], ids=lambda p: p.name)
def test_a_hop_goes_no_further_than_the_entry_asked_about(path):
    """A planner's question (`walk_until`) bounds the hop: its headers end at the first entry at or after the
    position asked about (one more question, one more hop), and the walk finds the same entries in all."""
    expected = _one_by_one(path)
    entries = expected[0]
    if len(entries) < 3:
        return
    for asked in (entries[1][0] - 1, entries[1][0], entries[len(entries) // 2][0] + 1):
        damage: list = []
        found: list = []
        with _scanner(path, damage) as scanner:
            windows = scanner.entry_windows(compiled.scan_entries, compiled.hop_entries, 0, 0)
            scanner.walk_until = asked
            first = window_entries(next(windows))[0].tolist()
            assert len(first) >= 1
            # (hopped from the first entry on: no header past the first entry at or after the position asked about)
            assert [p for p in first if p >= asked] in ([], [asked]), (path.name, asked, first)
            found += first
            scanner.walk_until = None
            for w in windows:
                found += window_entries(w)[0].tolist()
        assert found == [e[0] for e in entries] and [str(d) for d in damage] == expected[1], (path.name, asked)
