"""The one bootstrap core: medians of resamples, one level (values) or two (groups, then values within them).

Every bootstrap of the package goes through here: ``intervals.ratio_of_medians`` (``cugraphlab diff``, the plugin,
``measure --compare-to``: one level where a row keeps no groups, two where it says which process or context each
value came from), ``paired_stats.hierarchical_bootstrap`` (contexts, then rounds) and ``fits.fit_linear`` (each
point's median redrawn from its raw samples).

* ``plain_medians(x, resamples, rng)``: each replicate draws ``n`` values of ``x`` with replacement. The indices of
  a block of replicates are one ``(rows, n)`` integer matrix (``rng.integers``).
* ``two_level_medians(groups, resamples, rng)``: each replicate draws as many groups as there are, with replacement
  (one ``(resamples, c)`` matrix first), then, in each drawn group, as many values as it holds, with replacement:
  position ``floor(u * size)`` of a uniform ``u`` (one ``(rows, c, width)`` matrix of them, ``width`` the largest
  group). Both levels make one fancy index into the pooled values; a drawn group smaller than ``width`` leaves its
  last positions empty.

How a median is taken fast: the pooled values are sorted once, and a resample is drawn as *ranks* (the position of
each value in that order, 16-bit integers up to 32,766 values), with an empty position ranked past every value. One
``np.sort`` along the rows (SIMD-sorted small integers, several times faster than ``np.partition`` of floats), and
the median of a row of ``L`` values is the mean of the values of ranks at positions ``(L-1)//2`` and ``L//2``:
exactly what ``np.median`` returns for the same draws (the same two order statistics, added and halved).

Rows measured in the same processes hold the same numbers of samples per process, so one set of two-level draws
(``two_level_draws``: the groups and positions of every replicate) serves them all (``two_level_medians(...,
draws=...)``, as ``cugraphlab diff`` does for the rows of one record): each row's interval is still its own
bootstrap, and the draws are paid once.

Memory stays bounded and in cache: replicates are drawn in blocks of about ``CHUNK_VALUES`` positions. Drawing in
blocks takes the same numbers from the generator as one call would, so the result does not depend on the block
size, and the same seed gives the same medians.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...core.errors import InvalidArgumentError

__all__ = ["plain_medians", "two_level_medians", "two_level_draws", "TwoLevelDraws", "CHUNK_VALUES"]

#: Positions drawn per block of replicates: a block's arrays (2 MB of uniforms) stay in the CPU's cache, which
#: makes a bootstrap about twice as fast as blocks of millions.
CHUNK_VALUES = 1 << 18


def _ranks(pooled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted values, rank of each value + one more rank past them all for an empty position)``."""
    n = pooled.size
    order = np.argsort(pooled, kind="stable")
    dtype = np.int16 if n < np.iinfo(np.int16).max else np.int32
    rank = np.empty(n + 1, dtype=dtype)
    rank[order] = np.arange(n, dtype=dtype)
    rank[n] = n
    return pooled[order], rank


def _row_medians(xs: np.ndarray, ranks: np.ndarray, lengths) -> np.ndarray:
    """The median of each row of ``ranks`` (a row holds ``lengths`` real ranks, the rest past them all)."""
    ranks = np.sort(ranks, axis=1)
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), (ranks.shape[0],))
    lo = np.take_along_axis(ranks, ((lengths - 1) // 2)[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(ranks, (lengths // 2)[:, None], axis=1)[:, 0]
    return (xs[lo] + xs[hi]) / 2.0


def plain_medians(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``resamples`` medians of ``x`` (finite floats, at least one) resampled with replacement."""
    x = np.asarray(x, dtype=float)
    n = x.size
    xs, rank = _ranks(x)
    out = np.empty(resamples)
    rows = max(1, CHUNK_VALUES // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = _row_medians(xs, np.take(rank, idx), n)
    return out


class TwoLevelDraws(NamedTuple):
    """The draws of a two-level bootstrap for groups of ``counts`` values: each replicate's groups (``drawn``,
    ``(resamples, c)``), the positions of its values in the pooled groups (``positions``, ``(resamples, c,
    width)``),
    how many values each replicate holds (``lengths``) and which positions are spare (``spare``, ``(c, width)``,
    None where every group holds ``width``). Made once, they serve every row of a record whose groups have these
    sizes (``two_level_medians(groups, draws=...)``)."""

    counts: tuple
    drawn: np.ndarray
    positions: np.ndarray
    lengths: np.ndarray
    spare: np.ndarray | None


def _draw_index(counts: np.ndarray, drawn: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Positions in the pooled groups of every value of the replicates ``drawn`` (one block): ``floor(u * size)``
    in each drawn group, plus the group's offset."""
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    width = int(counts.max())
    u = rng.random((drawn.shape[0], counts.size, width))
    u *= counts.astype(float)[drawn][..., None]
    idx = u.astype(np.intp)                                                     # (np.take converts other types)
    idx += offsets[drawn][..., None]
    return idx


def two_level_draws(counts, resamples: int, rng: np.random.Generator) -> TwoLevelDraws:
    """The draws (``TwoLevelDraws``) of ``resamples`` two-level replicates of groups of ``counts`` values: the same
    numbers from ``rng``, in the same order, as ``two_level_medians`` draws."""
    counts = np.asarray(counts, dtype=np.int64)
    c, width = counts.size, int(counts.max())
    drawn = rng.integers(0, c, size=(resamples, c))
    positions = np.empty((resamples, c, width), dtype=np.intp)
    rows = max(1, CHUNK_VALUES // (c * width))
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        positions[start:stop] = _draw_index(counts, drawn[start:stop], rng)
    spare = None if np.all(counts == width) else np.arange(width) >= counts[:, None]
    return TwoLevelDraws(tuple(int(n) for n in counts), drawn, positions, counts[drawn].sum(axis=1), spare)


def two_level_medians(groups: Sequence[np.ndarray], resamples: int, rng: np.random.Generator | None = None, *,
                      draws: TwoLevelDraws | None = None) -> np.ndarray:
    """``resamples`` medians of two-level resamples of ``groups`` (arrays of finite floats, none empty): the groups
    drawn with replacement, then each drawn group's values with replacement, pooled. ``draws`` (from
    ``two_level_draws`` for these groups' sizes) instead of ``rng``: those draws, made once for several rows."""
    gs = [np.asarray(g, dtype=float) for g in groups]
    counts = np.array([g.size for g in gs], dtype=np.int64)
    c, width = len(gs), int(counts.max())
    n = int(counts.sum())
    xs, rank = _ranks(np.concatenate(gs))
    if draws is not None:
        if draws.counts != tuple(int(k) for k in counts):
            raise InvalidArgumentError(f"draws made for groups of {draws.counts} values, given groups of {tuple(counts)}")
        resamples = draws.drawn.shape[0]
        drawn, lengths, spare = draws.drawn, draws.lengths, draws.spare
    elif rng is None:
        raise InvalidArgumentError("two_level_medians needs rng or draws")
    else:
        drawn = rng.integers(0, c, size=(resamples, c))                       # the groups of every replicate
        lengths = counts[drawn].sum(axis=1)
        spare = None if np.all(counts == width) else np.arange(width) >= counts[:, None]  # past a group's end
    out = np.empty(resamples)
    rows = max(1, CHUNK_VALUES // (c * width))
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        d = drawn[start:stop]
        if draws is not None:
            idx = draws.positions[start:stop]
        else:
            assert rng is not None
            idx = _draw_index(counts, d, rng)
        ranks = np.take(rank, idx)
        if spare is not None:                                                   # a smaller group's spare positions
            np.putmask(ranks, spare[d], n)
        out[start:stop] = _row_medians(xs, ranks.reshape(stop - start, c * width), lengths[start:stop])
    return out
