"""How sure a change is: the ratio of two sample sets' medians with an interval, a rank test, and a verdict.

Two records of the same command keep raw samples per row (``Record.samples``). For one row, with samples ``a``
(record A) and ``b`` (record B), this module answers "did B get slower, faster, or stay the same?" in three steps
(``compare_samples`` runs all three, and ``split_modes``, for one row):

1. ``ratio_of_medians(a, b)``: the point estimate ``median(b) / median(a)`` and a 95% percentile-bootstrap interval
   for it. Each side is resampled with replacement on its own (the records are independent runs), ``resamples``
   times, all at once with numpy (``bench.stats.bootstrap``, the package's one bootstrap core); the interval is
   the 2.5% and 97.5% quantiles of the resampled ratios. Seeded, so the same files give the same interval every
   time.
2. ``mann_whitney(a, b)``: the Mann-Whitney U test (two-sided), by the normal approximation with the tie correction
   and a continuity correction of 1/2: does a value of B tend to be larger than a value of A? It needs no shape
   assumption, which suits heavy-tailed launch timings.
3. ``verdict(...)``: one of ``SAME``, ``FASTER``, ``SLOWER``, ``AMBIGUOUS`` against a threshold ``t`` (a fraction,
   e.g. 0.05). The band of "no change that matters" is ``[1/(1+t), 1+t]``, symmetric on a log scale, so a row that
   got 5% slower and one that got 5% faster are judged alike. For a time-like unit (B/A > 1: B takes longer):

   * ``SAME``: the whole interval lies inside the band (any change is smaller than the threshold);
   * ``SLOWER``: the whole interval lies above 1 (a change is shown), the point estimate lies beyond ``1+t`` (the
     best estimate of its size exceeds the threshold), and the rank test agrees (``p < alpha``); where a side's
     samples fall in two modes (``split_modes``), the whole interval must lie beyond ``1+t`` (see below);
   * ``FASTER``: the mirror image: the whole interval below 1, the point estimate below ``1/(1+t)``, ``p < alpha``;
   * ``AMBIGUOUS``: anything else, with the reason said: too few samples for an interval (fewer than
     ``MIN_SAMPLES`` on a side); an interval that holds 1 yet reaches outside the band (too wide to tell: spread,
     or samples from two modes); a change shown whose size straddles the threshold; the interval and the rank test
     disagreeing; or a unit that does not say whether bigger is faster.

   For a rate-like unit (GB/s, launches/s, M/s: ``unit_direction(unit) == "rate"``) bigger is faster, so the same
   test runs on the same ratio and FASTER and SLOWER swap.

Why the interval decides and not the p-value alone: launch-cost samples are often *bimodal* (two clusters, e.g. about
3.6 µs and about 5.2 µs, by which core or context a run landed on). Two runs that sample the two clusters in
different proportions have medians that fall in different clusters, so the point ratio alone may say "40% slower".
The bootstrap sees that the median itself jumps between the clusters, which makes the interval wide: it holds 1, and
the verdict is AMBIGUOUS, not SLOWER. Where the lower cluster is rare on one side the interval may just clear 1
(say [1.001, 1.40]); so where ``split_modes`` finds two clusters on a side, FASTER and SLOWER need the whole
interval beyond the threshold, else AMBIGUOUS, and the reason names the clusters. A shift of every sample (both
modes moved) by more than the threshold keeps the interval clear of the band and is still found.

Where a record says which process or context each sample came from (a ``groups`` list beside the values, as
``compare`` writes), that group, not the sample, is what repeats: the interval resamples groups, then values within
them, and the rank test compares the groups' medians. Two processes of a thousand samples each that both landed in
the slow mode are then two observations of "slow", not two thousand, and a second run whose two processes landed in
the fast mode is AMBIGUOUS (with fewer than ``MIN_GROUPS`` groups a side, the test cannot reach ``alpha``), not FASTER.

Nothing here touches a GPU; samples are plain floats.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple

import numpy as np

from ...core.errors import InvalidArgumentError, positive_int
from . import bootstrap

__all__ = [
    "VERDICTS", "SAME", "FASTER", "SLOWER", "AMBIGUOUS", "MIN_SAMPLES", "RESAMPLES", "CONFIDENCE", "ALPHA",
    "RatioInterval", "MannWhitney", "Verdict", "Modes", "Comparison",
    "ratio_of_medians", "mann_whitney", "verdict", "split_modes", "unit_direction", "to_unit", "compare_samples",
    "band", "group_medians", "MIN_GROUPS",
]

SAME, FASTER, SLOWER, AMBIGUOUS = "SAME", "FASTER", "SLOWER", "AMBIGUOUS"
VERDICTS = (SAME, FASTER, SLOWER, AMBIGUOUS)

#: Fewer samples than this on a side and no interval is drawn (the order-statistic ~95% interval of a median needs
#: 6, see ``bench.stats.summary.median_ci_halfwidth``; the bootstrap is no better off below that).
MIN_SAMPLES = 6
#: Bootstrap resamples per side (the quantiles at 2.5% and 97.5% move by well under 0.1% beyond this).
RESAMPLES = 2000
CONFIDENCE = 0.95
#: The rank test's level: FASTER and SLOWER also need p below it.
ALPHA = 0.05

_TIME_UNITS_IN_US = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "μs": 1.0, "ms": 1e3, "s": 1e6}
#: "time ratio": a time over a reference time measured beside it (paired), where bigger is slower too.
_TIME_LIKE = set(_TIME_UNITS_IN_US) | {"cycles", "clocks", "time ratio"}
_RATE_WORDS = {"hz", "khz", "mhz", "ghz", "flops", "gflops", "tflops"}


def unit_direction(unit: str | None) -> str | None:
    """``"time"`` when a bigger value is slower (ns, us, ms, s, cycles), ``"rate"`` when a bigger value is faster
    (anything per second: GB/s, launches/s, M/s; Hz; FLOPS), None when the unit says neither (x, %, bytes)."""
    if not unit:
        return None
    u = unit.strip().lower()
    if u in _TIME_LIKE or unit.strip() in _TIME_LIKE:
        return "time"
    if u.endswith("/s") or u.endswith(" per s") or u.endswith("/sec") or u in _RATE_WORDS:
        return "rate"
    return None


def to_unit(values: np.ndarray, unit: str, target: str) -> np.ndarray | None:
    """``values`` in ``unit`` converted to ``target`` when both are time units (ns, us, ms, s); None otherwise."""
    if unit == target:
        return values
    f, g = _TIME_UNITS_IN_US.get(unit), _TIME_UNITS_IN_US.get(target)
    if f is None or g is None:
        return None
    return values * (f / g)


def _clean(values: Iterable[float]) -> np.ndarray:
    arr = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=float).ravel()
    return arr[np.isfinite(arr)]


def band(threshold: float) -> tuple[float, float]:
    """The ratios that count as "no change that matters" for ``threshold`` t: ``(1/(1+t), 1+t)``."""
    return 1.0 / (1.0 + threshold), 1.0 + threshold


# ----------------------------------------------------------------------------------------------- ratio of medians

@dataclass(frozen=True)
class RatioInterval:
    """``ratio`` = median(b) / median(a) and its bootstrap interval ``[low, high]`` at ``confidence``.

    ``low``/``high`` are NaN when a side has fewer than 2 samples or a resampled median of A is 0 (no ratio).
    """

    ratio: float
    low: float
    high: float
    median_a: float
    median_b: float
    n_a: int
    n_b: int
    confidence: float = CONFIDENCE
    resamples: int = RESAMPLES

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)


def _split_groups(x: np.ndarray, groups) -> list[np.ndarray]:
    """The values of each group (one label per value), groups in first-seen order, empty ones left out."""
    labels = groups if isinstance(groups, np.ndarray) else np.asarray(groups) if groups else np.empty(0)
    if labels.ndim == 1 and labels.dtype.kind in "iuU":  # process numbers, names: numpy finds them
        _keys, first, codes = np.unique(labels, return_index=True, return_inverse=True)
        parts = [x[codes == k] for k in np.argsort(first, kind="stable")]
    else:
        index: dict = {}
        codes = np.fromiter((index.setdefault(g, len(index)) for g in groups), dtype=np.int64, count=len(groups))
        parts = [x[codes == k] for k in range(len(index))]
    return [p for p in parts if p.size]


def _bootstrap_medians(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    return bootstrap.plain_medians(x, resamples, rng)


def _grouped_bootstrap_medians(x: np.ndarray, groups, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Medians of ``resamples`` two-level resamples: the groups (processes, contexts) drawn with replacement, then
    each drawn group's values with replacement (``bootstrap.two_level_medians``). Values of one group are not
    independent draws (they share the process's launch-cost mode), so a plain bootstrap would claim a confidence
    the data do not have."""
    return bootstrap.two_level_medians(_split_groups(x, groups), resamples, rng)


def ratio_of_medians(a: Iterable[float], b: Iterable[float], *, resamples: int = RESAMPLES,
                     confidence: float = CONFIDENCE, seed: int | np.random.Generator | None = 0,
                     groups_a=None, groups_b=None, draws=None) -> RatioInterval:
    """The ratio of medians B/A with a percentile-bootstrap interval.

    Parameters: ``a``, ``b`` the two sample sets (non-finite values dropped); ``resamples`` bootstrap draws per
    side; ``confidence`` the interval's level (0.95: the 2.5% and 97.5% quantiles); ``seed`` an int (or a numpy
    Generator) so that the interval repeats; ``groups_a``/``groups_b`` (one label per value, e.g. the process or
    context it came from): a side with two groups or more is resampled in two levels, groups then values;
    ``draws``: a function ``(side, counts) -> bootstrap.TwoLevelDraws or None`` giving the draws of a two-level
    side ("a" or "b") whose groups hold ``counts`` values, made once for all rows of a record (``diff``), in
    place of draws from ``seed``.
    Returns a RatioInterval (NaN where a side is empty or a median of A is 0).
    """
    if not 0 < confidence < 1:
        raise InvalidArgumentError(f"confidence must lie in (0, 1), got {confidence!r}")
    resamples = positive_int("resamples", resamples, minimum=10)
    xa, xb = _clean(a), _clean(b)
    na, nb = int(xa.size), int(xb.size)
    med_a = float(np.median(xa)) if na else math.nan
    med_b = float(np.median(xb)) if nb else math.nan
    ratio = med_b / med_a if na and nb and med_a != 0 else math.nan
    low = high = math.nan
    if na >= 2 and nb >= 2:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

        def medians(x, groups, side):
            if groups is not None and len(groups) == x.size and len(set(groups)) >= 2:
                if draws is not None:
                    parts = _split_groups(x, groups)
                    shared = draws(side, tuple(p.size for p in parts))
                    if shared is not None and shared.drawn.shape[0] == int(resamples):
                        return bootstrap.two_level_medians(parts, int(resamples), draws=shared)
                return _grouped_bootstrap_medians(x, groups, int(resamples), rng)
            return _bootstrap_medians(x, int(resamples), rng)

        ma = medians(xa, groups_a, "a")
        mb = medians(xb, groups_b, "b")
        if np.all(ma != 0):
            r = mb / ma
            q = (1.0 - confidence) / 2.0
            low, high = (float(v) for v in np.quantile(r, [q, 1.0 - q]))
    return RatioInterval(ratio=ratio, low=low, high=high, median_a=med_a, median_b=med_b, n_a=na, n_b=nb,
                         confidence=confidence, resamples=int(resamples))


# ------------------------------------------------------------------------------------------------- Mann-Whitney U

@dataclass(frozen=True)
class MannWhitney:
    """The Mann-Whitney U test of ``a`` against ``b`` (two-sided, normal approximation).

    ``u_a`` counts the pairs (x from a, y from b) with x > y (ties count 1/2), ``u_b = n_a*n_b - u_a``; ``z`` is
    positive when B tends to be larger; ``p_value`` the two-sided p (1.0 when every value is equal or a side is
    empty).
    """

    u_a: float
    u_b: float
    z: float
    p_value: float


def _average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n of ``x`` with ties given the average of their ranks, and the size of each tie group."""
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    first = np.cumsum(counts) - counts  # ranks below each group (0-based start)
    avg = first + (counts + 1) / 2.0
    return avg[inverse.ravel()], counts


def mann_whitney(a: Iterable[float], b: Iterable[float]) -> MannWhitney:
    """Mann-Whitney U of two independent samples, two-sided, by the normal approximation.

    U_a = R_a - n_a(n_a+1)/2 (R_a: the sum of A's ranks in the pooled sample, ties averaged). Under "same
    distribution" U has mean n_a n_b / 2 and variance n_a n_b / 12 * ((n+1) - sum(t^3 - t) / (n(n-1))), the sum over
    groups of t tied values (n = n_a + n_b). z = (|U - mean| - 1/2) / sd (continuity correction, floored at 0), and
    p = erfc(|z| / sqrt 2). Returns a MannWhitney.
    """
    xa, xb = _clean(a), _clean(b)
    na, nb = xa.size, xb.size
    if na == 0 or nb == 0:
        return MannWhitney(math.nan, math.nan, 0.0, 1.0)
    n = na + nb
    ranks, ties = _average_ranks(np.concatenate([xa, xb]))
    u_a = float(ranks[:na].sum() - na * (na + 1) / 2.0)
    u_b = float(na * nb - u_a)
    mean = na * nb / 2.0
    tie_term = float(np.sum(ties.astype(float) ** 3 - ties)) / (n * (n - 1)) if n > 1 else 0.0
    var = na * nb / 12.0 * ((n + 1) - tie_term)
    if var <= 0:
        return MannWhitney(u_a, u_b, 0.0, 1.0)
    dist = max(abs(u_b - mean) - 0.5, 0.0)
    z = math.copysign(dist / math.sqrt(var), u_b - mean) if dist else 0.0
    p = min(1.0, math.erfc(abs(z) / math.sqrt(2.0)))
    return MannWhitney(u_a, u_b, z, p)


# ---------------------------------------------------------------------------------------------------------- modes

class Modes(NamedTuple):
    """Two clusters found in one sample set: their medians and sizes."""

    low: float
    high: float
    n_low: int
    n_high: int

    def text(self) -> str:
        return f"{self.n_low} near {self.low:.4g}, {self.n_high} near {self.high:.4g}"


def split_modes(values: Iterable[float], *, min_gap: float = 0.08, min_share: float = 0.1) -> Modes | None:
    """Two clusters in ``values``, or None.

    A split is the widest gap between neighbouring sorted values that leaves at least ``min_share`` of the samples
    (and at least 3) on each side; it counts when the gap exceeds ``min_gap`` times the median. A lone outlier (an
    interrupt) never makes a mode; a unimodal set with a few per cent of noise has no such gap.
    """
    x = np.sort(_clean(values))
    n = x.size
    k = max(3, math.ceil(min_share * n))
    if n < 2 * k:
        return None
    med = float(np.median(x))
    if med == 0:
        return None
    gaps = np.diff(x)[k - 1:n - k]  # gap i sits between x[i] and x[i+1]; both sides keep >= k values
    i = int(np.argmax(gaps)) + k - 1
    if x[i + 1] - x[i] <= min_gap * abs(med):
        return None
    return Modes(float(np.median(x[:i + 1])), float(np.median(x[i + 1:])), i + 1, n - i - 1)


# -------------------------------------------------------------------------------------------------------- verdict

class Verdict(NamedTuple):
    """A verdict (one of VERDICTS) and the sentence that says why."""

    verdict: str
    reason: str


def _r(x: float) -> str:
    """A ratio in bounded width: 3 decimals, in scientific notation from 10,000 up (a 1e300 sample's ratio)."""
    return f"{x:.3f}" if not abs(x) >= 1e4 else f"{x:.3e}"


def verdict(interval: RatioInterval, p_value: float, *, threshold: float, direction: str | None = "time",
            alpha: float = ALPHA, min_samples: int = MIN_SAMPLES, bimodal: bool = False) -> Verdict:
    """SAME, FASTER, SLOWER or AMBIGUOUS for B against A (see the module docstring for the rules).

    Parameters: ``interval`` from ``ratio_of_medians`` (B/A); ``p_value`` from ``mann_whitney``; ``threshold`` t, a
    fraction > 0 (0.05: 5%); ``direction`` ``"time"`` (bigger is slower), ``"rate"`` (bigger is faster) or None
    (unknown: a change is reported AMBIGUOUS); ``alpha`` the rank test's level; ``min_samples`` per side;
    ``bimodal`` whether a side splits into two clusters (``split_modes``): then FASTER and SLOWER need the whole
    interval beyond the threshold, since a median may be set by how often each mode was sampled.
    Returns a Verdict (verdict, reason).
    """
    if not (isinstance(threshold, (int, float)) and math.isfinite(threshold) and threshold > 0):
        raise InvalidArgumentError(f"threshold must be a number > 0, got {threshold!r}")
    lo_edge, hi_edge = band(threshold)
    pct = f"{threshold * 100:g}%"
    if interval.n_a < min_samples or interval.n_b < min_samples:
        return Verdict(AMBIGUOUS, f"too few samples: A has {interval.n_a}, B has {interval.n_b} "
                                  f"(an interval needs >= {min_samples} on each side)")
    if not (interval.has_interval and math.isfinite(interval.ratio)):
        return Verdict(AMBIGUOUS, "no ratio or no interval: a median of A (or of a resample of A) is 0")
    r, lo, hi = interval.ratio, interval.low, interval.high
    span = f"B/A {_r(r)}, interval [{_r(lo)}, {_r(hi)}]"
    if lo_edge <= lo and hi <= hi_edge:
        return Verdict(SAME, f"{span} inside the ±{pct} band [{_r(lo_edge)}, {_r(hi_edge)}]")
    if lo > 1 and r > hi_edge:
        bigger = True
    elif hi < 1 and r < lo_edge:
        bigger = False
    elif lo <= 1 <= hi:
        return Verdict(AMBIGUOUS, f"{span} holds 1 but reaches outside the ±{pct} band: too wide to tell "
                                  "(spread, or samples from two modes)")
    else:
        return Verdict(AMBIGUOUS, f"{span} excludes 1 but the change's size straddles the ±{pct} threshold")
    if bimodal and not (lo > hi_edge if bigger else hi < lo_edge):
        return Verdict(AMBIGUOUS, f"{span} reaches inside the ±{pct} band and the samples fall in two modes: the "
                                  "medians may follow how often each mode was sampled")
    if not p_value < alpha:
        return Verdict(AMBIGUOUS, f"{span} excludes 1 but the rank test does not (p = {p_value:.3g} >= {alpha:g})")
    if direction is None:
        return Verdict(AMBIGUOUS, f"{span}: changed, but the unit does not say whether bigger is faster")
    faster = bigger if direction == "rate" else not bigger
    what = "bigger" if bigger else "smaller"
    return Verdict(FASTER if faster else SLOWER, f"{span}: B is {what} (p = {p_value:.3g})")


# ----------------------------------------------------------------------------------------------------- one row

@dataclass(frozen=True)
class Comparison:
    """Everything ``compare_samples`` found for one row."""

    interval: RatioInterval
    test: MannWhitney
    verdict: str
    reason: str
    direction: str | None
    modes_a: Modes | None
    modes_b: Modes | None

    @property
    def slowdown(self) -> float:
        """How many times longer B takes than A: B/A for a time unit, A/B for a rate (NaN: unknown)."""
        r = self.interval.ratio
        if self.direction == "rate":
            return 1.0 / r if r else math.nan
        return r if self.direction == "time" else math.nan


#: Groups (processes, contexts) per side below which the rank test over group medians cannot reach p < ALPHA
#: (Mann-Whitney with 3 against 3 reaches at best p = 0.08; 4 against 4, 0.03).
MIN_GROUPS = 4


def _grouped(groups) -> bool:
    return groups is not None and len(set(groups)) >= 2


def group_medians(x: np.ndarray, groups) -> np.ndarray:
    """The median of each group's values (groups in first-seen order); ``x`` itself where no groups are given."""
    if groups is None or len(groups) != len(x):
        return np.asarray(x, dtype=float)
    return np.array([float(np.median(part)) for part in _split_groups(np.asarray(x, dtype=float), groups)])


def _floats(values) -> np.ndarray:
    """``values`` as a float array, None as NaN (``_clean`` then drops the non-finite ones)."""
    if isinstance(values, np.ndarray):
        return values.astype(float, copy=False).ravel()
    return np.array([math.nan if v is None else v for v in values], dtype=float)


def _kept_groups(values: np.ndarray, groups):
    """The group labels of the values ``_clean`` keeps (the finite ones), or None."""
    if groups is None or len(groups) != len(values):
        return None
    keep = np.isfinite(values)
    if keep.all():
        return groups
    return [g for g, k in zip(groups, keep.tolist()) if k]


def compare_samples(a: Iterable[float], b: Iterable[float], *, unit: str = "us", threshold: float = 0.05,
                    seed: int | np.random.Generator | None = 0, resamples: int = RESAMPLES,
                    confidence: float = CONFIDENCE, alpha: float = ALPHA,
                    min_samples: int = MIN_SAMPLES, groups_a=None, groups_b=None, draws=None) -> Comparison:
    """Ratio and interval, rank test, modes and verdict of one row's samples (both in ``unit``). With
    ``groups_a``/``groups_b`` (the process or context of each value, on both sides) the interval is a two-level
    bootstrap and the rank test runs on the groups' medians (the group is the unit that repeats); ``draws`` as
    ``ratio_of_medians`` takes it."""
    a, b = _floats(a), _floats(b)
    ga = _kept_groups(a, groups_a)
    gb = _kept_groups(b, groups_b)
    xa, xb = _clean(a), _clean(b)
    interval = ratio_of_medians(xa, xb, resamples=resamples, confidence=confidence, seed=seed, groups_a=ga,
                                groups_b=gb, draws=draws)
    grouped = _grouped(ga) and _grouped(gb)
    # Samples of one process or context are not independent of each other (launch cost has per-context modes:
    # docs/studies/launch-cost-modes.md): where both sides say which group each value came from, the rank test is
    # run on the groups' medians, so that two processes of 1,000 samples count as two observations, not 2,000.
    test = mann_whitney(group_medians(xa, ga), group_medians(xb, gb)) if grouped else mann_whitney(xa, xb)
    direction = unit_direction(unit)
    modes_a, modes_b = split_modes(xa), split_modes(xb)
    v = verdict(interval, test.p_value, threshold=threshold, direction=direction, alpha=alpha,
                min_samples=min_samples, bimodal=bool(modes_a or modes_b))
    reason = v.reason
    if grouped and v.verdict == AMBIGUOUS and not test.p_value < alpha:
        na, nb = len(set(ga)), len(set(gb))
        reason += (f"; the rank test compares the {na} and {nb} processes/contexts' medians"
                   + (f" (with fewer than {MIN_GROUPS} on a side it cannot reach p < {alpha:g}: run more rounds)"
                      if min(na, nb) < MIN_GROUPS else ""))
    if v.verdict == AMBIGUOUS and (modes_a or modes_b):
        parts = [f"{side} looks bimodal ({m.text()})" for side, m in (("A", modes_a), ("B", modes_b)) if m]
        reason += "; " + "; ".join(parts)
    return Comparison(interval, test, v.verdict, reason, direction, modes_a, modes_b)
