"""Issue 32 §3, statistics: the scaling fits redraw a point's median through the one bootstrap core
(``bench.stats.bootstrap``), and bad arguments to the statistics are one InvalidArgumentError, never a bare
ValueError."""
from __future__ import annotations

import numpy as np
import pytest

import old_bootstrap as old  # tests/helpers: pyproject's pytest pythonpath
from cugraphlab.bench.stats import bootstrap, fits, intervals, paired_diff, paired_stats, summary
from cugraphlab.core.errors import InvalidArgumentError


def _costs(seed: int, m: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 3.0 + rng.normal(0, 0.05, m) + rng.exponential(0.1, m)


@pytest.mark.parametrize("m", [2, 5, 16, 17, 40, 500])
def test_a_points_medians_are_the_cores(m):
    a = _costs(m, m)
    got = fits._bootstrap_medians(a, 1000, np.random.default_rng(7))
    want = bootstrap.plain_medians(a, 1000, np.random.default_rng(7))
    assert np.array_equal(got, want)
    # the same draws through np.median: the medians of real resamples, not an approximation of them
    idx = np.random.default_rng(7).integers(0, m, (1000, m))
    assert np.array_equal(got, np.median(a[idx], axis=1))


@pytest.mark.parametrize("m", [1, 2, 9, 16])
def test_points_of_up_to_16_samples_keep_the_old_fits_figures(m):
    a = _costs(100 + m, m)
    rng_old, rng_new = np.random.default_rng(3), np.random.default_rng(3)
    assert np.array_equal(fits._bootstrap_medians(a, 1000, rng_new), old.fits_medians(a, 1000, rng_old))
    assert rng_new.random() == rng_old.random()  # the generator is left where it was: later draws unchanged


def test_a_fit_of_small_points_is_the_same_as_before(monkeypatch):
    nodes = [1 << i for i in range(10)]
    costs = [(2.0 + 0.01 * x) * (1 + np.random.default_rng(x).normal(0, 0.01, 12)) for x in nodes]
    now = fits.fit_linear(nodes, costs, seed=5)
    monkeypatch.setattr(fits, "_bootstrap_medians", old.fits_medians)
    before = fits.fit_linear(nodes, costs, seed=5)
    assert now == before and now.slope_ci[0] < 0.01 < now.slope_ci[1]


@pytest.mark.parametrize("call, words", [
    (lambda: intervals.ratio_of_medians([1.0] * 8, [1.0] * 8, resamples=5), "resamples must be an integer >= 10"),
    (lambda: intervals.ratio_of_medians([1.0] * 8, [1.0] * 8, resamples=100.5), "resamples must be an integer"),
    (lambda: intervals.ratio_of_medians([1.0] * 8, [1.0] * 8, confidence=1.5), "confidence must lie in (0, 1)"),
    (lambda: intervals.verdict(intervals.ratio_of_medians([1.0] * 8, [1.1] * 8), 0.01, threshold=-1),
     "threshold must be a number > 0"),
    (lambda: paired_stats.hierarchical_bootstrap([[1.0, 2.0]], resamples=0), "resamples must be an integer >= 1"),
    (lambda: paired_stats.paired({0: 1.0}, {0: 2.0}, op="sum"), "op must be 'ratio' or 'difference'"),
    (lambda: paired_diff.paired_difference([1.0, 2.0], [1.0]), "paired samples need the same rounds"),
    (lambda: paired_diff.goal_verdict(None, "more"), "goal must be 'less' or 'no_more'"),
    (lambda: summary.summarize([], unit="us", clock="host"), "no samples"),
    (lambda: summary.summarize([1.0], unit="us", clock="host", stop_reason="bored"), "stop_reason must be one of"),
])
def test_bad_arguments_are_one_invalid_argument_error(call, words):
    with pytest.raises(InvalidArgumentError) as e:
        call()
    assert words in str(e.value) and "\n" not in str(e.value)
