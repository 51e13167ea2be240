"""Every committed record under benchmarks/results/ and every record kind the package writes is either judged by
``cugraphlab diff`` (against itself: SAME on every row) or refused with the reason in one line; two committed
records of one kind are judged or refused the same way (e.g. "different configurations (size: ...)")."""
from __future__ import annotations

import copy
import itertools
import pathlib
from collections import defaultdict

import pytest

from cugraphlab.bench.diff import diff_records, read_record_file
from cugraphlab.bench.records.record import RecordError

REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS = sorted((REPO / "benchmarks" / "results").glob("**/*.json"))
ENV = {"host": "test"}


def _judge(a, b, a_name="A", b_name="B"):
    """('judged', DiffResult) or ('refused', one-line reason)."""
    try:
        return "judged", diff_records(a, b, a_name=a_name, b_name=b_name, env=ENV, resamples=200)
    except RecordError as e:
        return "refused", str(e)


def _one_line(text: str) -> None:
    assert text and "\n" not in text and "Traceback" not in text and len(text) < 600, text


@pytest.mark.skipif(not RESULTS, reason="no committed results in this checkout")
@pytest.mark.parametrize("path", RESULTS, ids=lambda p: str(p.relative_to(REPO / "benchmarks" / "results")))
def test_every_committed_record_is_judged_against_itself_or_refused_in_one_line(path):
    try:
        d = read_record_file(path)
    except RecordError as e:
        _one_line(str(e))
        return
    how, out = _judge(d, d, str(path), str(path))
    if how == "refused":
        _one_line(out)
        assert str(path) in out or "A " in out or "B " in out
    else:
        assert out.rows, f"{path}: judged but no row compared"
        kept = [r for r in out.rows if r.n_a]  # a row without samples (nvbench's --json without --jsonbin) says so
        assert {r.verdict for r in kept} == {"SAME"}, [(r.label, r.reason) for r in kept][:3]
        assert all(r.verdict == "AMBIGUOUS" and r.reason for r in out.rows if not r.n_a)


TIME_UNITS = {"us", "ms", "s", "ns", "time ratio"}


def _samples(d) -> dict:
    """A record's raw samples by row, or {} for a record without them (a list, older shapes)."""
    samples = d.get("samples") if isinstance(d, dict) else None
    return samples if isinstance(samples, dict) else {}


def _scaled(d: dict, factor: float) -> dict:
    """``d`` with every raw sample multiplied by ``factor`` (the same run, that much slower)."""
    out = copy.deepcopy(d)
    for entry in _samples(out).values():
        if isinstance(entry, dict) and isinstance(entry.get("values"), list):
            entry["values"] = [v * factor if isinstance(v, (int, float)) else v for v in entry["values"]]
    return out


@pytest.mark.skipif(not RESULTS, reason="no committed results in this checkout")
@pytest.mark.parametrize("path", RESULTS, ids=lambda p: str(p.relative_to(REPO / "benchmarks" / "results")))
def test_every_committed_record_made_one_and_a_half_times_slower_reads_slower(path):
    """The companion of the self-diff above, which cannot fail: the same record with every sample x1.5. No time
    row reads SAME or FASTER (no rate row SAME or SLOWER), and each record with a row of enough samples has SLOWER
    rows. A row may stay AMBIGUOUS where diff cannot decide from these samples (fewer than 6, too few processes for
    its rank test, two modes in each side): its ratio is still 1.5 and, where it has an interval, the interval
    reaches past 1.1 the slower way. A record with a row of 6 samples or more, not split among 2-5 processes,
    must have a row that decided."""
    try:
        d = read_record_file(path)
    except RecordError:
        return
    how, out = _judge(d, _scaled(d, 1.5), str(path), f"{path} x1.5")
    if how == "refused":
        _one_line(out)
        return
    wrong, decided, judgeable = [], 0, 0
    for r in out.rows:
        if not r.n_a:
            continue
        if r.unit in TIME_UNITS:
            expected, reaches = "SLOWER", r.high > 1.1
        elif str(r.unit).endswith("/s"):
            expected, reaches = "FASTER", r.high > 1.1  # B/A of a rate: 1.5 means B is faster
        else:
            continue  # counts and bytes are not a speed
        entry = _samples(d).get(r.label)
        groups = len(set(entry.get("groups") or [])) if isinstance(entry, dict) else 0
        judgeable += min(r.n_a, r.n_b) >= 6 and not 2 <= groups < 6
        decided += r.verdict == expected
        few = min(r.n_a, r.n_b) < 6
        undecided = r.verdict == "AMBIGUOUS" and r.ratio == pytest.approx(1.5, rel=1e-6) and (few or reaches)
        if r.verdict != expected and not undecided:
            wrong.append((r.label, r.unit, r.verdict, round(r.low, 3), round(r.high, 3), r.reason))
    assert wrong == [], wrong[:5]
    assert decided or not judgeable, f"{path}: no row read the x1.5 copy as slower"


def _committed_by_kind():
    kinds = defaultdict(list)
    for p in RESULTS:
        try:
            d = read_record_file(p)
        except RecordError:
            continue
        if isinstance(d, dict) and isinstance(d.get("kind"), str) and d.get("schema") and d.get("samples"):
            kinds[d["kind"]].append((p, d))
    return kinds


def test_two_committed_records_of_one_kind_are_judged_or_refused_in_one_line():
    pairs = 0
    for kind, items in _committed_by_kind().items():
        for (pa, a), (pb, b) in itertools.islice(itertools.combinations(items, 2), 6):
            how, out = _judge(a, b, pa.name, pb.name)
            pairs += 1
            if how == "refused":
                _one_line(out)
            else:
                assert out.rows or out.only_a or out.only_b
    if not pairs:
        pytest.skip("fewer than two committed records of any one kind")


def test_run_records_of_two_sizes_are_refused_naming_the_size():
    runs = {p.name: d for p, d in _committed_by_kind().get("cugraphlab.run", [])}
    if not {"after_1024.json", "after_1048576.json"} <= set(runs):
        pytest.skip("the committed after_*.json run records are not in this checkout")
    how, out = _judge(runs["after_1024.json"], runs["after_1048576.json"])
    assert how == "refused" and "size: 1024 -> 1048576" in out and "different configurations" in out


def test_every_record_kind_is_judged_with_samples_and_refused_without():
    from cugraphlab.bench.records.kinds import record_kinds

    kinds = {k: cls for k, cls in record_kinds().items() if k != "cugraphlab.diff"}
    assert {"cugraphlab.run", "cugraphlab.nodes", "cugraphlab.memnodes", "cugraphlab.devlaunch",
            "cugraphlab.conditional", "cugraphlab.pdl", "cugraphlab.compare", "cugraphlab.sweep",
            "cugraphlab.latency", "cugraphlab.timeline", "cugraphlab.scale", "cugraphlab.scaling"} <= set(kinds)
    for kind, cls in kinds.items():
        rec = {"kind": kind, "schema": cls.SCHEMA, "config": {"size": 1024}, "env": {},
               "samples": {"row": {"unit": "us", "values": [4.0, 4.1, 3.9, 4.0, 4.2, 4.05], "clock": "device"}}}
        how, out = _judge(rec, dict(rec))
        assert how == "judged" and out.rows[0].verdict == "SAME", (kind, out)
        old = {k: v for k, v in rec.items() if k not in ("schema", "samples")}
        how, out = _judge(old, old)
        assert how == "refused" and "made before schema 1" in out, (kind, out)
        _one_line(out)


def test_the_homes_of_the_common_kinds_define_them():
    import importlib

    from cugraphlab.bench.diff_inputs import _HOMES
    from cugraphlab.bench.records.record import _KINDS

    for kind, module in _HOMES.items():
        importlib.import_module(module)
        assert kind in _KINDS and _KINDS[kind].__module__ == module, kind
