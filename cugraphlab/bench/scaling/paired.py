"""The paired Python-vs-C figures of ``cugraphlab scaling`` and the goals read from them (pure: numbers in, out).

Host launch cost on the H200 has per-context and per-time "modes" (docs/studies/launch-cost-modes.md): a Python figure
taken at one moment and a C figure taken minutes later differ by the mode as much as by the call. So the sweep pairs
them (bench.scaling measures, this module reads):

    instantiate  each sample: one fresh capture of the point's graph, then Python cuGraphInstantiate and the C one
                 (bench.native.instantiate) back to back, twice, in the orders P C / C P (the next sample C P / P C): every
                 pair shares the graph and the moment; each exec is destroyed outside the timing
    launch       each visit of a point (rounds over all points, bench.scaling): K held Python cuGraphLaunch calls and
                 K held C calls (NativeFloor.graph_loop), behind the same hold, alternating which goes first

A point keeps how its raw pairs go together: ``{"python": label, "c": label, "group": [...], "python_first": [...]}``
(the labels of the record's raw samples, kept whole and in order; group: the sample for instantiate, the round for
launch), or the values themselves as ``"python_us"``/``"c_us"`` lists. Per point, ``pair_stats`` gives the median of each side, of the
per-pair ratio python/C and of the per-pair difference python - C, each with a 95% interval from the two-level
bootstrap of ``bench.stats.paired_stats`` (groups drawn with replacement, then pairs within each): pairs of one sample or
round share its moment, so they are not independent draws. ``slope_ratio`` fits ``cost = a + b * nodes`` to both
sides of the straight-line points (the weighting of ``bench.stats.fits``) and bootstraps ``b_python / b_C`` with the same
draws for both sides (pairs stay pairs). ``evaluate_goals`` reads these figures against targets its caller gives
(the project's own are benchmarks/scaling.py's: a record carries figures, not development goals).
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from ..stats.fits import _line_fits
from ..stats.paired_stats import hierarchical_bootstrap

__all__ = ["pair_stats", "slope_ratio", "paired_analysis", "resolve_pairs", "evaluate_goals", "verdict_of",
           "PAIRED_RANGE"]

#: the node counts whose fork/joins are paired Python/C besides every straight line (cheap: under 130 nodes), and
#: where a launch target is read by ``evaluate_goals`` by default
PAIRED_RANGE = (4, 128)
RESAMPLES = 1000  # bootstrap draws per interval (a default record has some 500 intervals to draw)


def _finite(v) -> bool:
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def _grouped(pairs: Mapping, fn) -> list[list[float]]:
    """``fn(python, c)`` of every pair, grouped by the pair's group (groups in order of first appearance)."""
    py, c = pairs.get("python_us") or [], pairs.get("c_us") or []
    groups = pairs.get("group") or [0] * len(py)
    out: dict = {}
    for i, p in enumerate(py):
        q = c[i] if i < len(c) else None
        v = fn(p, q)
        if _finite(v):
            out.setdefault(groups[i] if i < len(groups) else 0, []).append(float(v))
    return list(out.values())


def _g6(v: float) -> float:
    return float(f"{v:.6g}")  # far below any interval's width: the record's size, not its meaning


def _iv(groups, seed: int):
    """median, lo, hi (6 significant digits), n and groups of the 95% two-level bootstrap; None without values."""
    iv = hierarchical_bootstrap(groups, seed=seed, resamples=RESAMPLES) if groups else None
    if iv is None:
        return None
    return {"median": _g6(iv.median), "lo": _g6(iv.lo), "hi": _g6(iv.hi), "n": iv.n, "groups": iv.groups}


def pair_stats(pairs: Mapping, *, seed: int = 0) -> dict:
    """Per-point figures of raw pairs: ``python_us``, ``c_us``, ``ratio`` (python/C per pair) and ``difference_us``
    (python - C per pair), each ``{median, lo, hi, n, groups}`` (95% level) or None where a side is missing; ``pairs`` (complete pairs) and ``python_first`` (how many of them had Python first)."""
    ratio = _grouped(pairs, lambda p, q: p / q if _finite(p) and _finite(q) and q > 0 else None)
    diff = _grouped(pairs, lambda p, q: p - q if _finite(p) and _finite(q) else None)
    first = pairs.get("python_first") or []
    c = pairs.get("c_us") or []
    complete = [i for i, p in enumerate(pairs.get("python_us") or []) if _finite(p) and i < len(c) and _finite(c[i])]
    return {"python_us": _iv(_grouped(pairs, lambda p, q: p), seed),
            "c_us": _iv(_grouped(pairs, lambda p, q: q), seed + 1),
            "ratio": _iv(ratio, seed + 2), "difference_us": _iv(diff, seed + 3),
            "pairs": len(complete), "python_first": sum(1 for i in complete if i < len(first) and first[i])}


def _group_table(pairs: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """(groups, width) tables of the complete pairs' Python and C values, NaN-padded."""
    py, c = pairs.get("python_us") or [], pairs.get("c_us") or []
    groups = pairs.get("group") or [0] * len(py)
    by: dict = {}
    for i, p in enumerate(py):
        q = c[i] if i < len(c) else None
        if _finite(p) and _finite(q):
            by.setdefault(groups[i] if i < len(groups) else 0, []).append((float(p), float(q)))
    rows = list(by.values())
    width = max((len(r) for r in rows), default=0)
    tp = np.full((len(rows), width), np.nan)
    tc = np.full((len(rows), width), np.nan)
    for i, r in enumerate(rows):
        tp[i, :len(r)] = [a for a, _ in r]
        tc[i, :len(r)] = [b for _, b in r]
    return tp, tc


def _resampled_medians(tp: np.ndarray, tc: np.ndarray, reps: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` medians of each side, with the SAME groups drawn for both (pairs stay pairs)."""
    g = tp.shape[0]
    draw = rng.integers(0, g, (reps, g))
    with np.errstate(all="ignore"):
        mp = np.nanmedian(tp[draw].reshape(reps, -1), axis=1)
        mc = np.nanmedian(tc[draw].reshape(reps, -1), axis=1)
    return mp, mc


def slope_ratio(points: Sequence[tuple[int, Mapping]], *, resamples: int = 2000, seed: int = 0,
                level: float = 0.95) -> dict | None:
    """The per-node cost of Python over that of C: fit ``a + b * nodes`` (weighted by relative error, as
    ``bench.stats.fits``) to the medians of each side over ``points`` ((nodes, raw pairs) per point), and the ratio
    ``b_python / b_C`` with a ``level`` bootstrap interval: each replicate redraws the points (with replacement) and,
    within each, the groups of pairs, the same draws for both sides. None with fewer than two node counts.

    Returns ``{"ratio": {median, lo, hi}, "python_us_per_node": {...}, "c_us_per_node": {...}, "python_intercept_us",
    "c_intercept_us", "points", "nodes_range", "resamples", "level"}`` (``median`` is the point estimate).
    """
    tabs = [(n, *_group_table(p)) for n, p in points]
    tabs = [(n, tp, tc) for n, tp, tc in tabs if tp.size and n > 0]
    if len({n for n, _, _ in tabs}) < 2:
        return None
    x = np.array([float(n) for n, _, _ in tabs])
    with np.errstate(all="ignore"):
        yp = np.array([np.nanmedian(tp) for _, tp, _ in tabs])
        yc = np.array([np.nanmedian(tc) for _, _, tc in tabs])
    ap, bp, _ = (float(v[0]) for v in _line_fits(x, yp, True))
    ac, bc, _ = (float(v[0]) for v in _line_fits(x, yc, True))
    rng = np.random.default_rng(seed)
    reps = int(resamples)
    mp = np.empty((len(tabs), reps))
    mc = np.empty((len(tabs), reps))
    for i, (_, tp, tc) in enumerate(tabs):
        mp[i], mc[i] = _resampled_medians(tp, tc, reps, rng)
    idx = rng.integers(0, len(tabs), (reps, len(tabs)))
    cols = np.arange(reps)[:, None]
    _, bbp, _ = _line_fits(x[idx], mp[idx, cols], True)
    _, bbc, _ = _line_fits(x[idx], mc[idx, cols], True)
    tail = (1 - level) / 2

    def interval(point: float, v: np.ndarray) -> dict:
        v = v[np.isfinite(v)]
        if not v.size or not math.isfinite(point):
            return {"median": point if math.isfinite(point) else None, "lo": None, "hi": None}
        lo, hi = np.quantile(v, [tail, 1 - tail])
        return {"median": point, "lo": float(min(lo, point)), "hi": float(max(hi, point))}

    with np.errstate(all="ignore"):
        ratios = np.where(bbc > 0, bbp / bbc, np.nan)
    return {"ratio": interval(bp / bc if bc > 0 else math.nan, ratios),
            "python_us_per_node": interval(bp, bbp), "c_us_per_node": interval(bc, bbc),
            "python_intercept_us": ap, "c_intercept_us": ac, "points": len(tabs),
            "nodes_range": [int(x.min()), int(x.max())], "resamples": reps, "level": level}


def resolve_pairs(pairs: Mapping | None, samples: Mapping | None) -> dict:
    """A point's pairs with their values: ``python_us``/``c_us`` read from ``samples`` (a record's raw samples, by
    label) where the point names labels; lists it holds itself are kept. Missing values: empty lists."""
    if not pairs:
        return {}
    out = dict(pairs)
    for side, key in (("python", "python_us"), ("c", "c_us")):
        if key not in out:
            label = pairs.get(side)
            out[key] = list(((samples or {}).get(label) or {}).get("values", [])) if label else []
    return out


def paired_analysis(points: Sequence[Mapping], samples: Mapping | None = None) -> dict:
    """Every point's paired figures and the straight-line slope ratio, from the pairs the points keep (their values
    in ``samples``, a record's raw samples): ``{"instantiate": {"points": [...], "slope": slope_ratio | None},
    "launch": {"points": [...]}}``, each point entry ``{series, length, nodes, **pair_stats}``."""
    out: dict = {"instantiate": {"points": [], "slope": None}, "launch": {"points": []}}
    line = []
    for p in points:
        paired = {k: resolve_pairs(v, samples) for k, v in (p.get("paired") or {}).items() if isinstance(v, Mapping)}
        head = {"series": p.get("series"), "topology": p.get("topology"), "length": p.get("length"),
                "nodes": p.get("nodes")}
        for what in ("instantiate", "launch"):
            pairs = paired.get(what)
            if pairs and pairs.get("python_us"):
                out[what]["points"].append({**head, **pair_stats(pairs)})
        if p.get("topology") == "line" and (paired.get("instantiate") or {}).get("c_us"):
            line.append((int(p["nodes"]), paired["instantiate"]))
    out["instantiate"]["slope"] = slope_ratio(line)
    return out


def verdict_of(lo, hi, limit: float) -> bool | None:
    """True when the whole interval is at or below ``limit``, False when it is wholly above, None (undecided)
    when it straddles the limit or is missing."""
    if not (_finite(lo) and _finite(hi)):
        return None
    if hi <= limit:
        return True
    if lo > limit:
        return False
    return None


def _range_text(lo: int, hi: int) -> str:
    return f"no straight-line point between {lo} and {hi} nodes"


def evaluate_goals(points: Sequence[Mapping], paired: Mapping | None, native: Mapping | None = None, *,
                   launch_us: float, instantiate_within: float, node_range: tuple[int, int] = PAIRED_RANGE) -> dict:
    """The paired figures read against the caller's targets (``launch_us``: host µs per launch; ``instantiate_within``:
    the Python/C instantiate ratio's allowed excess, 0.10 for 10%).

    launch: host cuGraphLaunch, device held, <= ``launch_us`` at every straight line in ``node_range``:
    ``met`` True when every point's Python interval is at or below the goal, False when one lies wholly above it,
    None (undecided) otherwise; per point the Python µs, the C µs and Python - C, with intervals. Points without
    paired figures (an older record) are judged by the Python median alone (no interval; ``paired`` False).
    instantiate_vs_native: the slope ratio python/C per node within ``1 + instantiate_within``: ``met`` as above on
    the ratio's interval; ``python_slower`` True when the interval lies wholly above 1; the per-point ratios beside.
    ``native``: the sweep's note on the C loops (``{"unavailable": reason}`` says why there is no C figure).
    """
    paired = paired or {}
    lo_n, hi_n = node_range
    by_nodes = {int(e["nodes"]): e for e in (paired.get("launch") or {}).get("points", [])
                if e.get("topology") == "line"}
    rows = []
    for p in points:
        if p.get("topology") != "line" or not lo_n <= p.get("nodes", 0) <= hi_n:
            continue
        e = by_nodes.get(int(p["nodes"]))
        if e and e.get("python_us"):
            rows.append({"nodes": int(p["nodes"]), "python_us": e["python_us"], "c_us": e.get("c_us"),
                         "difference_us": e.get("difference_us"), "ratio": e.get("ratio")})
        elif "held_launch_us" in p.get("summaries", {}):
            m = p["summaries"]["held_launch_us"]["median"]
            rows.append({"nodes": int(p["nodes"]), "python_us": {"median": m, "lo": None, "hi": None},
                         "c_us": None, "difference_us": None, "ratio": None})
    rows.sort(key=lambda r: r["nodes"])
    if rows:
        # a point without an interval (unpaired: an older record) is judged by its median alone
        per = [verdict_of(r["python_us"]["median"] if r["python_us"].get("lo") is None else r["python_us"]["lo"],
                          r["python_us"]["median"] if r["python_us"].get("hi") is None else r["python_us"]["hi"],
                          launch_us) for r in rows]
        met = False if False in per else (True if all(v is True for v in per) else None)
        worst = max(rows, key=lambda r: r["python_us"]["median"])
        c_rows = [r for r in rows if r.get("c_us")]
        launch = {"goal_us": launch_us, "range": [lo_n, hi_n], "met": met, "paired": bool(c_rows),
                  "worst_us": worst["python_us"]["median"], "worst_ci": [worst["python_us"].get("lo"),
                                                                        worst["python_us"].get("hi")],
                  "at_nodes": worst["nodes"], "points": rows}
        if c_rows:
            cw = max(c_rows, key=lambda r: r["c_us"]["median"])
            launch["native_launch_us"] = cw["c_us"]["median"]
            launch["native_at_nodes"] = cw["nodes"]
            launch["worst_difference_us"] = max(r["difference_us"]["median"] for r in c_rows
                                                if r.get("difference_us"))
        if met is None:
            launch["note"] = (f"undecided: an interval straddles {launch_us} µs, or a point has no interval"
                              " (fewer than two held samples, or an older record)")
    else:
        launch = {"goal_us": launch_us, "range": [lo_n, hi_n], "met": None, "note": _range_text(lo_n, hi_n)}
    inst_pts = [{"series": e["series"], "nodes": e["nodes"], "ratio": e.get("ratio")}
                for e in (paired.get("instantiate") or {}).get("points", []) if e.get("ratio")]
    slope = (paired.get("instantiate") or {}).get("slope")
    limit = 1 + instantiate_within
    if slope and _finite(slope["ratio"].get("median")):
        r = slope["ratio"]
        inst = {"goal": instantiate_within, "paired": True, "ratio": r["median"], "ratio_ci": [r["lo"], r["hi"]],
                "python_us_per_node": slope["python_us_per_node"]["median"],
                "python_ci": [slope["python_us_per_node"]["lo"], slope["python_us_per_node"]["hi"]],
                "native_us_per_node": slope["c_us_per_node"]["median"],
                "native_ci": [slope["c_us_per_node"]["lo"], slope["c_us_per_node"]["hi"]],
                "met": verdict_of(r["lo"], r["hi"], limit),
                "python_slower": (r["lo"] > 1.0) if _finite(r["lo"]) else None,
                "points": inst_pts, "native_source": (native or {}).get("source")}
        if inst["met"] is None:
            inst["note"] = f"the ratio's interval straddles {limit:.2f}: undecided"
    else:
        why = (native or {}).get("unavailable") or "no paired instantiation of two straight-line sizes or more"
        inst = {"goal": instantiate_within, "paired": False, "python_us_per_node": None, "native_us_per_node": None,
                "met": None, "points": inst_pts, "note": f"no native figure: {why}"}
    return {"launch": launch, "instantiate_vs_native": inst}
