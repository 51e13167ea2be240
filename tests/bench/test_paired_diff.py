"""bench.paired_diff: the exact sign test, the paired difference with its interval, and the goal verdicts."""
from __future__ import annotations

import math

import pytest

from cugraphlab.bench.stats.paired_diff import MIN_ROUNDS, goal_verdict, paired_difference, sign_test


def test_sign_test_known_values():
    assert sign_test([1.0] * 6) == (6, 0, pytest.approx(2 / 64))
    assert sign_test([-1.0] * 5) == (0, 5, pytest.approx(2 / 32))  # 5 rounds can never reach p < 0.05
    assert sign_test([1, -1] * 5) == (5, 5, 1.0)
    # 9 above, 1 below: 2 * (C(10,0) + C(10,1)) / 2**10
    assert sign_test([1] * 9 + [-1]) == (9, 1, pytest.approx(2 * 11 / 1024))
    assert sign_test([0, 0, 2.0, math.nan]) == (1, 0, 1.0)  # zeros and NaN dropped; one pair shows nothing
    assert sign_test([]) == (0, 0, 1.0)


def test_paired_difference_pairs_by_round():
    a = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]
    b = [9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5]  # A - B = +0.5 every round, whatever the rounds' level
    d = paired_difference(a, b)
    assert (d.median, d.lo, d.hi, d.n, d.above, d.below) == (0.5, 0.5, 0.5, 7, 7, 0)
    assert d.significant and d.direction == "higher"
    # the medians differ by as much, yet unpaired spread would hide it; reversing the pairing destroys it
    shuffled = paired_difference(a, b[::-1])
    assert not shuffled.significant and shuffled.direction == "same"


def test_paired_difference_refuses_unequal_rounds_and_skips_nan():
    with pytest.raises(ValueError):
        paired_difference([1.0, 2.0], [1.0])
    assert paired_difference([], []) is None
    d = paired_difference([1.0, math.nan, 3.0], [0.0, 1.0, 1.0])
    assert d.n == 2 and d.median == 1.5


def _d(values):
    return paired_difference(values, [0.0] * len(values))


def test_goal_verdicts():
    lower, higher = _d([-1.0 - 0.1 * i for i in range(8)]), _d([1.0 + 0.1 * i for i in range(8)])
    noise = _d([(-1) ** i * (1 + i) for i in range(8)])
    assert goal_verdict(lower, "less")[0] == "met" and goal_verdict(lower, "no_more")[0] == "met"
    assert goal_verdict(higher, "less")[0] == "NOT met" and goal_verdict(higher, "no_more")[0] == "NOT met"
    assert goal_verdict(noise, "less") == ("not shown", goal_verdict(noise, "less")[1])
    assert "not significant" in goal_verdict(noise, "less")[1]
    assert goal_verdict(noise, "no_more")[0] == "not shown"
    assert goal_verdict(_d([0.0] * 8), "no_more")[0] == "met"  # equal in every round: no dearer
    assert goal_verdict(_d([0.0] * 8), "less")[0] == "not shown"
    few = _d([-1.0] * (MIN_ROUNDS - 1))
    assert goal_verdict(few, "less")[0] == "not shown" and f"{MIN_ROUNDS - 1} paired rounds" in goal_verdict(
        few, "less")[1]
    assert goal_verdict(None, "less")[0] == "not shown"
    with pytest.raises(ValueError):
        goal_verdict(lower, "more")


def test_to_dict_says_the_verdict():
    d = _d([2.0] * 7).to_dict()
    assert d["significant"] is True and d["direction"] == "higher" and d["p_sign"] == pytest.approx(2 / 128)
