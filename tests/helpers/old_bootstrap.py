"""The bootstrap medians as the package computed them before ``bench.stats.bootstrap`` (kept here only as the
reference the tests compare the one core against; nothing in the package imports it).

``plain_medians`` is intervals' one-level bootstrap, ``grouped_medians`` intervals' two-level one (a Python loop
over the replicates), ``hierarchical_medians`` paired_stats' two-level one (NaN-padded, ``np.nanmedian``) and
``fits_medians`` the scaling fits' own (resampled outright up to 16 samples, a normal approximation of the median's
rank beyond).
"""
from __future__ import annotations

import numpy as np

_CHUNK_VALUES = 4_000_000


def plain_medians(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = x.size
    out = np.empty(resamples)
    rows = max(1, _CHUNK_VALUES // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = np.median(x[idx], axis=1)
    return out


def split_groups(x: np.ndarray, groups) -> list[np.ndarray]:
    keys = list(dict.fromkeys(groups))
    parts = [x[np.asarray([g == k for g in groups])] for k in keys]
    return [p for p in parts if p.size]


def grouped_medians(x: np.ndarray, groups, resamples: int, rng: np.random.Generator) -> np.ndarray:
    parts = split_groups(x, groups)
    out = np.empty(resamples)
    for i in range(resamples):
        chosen = rng.integers(0, len(parts), size=len(parts))
        out[i] = np.median(np.concatenate([parts[c][rng.integers(0, parts[c].size, size=parts[c].size)]
                                           for c in chosen]))
    return out


def hierarchical_medians(gs: list[np.ndarray], resamples: int, seed: int) -> np.ndarray:
    c = len(gs)
    counts = np.array([g.size for g in gs])
    width = int(counts.max())
    table = np.full((c, width), np.nan)
    for i, g in enumerate(gs):
        table[i, : g.size] = g
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, c, size=(resamples, c))
    n_in = counts[drawn]
    picks = (rng.random((resamples, c, width)) * n_in[..., None]).astype(np.int64)
    values = table[drawn[..., None], picks]
    keep = np.arange(width)[None, None, :] < n_in[..., None]
    values = np.where(keep, values, np.nan).reshape(resamples, c * width)
    return np.nanmedian(values, axis=1)


def fits_medians(a: np.ndarray, reps: int, rng) -> np.ndarray:
    m = a.size
    if m == 1:
        return np.full(reps, a[0])
    if m <= 16:
        return np.median(a[rng.integers(0, m, (reps, m))], axis=1)
    srt = np.sort(a)
    k = np.clip(np.rint((m - 1) / 2 + rng.normal(0.0, np.sqrt(m) / 2, reps)), 0, m - 1).astype(int)
    return srt[k]
