"""bench.stats.bootstrap, the one bootstrap core: the same medians, bit for bit, as the two implementations it
replaced (kept in tests/helpers/old_bootstrap.py as the reference) wherever it draws the same numbers: intervals'
one-level bootstrap and paired_stats' two-level one; the block size does not change a result; and intervals'
two-level bootstrap (which now draws like paired_stats') resamples groups, not values."""
from __future__ import annotations

import numpy as np
import pytest

import old_bootstrap as old  # tests/helpers: pyproject's pytest pythonpath
from cugraphlab.bench.stats import bootstrap, intervals
from cugraphlab.bench.stats.paired_stats import hierarchical_bootstrap


def _values(rng, n, decimals=None, centre=4.0):
    x = rng.normal(centre, 0.4, n) + rng.exponential(0.3, n)  # skewed, like launch costs
    return np.round(x, decimals) if decimals is not None else x


@pytest.mark.parametrize("n", [2, 3, 8, 201, 1000, 40_000])  # 40,000: ranks no longer fit 16 bits
@pytest.mark.parametrize("decimals", [None, 1])  # 1: many ties
def test_plain_medians_are_the_old_ones_bit_for_bit(n, decimals):
    x = _values(np.random.default_rng(n), n, decimals)
    resamples = 300 if n > 10_000 else 2000
    want = old.plain_medians(x, resamples, np.random.default_rng(7))
    got = bootstrap.plain_medians(x, resamples, np.random.default_rng(7))
    assert np.array_equal(got, want)
    assert np.all((got >= x.min()) & (got <= x.max()))


@pytest.mark.parametrize("sizes", [[5, 5, 5], [3, 9, 1, 12], [170, 160, 165, 150, 170, 155], [40] * 6, [7], [300, 20]])
@pytest.mark.parametrize("decimals", [None, 2])
def test_two_level_medians_are_paired_stats_old_ones_bit_for_bit(sizes, decimals):
    rng = np.random.default_rng(sum(sizes))
    gs = [_values(rng, s, decimals, centre=4.0 + 0.3 * i) for i, s in enumerate(sizes)]
    want = old.hierarchical_medians(gs, 2000, seed=3)
    got = bootstrap.two_level_medians(gs, 2000, np.random.default_rng(3))
    assert np.array_equal(got, want)


def test_hierarchical_bootstrap_interval_is_the_old_one():
    rng = np.random.default_rng(11)
    gs = [_values(rng, s, centre=4.0 + 0.5 * i) for i, s in enumerate([12, 12, 11, 12])]
    medians = old.hierarchical_medians(gs, 2000, seed=0)
    lo, hi = np.quantile(medians, [0.025, 0.975])
    iv = hierarchical_bootstrap(gs, seed=0)
    point = float(np.median(np.concatenate(gs)))
    assert (iv.lo, iv.hi, iv.median) == (float(min(lo, point)), float(max(hi, point)), point)


def test_blocks_do_not_change_the_medians(monkeypatch):
    rng = np.random.default_rng(2)
    x = _values(rng, 500)
    gs = [_values(rng, s) for s in (90, 100, 80)]
    whole_plain = bootstrap.plain_medians(x, 1000, np.random.default_rng(1))
    whole_two = bootstrap.two_level_medians(gs, 1000, np.random.default_rng(1))
    monkeypatch.setattr(bootstrap, "CHUNK_VALUES", 2_999)  # blocks of 5 and 9 replicates, one left over
    assert np.array_equal(bootstrap.plain_medians(x, 1000, np.random.default_rng(1)), whole_plain)
    assert np.array_equal(bootstrap.two_level_medians(gs, 1000, np.random.default_rng(1)), whole_two)


def test_same_seed_same_medians_other_seed_other_medians():
    gs = [_values(np.random.default_rng(i), 50) for i in range(4)]
    a = bootstrap.two_level_medians(gs, 500, np.random.default_rng(5))
    assert np.array_equal(a, bootstrap.two_level_medians(gs, 500, np.random.default_rng(5)))
    assert not np.array_equal(a, bootstrap.two_level_medians(gs, 500, np.random.default_rng(6)))


def test_two_level_resamples_groups_first():
    # Two groups, one all 1.0, one all 3.0: a replicate that draws the same group twice has median 1 or 3, one
    # that draws both has median 2; so about a quarter each of 1.0 and 3.0 and half 2.0.
    gs = [np.full(10, 1.0), np.full(10, 3.0)]
    m = bootstrap.two_level_medians(gs, 4000, np.random.default_rng(0))
    share = {v: float(np.mean(m == v)) for v in (1.0, 2.0, 3.0)}
    assert sum(share.values()) == 1.0
    assert 0.2 < share[1.0] < 0.3 and 0.2 < share[3.0] < 0.3 and 0.45 < share[2.0] < 0.55


def test_intervals_split_groups_in_first_seen_order():
    x = np.arange(7, dtype=float)
    parts = intervals._split_groups(x, ["b", "a", "b", 2, "a", 2, "b"])
    assert [p.tolist() for p in parts] == [[0.0, 2.0, 6.0], [1.0, 4.0], [3.0, 5.0]]


def test_grouped_ratio_interval_is_wide_when_processes_disagree():
    # six processes per side, two in a 4 µs mode and four in a 5.5 µs mode: the process is the unit, so the
    # interval of B/A reaches the modes' ratio although each side holds 1,200 samples (values alone: narrow)
    rng = np.random.default_rng(4)

    def side(seed_shift):
        vals, groups = [], []
        for p in range(6):
            mode = 4.0 if (p + seed_shift) % 3 == 0 else 5.5
            vals += list(rng.normal(mode, 0.05, 200))
            groups += [p] * 200
        return vals, groups

    (a, ga), (b, gb) = side(0), side(1)
    grouped = intervals.ratio_of_medians(a, b, groups_a=ga, groups_b=gb)
    plain = intervals.ratio_of_medians(a, b)
    assert grouped.high - grouped.low > 5 * (plain.high - plain.low)
    assert grouped.low < 1 < grouped.high


def test_draws_made_once_give_the_medians_of_the_same_stream_and_serve_other_rows():
    rng = np.random.default_rng(8)
    sizes = [60, 55, 60, 58]
    gs = [_values(rng, s) for s in sizes]
    direct = bootstrap.two_level_medians(gs, 500, np.random.default_rng(9))
    draws = bootstrap.two_level_draws(sizes, 500, np.random.default_rng(9))
    assert np.array_equal(bootstrap.two_level_medians(gs, 500, draws=draws), direct)
    # another row of the same processes (other values, same sizes) uses the same draws
    other = [g * 2.0 for g in gs]
    assert np.array_equal(bootstrap.two_level_medians(other, 500, draws=draws), 2.0 * direct)
    with pytest.raises(ValueError, match="draws made for groups of"):
        bootstrap.two_level_medians(gs[:3], 500, draws=draws)


def test_a_diff_is_the_same_on_one_thread_or_two_and_with_or_without_shared_draws(monkeypatch):
    from cugraphlab.bench import diff

    def record(seed, shift=1.0):
        rng = np.random.default_rng(seed)
        samples = {}
        for label in ("eager: host", "eager: host / reference", "eager: device"):
            vals = np.concatenate([rng.normal(4.0 * shift * (1 + 0.03 * p), 0.05, 40) for p in range(5)])
            samples[label] = {"unit": "time ratio" if "/" in label else "us", "clock": "host_call",
                              "values": vals.tolist(), "groups": [p for p in range(5) for _ in range(40)]}
        return {"kind": "cugraphlab.measure", "schema": 1, "config": {}, "env": {}, "samples": samples}

    a, b = record(1), record(2, 1.08)

    def rows():
        return [(r.label, r.verdict, r.low, r.high) for r in diff.diff_records(a, b, env={}).rows]

    shared = rows()
    monkeypatch.setattr(diff, "THREADS", 1)
    assert rows() == shared
    monkeypatch.setattr(diff, "SHARED_DRAWS", 0)  # each row its own draws: other numbers, the same verdicts here
    alone = rows()
    assert [r[:2] for r in alone] == [r[:2] for r in shared] and alone != shared
