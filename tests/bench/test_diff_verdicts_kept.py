"""The one bootstrap core (``bench.stats.bootstrap``) keeps the verdicts: on every pair of committed records of one
kind that both hold grouped samples (compare and measure records of several processes: the rows whose interval is
a two-level bootstrap), the
verdicts are those the loop it replaced gave, read from ``data/verdicts_before_one_core.json`` (computed once with
that loop, ``tests/helpers/old_bootstrap.grouped_medians``: ``python tests/bench/test_diff_verdicts_kept.py``).

The one-level bootstrap (rows without groups) and paired_stats' two-level one draw the same numbers as before and
give bit-identical medians (``test_bootstrap_core``): on the committed records of every kind, the rows without
groups get the old intervals bit for bit, through the old loop and through the core (the last test). The two-level bootstrap of a grouped row draws its numbers in
another order now (all replicates' groups at once, then all values), and the rows of one record whose processes
hold the same numbers of samples share those draws (``diff.SHARED_DRAWS``), so a row whose interval sits on an
edge may change its verdict; such a change must be between AMBIGUOUS and a verdict (never SLOWER <-> FASTER or SAME <->
SLOWER), and at most ``MAX_FLIPS`` rows of all those compared.
"""
from __future__ import annotations

import itertools
import json
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
FIXTURE = pathlib.Path(__file__).with_name("data") / "verdicts_before_one_core.json"
KINDS = ("cugraphlab.compare", "cugraphlab.measure")
#: Rows allowed to change verdict (between AMBIGUOUS and another) of the 474 compared (none did when the core came).
MAX_FLIPS = 6


def _records():
    from cugraphlab.bench.diff import read_record_file
    from cugraphlab.bench.diff_inputs import as_record, check_measurement
    from cugraphlab.bench.records.record import RecordError

    out: dict[str, list] = {}
    for p in sorted(RESULTS.glob("**/*.json")):
        try:
            d = read_record_file(p)
            check_measurement(as_record(d), str(p))
        except RecordError:
            continue
        if d.get("kind") in KINDS and any("groups" in e for e in d["samples"].values()):
            out.setdefault(d["kind"], []).append((p.relative_to(RESULTS).as_posix(), d))
    return out


def _verdicts() -> dict:
    from cugraphlab.bench.diff import diff_records

    out = {}
    for kind, items in sorted(_records().items()):
        for (na, a), (nb, b) in itertools.combinations(items, 2):
            d = diff_records(a, b, env={}, allow_config="all")
            out[f"{na} | {nb}"] = {r.label: r.verdict for r in d.rows}
    return out


def _changes(before: dict, now: dict) -> list[tuple[str, str, str, str]]:
    return [(pair, label, v, now[pair].get(label)) for pair, rows in before.items() for label, v in rows.items()
            if now.get(pair, {}).get(label) != v]


@pytest.mark.skipif(not FIXTURE.is_file(), reason="no verdict fixture in this checkout")
def test_verdicts_of_committed_records_are_kept():
    before = json.loads(FIXTURE.read_text())
    now = _verdicts()
    assert set(now) == set(before), "the committed records changed: recompute the fixture with the old loop"
    rows = sum(len(r) for r in before.values())
    assert rows > 400  # 474 when written
    changes = _changes(before, now)
    assert all("AMBIGUOUS" in (old, new) for _p, _l, old, new in changes), changes
    assert len(changes) <= MAX_FLIPS, changes


if __name__ == "__main__":  # recompute the fixture with the loop the core replaced
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "tests"))
    from helpers.old_bootstrap import grouped_medians, plain_medians

    from cugraphlab.bench import diff
    from cugraphlab.bench.stats import intervals

    diff.SHARED_DRAWS = 0  # every row through the loop below
    intervals._grouped_bootstrap_medians = grouped_medians
    intervals._bootstrap_medians = plain_medians
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(_verdicts(), indent=0, sort_keys=True) + "\n")
    print("written", FIXTURE)


def test_rows_without_groups_get_the_old_intervals_on_every_committed_record(monkeypatch):
    """Every kind of committed record diff accepts, a few pairs each (200 resamples: the same numbers drawn either
    way, so the intervals are equal bit for bit): the rows that keep no groups through the old loop and the core."""
    from helpers.old_bootstrap import grouped_medians, plain_medians

    from cugraphlab.bench import diff
    from cugraphlab.bench.diff_inputs import as_record, check_measurement
    from cugraphlab.bench.records.record import RecordError
    from cugraphlab.bench.stats import intervals

    kinds: dict[str, list] = {}
    for p in sorted(RESULTS.glob("**/*.json")):
        try:
            d = diff.read_record_file(p)
            check_measurement(as_record(d), str(p))
        except RecordError:
            continue
        kinds.setdefault(d["kind"], []).append(d)

    def rows(a, b):
        try:
            r = diff.diff_records(a, b, env={}, allow_config="all", resamples=200)
        except RecordError:
            return None
        return [(x.label, x.verdict, x.low, x.high) for x in r.rows
                if not (a["samples"].get(x.label, {}).get("groups") or b["samples"].get(x.label, {}).get("groups"))]

    pairs = [(a, b) for items in kinds.values() for a, b in itertools.islice(itertools.combinations(items, 2), 3)]
    now = [rows(a, b) for a, b in pairs]
    monkeypatch.setattr(intervals, "_bootstrap_medians", plain_medians)
    monkeypatch.setattr(intervals, "_grouped_bootstrap_medians", grouped_medians)
    monkeypatch.setattr(diff, "SHARED_DRAWS", 0)
    before = [rows(a, b) for a, b in pairs]
    assert len(kinds) >= 8 and sum(len(r or ()) for r in now) > 300  # 362 when written
    assert now == before
