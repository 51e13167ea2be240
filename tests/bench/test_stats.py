"""Tests for cugraphlab.bench.stats.summary (CPU only)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cugraphlab.bench.stats.summary import Summary, median_ci_halfwidth, sample_adaptively, summarize


class FakeClock:
    """Returns 0, step, 2*step, ... on successive calls."""

    def __init__(self, step: float = 0.0) -> None:
        self.step = step
        self.calls = 0

    def __call__(self) -> float:
        t = self.calls * self.step
        self.calls += 1
        return t


def alternating(lo: float = 1.0, hi: float = 100.0):
    """Sample source whose median CI never tightens (half low, half high)."""
    state = {"i": 0}

    def fn() -> float:
        state["i"] += 1
        return lo if state["i"] % 2 else hi

    return fn


# ------------------------------------------------------------------ summarize

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_summarize_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(mean=1.0, sigma=0.5, size=257)
    s = summarize(x, unit="us", clock="perf_counter_ns")
    assert s.median == pytest.approx(np.median(x))
    assert s.p5 == pytest.approx(np.percentile(x, 5))
    assert s.p95 == pytest.approx(np.percentile(x, 95))
    assert s.mean == pytest.approx(x.mean())
    assert s.min == x.min() and s.max == x.max()
    assert s.n == 257
    assert (s.unit, s.clock, s.stop_reason) == ("us", "perf_counter_ns", "fixed")
    assert s.rel_spread == pytest.approx(median_ci_halfwidth(x))


def test_summarize_linear_interpolation_small():
    # numpy linear: p5 of [1,2,3,4,5] is 1 + 0.05*4 = 1.2
    s = summarize([5, 1, 4, 2, 3], unit="us", clock="c")
    assert s.p5 == pytest.approx(1.2)
    assert s.p95 == pytest.approx(4.8)
    assert s.median == 3.0
    assert math.isinf(s.rel_spread)  # n < 6


def test_summarize_empty_raises():
    with pytest.raises(ValueError, match="no samples"):
        summarize([], unit="us", clock="c")


def test_summarize_bad_stop_reason():
    with pytest.raises(ValueError, match="stop_reason"):
        summarize([1.0], unit="us", clock="c", stop_reason="bored")


def test_spread_pct_and_zero_median():
    s = summarize([9.0, 10.0, 11.0] * 10, unit="us", clock="c")
    assert s.spread_pct == pytest.approx((s.p95 - s.p5) / s.median * 100)
    assert s.spread_pct > 0
    z = summarize([0.0] * 10, unit="us", clock="c")
    assert z.spread_pct == 0.0
    assert z.rel_spread == 0.0


def test_summary_dict_round_trip():
    s = summarize(np.arange(1.0, 21.0), unit="us", clock="cuEventElapsedTime",
                  stop_reason="spread")
    d = s.to_dict()
    assert set(d) == {"median", "p5", "p95", "mean", "min", "max", "n", "unit",
                      "clock", "stop_reason", "rel_spread"}
    assert Summary.from_dict(d) == s
    # inf has no strict-JSON form: to_dict maps it to None and back.
    small = summarize([1.0, 2.0], unit="us", clock="c")
    assert small.to_dict()["rel_spread"] is None
    assert math.isinf(Summary.from_dict(small.to_dict()).rel_spread)


def test_summary_is_frozen():
    s = summarize([1.0], unit="us", clock="c")
    with pytest.raises(AttributeError):
        s.median = 2.0  # type: ignore[misc]


def test_from_dict_missing_key():
    d = summarize([1.0], unit="us", clock="c").to_dict()
    del d["p95"]
    with pytest.raises(ValueError, match="p95"):
        Summary.from_dict(d)


# ---------------------------------------------------------- median CI width

def test_ci_inf_below_six():
    for n in range(1, 6):
        assert math.isinf(median_ci_halfwidth(np.arange(1.0, n + 1)))
    assert math.isfinite(median_ci_halfwidth(np.arange(1.0, 7.0)))


def test_ci_exact_order_statistics():
    # n=100: ranks floor(50-9.8)=40 and ceil(50+9.8)=60 (1-based) of 1..100
    x = np.arange(1.0, 101.0)
    np.random.default_rng(0).shuffle(x)
    assert median_ci_halfwidth(x) == pytest.approx((60 - 40) / 2 / 50.5)


def test_ci_shrinks_with_n():
    rng = np.random.default_rng(42)
    widths = [median_ci_halfwidth(rng.normal(100.0, 10.0, size=n)) for n in (20, 200, 2000, 20000)]
    assert all(a > b for a, b in zip(widths, widths[1:])), widths
    # Roughly 1/sqrt(n): 1000x more samples -> ~30x narrower.
    assert widths[0] / widths[-1] > 10


def test_ci_constant_samples_zero():
    assert median_ci_halfwidth([7.0] * 50) == 0.0


# -------------------------------------------------------------------- measure

def test_measure_stops_on_spread_at_min_samples():
    calls = []

    def fn():
        calls.append(1)
        return 5.0

    s = sample_adaptively(fn, warmup=2, min_samples=10, clock_fn=FakeClock(0.0))
    assert s.stop_reason == "spread"
    assert s.n == 10
    assert len(calls) == 12  # warmup included in calls, not in samples
    assert s.median == 5.0


def test_measure_discards_warmup():
    values = iter([1000.0, 1000.0, 1000.0] + [2.0] * 100)
    s = sample_adaptively(lambda: next(values), warmup=3, min_samples=10, clock_fn=FakeClock(0.0))
    assert s.max == 2.0
    assert s.n == 10


def test_measure_stops_on_max_samples():
    s = sample_adaptively(alternating(), warmup=0, min_samples=5, max_samples=37,
                target_rel_spread=0.01, clock_fn=FakeClock(0.0))
    assert s.stop_reason == "max_samples"
    assert s.n == 37


def test_measure_stops_on_time_cap():
    # Clock read once before the first sample (t=0) and after each sample
    # (t=k after k samples); elapsed > 10.5 first holds after 11 samples.
    clock = FakeClock(1.0)
    s = sample_adaptively(alternating(), warmup=1, min_samples=5, max_samples=1000,
                time_cap_s=10.5, clock_fn=clock)
    assert s.stop_reason == "time_cap"
    assert s.n == 11
    assert clock.calls == 12


def test_measure_time_cap_can_end_before_min_samples():
    s = sample_adaptively(lambda: 1.0, warmup=0, min_samples=50, max_samples=100,
                time_cap_s=2.5, clock_fn=FakeClock(1.0))
    assert s.stop_reason == "time_cap"
    assert s.n == 3


def test_measure_noisy_converges_with_real_distribution():
    rng = np.random.default_rng(7)
    s = sample_adaptively(lambda: float(rng.normal(50.0, 1.0)), warmup=0, min_samples=10,
                max_samples=100000, target_rel_spread=0.002, clock_fn=FakeClock(0.0))
    assert s.stop_reason == "spread"
    assert s.rel_spread <= 0.002
    assert 10 < s.n < 100000
    assert s.median == pytest.approx(50.0, rel=0.01)
    assert (s.unit, s.clock) == ("us", "perf_counter_ns")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"warmup": -1}, "warmup"),
        ({"warmup": 1.5}, "warmup must be an integer >= 0, got 1.5"),
        ({"min_samples": True}, "min_samples must be an integer >= 1, got True"),
        ({"min_samples": 0}, "min_samples"),
        ({"max_samples": 0}, "max_samples"),
        ({"min_samples": 20, "max_samples": 10}, "max_samples"),
        ({"target_rel_spread": -0.1}, "target_rel_spread"),
        ({"target_rel_spread": float("nan")}, "target_rel_spread"),
        ({"time_cap_s": 0}, "time_cap_s"),
        ({"time_cap_s": -1.0}, "time_cap_s"),
    ],
)
def test_measure_validates_arguments(kwargs, match):
    from cugraphlab.core.errors import InvalidArgumentError

    # one line of the error tree (the integers through core.errors.positive_int), no bare ValueError
    with pytest.raises(InvalidArgumentError, match=match) as e:
        sample_adaptively(lambda: 1.0, clock_fn=FakeClock(0.0), **kwargs)
    assert "\n" not in str(e.value)


def test_measure_rejects_non_callable_and_nan_samples():
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="callable"):
        sample_adaptively(3.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-finite"):
        sample_adaptively(lambda: float("nan"), warmup=0, clock_fn=FakeClock(0.0))
