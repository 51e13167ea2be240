"""The folded WHILE body with programmatic edges, and with a decision every K iterations, on a real GPU: the body
runs exactly N times and the output is bit-exact against NumPy on fresh random inputs with poisoned outputs, at
1,024 floats (float4 path), 2^20 and 1,000,003 (the scalar tail), for N = 1, 3, 100 (the every-K body for K x those);
the body holds the programmatic edges asked for; and bench.conditional times the new rows, each repeat checked.

A driver that refuses programmatic edges inside a conditional body makes the PDL tests skip with its one line
(ProgrammaticEdgesRefused): run with -rs to read it."""
from __future__ import annotations

import pytest

from cugraphlab import Chain
from cugraphlab.core.errors import UnsupportedError
from cugraphlab.experiment.conditional import conditional_graphs
from cugraphlab.graphs.conditional import require_conditional
from cugraphlab.graphs.pdl import require_pdl
from cugraphlab.graphs.pdl_edges import ProgrammaticEdgesRefused

pytestmark = pytest.mark.gpu
SIZES = [1024, 1 << 20, 1_000_003]
EVERY = 5


@pytest.fixture
def pdl_ok(device):
    try:
        require_conditional(device)
        require_pdl(device, graphs=True)
    except UnsupportedError as e:
        pytest.skip(str(e))
    return device


def _run(kit, iterations, **kw):
    try:
        return kit.run_while(iterations, **kw)
    except ProgrammaticEdgesRefused as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("how", ["capture", "nodes"])
@pytest.mark.parametrize("n", SIZES)
def test_pdl_while_runs_n_times_bit_exact(pdl_ok, kernels, n, how):
    with Chain(pdl_ok, n=n, kernels=kernels, seed=n) as chain:
        kit = conditional_graphs(chain)
        for iterations in (1, 3, 100, 1):  # each on fresh inputs; 1 after 100: the reset node clears the count
            c = _run(kit, iterations, fold=True, pdl=True, how=how)
            assert c.ok, str(c)
            st = kit.read_state()
            assert (st.count, st.keep_going) == (iterations, 0)


@pytest.mark.parametrize("pdl", [True, False])
@pytest.mark.parametrize("n", SIZES)
def test_decision_every_k_runs_the_count_bit_exact(pdl_ok, kernels, n, pdl):
    with Chain(pdl_ok, n=n, kernels=kernels, seed=n + 1) as chain:
        kit = conditional_graphs(chain)
        for factor in (1, 3, 100):
            iterations = EVERY * factor
            c = _run(kit, iterations, fold=True, pdl=pdl, every=EVERY)
            assert c.ok, str(c)
            st = kit.read_state()
            assert (st.count, st.keep_going) == (iterations, 0)


def test_pdl_body_holds_three_programmatic_edges(pdl_ok, kernels):
    with Chain(pdl_ok, n=4096, kernels=kernels) as chain:
        kit = conditional_graphs(chain)
        for how in ("capture", "nodes"):
            try:
                graph, info = kit.build_while(3, fold=True, pdl=True, how=how)
            except ProgrammaticEdgesRefused as e:
                pytest.skip(str(e))
            graph.close()
            lines = info["body_edges"].splitlines()
            assert lines[0] == "4 nodes, 3 edges (3 programmatic)", info["body_edges"]
            assert [ln.split()[1] for ln in lines[1:]] == ["KERNEL:add", "KERNEL:mul", "KERNEL:sub",
                                                           "KERNEL:cond_relu"]


def test_pdl_output_is_the_chain_not_poison(pdl_ok, kernels):
    """The check can fail: after the PDL loop the output differs from the chain without relu."""
    import numpy as np

    from cugraphlab.experiment.ops import reference

    with Chain(pdl_ok, n=4096, kernels=kernels) as chain:
        kit = conditional_graphs(chain)
        assert _run(kit, 3, fold=True, pdl=True).ok
        got = chain.out.to_numpy(stream=chain.stream)
        no_relu = reference(("add", "mul", "sub"), chain.x_host, chain.y_host, chain.scalar)
        assert not np.array_equal(got.view(np.uint32), no_relu.view(np.uint32))


def test_measure_while_times_the_pdl_and_every_k_rows(pdl_ok):
    from cugraphlab.bench.graphs.conditional import WHILE_FOLDED, WHILE_PDL, every_name, measure_while

    r = measure_while(pdl_ok, size=4096, iters=50, repeats=2, seed=3, pdl=True, decide_every=EVERY)
    names = [v.name for v in r.variants]
    if r.config["pdl_refused"]:
        pytest.skip(r.config["pdl_refused"])
    assert names[:4] == ["WHILE node", WHILE_FOLDED, WHILE_PDL, every_name(EVERY, True)]
    assert r.verified, [(v.name, v.verified, v.iterations_ok) for v in r.variants]
    assert r.config["while_pdl_body"].startswith("4 nodes, 3 edges (3 programmatic)")
