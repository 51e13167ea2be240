"""The rest of the graph API on a real GPU: explicit construction, fork/join, update, views. Bit-exact throughout."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab import Chain
from cugraphlab.bench.graphs.update import measure_update_costs
from cugraphlab.experiment.build import build_chain_graph, build_chain_graph_nodes
from cugraphlab.experiment.forkjoin import ForkJoin
from cugraphlab.experiment.ops import compare_bits, reference
from cugraphlab.experiment.update import ChainGraph, demonstrate_refused_update, fresh_inputs
from cugraphlab.graphs.inspect import graph_view, render_text, same_topology, write_dot
from cugraphlab.report.graphs import render_svg

pytestmark = pytest.mark.gpu


def _run(chain, graph):
    with graph.instantiate() as exe:
        exe.launch(chain.stream)
        chain.stream.synchronize()


@pytest.mark.parametrize("n", [1, 5, 4099, (1 << 20) + 3])
@pytest.mark.parametrize("unroll", [1, 3])
def test_explicit_equals_captured_and_is_bit_exact(device, kernels, n, unroll):
    with Chain(device, n=n, kernels=kernels) as chain:
        with build_chain_graph(chain, unroll=unroll) as built, chain.capture(unroll) as captured:
            same, diff = same_topology(built, captured)
            assert same, diff
            assert built.node_count == 4 * unroll
            for _ in range(2):
                chain.randomize()
                chain.poison()
                _run(chain, built)
                v = chain.check_result("explicit")
                assert v.ok, str(v)


def test_other_op_chain_explicit_equals_captured(device, kernels):
    with Chain(device, "sub,relu,mul,add,relu", n=3001, scalar=-0.75, kernels=kernels) as chain:
        with build_chain_graph(chain) as built, chain.capture() as captured:
            assert same_topology(built, captured)[0]
            chain.randomize()
            chain.poison()
            _run(chain, built)
            assert chain.check_result("explicit").ok


def test_memset_and_staged_copy_nodes(device, kernels, rng):
    with Chain(device, n=10_007, kernels=kernels) as chain:
        xh = rng.standard_normal(chain.n, dtype=np.float32)
        yh = rng.standard_normal(chain.n, dtype=np.float32)
        with device.to_device(xh) as sx, device.to_device(yh) as sy:
            chain.x.poison()  # only the memcpy nodes can bring the right inputs in
            chain.y.poison()
            graph, nodes = build_chain_graph_nodes(chain, with_memset=True, staged=(sx, sy))
            with graph:
                kinds = sorted(graph.node_kinds())
                assert kinds.count("MEMSET") == 4 and kinds.count("MEMCPY") == 2 and kinds.count("KERNEL") == 4
                assert len(nodes) == 4
                _run(chain, graph)
        v = compare_bits("staged", chain.out.to_numpy(), reference(chain.ops, xh, yh, chain.scalar))
        assert v.ok, str(v)


@pytest.mark.parametrize("n", [7, (1 << 20) + 1])
def test_forkjoin_has_two_branches_and_is_bit_exact(device, kernels, n):
    with ForkJoin(device, n=n, kernels=kernels) as fj:
        with fj.capture() as graph:
            topo = graph.topology()
            assert len(topo.nodes) == len(fj.ops1) + len(fj.ops2) + 1
            roots = [i for i in range(len(topo.nodes)) if all(b != i for _, b in topo.edges)]
            assert len(roots) == 2  # each branch starts on its own
            for _ in range(2):
                check = fj.check(graph)
                assert check.join_predecessors == 2
                assert check.verification.ok, str(check.verification)


@pytest.mark.parametrize("build", ["explicit", "capture"])
def test_both_update_paths_are_bit_exact_with_new_inputs_and_scalar(device, kernels, rng, build):
    with Chain(device, n=(1 << 16) + 5, kernels=kernels) as chain:
        a = fresh_inputs(device, chain.n, -1.25, rng)
        b = fresh_inputs(device, chain.n, 3.5, rng)
        try:
            with ChainGraph(chain, build) as cg:
                assert cg.check().ok
                r = cg.set_params(a)
                assert r.path == "set_params"
                v = cg.check("set_params")
                assert v.ok, str(v)
                r = cg.recapture(b)
                assert r.path == "exec_update", str(r)
                v = cg.check("exec_update")
                assert v.ok, str(v)
                r = cg.set_params(a)  # the exec still knows the nodes of the graph it was made from
                v = cg.check("set_params again")
                assert v.ok, str(v)
        finally:
            a.close()
            b.close()


def test_refused_update_falls_back_and_stays_bit_exact(device, kernels, rng):
    with Chain(device, n=4096 + 3, kernels=kernels) as chain:
        report, v = demonstrate_refused_update(chain)
        assert report.path == "reinstantiate", str(report)
        assert "TOPOLOGY_CHANGED" in report.result, str(report)
        assert v.ok, str(v)
        # After falling back, set_params uses the new graph's nodes.
        with ChainGraph(chain) as cg:
            other = fresh_inputs(device, chain.n, 0.5, rng)
            try:
                assert cg.recapture(other, ops=("add", "mul")).refused
                again = fresh_inputs(device, chain.n, -2.0, rng)
                try:
                    cg.set_params(again)
                    v = cg.check("set_params after re-instantiate")
                    assert v.ok and cg.ops == ("add", "mul"), str(v)
                finally:
                    again.close()
            finally:
                other.close()


def test_measure_update_costs_checks_every_path(device, kernels):
    with Chain(device, n=2048, kernels=kernels) as chain:
        costs = measure_update_costs(chain, repeats=10, warmup=2)
        assert set(costs.costs) == {"set_params", "exec_update", "exec_update (ctypes)", "recapture_update",
                                    "reinstantiate", "recapture_instantiate"}
        assert all(costs.verified.values()), costs.verified
        d = costs.to_dict()
        assert d["costs"]["set_params"]["n"] == 10 and "perf_counter_ns" in d["clocks"]["host_api"] and "gpu" in d["env"]
        assert len(d["samples"]["set_params"]["values"]) == 10 and d["kind"] == "cugraphlab.update"


def test_text_view_and_dot_file(device, kernels, tmp_path):
    with Chain(device, n=1000, kernels=kernels) as chain, chain.capture() as graph:
        view = graph_view(graph)
        assert view.topology == graph.topology()
        text = render_text(view)
        assert "KERNEL:add" in text and "block 256" in text and "[2] -> [3]" in text
        path = write_dot(graph, tmp_path / "sub" / "chain.dot")
        body = path.read_text()
        assert path.stat().st_size > 0 and "digraph" in body
        svg, note = render_svg(path)
        assert (svg is None) == ("not installed" in note or "failed" in note)
