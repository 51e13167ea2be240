"""Cost against graph size: a straight-line fit with a bootstrap interval, and the verdict on "constant-time launch".

Every cost of ``cugraphlab scaling`` is fitted as ``cost = a + b * nodes``: ``b`` is the cost per node, ``a`` what a
graph costs whatever its size. The sweep doubles the node count (1, 2, 4 ... 4096), which a log-log plot shows
evenly; plain least squares would let the largest graphs decide everything (their residuals are thousands of times
larger), so the fit is weighted by relative error, ``sum(((y - a - b*x) / y)^2)``: each size counts alike, as it does
on the log-log plot. Beside it, the log-log slope ``p`` of ``cost ~ nodes^p`` (0: flat, 1: proportional).

Intervals come from a bootstrap: each replicate redraws the points (pairs, with replacement) and, where a point
keeps its raw samples, redraws its median too (``_bootstrap_medians``), then fits again; the interval is the central
``confidence`` share of the replicates' slopes and intercepts.

``flatness`` says how far a cost is from flat: the cost at every node count from ``lo`` to ``hi`` stays within
``tolerance`` (±5%) of the cost at the smallest of them; if not, the fitted slope per node (with its interval) says
how far it is from flat. It describes; it does not judge NVIDIA's "constant time launch" of CUDA 12.6, which is a
model with a slope (about 2.5 µs + 1 ns per node): ``bench.scaling.model`` reads a launch series against it.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ...core.errors import InvalidArgumentError
from . import bootstrap

__all__ = ["LinearFit", "Flatness", "fit_linear", "flatness", "FLAT_TOLERANCE", "FLAT_RANGE"]

FLAT_TOLERANCE = 0.05
FLAT_RANGE = (4, 4096)


@dataclass(frozen=True)
class LinearFit:
    """``cost = intercept + slope * nodes`` (units of the cost, and per node), their bootstrap intervals, the
    log-log exponent, and what the fit saw."""

    intercept: float
    slope: float
    intercept_ci: tuple[float, float]
    slope_ci: tuple[float, float]
    exponent: float  # p of cost ~ nodes^p, least squares on log-log
    exponent_ci: tuple[float, float]
    points: int
    nodes_range: tuple[int, int]
    confidence: float
    replicates: int

    def predict(self, nodes) -> np.ndarray:
        return self.intercept + self.slope * np.asarray(nodes, dtype=float)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float) and not math.isfinite(v):
                d[k] = None
            elif isinstance(v, tuple):
                d[k] = [None if isinstance(x, float) and not math.isfinite(x) else x for x in v]
        return d


@dataclass(frozen=True)
class Flatness:
    """The verdict on constant cost from ``lo`` to ``hi`` nodes."""

    flat: bool | None  # None: fewer than two points in the range
    lo: int
    hi: int
    tolerance: float
    reference: float | None  # the cost at the smallest node count in range
    max_deviation: float | None  # the largest |cost / reference - 1|, signed
    at_nodes: int | None  # where it is
    deviations: dict  # nodes -> cost / reference - 1
    slope: float | None
    slope_ci: tuple[float, float] | None
    rise_over_range: float | None  # slope * (hi - lo) / cost at lo: the fit's relative rise over the range
    text: str

    def to_dict(self) -> dict:
        d = asdict(self)
        d["deviations"] = {str(k): v for k, v in self.deviations.items()}
        return d


def _as_points(nodes, values) -> tuple[np.ndarray, list[np.ndarray]]:
    x = np.asarray(nodes, dtype=float).ravel()
    if len(values) != x.size:
        raise InvalidArgumentError(f"{x.size} node counts but {len(values)} costs")
    ys = []
    for v in values:
        arr = np.atleast_1d(np.asarray(v, dtype=float)).ravel()
        arr = arr[np.isfinite(arr)]
        ys.append(arr)
    keep = [i for i, a in enumerate(ys) if a.size and x[i] > 0]
    return x[keep], [ys[i] for i in keep]


def _line_fits(x: np.ndarray, y: np.ndarray, weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row by row over (replicates, points) arrays: intercept, slope of y = a + b x (weighted by 1/y^2, else plain),
    and the log-log slope. Rows with fewer than two distinct x give NaN."""
    x, y = np.atleast_2d(x).astype(float), np.atleast_2d(y).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 1.0 / (y * y) if weighted else np.ones_like(y)
        sw, sx, sy = w.sum(1), (w * x).sum(1), (w * y).sum(1)
        sxx, sxy = (w * x * x).sum(1), (w * x * y).sum(1)
        det = sw * sxx - sx * sx
        spread = x.max(1) > x.min(1)
        b = np.where(spread, (sw * sxy - sx * sy) / det, np.nan)
        a = np.where(spread, (sy - b * sx) / sw, np.nan)
        lx, ly = np.log(x), np.log(np.where(y > 0, y, np.nan))
        good = np.isfinite(ly)
        n = good.sum(1)
        mx = np.where(good, lx, 0).sum(1) / n
        my = np.where(good, ly, 0).sum(1) / n
        dx = np.where(good, lx - mx[:, None], 0)
        dy = np.where(good, ly - my[:, None], 0)
        p = np.where(spread & (n >= 2), (dx * dy).sum(1) / (dx * dx).sum(1), np.nan)
    return a, b, p


def _bootstrap_medians(a: np.ndarray, reps: int, rng) -> np.ndarray:
    """``reps`` bootstrap medians of the samples ``a`` (``bootstrap.plain_medians``, the package's one bootstrap
    core); one sample is its own median every time (nothing drawn)."""
    if a.size == 1:
        return np.full(reps, float(a[0]))
    return bootstrap.plain_medians(a, reps, rng)


def fit_linear(nodes, values, *, replicates: int = 1000, confidence: float = 0.95,
               seed: int | None = 0) -> LinearFit:
    """Fit ``cost = a + b * nodes`` over points given as node counts and, per point, a cost or its raw samples.

    ``values[i]`` is one number or a sequence of samples (their median is the point's cost). Returns a LinearFit;
    with fewer than two distinct node counts every figure is NaN. ``seed`` makes the bootstrap repeatable. Where a
    cost is 0 somewhere (memory that did not move), the fit is unweighted.
    """
    if not 0 < confidence < 1:
        raise InvalidArgumentError(f"confidence must be in (0, 1), got {confidence!r}")
    x, ys = _as_points(nodes, values)
    nan2 = (float("nan"), float("nan"))
    rng_nodes = (int(x.min()), int(x.max())) if x.size else (0, 0)
    if x.size < 2 or np.unique(x).size < 2:
        return LinearFit(float("nan"), float("nan"), nan2, nan2, float("nan"), nan2, int(x.size), rng_nodes,
                         confidence, 0)
    y = np.array([np.median(a) for a in ys])
    weighted = bool(np.all(y != 0) and all(np.all(a != 0) for a in ys))
    a0, b0, p0 = (float(v[0]) for v in _line_fits(x, y, weighted))
    n, reps = x.size, max(int(replicates), 0)
    a_ci = b_ci = p_ci = nan2
    kept = 0
    if reps:
        rng = np.random.default_rng(seed)
        # each point's bootstrap medians (one per replicate), then pairs redrawn with a random one of them
        med = np.empty((n, reps))
        for i, a in enumerate(ys):
            med[i] = _bootstrap_medians(a, reps, rng)
        idx = rng.integers(0, n, (reps, n))
        col = rng.integers(0, reps, (reps, n))
        ab, bb, pb = _line_fits(x[idx], med[idx, col], weighted)
        ok = np.isfinite(bb)
        kept = int(ok.sum())
        q = [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100]

        def ci(v):
            v = v[ok & np.isfinite(v)]
            return tuple(float(t) for t in np.percentile(v, q)) if v.size else nan2

        a_ci, b_ci, p_ci = ci(ab), ci(bb), ci(pb)
    return LinearFit(a0, b0, a_ci, b_ci, p0, p_ci, n, rng_nodes, confidence, kept)


def flatness(nodes, values, *, lo: int = FLAT_RANGE[0], hi: int = FLAT_RANGE[1],
             tolerance: float = FLAT_TOLERANCE, fit: LinearFit | None = None, unit: str = "µs") -> Flatness:
    """Whether the cost stays within ``tolerance`` of its value at the smallest node count in ``[lo, hi]``.

    ``values`` as for ``fit_linear``. ``fit`` (default: fitted here over the points in range) gives the slope per
    node quoted when it is not flat. The range actually covered is the one reported (a quick sweep may stop early).
    """
    if not tolerance > 0:
        raise InvalidArgumentError(f"tolerance must be > 0, got {tolerance!r}")
    x, ys = _as_points(nodes, values)
    inside = [(int(xi), float(np.median(yi))) for xi, yi in zip(x, ys) if lo <= xi <= hi]
    inside.sort()
    if len(inside) < 2:
        return Flatness(None, lo, hi, tolerance, None, None, None, {}, None, None, None,
                        f"no verdict: fewer than two sizes between {lo} and {hi} nodes")
    sel = [i for i, xi in enumerate(x) if lo <= xi <= hi]
    if fit is None:
        fit = fit_linear(x[sel], [ys[i] for i in sel])
    lo_n, hi_n = inside[0][0], inside[-1][0]
    ref = inside[0][1]
    devs = {n: (c / ref - 1.0) if ref else float("inf") for n, c in inside}
    at, worst = max(devs.items(), key=lambda kv: abs(kv[1]))
    flat = all(abs(d) <= tolerance for d in devs.values())
    slope = fit.slope if math.isfinite(fit.slope) else None
    rise = slope * (hi_n - lo_n) / ref if slope is not None and ref else None
    ci = fit.slope_ci if slope is not None else None
    span = f"from {lo_n} to {hi_n} nodes"
    if flat:
        text = (f"constant: within ±{tolerance:.0%} {span} (largest deviation {worst:+.1%} at {at} nodes)")
    else:
        scale, per_unit = (1e3, "ns") if unit == "µs" else (1.0, unit)
        per_node = f"{slope * scale:.3g} {per_unit}" if slope is not None else "n/a"
        ci_text = (f" [{ci[0] * scale:.3g}, {ci[1] * scale:.3g}]"
                   if ci and all(math.isfinite(v) for v in ci) else "")
        text = (f"not constant {span}: {worst:+.1%} at {at} nodes against {ref:.3g} {unit} at {lo_n}; slope "
                f"{per_node} per node{ci_text}")
    return Flatness(flat, lo_n, hi_n, tolerance, ref, worst, at, devs, slope, ci, rise, text)
