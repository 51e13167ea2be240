"""compare's launch figures carry intervals, rank ties, the paired section, and a broken own stack fails (issue 14)."""
from __future__ import annotations

import types

import numpy as np
import pytest

from cugraphlab.bench.compare.records import CompareResult, StackRow
from cugraphlab.report.compare import leaderboard, render_compare


def _result(centres: dict[str, float], spread: float = 0.02, rounds: int = 2, seed: int = 1) -> CompareResult:
    rng = np.random.default_rng(seed)
    rows = []
    for stack, us in centres.items():
        for r in range(1, rounds + 1):
            samples = list(us * (1 + spread * rng.standard_normal(5)))
            rows.append(StackRow(stack, "w", "launch", 1024, r, count=1000, repeats=5, kernels=1,
                                 wall_us=float(np.median(samples)), wall_p5=min(samples), wall_p95=max(samples),
                                 checked=5, mismatches=0, wall_samples=samples))
    return CompareResult(config={"sizes": [1024], "rounds": rounds}, rows=rows)


def test_samples_keep_their_round_and_give_an_interval():
    result = _result({"a": 4.0})
    entry = result.samples["a/w launch n=1024"]
    assert len(entry["values"]) == 10 and sorted(set(entry["groups"])) == [1, 2]
    iv = result.interval("a/w launch n=1024")
    assert iv.lo <= iv.median <= iv.hi and iv.groups == 2 and 3.8 < iv.median < 4.2


def test_overlapping_intervals_share_a_rank_and_separate_ones_do_not():
    result = _result({"a": 4.00, "b": 4.02, "c": 5.50})
    lines = leaderboard(result, 1024)
    by = {d["stack"]: d for d in lines}
    assert by["a"]["rank"] == by["b"]["rank"] == 1 and by["a"]["tied"] and by["b"]["tied"]
    assert by["c"]["rank"] == 3 and not by["c"]["tied"]
    text = render_compare(result)
    assert "=1" in text and "[" in text  # the interval is printed beside the figure


def test_far_apart_lines_rank_in_order():
    lines = leaderboard(_result({"a": 3.0, "b": 4.0, "c": 5.0}, spread=0.005), 1024)
    assert [d["rank"] for d in lines] == [1, 2, 3] and not any(d["tied"] for d in lines)


@pytest.mark.parametrize("own, expected", [("cugraphlab", "failed"), ("bindings", "failed"), ("torch", "unavailable")])
def test_a_stack_that_cannot_start(own, expected, monkeypatch):
    from cugraphlab.bench.compare import worker
    from cugraphlab.bench.compare.way import StackUnavailable

    def open_stack(device, ops, variant):
        raise StackUnavailable("import failed: no module named x")

    monkeypatch.setattr(worker.importlib, "import_module", lambda name: types.SimpleNamespace(open_stack=open_stack))
    got = worker.stack_job(own, "", [1024], 10, 10, 2, 1, ("add",), 2.0, 7, 0, 1)
    statuses = {r["status"] for r in got["rows"]}
    assert statuses == {expected}  # this project's own ways never skip: a failure to start is a failure


def test_a_start_up_bug_is_a_failure_not_unavailable(monkeypatch):
    from cugraphlab.bench.compare import worker

    def open_stack(device, ops, variant):
        raise KeyError("bug")

    monkeypatch.setattr(worker.importlib, "import_module", lambda name: types.SimpleNamespace(open_stack=open_stack))
    got = worker.stack_job("torch", "", [1024], 10, 10, 2, 1, ("add",), 2.0, 7, 0, 1)
    assert {r["status"] for r in got["rows"]} == {"failed"}


def test_quick_preset_and_explicit_options():
    import argparse

    from cugraphlab.cli.compare import add_commands, resolve_preset

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    add_commands(sub, argparse.ArgumentParser(add_help=False))
    a = resolve_preset(p.parse_args(["compare", "--quick"]))
    assert a.size == [1024] and a.iters == 1000 and a.repeats == 3 and a.paired_contexts == 2
    assert "jax" not in a.stacks and "triton" not in a.stacks and "cugraphlab" in a.stacks
    b = resolve_preset(p.parse_args(["compare", "--quick", "--iters", "300", "--stacks", "jax"]))
    assert b.iters == 300 and b.stacks == "jax"
    c = resolve_preset(p.parse_args(["compare"]))
    assert c.size is None and c.iters == 5000 and c.repeats == 5 and c.paired_contexts == 8


def test_the_paired_section_is_rendered_or_its_failure_said():
    result = _result({"a": 4.0})
    result.paired = {"1024": {"error": "worker died"}}
    assert "paired at 1,024 floats: FAILED (worker died)" in render_compare(result)


# ------------------------------------------------- launch intervals widened to the pooled between-process spread

def _two_round_record(lines):
    """lines: label -> (round 1 values, round 2 values)."""
    from cugraphlab.bench.compare.records import CompareResult

    samples = {label: {"unit": "us", "clock": "wall", "values": list(a) + list(b),
                       "groups": [1] * len(a) + [2] * len(b)} for label, (a, b) in lines.items()}
    return CompareResult(samples=samples)


def test_process_spread_pools_the_lines_log_spread_between_rounds():
    import math

    r = _two_round_record({"s1/w launch n=1024": ([4.0] * 5, [5.0] * 5),
                           "s2/w launch n=1024": ([6.0] * 5, [7.5] * 5),
                           "s3/w graph n=1024": ([9.0] * 5, [1.0] * 5)})  # device-bound: not pooled
    sp = r.process_spread()
    d = math.log(5.0 / 4.0)  # both lines differ by the same factor between rounds: sd of two logs = d / sqrt 2
    assert sp["lines"] == 2 and sp["df"] == 2 and abs(sp["sigma"] - d / math.sqrt(2)) < 1e-12
    assert sp["t"] == pytest.approx(4.303)


def test_a_line_whose_rounds_agree_gets_the_pooled_width_not_its_own():
    r = _two_round_record({"lucky/w launch n=1024": ([4.0, 4.01, 3.99] * 3, [4.0, 4.01, 3.99] * 3),
                           "other/w launch n=1024": ([3.0] * 9, [4.5] * 9),
                           "third/w launch n=1024": ([5.0] * 9, [3.6] * 9)})
    own = r.interval("lucky/w launch n=1024", process_spread=False)
    wide = r.interval("lucky/w launch n=1024")
    assert own.hi - own.lo < 0.05 and wide.lo < 3.6 and wide.hi > 4.4 and wide.median == own.median


def test_no_widening_with_one_round():
    from cugraphlab.bench.compare.records import CompareResult

    r = CompareResult(samples={"a/w launch n=1024": {"unit": "us", "clock": "wall", "values": [4.0, 4.1, 3.9],
                                                      "groups": [1, 1, 1]}})
    assert r.process_spread() is None
    assert r.interval("a/w launch n=1024") == r.interval("a/w launch n=1024", process_spread=False)
