"""bench.paired_stats on synthetic samples with known answers."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cugraphlab.bench.stats.paired_stats import (
    Interval,
    hierarchical_bootstrap,
    paired,
    relative_noise,
    round_order,
    stop_reason,
)


def _bimodal_pairs(ratio: float, contexts: int = 6, rounds: int = 12, noise: float = 0.01, seed: int = 1):
    """(reference, way) per context: each context in one host mode (3.6 or 5.4 µs), the way ``ratio`` times the
    reference in the same round, both with independent noise."""
    rng = np.random.default_rng(seed)
    ref, way = [], []
    for c in range(contexts):
        mode = (3.6, 5.4)[c % 2] * (1 + 0.03 * rng.standard_normal())
        drift = 1 + 0.02 * rng.standard_normal(rounds)  # shared by both ways in a round
        r = mode * drift * (1 + noise * rng.standard_normal(rounds))
        w = mode * drift * ratio * (1 + noise * rng.standard_normal(rounds))
        ref.append(list(r))
        way.append(list(w))
    return ref, way


def _ratios(way, ref):
    return [paired(dict(enumerate(w)), dict(enumerate(r))) for w, r in zip(way, ref)]


def test_a_ratio_of_1_05_is_found_within_its_interval():
    ref, way = _bimodal_pairs(1.05)
    iv = hierarchical_bootstrap(_ratios(way, ref), seed=3)
    assert iv.contains(1.05)
    assert not iv.contains(1.0)
    assert iv.rel_half_width < 0.01  # paired: the host's modes divide out
    raw = hierarchical_bootstrap(way, seed=3)
    assert raw.rel_half_width > 5 * iv.rel_half_width  # unpaired µs carry the modes


def test_identical_ways_give_an_interval_containing_1():
    for seed in range(5):
        ref, way = _bimodal_pairs(1.0, seed=seed)
        iv = hierarchical_bootstrap(_ratios(way, ref), seed=seed)
        assert iv.contains(1.0), (seed, iv)


def test_the_bootstrap_is_seeded_and_resamples_contexts():
    ref, way = _bimodal_pairs(1.02)
    groups = _ratios(way, ref)
    a = hierarchical_bootstrap(groups, seed=7)
    b = hierarchical_bootstrap(groups, seed=7)
    assert a == b
    assert a.n == sum(len(g) for g in groups) and a.groups == len(groups)
    # contexts that disagree widen the interval: resampling contexts, not only rounds
    shifted = [[v * (1.03 if i % 2 else 0.97) for v in g] for i, g in enumerate(groups)]
    wide = hierarchical_bootstrap(shifted, seed=7)
    pooled = hierarchical_bootstrap([sum(shifted, [])], seed=7)  # one group: rounds only
    assert wide.half_width > pooled.half_width


def test_interval_edge_cases():
    assert hierarchical_bootstrap([]) is None
    assert hierarchical_bootstrap([[], [float("nan")]]) is None
    one = hierarchical_bootstrap([[2.5]])
    assert (one.median, one.lo, one.hi, one.n) == (2.5, 2.5, 2.5, 1)
    iv = hierarchical_bootstrap([[1.0, 2.0, 3.0]], seed=0)
    assert iv.lo <= iv.median <= iv.hi and iv.median == 2.0
    assert Interval.from_dict(iv.to_dict()) == iv and Interval.from_dict(None) is None


def test_round_order_rotates():
    names = ["a", "b", "c"]
    assert [round_order(names, r) for r in range(4)] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"],
                                                          ["a", "b", "c"]]
    # every way takes every position once in len(names) rounds
    positions = {n: sorted(round_order(names, r).index(n) for r in range(3)) for n in names}
    assert all(p == [0, 1, 2] for p in positions.values())
    assert round_order([], 3) == []


def test_paired_keeps_only_rounds_both_have():
    assert paired({0: 2.0, 1: 3.0, 2: 4.0}, {0: 1.0, 2: 2.0}) == [2.0, 2.0]
    assert paired({0: 2.0, 1: 3.0}, {0: 1.0, 1: 1.0}, "difference") == [1.0, 2.0]
    assert paired({0: 1.0}, {0: 0.0}) == []
    with pytest.raises(ValueError):
        paired({0: 1.0}, {0: 1.0}, "sum")


def test_relative_noise():
    assert relative_noise([1.0]) == math.inf
    assert relative_noise([2.0] * 8) == 0.0
    rng = np.random.default_rng(0)
    quiet = relative_noise(list(1 + 0.001 * rng.standard_normal(20)))
    loud = relative_noise(list(1 + 0.1 * rng.standard_normal(20)))
    assert quiet < 0.002 < loud


def test_stop_reason_order():
    quiet, loud = {"a": 0.001, "b": 0.005}, {"a": 0.001, "b": 0.05}
    assert stop_reason(quiet, 0.01, 2, 5, 20, 0.0, 10.0) is None  # not enough rounds yet
    assert stop_reason(quiet, 0.01, 5, 5, 20, 0.0, 10.0) == "spread"
    assert stop_reason(loud, 0.01, 5, 5, 20, 0.0, 10.0) is None
    assert stop_reason(loud, 0.01, 20, 5, 20, 0.0, 10.0) == "max_samples"
    assert stop_reason(loud, 0.01, 6, 5, 20, 11.0, 10.0) == "time_cap"
    assert stop_reason(quiet, 0.01, 6, 5, 20, 11.0, 10.0) == "spread"
