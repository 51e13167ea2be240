"""PDL and conditional graph nodes on a real GPU: counts and outputs checked exactly (NumPy bits, device counters)."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab import Chain
from cugraphlab.core.memory import POISON_BITS
from cugraphlab.experiment.conditional import build_while_graph, conditional_graphs
from cugraphlab.experiment.pdl import PdlChain
from cugraphlab.graphs.pdl import programmatic_edge_count

pytestmark = pytest.mark.gpu


@pytest.fixture
def hopper(device):
    if device.compute_capability[0] < 9:
        pytest.skip(f"programmatic dependent launch needs sm_90 or newer; this device is {device.arch}")
    return device


@pytest.mark.parametrize("n", [1, 5, 1023, (1 << 20) + 5])
def test_pdl_eager_and_graph_are_bit_exact(hopper, n):
    with PdlChain(hopper, n=n) as pdl:
        for _ in range(2):  # two draws: a stale result from the first cannot pass the second
            for mode, iters, unroll in (("eager", 1, 1), ("eager", 7, 1), ("graph", 1, 1), ("graph", 6, 3)):
                v = pdl.verify(mode, iters, unroll)
                assert v.ok, f"{mode} x{iters} (unroll {unroll}): {v}"


def test_pdl_other_chain(hopper):
    with PdlChain(hopper, "sub,relu,mul,add", n=4099, scalar=-0.5) as pdl:
        assert pdl.verify("eager", 3).ok
        assert pdl.verify("graph", 3).ok


def test_pdl_capture_makes_programmatic_edges(hopper):
    with PdlChain(hopper, n=4096) as pdl:
        g = pdl.capture(2)
        try:
            assert g.node_count == 8
            assert programmatic_edge_count(g) >= 1, "capture of PDL launches made only full-serialization edges"
        finally:
            g.close()
        plain = pdl.chain.capture()
        try:
            assert programmatic_edge_count(plain) == 0
        finally:
            plain.close()


@pytest.mark.parametrize("n", [1, 4097, 1 << 20])
def test_while_runs_exactly_n_iterations(device, kernels, n):
    with Chain(device, n=n, kernels=kernels) as chain:
        loops = conditional_graphs(chain)
        for iterations in (1, 2, 37, 1000):
            check = loops.run_while(iterations)
            assert check.ok, str(check)
        again = loops.run_while(37)  # relaunching the same executable resets the counter (memset node)
        assert again.ok, str(again)


def test_while_graph_shape(device, kernels):
    with Chain(device, n=1024, kernels=kernels) as chain:
        graph, info = build_while_graph(chain, 10)
        try:
            assert sorted(graph.node_kinds()) == ["CONDITIONAL", "MEMSET"]
            assert len(graph.edges()) == 1
            assert info["iterations"] == 10 and info["kind"] == "WHILE"
            body = info["body"]
            assert body.startswith("5 nodes, 4 edges")
            for name in ("add", "mul", "sub", "relu", "conditional"):
                assert f"KERNEL:{name}" in body
        finally:
            graph.close()


def test_build_while_graph_from_a_device_closes_its_chain(device):
    graph, info = build_while_graph(device=device, iterations=3, size=2048)
    assert info["iterations"] == 3
    graph.close()
    assert graph.closed


@pytest.mark.parametrize("threshold", [0.5, 100.0, 1000.0, 25_000.0])
def test_threshold_loop_stops_where_numpy_predicts(device, kernels, threshold):
    with Chain(device, n=1 << 16, kernels=kernels) as chain:
        loops = conditional_graphs(chain)
        for _ in range(2):
            check = loops.run_until(threshold)
            assert check.ok, str(check)
        if threshold >= 1000.0:
            assert check.iterations > 1  # the GPU's own numbers decided, over several iterations


def test_threshold_loop_respects_its_iteration_limit(device, kernels):
    with Chain(device, n=1 << 12, kernels=kernels) as chain:
        check = conditional_graphs(chain).run_until(1e30, max_iterations=9)
        assert check.ok and check.iterations == 9, str(check)


@pytest.mark.parametrize("n", [3, 1 << 20])
def test_if_node_runs_the_body_only_when_the_flag_is_set(device, kernels, n):
    with Chain(device, n=n, kernels=kernels) as chain:
        loops = conditional_graphs(chain)
        for flag in (False, True, False, True):
            check = loops.run_if(flag)
            assert check.ok, str(check)
        loops.run_if(False)
        assert (chain.out.to_numpy().view(np.uint32) == POISON_BITS).all()


def test_python_driven_loop_counts_and_is_bit_exact(device, kernels):
    with Chain(device, n=5000, kernels=kernels) as chain:
        loops = conditional_graphs(chain)
        chain.randomize()
        chain.poison()
        assert loops.run_host_loop(25) == 25
        assert loops.read_state().count == 25
        assert chain.check_result("graph").ok
