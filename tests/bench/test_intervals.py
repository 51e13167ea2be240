"""bench.intervals on synthetic samples with known answers: the rank test against hand-computed values, the
bootstrap interval, the verdicts (a shifted distribution is found, the same one is SAME, a bimodal one against its
own resample is not SLOWER, too few samples is AMBIGUOUS, rate units are inverted) and the two-mode split."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cugraphlab.bench.stats import intervals as iv
from cugraphlab.bench.stats.intervals import (
    AMBIGUOUS,
    FASTER,
    SAME,
    SLOWER,
    RatioInterval,
    compare_samples,
    mann_whitney,
    ratio_of_medians,
    split_modes,
    unit_direction,
    verdict,
)


def noisy(rng, center, n=30, rel=0.02):
    return center * (1.0 + rel * rng.standard_normal(n))


# ------------------------------------------------------------------------------------------------- Mann-Whitney

def test_mann_whitney_without_ties_matches_the_hand_computation():
    # a = 1 2 3, b = 4 5 6: A's ranks 1+2+3 = 6, U_a = 6 - 3*4/2 = 0, U_b = 9 - 0 = 9.
    # mean 9/2 = 4.5, var = 3*3/12 * (6+1) = 5.25, z = (|9 - 4.5| - 0.5) / sqrt(5.25) = 4 / 2.291288 = 1.745743,
    # p = erfc(1.745743 / sqrt 2) = 0.0808556 (scipy.stats.mannwhitneyu(method="asymptotic") gives 0.08085559837).
    t = mann_whitney([1, 2, 3], [4, 5, 6])
    assert (t.u_a, t.u_b) == (0.0, 9.0)
    assert t.z == pytest.approx(4 / math.sqrt(5.25), rel=1e-12)
    assert t.p_value == pytest.approx(0.0808555983700523, rel=1e-9)


def test_mann_whitney_with_ties_uses_average_ranks_and_the_tie_correction():
    # pooled: 1 2 2 2 3 3 4 5 -> ranks 1, (2+3+4)/3 = 3 (x3), (5+6)/2 = 5.5 (x2), 7, 8.
    # A = 1 2 2 3: R_a = 1 + 3 + 3 + 5.5 = 12.5, U_a = 12.5 - 10 = 2.5, U_b = 16 - 2.5 = 13.5, mean 8.
    # ties: t=3 -> 24, t=2 -> 6: sum 30; var = 16/12 * (9 - 30/56) = 11.285714; sd = 3.359422.
    # z = (5.5 - 0.5) / 3.359422 = 1.488351, p = erfc(z / sqrt 2) = 0.136658.
    t = mann_whitney([1, 2, 2, 3], [2, 3, 4, 5])
    assert (t.u_a, t.u_b) == (2.5, 13.5)
    var = 16 / 12 * (9 - 30 / 56)
    assert t.z == pytest.approx(5 / math.sqrt(var), rel=1e-12)
    assert t.p_value == pytest.approx(math.erfc(5 / math.sqrt(var) / math.sqrt(2)), rel=1e-12)
    assert t.p_value == pytest.approx(0.136658, abs=1e-6)


def test_mann_whitney_u_counts_pairs():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 6, 40), rng.integers(1, 7, 25)  # many ties
    pairs = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    t = mann_whitney(a, b)
    assert t.u_a == pytest.approx(pairs)
    assert t.u_a + t.u_b == 40 * 25
    swapped = mann_whitney(b, a)
    assert swapped.p_value == pytest.approx(t.p_value) and swapped.z == pytest.approx(-t.z)
    assert t.z > 0  # B tends larger


def test_mann_whitney_degenerate_cases():
    assert mann_whitney([2.0] * 5, [2.0] * 7).p_value == 1.0  # every value equal: no variance
    assert mann_whitney([], [1.0, 2.0]).p_value == 1.0
    assert mann_whitney([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).p_value == 1.0  # |U - mean| = 0 <= continuity 1/2


# ---------------------------------------------------------------------------------------------------- interval

def test_ratio_of_medians_point_and_interval_repeat_with_the_seed():
    rng = np.random.default_rng(0)
    a, b = noisy(rng, 4.0), noisy(rng, 4.4)
    r1 = ratio_of_medians(a, b, seed=7)
    r2 = ratio_of_medians(a, b, seed=7)
    assert r1 == r2
    assert r1.ratio == pytest.approx(np.median(b) / np.median(a))
    assert r1.low < r1.ratio < r1.high
    assert r1.high - r1.low < 0.05  # 2% noise, 30 samples: about ±1%
    assert ratio_of_medians(a, b, seed=8).low != r1.low


def test_ratio_of_medians_without_an_interval():
    r = ratio_of_medians([4.0], [5.0, 6.0])
    assert r.ratio == pytest.approx(5.5 / 4.0) and not r.has_interval
    zero = ratio_of_medians([0.0] * 10, [1.0] * 10)
    assert math.isnan(zero.ratio) and not zero.has_interval
    nonfinite = ratio_of_medians([1.0, float("nan"), 1.0, float("inf")], [1.0, 1.0])
    assert nonfinite.n_a == 2


def test_the_interval_covers_the_true_ratio_about_95_percent_of_the_time():
    rng = np.random.default_rng(11)
    hits = 0
    trials = 200
    for s in range(trials):
        a, b = rng.lognormal(1.4, 0.05, 30), rng.lognormal(1.4, 0.05, 30) * 1.03
        r = ratio_of_medians(a, b, seed=s)
        hits += r.low <= 1.03 <= r.high
    assert 0.88 * trials <= hits <= trials


def test_ratio_of_medians_refuses_bad_settings():
    with pytest.raises(ValueError):
        ratio_of_medians([1, 2], [1, 2], confidence=1.0)
    with pytest.raises(ValueError):
        ratio_of_medians([1, 2], [1, 2], resamples=3)


# ----------------------------------------------------------------------------------------------------- verdicts

def test_a_10_percent_slower_distribution_is_slower_and_a_faster_one_is_faster():
    rng = np.random.default_rng(1)
    a = noisy(rng, 4.0)
    slower = compare_samples(a, noisy(rng, 4.4), threshold=0.05)
    assert slower.verdict == SLOWER, slower.reason
    assert slower.interval.low > 1.05 and slower.test.p_value < 1e-6
    assert slower.slowdown == pytest.approx(slower.interval.ratio)
    faster = compare_samples(a, noisy(rng, 4.0 / 1.1), threshold=0.05)
    assert faster.verdict == FASTER, faster.reason


def test_the_same_distribution_twice_is_same():
    rng = np.random.default_rng(2)
    verdicts = [compare_samples(noisy(rng, 4.0), noisy(rng, 4.0), seed=s).verdict for s in range(50)]
    assert verdicts.count(SAME) >= 48
    assert FASTER not in verdicts and SLOWER not in verdicts


def test_identical_samples_are_same():
    x = np.random.default_rng(5).lognormal(1.0, 0.02, 40)
    c = compare_samples(x, x)
    assert c.verdict == SAME and c.interval.ratio == 1.0


def test_a_bimodal_mixture_against_its_own_resample_is_not_slower():
    rng = np.random.default_rng(4)
    low, high = noisy(rng, 3.7, 16, 0.01), noisy(rng, 5.2, 14, 0.01)
    a = np.concatenate([low, high])  # 16 near 3.7, 14 near 5.2: A's median sits in the low cluster
    b = np.concatenate([rng.choice(low, 14), rng.choice(high, 16)])  # A's own values, clusters the other way round
    c = compare_samples(a, b, threshold=0.05)
    # The trap: the medians fall in different clusters, so the point ratio alone says "40% slower".
    assert c.interval.ratio > 1.3
    assert c.verdict == AMBIGUOUS, c.reason
    assert c.interval.low < 1 < c.interval.high  # the bootstrap sees the median jump between the clusters
    assert "bimodal" in c.reason and c.modes_a is not None and c.modes_a.n_low == 16
    # ... and over many resamples of A, none is called SLOWER or FASTER.
    calls = [compare_samples(a, rng.choice(a, a.size), seed=s).verdict for s in range(200)]
    assert calls.count(SLOWER) == 0 and calls.count(FASTER) == 0


def test_a_bimodal_mixture_whose_every_sample_moved_is_still_found():
    rng = np.random.default_rng(6)

    def mixture(scale):
        return scale * np.concatenate([noisy(rng, 3.7, 24, 0.01), noisy(rng, 5.2, 6, 0.01)])

    c = compare_samples(mixture(1.0), mixture(1.25))
    assert c.modes_a is not None  # two clusters, yet the median is stable: the guard does not hide a real shift
    assert c.verdict == SLOWER, c.reason


def test_too_few_samples_are_ambiguous_and_say_so():
    c = compare_samples([4.0, 4.1, 3.9, 4.0, 4.05], [5.0, 5.1, 4.9, 5.0, 5.05])  # 5 < MIN_SAMPLES
    assert iv.MIN_SAMPLES == 6
    assert c.verdict == AMBIGUOUS and "too few samples" in c.reason and "A has 5" in c.reason


def test_rate_units_invert_the_verdict():
    rng = np.random.default_rng(7)
    a = noisy(rng, 400.0)
    bigger = compare_samples(a, noisy(rng, 440.0), unit="GB/s")
    assert bigger.verdict == FASTER and bigger.direction == "rate", bigger.reason
    assert bigger.slowdown == pytest.approx(1 / bigger.interval.ratio)
    smaller = compare_samples(a, noisy(rng, 360.0), unit="launches/s")
    assert smaller.verdict == SLOWER, smaller.reason
    # the same ratios in a time unit read the other way
    assert compare_samples(a, noisy(rng, 440.0), unit="us").verdict == SLOWER


def test_a_unit_without_a_direction_is_ambiguous_when_changed_and_same_when_not():
    rng = np.random.default_rng(8)
    a = noisy(rng, 3.0)
    changed = compare_samples(a, noisy(rng, 3.6), unit="x")
    assert changed.verdict == AMBIGUOUS and "bigger is faster" in changed.reason
    assert math.isnan(changed.slowdown)
    assert compare_samples(a, noisy(rng, 3.0), unit="x").verdict == SAME


def _interval(ratio, low, high, n=30):
    return RatioInterval(ratio=ratio, low=low, high=high, median_a=1.0, median_b=ratio, n_a=n, n_b=n)


@pytest.mark.parametrize("ratio, low, high, p, expected, words", [
    (1.00, 0.97, 1.03, 0.5, SAME, "inside"),
    (1.02, 0.953, 1.049, 0.01, SAME, "inside"),           # a shown change below the threshold is still SAME
    (1.04, 1.02, 1.08, 0.001, AMBIGUOUS, "straddles"),   # changed, but the best estimate is inside the band
    (1.06, 1.02, 1.08, 0.001, SLOWER, "bigger"),         # interval above 1, point beyond 1.05
    (0.90, 0.88, 0.99, 0.001, FASTER, "smaller"),
    (1.10, 0.98, 1.20, 0.001, AMBIGUOUS, "holds 1"),     # too wide to tell
    (1.10, 1.06, 1.14, 0.20, AMBIGUOUS, "rank test"),    # the interval and the rank test disagree
])
def test_verdict_rules(ratio, low, high, p, expected, words):
    v = verdict(_interval(ratio, low, high), p, threshold=0.05)
    assert v.verdict == expected and words in v.reason, v.reason


def test_verdict_band_is_symmetric_on_a_log_scale_and_rates_swap():
    lo, hi = iv.band(0.05)
    assert lo == pytest.approx(1 / 1.05) and hi == 1.05
    assert verdict(_interval(1.0, lo, hi), 0.5, threshold=0.05).verdict == SAME  # edges count as inside
    assert verdict(_interval(1.08, 1.06, 1.1), 0.001, threshold=0.05, direction="rate").verdict == FASTER
    assert verdict(_interval(0.92, 0.9, 0.94), 0.001, threshold=0.05, direction="rate").verdict == SLOWER
    assert verdict(_interval(1.08, 1.06, 1.1), 0.001, threshold=0.10).verdict == SAME


def test_a_bimodal_row_needs_its_whole_interval_beyond_the_threshold():
    v = verdict(_interval(1.38, 1.001, 1.40), 1e-4, threshold=0.05, bimodal=True)
    assert v.verdict == AMBIGUOUS and "two modes" in v.reason
    assert verdict(_interval(1.38, 1.001, 1.40), 1e-4, threshold=0.05).verdict == SLOWER  # the guard is the flag
    assert verdict(_interval(0.75, 0.70, 0.99), 1e-4, threshold=0.05, bimodal=True).verdict == AMBIGUOUS
    assert verdict(_interval(1.25, 1.24, 1.26), 1e-4, threshold=0.05, bimodal=True).verdict == SLOWER
    assert verdict(_interval(5.0, 4.7, 5.6), 1e-4, threshold=0.05, bimodal=True).verdict == SLOWER  # wide, clear
    assert verdict(_interval(0.8, 0.7, 0.9), 1e-4, threshold=0.05, bimodal=True).verdict == FASTER


def test_verdict_refuses_a_bad_threshold():
    for t in (0, -0.1, float("nan"), "5%"):
        with pytest.raises(ValueError):
            verdict(_interval(1, 0.99, 1.01), 0.5, threshold=t)


# ----------------------------------------------------------------------------------------------- modes, units

def test_split_modes_finds_two_clusters_and_ignores_noise_and_outliers():
    rng = np.random.default_rng(9)
    two = np.concatenate([noisy(rng, 3.6, 12, 0.01), noisy(rng, 5.0, 18, 0.01)])
    m = split_modes(two)
    assert m is not None and (m.n_low, m.n_high) == (12, 18)
    assert m.low == pytest.approx(3.6, rel=0.02) and m.high == pytest.approx(5.0, rel=0.02)
    assert split_modes(noisy(rng, 4.0, 30, 0.02)) is None
    with_outlier = np.append(noisy(rng, 4.0, 29, 0.01), 400.0)  # one interrupt: no mode
    assert split_modes(with_outlier) is None
    assert split_modes(np.append(noisy(rng, 4.0, 18, 0.01), [300.0, 310.0])) is None  # two of 20: still none
    assert split_modes(np.append(noisy(rng, 4.0, 17, 0.01), [300.0, 305.0, 310.0])) is not None  # three: a mode
    assert split_modes([1.0, 2.0]) is None


@pytest.mark.parametrize("unit, direction", [
    ("us", "time"), ("µs", "time"), ("ns", "time"), ("ms", "time"), ("s", "time"), ("cycles", "time"),
    ("GB/s", "rate"), ("launches/s", "rate"), ("M/s", "rate"), ("MHz", "rate"),
    ("x", None), ("%", None), ("", None), (None, None)])
def test_unit_direction(unit, direction):
    assert unit_direction(unit) == direction


def test_to_unit_converts_time_units_only():
    v = np.array([1.0, 2.0])
    assert list(iv.to_unit(v, "ms", "us")) == [1000.0, 2000.0]
    assert list(iv.to_unit(v, "ns", "us")) == [0.001, 0.002]
    assert iv.to_unit(v, "GB/s", "us") is None
    assert iv.to_unit(v, "GB/s", "GB/s") is v


def test_grouped_samples_widen_the_interval_when_processes_disagree():
    """Values of one process share its launch-cost mode: resampled by process, two processes that disagree give
    an interval that holds both, where a plain bootstrap of the pooled values would claim a tight one."""
    import numpy as np

    from cugraphlab.bench.stats.intervals import ratio_of_medians

    rng = np.random.default_rng(3)
    # A: three processes, one of them in the slow mode; B: three processes, all fast
    a = list(np.r_[4.0 + 0.01 * rng.standard_normal(40), 5.0 + 0.01 * rng.standard_normal(20)])
    b = list(4.0 + 0.01 * rng.standard_normal(60))
    groups = [1] * 20 + [2] * 20 + [3] * 20
    plain = ratio_of_medians(b, a, seed=1)
    grouped = ratio_of_medians(b, a, seed=1, groups_a=groups, groups_b=groups)
    assert plain.high < 1.01  # pooled, the slow process hardly moves the median: a tight, overconfident interval
    assert grouped.high > 1.2  # by process: "A's processes may all be slow" stays possible
    assert (grouped.high - grouped.low) > 5 * (plain.high - plain.low)


def test_paired_ratio_rows_come_from_the_paired_section():
    from cugraphlab.bench.compare.records import paired_ratio_samples

    p = {"samples": {"bindings us/launch": {"unit": "us", "values": [4.0, 4.0, 5.0, 5.0]},
                     "cugraphlab us/launch": {"unit": "us", "values": [4.04, 4.0, 5.05, 5.0]},
                     "cugraphlab held us/launch": {"unit": "us", "values": [1, 1, 1, 1]}},
         "contexts": [{"rounds": 2}, {"rounds": 2}]}
    rows = paired_ratio_samples(p, 1024)
    assert list(rows) == ["paired n=1024: cugraphlab / bindings"]
    row = rows["paired n=1024: cugraphlab / bindings"]
    assert row["unit"] == "time ratio" and row["groups"] == [0, 0, 1, 1]
    assert [round(v, 3) for v in row["values"]] == [1.01, 1.0, 1.01, 1.0]


# ------------------------------------------------------------------------------- processes as the unit (groups)

def _processes(rng, centers, n=200, rel=0.01):
    values, groups = [], []
    for i, c in enumerate(centers):
        values += list(noisy(rng, c, n=n, rel=rel))
        groups += [i] * n
    return values, groups


def test_two_processes_per_side_in_other_modes_are_ambiguous_not_faster():
    # The H200's quick compares: both processes of run A in the slow mode (~5.3 us), both of run B in the fast one.
    rng = np.random.default_rng(5)
    a, ga = _processes(rng, [5.33, 5.29])
    b, gb = _processes(rng, [3.81, 3.79])
    ungrouped = compare_samples(a, b, seed=0)
    assert ungrouped.verdict == FASTER  # 400 "independent" samples a side: what the old diff said
    c = compare_samples(a, b, seed=0, groups_a=ga, groups_b=gb)
    assert c.verdict == AMBIGUOUS
    assert c.test.p_value >= iv.ALPHA and "processes/contexts' medians" in c.reason and "run more rounds" in c.reason


def test_a_shift_in_every_process_is_found_with_enough_processes():
    rng = np.random.default_rng(6)
    a, ga = _processes(rng, [4.0, 4.1, 3.9, 4.05, 3.95, 4.0])
    b, gb = _processes(rng, [5.0, 5.1, 4.9, 5.05, 4.95, 5.0])
    c = compare_samples(a, b, seed=0, groups_a=ga, groups_b=gb)
    assert c.verdict == SLOWER and c.test.p_value < iv.ALPHA


def test_identical_processes_are_same():
    rng = np.random.default_rng(7)
    a, ga = _processes(rng, [4.0, 4.01, 3.99])
    b, gb = _processes(rng, [4.0, 4.01, 3.99])
    assert compare_samples(a, b, seed=0, groups_a=ga, groups_b=gb).verdict == SAME


def test_group_medians():
    x = np.array([1.0, 2.0, 3.0, 10.0, 20.0, 30.0])
    assert list(iv.group_medians(x, ["p", "p", "p", "q", "q", "q"])) == [2.0, 20.0]
    assert list(iv.group_medians(x, None)) == list(x)
