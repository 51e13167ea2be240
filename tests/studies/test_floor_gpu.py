"""Issue 18 on a real GPU: the native rows of latency, the PDL-early chain bit-exact and its row, the cold-L2 fused
row, the ctypes exec-update path, and the floor table's rows."""
from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.gpu

OPS = ("add", "mul", "sub", "relu")


@pytest.fixture(scope="module")
def dev():
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def test_latency_has_the_c_rows(dev):
    from cugraphlab.bench.measure.latency import measure_latency
    from cugraphlab.core.native import c_compiler
    from cugraphlab.report.measure import render_latency

    r = measure_latency(dev, size=1024, time_cap_s=0.2, timeline_iters=5)
    c, adds = r.row("c_launch_empty"), r.row("c_graph_launch")
    if c_compiler() is None:
        assert c.us is None and "no C compiler" in c.note
        return
    assert 0 < c.us.median and r.row("launch_empty").us.median > 0  # their order is the study's, not a test's
    assert adds.us is not None and r.row("py_adds_launch").us.median > 0
    assert "Python adds" in render_latency(r)


@pytest.mark.parametrize("n", [1024, 1027, 1 << 20])
def test_pdl_early_chain_is_bit_exact(dev, n):
    from cugraphlab.experiment.pdl import PdlChain

    with PdlChain(dev, OPS, n, seed=n, early=True) as early:
        for mode, iters, unroll in (("eager", 3, 1), ("graph", 3, 1), ("graph", 100, 50)):
            v = early.verify(mode, iters, unroll)
            assert v.ok, v


def test_pdl_has_the_early_row(dev):
    from cugraphlab.bench.graphs.pdl import EARLY_GRAPH, measure_pdl

    r = measure_pdl(dev, size=1 << 20, iters=500, repeats=2)
    v = r.variant(EARLY_GRAPH)
    assert v.verified and v.mismatches == 0 and r.verified
    assert r.early_saving() is not None


def test_run_cold_l2_row_and_roof(dev):
    from cugraphlab.bench.run import COLD_MODE, measure_run
    from cugraphlab.report.run import render_run

    r = measure_run(size=1 << 20, iters=500, repeats=2, cold_l2=True, seed=3)
    cold = r.mode(COLD_MODE)
    assert cold.verified and r.roof["sets"] * r.roof["bytes_per_iter"] > 2 * r.roof["l2_bytes"]
    assert cold.device_us_per_iter.median > 0 and r.mode("fused").device_us_per_iter.median > 0
    assert all(math.isfinite(r.roof[k]) and r.roof[k] > 0 for k in ("fused_cold_gbps", "copy_gbps")), r.roof
    # how the cold fused kernel's bandwidth compares with the copy roof: benchmarks/ratio_figures.py
    assert "copy roof" in render_run(r)


def test_exec_update_ctypes_path_is_bit_exact_and_cheaper(dev):
    from cugraphlab.bench.graphs.update import CTYPES_PATH, measure_update_costs
    from cugraphlab.experiment.chain import Chain

    with Chain(dev, OPS, 1 << 16, seed=5) as chain:
        r = measure_update_costs(chain, 100)
    assert r.verified[CTYPES_PATH] and r.verified["exec_update"]
    assert r.costs[CTYPES_PATH].median > 0 and r.costs["exec_update"].median > 0


def test_floor_rows_exist_and_are_bit_exact(dev):
    from studies.floor.measure import measure_floor

    r = measure_floor(dev, sizes=(1 << 20, 1024), iters=200, repeats=2, host_samples=10)
    assert r.verified
    assert r.row(1 << 20, "fused_cold").us is not None and r.row(1024, "fused_cold").us is None
    assert r.row(1 << 20, "busy_add").us > 0 and r.row(1024, "gap_inside").us > 0
