"""The chain on a real GPU: every mode bit-exact against NumPy on fresh random inputs with poisoned outputs."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab import Chain, InvalidArgumentError, reference
from cugraphlab.core.memory import POISON_BITS

pytestmark = pytest.mark.gpu

SIZES = [1, 3, 4, 5, 1023, 1024, (1 << 20) + 5]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("mode", ["eager", "graph", "fused"])
def test_mode_is_bit_exact(device, kernels, n, mode):
    with Chain(device, n=n, kernels=kernels) as chain:
        for _ in range(2):  # two draws of fresh inputs: a stale result from the first cannot pass the second
            v = chain.verify(mode)
            assert v.ok, str(v)


@pytest.mark.parametrize("ops", ["relu", "mul,mul,sub", "sub,relu,add,mul,relu,add"])
def test_other_chains_and_their_fused_kernel(device, ops):
    with Chain(device, ops, n=4097, scalar=-0.75) as chain:
        for mode in ("eager", "graph", "fused"):
            v = chain.verify(mode, iters=3)
            assert v.ok, str(v)


def test_poison_is_really_there_before_a_run(device, kernels):
    with Chain(device, n=1000, kernels=kernels) as chain:
        chain.poison()
        assert (chain.out.to_numpy().view(np.uint32) == POISON_BITS).all()
        chain.run("graph", 1)
        assert not np.isnan(chain.result("graph")).any()


def test_many_iterations_leave_the_same_result(device, kernels):
    with Chain(device, n=(1 << 16) + 3, kernels=kernels) as chain:
        chain.randomize()
        chain.poison()
        chain.run("eager", 50)
        chain.run("graph", 50)
        assert chain.check_result("graph").ok


def test_unrolled_graph_is_bit_exact_and_has_k_copies(device, kernels):
    with Chain(device, n=3000, kernels=kernels) as chain:
        chain.randomize()
        chain.poison()
        chain.run("graph", 10, unroll=5)
        assert chain.check_result("graph").ok
        g = chain.capture(5)
        try:
            assert g.node_count == 20
        finally:
            g.close()


def test_device_array_round_trip_and_cuda_array_interface(device, rng):
    a = rng.standard_normal(12345, dtype=np.float32)
    with device.to_device(a) as d:
        assert np.array_equal(d.to_numpy(), a)
        cai = d.__cuda_array_interface__
        assert cai["shape"] == (12345,) and cai["typestr"] == "<f4" and cai["data"][0] == d.ptr


def test_cupy_sees_the_same_memory(device, rng):
    cp = pytest.importorskip("cupy")
    a = rng.standard_normal(1000, dtype=np.float32)
    with device.to_device(a) as d:
        view = cp.asarray(d)
        assert np.array_equal(cp.asnumpy(view), a)


def test_reference_matches_a_hand_written_chain(rng):
    x = rng.standard_normal(10, dtype=np.float32)
    y = rng.standard_normal(10, dtype=np.float32)
    t = np.maximum((x + y) * np.float32(2) - y, 0)
    assert np.array_equal(reference("add,mul,sub,relu", x, y, 2.0), t)


@pytest.mark.parametrize("kwargs", [dict(n=0), dict(n=-1), dict(ops="add,nope"), dict(ops=""),
                                    dict(scalar=float("inf"))])
def test_bad_input_is_one_error_and_the_context_stays_usable(device, kernels, kwargs):
    free_before = device.memory_info()[0]
    with pytest.raises(InvalidArgumentError):
        Chain(device, kernels=kernels, **{"n": 100, **kwargs})
    with Chain(device, n=100, kernels=kernels) as chain:  # still works afterwards
        assert chain.verify("graph").ok
    assert abs(device.memory_info()[0] - free_before) < 64 << 20
