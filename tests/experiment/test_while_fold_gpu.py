"""The WHILE body with its decision folded into relu (kernels/cond_relu.cu) on a real GPU: the body runs exactly N
times and the output is bit-exact against NumPy on fresh random inputs with poisoned outputs, at sizes that take the
float4 path, the scalar tail and the scalar path alone; the loop state left as the separate decision leaves it;
and bench.conditional measuring both bodies (plus the unrolled graph) in one process, every repeat checked."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab import Chain
from cugraphlab.core.errors import UnsupportedError
from cugraphlab.experiment.conditional import conditional_graphs
from cugraphlab.graphs.conditional import require_conditional

pytestmark = pytest.mark.gpu


@pytest.fixture
def cond_ok(device):
    try:
        require_conditional(device)
    except UnsupportedError as e:
        pytest.skip(str(e))
    return device


@pytest.mark.parametrize("n", [5, 1024, 1_000_003, 1 << 20])
def test_folded_while_runs_n_times_bit_exact(cond_ok, kernels, n):
    with Chain(cond_ok, n=n, kernels=kernels) as chain:
        kit = conditional_graphs(chain)
        for iterations in (1, 2, 37, 1):  # each on fresh inputs; 1 again after 37: the reset node clears the count
            for fold in (True, False):
                c = kit.run_while(iterations, fold=fold)
                assert c.ok, str(c)
                st = kit.read_state()
                assert (st.count, st.keep_going) == (iterations, 0)


def test_folded_body_is_four_kernel_nodes(cond_ok, kernels):
    with Chain(cond_ok, n=4096, kernels=kernels) as chain:
        graph, info = conditional_graphs(chain).build_while(3, fold=True)
        with graph:
            lines = info["body"].splitlines()
        assert lines[0] == "4 nodes, 3 edges"
        assert [ln.split()[1] for ln in lines[1:]] == ["KERNEL:add", "KERNEL:mul", "KERNEL:sub", "KERNEL:cond_relu"]


def test_folded_output_differs_from_poison_and_from_a_wrong_chain(cond_ok, kernels):
    """The check can fail: the folded loop's output is the chain's, not the chain without relu."""
    from cugraphlab.experiment.ops import reference

    with Chain(cond_ok, n=4096, kernels=kernels) as chain:
        kit = conditional_graphs(chain)
        assert kit.run_while(3, fold=True).ok
        got = chain.out.to_numpy(stream=chain.stream)
        no_relu = reference(("add", "mul", "sub"), chain.x_host, chain.y_host, chain.scalar)
        assert not np.array_equal(got.view(np.uint32), no_relu.view(np.uint32))


def test_measure_while_times_both_bodies_and_the_unrolled_graph(cond_ok):
    from cugraphlab.bench.graphs.conditional import WHILE_FOLDED, measure_while, unrolled_name

    r = measure_while(cond_ok, size=4096, iters=50, repeats=2, unroll=10, seed=3)
    names = [v.name for v in r.variants]
    assert names == ["WHILE node", WHILE_FOLDED, "Python loop", "graphs, no decision", unrolled_name(10)]
    assert r.verified, [(v.name, v.verified, v.iterations_ok) for v in r.variants]
    assert r.config["while_folded_body"].startswith("4 nodes, 3 edges")
    for v in r.variants:
        assert v.device_us_per_iter.median > 0 and v.wall_us_per_iter.n == 2


def test_no_folded_variant_for_a_chain_without_relu(cond_ok):
    from cugraphlab.bench.graphs.conditional import WHILE_FOLDED, measure_while

    r = measure_while(cond_ok, size=1024, iters=20, repeats=1, ops=("add", "mul", "sub"), seed=4)
    assert WHILE_FOLDED not in [v.name for v in r.variants] and r.verified
