"""The statistics of paired measurement: round-robin order, ratios within a round, and a hierarchical bootstrap.

Host launch costs on the H200 move between about 3.5 and 5.6 µs from one process, or one fresh context, to the next,
and stay within a few percent inside one. So ways that can share a context are measured in the same context and
stream, interleaved (A B C, then B C A, ...), and each figure is a ratio to the reference way in the same round: the
context's mode divides out. Two levels of noise remain, rounds within a context and contexts, and the interval
resamples both (a hierarchical bootstrap): draw contexts with replacement, then rounds with replacement within each
drawn context, pool, take the median (``bench.stats.bootstrap.two_level_medians``, the package's one bootstrap
core); the 2.5% and 97.5% quantiles of those medians are the 95% interval. Seeded, so the same samples always give
the same interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...core.errors import InvalidArgumentError, positive_int
from .bootstrap import two_level_medians

__all__ = ["Interval", "round_order", "hierarchical_bootstrap", "relative_noise", "paired", "DEFAULT_RESAMPLES",
           "stop_reason"]

DEFAULT_RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    """A median with its interval (``lo``..``hi``, ``level`` 0.95 by default) over ``n`` values in ``groups``."""

    median: float
    lo: float
    hi: float
    n: int
    groups: int
    level: float = 0.95

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2.0

    @property
    def rel_half_width(self) -> float:
        """Half the interval's width over |median| (inf when the median is 0 and the interval is not)."""
        if self.median == 0:
            return 0.0 if self.half_width == 0 else math.inf
        return self.half_width / abs(self.median)

    def to_dict(self) -> dict:
        return {"median": self.median, "lo": self.lo, "hi": self.hi, "n": self.n, "groups": self.groups,
                "level": self.level}

    @classmethod
    def from_dict(cls, d) -> "Interval | None":
        if d is None:
            return None
        return cls(float(d["median"]), float(d["lo"]), float(d["hi"]), int(d["n"]), int(d.get("groups", 1)),
                   float(d.get("level", 0.95)))


def round_order(names: Sequence, round_index: int) -> list:
    """The order of round ``round_index``: ``names`` rotated left by the round number (A B C, B C A, C A B, ...),
    so every way takes every position, and the same number of times after a multiple of ``len(names)`` rounds."""
    names = list(names)
    if not names:
        return []
    k = round_index % len(names)
    return names[k:] + names[:k]


def _groups(groups) -> list[np.ndarray]:
    out = [np.asarray([float(v) for v in g if v is not None and math.isfinite(float(v))], dtype=float)
           for g in groups]
    return [g for g in out if g.size]


def hierarchical_bootstrap(groups: Sequence[Sequence[float]], *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                           level: float = 0.95) -> Interval | None:
    """Median of all values of ``groups`` (one group per context, its values per round) with a ``level`` interval
    from a two-level bootstrap: contexts drawn with replacement, then values within each drawn context. None when
    there are no values. One group resamples the values alone; one value gives a zero-width interval."""
    resamples = positive_int("resamples", resamples)
    gs = _groups(groups)
    if not gs:
        return None
    pooled = np.concatenate(gs)
    point = float(np.median(pooled))
    if pooled.size == 1:
        return Interval(point, point, point, 1, len(gs), level)
    c = len(gs)
    # contexts with replacement, then rounds with replacement within each drawn context (the one bootstrap core)
    medians = two_level_medians(gs, resamples, np.random.default_rng(seed))
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(medians, [tail, 1.0 - tail])
    return Interval(point, float(min(lo, point)), float(max(hi, point)), int(pooled.size), c, level)


def relative_noise(values: Sequence[float], *, seed: int = 0, resamples: int = 1000) -> float:
    """The noise left in one context's values: half the 95% bootstrap interval of their median over |median|;
    inf with fewer than two values."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if len(v) < 2:
        return math.inf
    iv = hierarchical_bootstrap([v], resamples=resamples, seed=seed)
    return iv.rel_half_width if iv is not None else math.inf


def paired(way: dict, reference: dict, op: str = "ratio") -> list[float]:
    """Per-round pairs of one context: ``way[r] / reference[r]`` (``op="ratio"``) or ``way[r] - reference[r]``
    (``"difference"``) for every round ``r`` present (and finite, reference non-zero) in both dicts."""
    out = []
    for r in sorted(way):
        a, b = way.get(r), reference.get(r)
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            continue
        if op == "ratio":
            if b != 0:
                out.append(a / b)
        elif op == "difference":
            out.append(a - b)
        else:
            raise InvalidArgumentError(f"op must be 'ratio' or 'difference', got {op!r}")
    return out


def stop_reason(noises: dict[str, float], target: float, rounds_done: int, min_rounds: int, max_rounds: int,
                elapsed_s: float, time_cap_s: float) -> str | None:
    """Why a context's rounds end now, or None to go on: "spread" (every way's noise within ``target``, at least
    ``min_rounds`` done), "max_samples" (``max_rounds`` done), "time_cap" (``time_cap_s`` passed, at least
    ``min_rounds`` done). Checked in that order."""
    if rounds_done < min_rounds:
        return None
    if noises and all(n <= target for n in noises.values()):
        return "spread"
    if rounds_done >= max_rounds:
        return "max_samples"
    if elapsed_s >= time_cap_s:
        return "time_cap"
    return None
