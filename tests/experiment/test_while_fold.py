"""The WHILE body with its decision folded into the last kernel (kernels/cond_relu.cu), without a GPU: the driver
calls in order, the body's topology (4 kernel nodes, cond_relu last) against the separate-decision body (5), the
folded launch's arguments, the kernel compiled by NVRTC with and without the CUDA headers, and the benchmark's
argument checks before any GPU work."""
from __future__ import annotations

import pytest

from cugraphlab.core._calls import tracing
from switch_fixtures import ROOT, cond_driver, own_kernels  # noqa: F401

GRAPH_CALLS = {"cuGraphCreate", "cuGraphAddMemsetNode", "cuGraphConditionalHandleCreate", "cuGraphAddNode",
               "cuGraphAddKernelNode"}


def _plain(api: str) -> str:
    base, _, v = api.rpartition("_v")
    return base if base and v.isdigit() else api


def _built(fold: bool, iterations: int = 3):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import conditional_graphs

    with tracing(None) as t:
        with Device(0) as dev, Chain(dev, n=2048) as chain:
            kit = conditional_graphs(chain)
            first = len(t.entries)
            graph, info = kit.build_while(iterations, fold=fold)
            calls = [_plain(e.api) for e in t.entries[first:] if _plain(e.api) in GRAPH_CALLS]
            graph.close()
            return calls, info


@pytest.mark.parametrize("fold", [False, True])
def test_folded_body_has_four_kernel_nodes_with_cond_relu_last(cond_driver, fold):
    calls, info = _built(fold)
    kernels = 4 if fold else 5
    assert calls == ["cuGraphCreate", "cuGraphAddMemsetNode", "cuGraphConditionalHandleCreate", "cuGraphAddNode",
                     *["cuGraphAddKernelNode"] * kernels]
    names = ["add", "mul", "sub", "cond_relu"] if fold else ["add", "mul", "sub", "relu", "conditional"]
    want = [f"{kernels} nodes, {kernels - 1} edges"] + [
        f"  [{i}] KERNEL:{name}" + (f"  <- {i - 1}" if i else "") for i, name in enumerate(names)]
    assert info["body"].splitlines() == want
    assert info["kind"] == ("WHILE folded" if fold else "WHILE") and info["fold"] is fold
    assert info["parent"].splitlines()[1:] == ["  [0] MEMSET", "  [1] CONDITIONAL  <- 0"]


def test_folded_launch_is_relu_with_the_handle_state_and_limit(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import WHILE_FOLD_KERNEL, conditional_graphs

    with Device(0) as dev, Chain(dev, n=1000) as chain:
        kit = conditional_graphs(chain)
        launches = kit.folded_launches(0xABC, 17)
        assert launches[:3] == chain.launches[:3]
        fold, relu = launches[-1], chain.launches[-1]
        assert fold.kernel is kit.kernels[WHILE_FOLD_KERNEL] and fold.config == relu.config
        assert fold.args.signature == ("ptr", "ptr", "u64", "u64", "ptr", "u64")
        out, src, n = relu.args._keep
        assert fold.args._keep == [out, src, n, 0xABC, kit.state, 17]
        assert out is chain.out and n == 1000


def test_folding_needs_a_chain_ending_in_relu(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.conditional import conditional_graphs

    with Device(0) as dev, Chain(dev, ("add", "mul", "sub"), n=512) as chain:
        kit = conditional_graphs(chain)
        with pytest.raises(InvalidArgumentError, match="ending in relu"):
            kit.build_while(3, fold=True)
        graph, _info = kit.build_while(3)  # the separate decision still works
        graph.close()


@pytest.mark.parametrize("with_headers", [True, False])
def test_cond_relu_compiles_with_and_without_the_cuda_headers(with_headers):
    from cugraphlab.core.program import compile_source
    from cugraphlab.graphs.conditional import conditional_options

    options = conditional_options() if with_headers else ()
    if with_headers and not options:
        pytest.skip("no CUDA include folder matching this NVRTC")
    src = (ROOT / "kernels" / "cond_relu.cu").read_text()
    headers = {p.name: p.read_text() for p in (ROOT / "kernels").glob("*.cuh")}
    c = compile_source(src, "cond_relu", arch="sm_90", kind="ptx", headers=headers, options=options)
    ptx = c.image.decode() if isinstance(c.image, bytes) else str(c.image)
    assert ".entry cond_relu" in ptx and "cudaGraphSetConditional" in ptx
    # the relu is the chain's: the same comparison with zero (NaN and -0.0 to +0.0), the float4 main loop
    assert "ld.global.v4.f32" in ptx or "ld.global.nc.v4.f32" in ptx


def test_measure_while_checks_unroll_before_the_gpu():  # raised before a Device is opened
    from cugraphlab.bench.graphs.conditional import measure_while
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="unroll"):
        measure_while(0, iters=100, unroll=7)
    with pytest.raises(InvalidArgumentError, match="unroll"):
        measure_while(0, iters=100, unroll=-1)
