"""The chain in CuPy and PyTorch, and the comparison run, on a real GPU: every way bit-exact against NumPy.

Inputs are fresh standard-normal draws and outputs are NaN-poisoned before each run, so an element a library did
not write, or wrote on a stale input, cannot pass. The CuPy / PyTorch parts skip where those are not installed.
"""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from cugraphlab.bench.compare import WAYS, CompareResult, compare
from cugraphlab.bench.ways import CupyChain, TorchChain
from cugraphlab.bench.copy_roof import copy_bandwidth
from cugraphlab.experiment.ops import compare_bits, reference
from cugraphlab.core.memory import POISON_BITS
from cugraphlab.report.files import to_jsonable
from cugraphlab.report.compare import render_baseline_rows, render_compare

pytestmark = pytest.mark.gpu

SIZES = [1, 5, 1000, (1 << 20) + 5]
# non-negative scalars: from finite inputs the chain then never makes -0.0 or NaN before relu (see baselines.py)
CHAINS = [("add,mul,sub,relu", 2.0), ("relu", 2.0), ("sub,relu,add,mul,relu,add", 0.75), ("mul,mul,sub", 3.5)]


def _cupy():
    return pytest.importorskip("cupy")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def _check_both_modes(owner, ops, scalar, n, rng):
    for mode in ("eager", "graph"):
        for _ in range(2):  # two draws: a result left from the first cannot pass the second
            x = rng.standard_normal(n, dtype=np.float32)
            y = rng.standard_normal(n, dtype=np.float32)
            owner.set_inputs(x, y)
            owner.poison()
            assert (owner.result().view(np.uint32) == POISON_BITS).all()
            owner.run(mode, 3)
            v = compare_bits(f"{owner.library} {mode}", owner.result(), reference(ops, x, y, scalar))
            assert v.ok, str(v)


@pytest.mark.parametrize("n", SIZES)
def test_cupy_chain_is_bit_exact(device, n, rng):
    cp = _cupy()
    owner = CupyChain(cp, device.ordinal, n=n)
    try:
        _check_both_modes(owner, owner.ops, 2.0, n, rng)
    finally:
        owner.close()
        device.make_current()


@pytest.mark.parametrize("ops,scalar", CHAINS)
def test_cupy_other_chains(device, ops, scalar, rng):
    cp = _cupy()
    owner = CupyChain(cp, device.ordinal, ops, 4097, scalar)
    try:
        _check_both_modes(owner, owner.ops, scalar, 4097, rng)
    finally:
        owner.close()
        device.make_current()


@pytest.mark.parametrize("n", SIZES)
def test_torch_chain_is_bit_exact(device, n, rng):
    torch = _torch()
    owner = TorchChain(torch, device.ordinal, n=n)
    try:
        _check_both_modes(owner, owner.ops, 2.0, n, rng)
    finally:
        owner.close()
        device.make_current()


@pytest.mark.parametrize("ops,scalar", CHAINS)
def test_torch_other_chains(device, ops, scalar, rng):
    torch = _torch()
    owner = TorchChain(torch, device.ordinal, ops, 4097, scalar)
    try:
        _check_both_modes(owner, owner.ops, scalar, 4097, rng)
    finally:
        owner.close()
        device.make_current()


def test_timed_loops_give_positive_times(device, rng):
    cp = _cupy()
    owner = CupyChain(cp, device.ordinal, n=1000)
    try:
        for mode in ("eager", "graph"):
            wall, dev_us = owner.timed(mode, 20)
            assert wall > 0 and dev_us > 0
    finally:
        owner.close()
        device.make_current()


def test_copy_bandwidth(device):
    bw = copy_bandwidth(device, 16 << 20, samples=3, copies=4)
    assert bw.nbytes == 16 << 20 and bw.gbps.n == 3 and bw.gbps.median > 0
    assert json.dumps(bw.to_dict())


def test_compare_returns_complete_rows(device):
    res = compare(1000, iters=20, repeats=2, device=device.ordinal, seed=1)
    device.make_current()
    assert isinstance(res, CompareResult) and res.sizes == [1000]
    assert [(r.library, r.mode) for r in res.rows] == list(WAYS)
    for r in res.rows:
        assert r.size == 1000 and r.iters == 20
        if r.library == "cugraphlab":
            assert r.measured, r
        if not r.measured:
            assert r.note, r  # why it did not run
            continue
        assert r.verified is True and r.mismatches == 0, r
        for v in (r.us_per_iter, r.p5, r.p95, r.device_us_per_iter, r.device_p5, r.device_p95,
                  r.ratio_vs_cugraphlab_eager):
            assert v is not None and v > 0, r
        assert r.p5 <= r.us_per_iter <= r.p95
        assert r.kernels_per_iter == (1 if r.mode == "fused" else 4)
    assert res.row("cugraphlab", "eager").ratio_vs_cugraphlab_eager == 1.0
    assert res.ok and res.copy_gbps > 0 and res.copy["gbps"]["n"] == 2
    if importlib.util.find_spec("cupy") is not None:
        assert res.row("cupy", "graph").measured
    else:
        assert res.row("cupy", "graph").note == "not installed"
    d = json.loads(json.dumps(to_jsonable(res.to_dict())))
    assert d["env"]["gpu"]["name"] and "baselines" in d["env"]
    assert render_compare(CompareResult.from_dict(d)) == render_compare(res)
    assert "baselines at 1,000 floats" in render_baseline_rows(res)


def test_compare_two_sizes_and_a_subset(device):
    res = compare([3, 1000], iters=10, repeats=1, device=device.ordinal, libraries=("cugraphlab",))
    device.make_current()
    assert res.sizes == [3, 1000] and len(res.rows) == 6 and res.ok
    assert all(r.measured for r in res.rows)
