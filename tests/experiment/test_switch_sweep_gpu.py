"""SWITCHes over K identical chain bodies, IF nodes decided by either kernel, the mixed SWITCH with the chain moved
last, on a real GPU (CUDA 12.8+ driver): for every index, the body ``selected_body`` names ran, and only it, bit-exact
against NumPy on fresh inputs with every output poisoned; then the sweep's timed rows, each checked after its loop."""
from __future__ import annotations

import json

import pytest

from cugraphlab import Chain
from cugraphlab.core.errors import UnsupportedError
from cugraphlab.experiment.branches import BranchGraphs, identical_chains, selected_body
from cugraphlab.graphs.conditional import require_conditional_branches

pytestmark = pytest.mark.gpu

OPS = ("add", "mul", "sub", "relu")


@pytest.fixture
def branches_ok(device):
    try:
        require_conditional_branches(device)
    except UnsupportedError as e:
        pytest.skip(str(e))
    return device


def _ran(kit, key, k, index, node, bodies, decide):
    want = selected_body(node, bodies, decide, index)
    c = kit.run_exec(key, k, index, f"{node} over {bodies} by {decide}", want)
    assert c.ok, str(c)
    assert c.ran == (() if want is None else (want,)), str(c)
    return want


@pytest.mark.parametrize("n", [1, 4097, 1 << 20])
def test_switch_of_k_identical_chains_runs_exactly_the_selected_body(branches_ok, kernels, n):
    with Chain(branches_ok, OPS, n, kernels=kernels) as chain, \
            BranchGraphs(chain, variants=identical_chains(OPS, 8)) as same:
        for k in (1, 2, 3, 4, 8):
            bodies = tuple(range(k))
            ran = [_ran(same, "switch_over", (bodies, "cond_switch"), i, "SWITCH", bodies, "cond_switch")
                   for i in (*range(k + 1), k - 1, 0, 100)]
            assert ran == [*range(k), None, k - 1, 0, None]


def test_if_and_switch_by_either_decision_kernel(branches_ok, kernels):
    with Chain(branches_ok, OPS, 5000, kernels=kernels) as chain, \
            BranchGraphs(chain, variants=identical_chains(OPS, 2)) as same:
        assert [_ran(same, "if_by", (0, "cond_switch"), i, "IF", (0,), "cond_switch") for i in (0, 1, 7, 0)] == [
            None, 0, 0, None]
        assert [_ran(same, "if_by", (0, "cond_one_hot"), i, "IF", (0,), "cond_one_hot") for i in (0, 1, 0)] == [
            0, None, 0]
        assert [_ran(same, "switch_over", ((0, 1), "cond_one_hot"), i, "SWITCH", (0, 1), "cond_one_hot")
                for i in (0, 1, 5, 0)] == [1, 0, 0, 1]


@pytest.mark.parametrize("n", [33, 1 << 20])
def test_mixed_switch_with_the_chain_last(branches_ok, kernels, n):
    with Chain(branches_ok, OPS, n, kernels=kernels) as chain, BranchGraphs(chain, 4) as kit:
        order = (1, 2, 3, 0)
        ran = [_ran(kit, "switch_over", (order, "cond_switch"), i, "SWITCH", order, "cond_switch")
               for i in (3, 0, 1, 2, 4, 3)]
        assert ran == [0, 1, 2, 3, None, 0]


def test_measure_switch_sweep_small(branches_ok):
    from cugraphlab.bench.graphs.switch import measure_switch
    from cugraphlab.report.switch import render_switch

    r = measure_switch(branches_ok, size=4096, branches=4, iters=50, repeats=6, holding_repeats=6,
                       holding_batch=4, sweep=(1, 2, 4), seed=3)
    assert r.verified, [c["text"] for c in r.checks if not c["ok"]] + [x.name for x in r.rows if not x.verified]
    sweep = [x for x in r.rows if x.group == "sweep"]
    assert len(sweep) == 2 + 1 + 2 + 2 + 2 and all(x.verified for x in sweep)
    assert {c["label"] for c in r.contrasts()} >= {"bodies held: SWITCH of 4 - of 1, index 0",
                                                   "position: SWITCH of 4, index 3 - index 0"}
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["claims"]["switch_vs_one_if"]["verdict"] in ("shown", "opposite shown", "not shown")
    text = render_switch(r)
    assert "Paired contrasts, A - B in device us per launch" in text and "Taking the SWITCH apart" in text
