"""Where a graph starts to pay off in a ``cugraphlab sweep`` record: ``break_even_size``, the size at which two modes'
time curves cross (interpolated on log-log axes), the record's conclusion that the report and the plots format.
Pure: sweep rows (dicts with ``mode``, ``size``, ``chain_len``, ``us_per_iter``) in, a size out.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["break_even_size"]


def _resolve_chain_len(rows: Sequence[Mapping[str, Any]], chain_len: int | None) -> int | None:
    if chain_len is not None:
        return chain_len
    present = [r["chain_len"] for r in rows if r.get("chain_len") is not None]
    return min(present) if present else None

def _filter_chain(rows: Sequence[Mapping[str, Any]], chain_len: int | None) -> tuple[list[Mapping[str, Any]], int | None]:
    c = _resolve_chain_len(rows, chain_len)
    if c is None:
        return list(rows), None
    return [r for r in rows if r.get("chain_len") == c], c

def _curve(rows: Sequence[Mapping[str, Any]], mode: str, key: str = "us_per_iter") -> tuple[np.ndarray, np.ndarray]:
    # Repeated sizes (e.g. several runs) are averaged so the curve is a function.
    by_size: dict[float, list[float]] = {}
    for r in rows:
        if r.get("mode") == mode and r.get(key) is not None:
            by_size.setdefault(float(r["size"]), []).append(float(r[key]))
    sizes = np.array(sorted(by_size), dtype=float)
    vals = np.array([np.mean(by_size[s]) for s in sizes], dtype=float)
    return sizes, vals

def break_even_size(
    rows: Sequence[Mapping[str, Any]],
    a: str = "graph",
    b: str = "eager",
    chain_len: int | None = None,
    rel_tol: float = 0.0,
) -> float | None:
    """Smallest size at which the ``a`` and ``b`` time curves cross.

    With ``rel_tol`` > 0: the smallest size from which ``a`` is no longer more than ``rel_tol`` faster than ``b``
    (``t_b / t_a`` falls to ``1 + rel_tol``): where launch cost stops mattering even if the curves only meet
    asymptotically.

    Only sizes measured for both modes are compared, at ``chain_len`` (default:
    the smallest chain length present). Between the two sizes that bracket a
    sign change of ``log(t_a) - log(t_b)`` the crossing is interpolated
    linearly in log-size/log-time, matching how the curves look on a log-log
    plot. An exact tie at a measured size returns that size.

    Returns:
        the crossing size, or ``None`` if the curves never cross (or there
        is no overlapping, positive data).
    """
    sel, _ = _filter_chain(rows, chain_len)
    sa, ta = _curve(sel, a)
    sb, tb = _curve(sel, b)
    common = sorted(set(sa.tolist()) & set(sb.tolist()))
    pts = []
    for s in common:
        va, vb = ta[sa == s][0], tb[sb == s][0]
        if s > 0 and va > 0 and vb > 0:
            pts.append((s, math.log(va) - math.log(vb) + math.log1p(rel_tol)))
    for i, (s, d) in enumerate(pts):
        if d == 0:
            return float(s)
        if i + 1 < len(pts):
            s2, d2 = pts[i + 1]
            if d * d2 < 0:
                frac = d / (d - d2)
                return float(math.exp(math.log(s) + frac * (math.log(s2) - math.log(s))))
    return None
