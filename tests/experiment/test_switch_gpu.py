"""IF/ELSE, SWITCH and captured WHILE bodies on a real GPU (CUDA 12.8+ driver for IF/ELSE and SWITCH): the body that
ran, and only it, bit-exact against NumPy; lifetime of graphs whose bodies the driver owns."""
from __future__ import annotations

import gc
import json
import weakref

import numpy as np
import pytest

from cugraphlab import Chain
from cugraphlab.core.errors import UnsupportedError
from cugraphlab.core.memory import POISON_BITS
from cugraphlab.experiment.branches import BranchGraphs, branch_graphs
from cugraphlab.experiment.conditional import CAPTURE_WAYS, conditional_graphs
from cugraphlab.graphs.conditional import require_conditional_branches

pytestmark = pytest.mark.gpu


@pytest.fixture
def branches_ok(device):
    try:
        require_conditional_branches(device)
    except UnsupportedError as e:
        pytest.skip(str(e))
    return device


@pytest.mark.parametrize("n", [33, 4097, 1 << 20])
def test_if_else_takes_the_branch_the_gpu_decides(branches_ok, kernels, n):
    with Chain(branches_ok, n=n, kernels=kernels) as chain, BranchGraphs(chain, 2) as kit:
        for positive in (True, False, False, True):  # each branch twice, on fresh inputs
            c = kit.run_if_else(positive)
            assert c.ok, str(c)
            assert c.ran == ((0,) if positive else (1,))


@pytest.mark.parametrize("n", [1, 4097, 1 << 20])
def test_switch_runs_exactly_the_selected_body(branches_ok, kernels, n):
    with Chain(branches_ok, n=n, kernels=kernels) as chain, BranchGraphs(chain, 4) as kit:
        for index in (0, 1, 2, 3, 4, 3, 0, 7):  # 4 and 7 are out of range: no body
            c = kit.run_switch(index)
            assert c.ok, str(c)
            assert c.ran == ((index,) if index < 4 else ())


def test_k_if_nodes_and_one_if(branches_ok, kernels):
    with Chain(branches_ok, n=5000, kernels=kernels) as chain, BranchGraphs(chain, 4) as kit:
        for index in range(5):
            c = kit.run_if_sequence(index)
            assert c.ok, str(c)
        for index in (0, 1, 0):
            c = kit.run_if(index)
            assert c.ok, str(c)


@pytest.mark.parametrize("branches", [2, 3, 8])
def test_other_branch_counts(branches_ok, kernels, branches):
    with Chain(branches_ok, n=3000, kernels=kernels) as chain, BranchGraphs(chain, branches) as kit:
        for index in range(branches + 1):
            assert kit.run_switch(index).ok


@pytest.mark.parametrize("n", [1000, 1 << 20])
def test_one_switch_serves_every_size(branches_ok, kernels, n):
    with Chain(branches_ok, n=n, kernels=kernels) as chain, BranchGraphs(chain, 4) as kit:
        for k in (0, 1, 2, 3, 1):
            for via in ("switch", "graph"):
                c = kit.run_size(k, via)
                assert c.ok, str(c)
                assert c.ran == (k,)


@pytest.mark.parametrize("into", CAPTURE_WAYS)
def test_captured_while_matches_the_built_one(device, kernels, into):
    with Chain(device, n=4097, kernels=kernels) as chain:
        loops = conditional_graphs(chain)
        same, text = loops.same_as_built(10, into)
        assert same, text
        for iterations in (1, 2, 37, 1000):
            c = loops.run_while_captured(iterations, into)
            assert c.ok, str(c)
        built = loops.run_while(37)
        assert built.ok, str(built)


def test_graph_closed_after_instantiate_still_runs(branches_ok, kernels):
    """The executable keeps its bodies: the Graph (and with it the driver's body graphs) may go first."""
    with Chain(branches_ok, n=2048, kernels=kernels) as chain, BranchGraphs(chain, 4) as kit:
        graph, _ = kit.build_switch()
        exe = graph.instantiate()
        graph.close()
        graph.close()  # a second close does nothing; bodies were freed by the driver with the parent, once
        try:
            kit.fresh(2)
            exe.launch(chain.stream)
            c = kit.check_bodies("SWITCH (graph closed)", 2)
            assert c.ok, str(c)
        finally:
            exe.close()
        for into in CAPTURE_WAYS:
            g, _ = conditional_graphs(chain).build_while_captured(3, into)
            g.close()  # must not fail: nobody destroyed the captured-into body on its own


def test_forgotten_kits_are_collected_and_free_their_memory(branches_ok, kernels):
    dev = branches_ok
    dev.synchronize()
    gc.collect()
    free_before = dev.memory_info()[0]

    def make():
        chain = Chain(dev, n=1 << 22, kernels=kernels)  # 16 MiB buffers: their return is visible
        kit = branch_graphs(chain, 4)
        for key in ("if_else", "switch", "if_sequence", "if", "sizes_switch", "plain"):
            kit.exec_of(key)
        conditional_graphs(chain).while_captured_exec(5, "parent")
        return weakref.ref(chain), weakref.ref(kit)

    refs = make()
    gc.collect()
    assert all(r() is None for r in refs)
    dev.synchronize()
    # 18 buffers of 16 MiB were held: all but driver caches must be back
    assert dev.memory_info()[0] >= free_before - (32 << 20), "device memory not returned after collection"
    with Chain(dev, n=1024, kernels=kernels) as chain:  # the context is sound afterwards
        assert branch_graphs(chain, 2).run_switch(1).ok


def test_if_else_leaves_the_other_branch_poisoned(branches_ok, kernels):
    with Chain(branches_ok, n=777, kernels=kernels) as chain, BranchGraphs(chain, 2) as kit:
        assert kit.run_if_else(True).ok
        other = kit.bodies[1].result.to_numpy()
        assert (other.view(np.uint32) == POISON_BITS).all()


def test_graph_modes(branches_ok):
    from cugraphlab.experiment.switch_views import SWITCH_VIEW_MODES, inspect_mode

    for mode in SWITCH_VIEW_MODES:
        report = inspect_mode(mode, ("add", "mul", "sub", "relu"), 4096, branches_ok.ordinal)
        assert report.ok, (mode, report.notes)
        assert any(n.label == "CONDITIONAL" for n in report.view.nodes)


def test_measure_switch_small(branches_ok):
    from cugraphlab.bench.graphs.switch import measure_switch
    from cugraphlab.report.switch import render_switch

    r = measure_switch(branches_ok, size=4096, branches=4, iters=50, repeats=2, holding_repeats=3, holding_batch=4,
                       sweep=(), seed=1)
    assert r.verified, [c["text"] for c in r.checks if not c["ok"]] + [x.name for x in r.rows if not x.verified]
    assert len(r.rows) == 2 + 5 + 5 + 8
    assert [h.execs for h in r.holding] == [1, 4]
    json.dumps(r.to_dict(), allow_nan=False)
    assert "Claim, SWITCH over 4 branches" in render_switch(r)
