"""A quick ``compare`` for every stack installed on this machine: every measured mode must be bit-exact."""
from __future__ import annotations

import pytest

from cugraphlab.bench.compare import compare
from cugraphlab.bench.compare.registry import STACKS


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(STACKS))
def test_quick_compare_is_bit_exact(name):
    # an odd size exercises the kernels' tails; tiny loops keep it quick
    result = compare([4099], 20, repeats=2, stacks=[name], rounds=1, warmup=3, timeout_s=600)
    rows = result.rows
    if all(r.status == "unavailable" for r in rows):
        pytest.skip(f"{name}: {rows[0].note}")
    failed = [f"{r.way} {r.mode}: {r.note}" for r in rows if r.status == "failed"]
    assert not failed, failed
    measured = [r for r in rows if r.measured]
    assert measured, [(r.way, r.mode, r.status, r.note) for r in rows]
    bad = [(r.way, r.mode, r.mismatches) for r in measured if r.mismatches]
    assert not bad, bad
    for r in measured:
        assert r.wall_us > 0 and r.checked == 2
        if r.same_cubin:
            assert r.device_us is not None and r.device_us > 0


@pytest.mark.gpu
def test_two_rounds_give_two_processes_per_stack():
    result = compare([1024], 50, repeats=2, stacks="cugraphlab,bindings", rounds=2, warmup=5, timeout_s=600)
    for stack in ("cugraphlab", "bindings"):
        rounds = {r.round for r in result.rows if r.stack == stack and r.measured}
        assert rounds == {1, 2}
    assert result.ok
