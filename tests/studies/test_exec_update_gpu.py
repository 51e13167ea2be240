"""Issue 18 on a real GPU: the paired cuGraphExecUpdate measurement (every way bit-exact, C cheapest) and the
floor's PDL rows (bit-exact, measured)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu

OPS = ("add", "mul", "sub", "relu")


@pytest.fixture(scope="module")
def dev():
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def test_paired_exec_update_is_bit_exact_and_c_is_the_floor(dev):
    from cugraphlab.core.native import c_compiler
    from cugraphlab.experiment.chain import Chain
    from studies.exec_update.measure import measure_exec_update

    with Chain(dev, OPS, 1 << 16, seed=3) as chain:
        r = measure_exec_update(chain, k=20, rounds=30, warmup=3)
    assert r.verified, [(x.case, x.way) for x in r.rows if x.verified is False]
    if c_compiler() is not None:
        for case in ("own graph", "changed parameters"):
            assert r.row(case, "C").us.median > 0 and r.row(case, "bindings").us.median > 0


def test_floor_pdl_rows_are_bit_exact(dev):
    from studies.floor.measure import measure_floor

    r = measure_floor(dev, sizes=(1024,), iters=200, repeats=2, host_samples=5)
    assert r.verified
    for key in ("pdl_graph_iter", "pdl_early_graph_iter", "pdl_graph_x50_iter", "graph_x50_iter"):
        assert r.row(1024, key).us > 0
    assert r.row(1024, "pdl_graph_x50_iter").us > 0 and r.row(1024, "graph_iter").us > 0
