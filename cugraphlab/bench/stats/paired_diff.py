"""Is A cheaper than B? The median of per-round differences, with a bootstrap interval and an exact sign test.

Two ways measured in the same rounds (interleaved in one process: A B, then B A, ...) give one pair per round. The
difference ``a[r] - b[r]`` of a round cancels what the round shares (clock state, what ran before, the process's
launch mode), so the question "is A cheaper than B?" becomes "are these differences below zero?", answered twice:

1. the median of the differences with a 95% percentile-bootstrap interval (``paired_stats.hierarchical_bootstrap``
   over one group: the rounds, drawn with replacement; seeded, so the same samples give the same interval);
2. the exact two-sided sign test: of the non-zero differences, how many are above zero, and how likely a split at
   least that uneven is when each side is equally likely (binomial, p = 1/2). It assumes no shape, and says how
   many rounds a verdict needs: 6 rounds all one way give p = 0.031, 5 cannot go below 0.0625.

A difference is *shown* (``significant``) only when both agree: the interval excludes 0 and p < ``alpha``.
``verdict(...)`` turns that into the words of a goal ("A no more than B", "A less than B").
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ...core.errors import InvalidArgumentError
from .paired_stats import hierarchical_bootstrap

__all__ = ["PairedDifference", "sign_test", "paired_difference", "claim_verdict", "goal_verdict", "ALPHA", "MIN_ROUNDS"]

ALPHA = 0.05
MIN_ROUNDS = 6  # the fewest pairs whose sign test can reach p < 0.05 (two-sided): 2 / 2**6 = 0.031


def sign_test(diffs: Sequence[float]) -> tuple[int, int, float]:
    """(above, below, p): the non-zero differences above and below zero, and the exact two-sided sign-test p
    value (1.0 when every difference is zero). Zeros are dropped, as the test's usual form does."""
    vals = [float(d) for d in diffs if d is not None and math.isfinite(float(d))]
    above = sum(1 for d in vals if d > 0)
    below = sum(1 for d in vals if d < 0)
    n = above + below
    if n == 0:
        return above, below, 1.0
    k = min(above, below)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return above, below, min(1.0, 2.0 * tail)


@dataclass(frozen=True)
class PairedDifference:
    """The median of per-round differences A - B with its ``level`` interval, and the sign test."""

    median: float
    lo: float
    hi: float
    n: int  # pairs
    above: int  # pairs with A > B
    below: int  # pairs with A < B
    p_sign: float
    alpha: float = ALPHA
    level: float = 0.95

    @property
    def significant(self) -> bool:
        """Whether a difference is shown: the interval excludes 0 and the sign test agrees (p < alpha)."""
        return (self.lo > 0 or self.hi < 0) and self.p_sign < self.alpha

    @property
    def direction(self) -> str:
        """"lower" (A < B shown), "higher" (A > B shown) or "same" (no difference shown)."""
        if not self.significant:
            return "same"
        return "lower" if self.hi < 0 else "higher"

    def describe(self, unit: str = "us", digits: int = 2) -> str:
        f = f"{{:+.{digits}f}}"
        return (f"{f.format(self.median)} {unit} [{f.format(self.lo)}, {f.format(self.hi)}], "
                f"{self.above} of {self.n} rounds above 0, sign test p = {self.p_sign:.2g}")

    def to_dict(self) -> dict:
        return {"median": self.median, "lo": self.lo, "hi": self.hi, "n": self.n, "above": self.above,
                "below": self.below, "p_sign": self.p_sign, "alpha": self.alpha, "level": self.level,
                "significant": self.significant, "direction": self.direction}


def paired_difference(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0,
                      alpha: float = ALPHA) -> PairedDifference | None:
    """The per-round differences ``a[r] - b[r]`` (rounds where both are finite) summarized; None without pairs.
    ``a`` and ``b`` must be the same rounds in the same order (InvalidArgumentError when their lengths differ)."""
    if len(a) != len(b):
        raise InvalidArgumentError(f"paired samples need the same rounds: {len(a)} against {len(b)}")
    diffs = [float(x) - float(y) for x, y in zip(a, b)
             if x is not None and y is not None and math.isfinite(float(x)) and math.isfinite(float(y))]
    if not diffs:
        return None
    iv = hierarchical_bootstrap([diffs], resamples=resamples, seed=seed)
    above, below, p = sign_test(diffs)
    return PairedDifference(iv.median, iv.lo, iv.hi, len(diffs), above, below, p, alpha, iv.level)


def claim_verdict(diff: PairedDifference | None, claim: str) -> tuple[str, str]:
    """(word, reason) for a claim on A - B, ``claim`` "less" (A < B) or "no_more" (A <= B): "shown" only when the data
    show it, "opposite shown" when they show the other way, else "not shown" with the reason (``goal_verdict``'s
    rule in a record's words: a record says what its data show; a goal is its reader's)."""
    word, why = goal_verdict(diff, claim)
    return {"met": "shown", "NOT met": "opposite shown"}.get(word, word), why


def goal_verdict(diff: PairedDifference | None, goal: str) -> tuple[str, str]:
    """(word, reason) for a goal on A - B: ``goal`` "less" (A < B wanted) or "no_more" (A <= B wanted).

    "met" only when the data show it: "less" needs A < B shown; "no_more" needs the whole interval at or below 0.
    "NOT met" when the opposite is shown (A > B, or for "less" A >= B with the interval at or above 0 and shown).
    Otherwise "not shown", with the reason (too few rounds, or an interval that holds 0).
    """
    if goal not in ("less", "no_more"):
        raise InvalidArgumentError(f"goal must be 'less' or 'no_more', got {goal!r}")
    if diff is None:
        return "not shown", "no paired rounds"
    if diff.n < MIN_ROUNDS:
        return "not shown", f"{diff.n} paired rounds (a sign test needs at least {MIN_ROUNDS})"
    if diff.direction == "higher":
        return "NOT met", "A > B shown (interval above 0, sign test agrees)"
    if goal == "less":
        if diff.direction == "lower":
            return "met", "A < B shown (interval below 0, sign test agrees)"
        return "not shown", "the difference is not significant (the interval holds 0 or the sign test disagrees)"
    if diff.hi <= 0:
        return "met", ("A < B shown" if diff.direction == "lower" else "the interval lies at or below 0")
    return "not shown", "the interval reaches above 0 without a difference shown"
