"""Fits, flatness verdict, break-even and unrolling arithmetic, goals and the plan of points, on synthetic data with
known answers (no GPU needed)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cugraphlab.bench.scaling.sweep import (
    DEFAULT_LENGTHS,
    DEFAULT_WIDTHS,
    QUICK_LENGTHS,
    analyze,
    break_even,
    make_plan,
    unroll_payoff,
)
from cugraphlab.bench.stats.fits import fit_linear, flatness
from cugraphlab.core.errors import InvalidArgumentError
from scaling_goals import goals_of
from scaling_records import synthetic_record

NODES = [1 << i for i in range(13)]


def _noisy(a, b, rel=0.01, n=40, seed=0):
    rng = np.random.default_rng(seed)
    return [(a + b * x) * (1 + rng.normal(0, rel, n)) for x in NODES]


@pytest.mark.parametrize("a,b", [(2.0, 0.0), (2.5, 0.001), (10.0, 0.5), (0.3, 1.2)])
def test_fit_recovers_known_intercept_and_slope_inside_its_interval(a, b):
    f = fit_linear(NODES, _noisy(a, b), seed=1)
    assert f.intercept == pytest.approx(a, rel=0.02)
    assert f.slope == pytest.approx(b, rel=0.03, abs=2e-5)
    assert f.slope_ci[0] <= b <= f.slope_ci[1] or abs(b) < 1e-4
    assert f.intercept_ci[0] <= a * 1.01 and a * 0.99 <= f.intercept_ci[1]
    assert f.points == 13 and f.nodes_range == (1, 4096) and f.replicates > 900


def test_fit_on_exact_data_is_exact_and_its_interval_collapses():
    f = fit_linear(NODES, [3.0 + 0.25 * x for x in NODES])
    assert f.intercept == pytest.approx(3.0) and f.slope == pytest.approx(0.25)
    assert f.slope_ci[1] - f.slope_ci[0] < 1e-9


def test_loglog_exponent_says_flat_or_proportional():
    assert abs(fit_linear(NODES, [5.0] * 13).exponent) < 1e-9
    assert fit_linear(NODES, [0.7 * x for x in NODES]).exponent == pytest.approx(1.0)


def test_a_wider_noise_gives_a_wider_interval():
    narrow = fit_linear(NODES, _noisy(2, 0.01, rel=0.005))
    wide = fit_linear(NODES, _noisy(2, 0.01, rel=0.05))
    assert (wide.slope_ci[1] - wide.slope_ci[0]) > 3 * (narrow.slope_ci[1] - narrow.slope_ci[0])


def test_zero_costs_fall_back_to_an_unweighted_fit():
    f = fit_linear([1, 2, 4, 8], [0.0, 0.0, 4096.0, 8192.0])
    assert math.isfinite(f.slope) and f.slope > 0


def test_degenerate_fits_are_nan_not_errors():
    f = fit_linear([4, 4, 4], [1.0, 2.0, 3.0])
    assert math.isnan(f.slope) and f.replicates == 0
    d = f.to_dict()
    assert d["slope"] is None and d["slope_ci"] == [None, None]
    with pytest.raises(InvalidArgumentError):
        fit_linear([1, 2], [1.0])


def test_flat_launch_passes_and_a_rising_one_fails_with_its_slope():
    flat = flatness(NODES, _noisy(1.9, 0.0, rel=0.005))
    assert flat.flat is True and flat.lo == 4 and flat.hi == 4096 and abs(flat.max_deviation) < 0.05
    assert "constant" in flat.text and "±5%" in flat.text
    # 2 µs + 0.01 ns per node: +2% at 4096: flat; + 1 ns per node: +204% at 4096: not flat, and it says so;
    # 2 µs + 200 ns per node (the pre-12.6 figure): far from flat
    assert flatness(NODES, [2.0 + 0.00001 * x for x in NODES]).flat is True
    one_ns = flatness(NODES, [2.0 + 0.001 * x for x in NODES])
    assert one_ns.flat is False and "1 ns per node" in one_ns.text
    rising = flatness(NODES, [2.0 + 0.2 * x for x in NODES])
    assert rising.flat is False and rising.at_nodes == 4096 and rising.slope == pytest.approx(0.2)
    assert "200 ns per node" in rising.text
    # 6% up at one size is enough to fail
    vals = [2.0] * 13
    vals[8] = 2.0 * 1.06
    v = flatness(NODES, vals)
    assert v.flat is False and v.at_nodes == 256 and v.max_deviation == pytest.approx(0.06)


def test_flatness_reports_the_range_actually_covered_and_needs_two_points():
    v = flatness([1, 4, 16, 64], [2.0, 2.0, 2.02, 2.01])
    assert v.flat and v.hi == 64 and "from 4 to 64" in v.text
    assert flatness([1, 2, 4], [1.0, 1.0, 1.0]).flat is None
    with pytest.raises(InvalidArgumentError):
        flatness(NODES, [1.0] * 13, tolerance=0)


def test_break_even_and_unrolling_arithmetic():
    assert break_even(100.0, 10.0, 5.0) == 20  # 20 * 10 = 100 + 20 * 5
    assert break_even(101.0, 10.0, 5.0) == 21
    assert break_even(1.0, 10.0, 5.0) == 1
    assert break_even(100.0, 5.0, 5.0) is None and break_even(100.0, 4.0, 5.0) is None
    # one-iteration graph 5 µs a replay; K=10 in one graph costs 20 µs a replay (saves 30), 300 µs more setup
    assert unroll_payoff(50.0, 5.0, 10, 350.0, 20.0) == 10
    assert unroll_payoff(50.0, 5.0, 10, 40.0, 20.0) == 1  # cheaper to set up: pays at once
    assert unroll_payoff(50.0, 5.0, 10, 350.0, 60.0) is None  # slower per iteration: never


def test_analyze_a_synthetic_record():
    r = analyze(synthetic_record())
    assert r.fits["instantiate_us"]["line"]["slope"] == pytest.approx(0.9)
    assert r.fits["capture_us"]["forkjoin:w4"]["slope"] == pytest.approx(2.0, rel=1e-3)
    assert r.verdict["held_launch_us"]["line"]["flat"] is True
    line_be = {b["length"]: b for b in r.break_even if b["series"] == "line"}
    L = 64  # setup 5+128 + 8+57.6 = 198.6 µs; saving 262 - 37.2 = 224.8 µs a replay: 1 replay
    assert line_be[L]["replays"] == 1 and line_be[1]["replays"] == math.ceil((7 + 8.9) / (10 - 2.55))
    u = {x["k"]: x for x in r.unroll}
    assert set(u) == set(DEFAULT_LENGTHS[1:]) and u[2]["base_length"] == 1
    # K=2: extra setup 2.9 µs; saving 2*2.55 - 3.1 = 2.0 µs a replay: 2 replays, 4 iterations
    assert u[2]["replays"] == 2 and u[2]["iterations"] == 4
    assert goals_of(r)["launch"]["met"] is True and goals_of(r)["launch"]["at_nodes"] == 128
    assert goals_of(r)["instantiate_vs_native"]["met"] is None
    slow = analyze(synthetic_record(lambda n: 2.0 + 0.01 * n))
    assert slow.verdict["held_launch_us"]["line"]["flat"] is False
    assert goals_of(slow)["launch"]["met"] is False


def test_goals_read_the_paired_figures_of_the_record():
    r = analyze(synthetic_record(python_factor=1.0))
    assert "goals" not in r.to_dict()  # the record carries figures; the goals are benchmarks/scaling.py's
    g = goals_of(r)
    assert g["instantiate_vs_native"]["paired"] and g["instantiate_vs_native"]["met"] is True
    assert g["instantiate_vs_native"]["ratio"] == pytest.approx(1.0, rel=0.01)
    assert g["launch"]["paired"] and g["launch"]["native_launch_us"] == pytest.approx(1.5, rel=0.02)
    slow = goals_of(analyze(synthetic_record(python_factor=1.3)))["instantiate_vs_native"]
    assert slow["met"] is False and slow["python_slower"] is True


def test_default_and_quick_plans():
    p = make_plan()
    assert p.lengths == DEFAULT_LENGTHS and p.widths == DEFAULT_WIDTHS and p.topologies == ("line", "forkjoin")
    assert len(p.shapes) == 13 + 13 + 12 + 11 + 10 + 9 and len(p.skipped) == 1 + 2 + 3 + 4
    assert p.repeats == 5 and p.budget_s == 120 and 0.1 < p.time_cap_s < 1.0 and p.max_width == 16
    q = make_plan(quick=True)
    assert q.lengths == QUICK_LENGTHS and q.widths == (1, 4) and q.repeats == 3
    assert len(q.shapes) == 6 + 6 + 5 and q.budget_s <= 15
    line_only = make_plan([4096, 1, 1], topologies="line")
    assert [s.length for s in line_only.shapes] == [1, 4096]  # sorted, deduplicated
    assert make_plan("1,8", "2", topologies=["forkjoin"]).shapes[0].width == 2


@pytest.mark.parametrize("kwargs", [
    {"work": "gemm"}, {"topologies": "ring"}, {"topologies": ""}, {"lengths": []}, {"lengths": [0]},
    {"lengths": [1 << 17]}, {"lengths": "1,x"}, {"widths": [33]}, {"widths": [0]}, {"repeats": 0},
    {"budget_s": -1}, {"budget_s": float("nan")}, {"size": 0},
    {"lengths": [1, 2], "widths": [4], "topologies": "forkjoin"},
])
def test_bad_plans_are_one_invalid_argument_error_each(kwargs):
    with pytest.raises(InvalidArgumentError) as e:
        make_plan(**kwargs)
    assert "\n" not in str(e.value)
