"""ChainBuffers, the checks every chain variant shares, on host arrays standing in for device buffers: fresh
inputs that are not zeros, each output poisoned once, the NumPy reference once per inputs, and a comparison that
fails on an element left unwritten (the poison) or computed wrong."""
from __future__ import annotations

import numpy as np

from cugraphlab.core.memory import POISON_BITS
from cugraphlab.experiment.chain import Chain
from cugraphlab.experiment.chain_buffers import ChainBuffers, random_inputs
from cugraphlab.experiment.cold_l2 import _Set
from cugraphlab.experiment.memchain import MemChain
from cugraphlab.experiment.ops import reference


class HostArray:
    """A device buffer's face (copy_from, poison, to_numpy) over a NumPy array; counts its poisonings."""

    def __init__(self, n: int):
        self.data = np.zeros(n, np.float32)
        self.poisoned = 0

    def copy_from(self, a, stream=None):
        self.data[:] = a

    def poison(self, stream=None):
        self.data.view(np.uint32)[:] = POISON_BITS
        self.poisoned += 1

    def to_numpy(self, stream=None):
        return self.data.copy()


class TwoOps(ChainBuffers):
    """A variant whose two ops share one output buffer (as a pingpong chain's do)."""

    def __init__(self, n: int, seed: int):
        self.ops, self.n, self.scalar = ("add", "mul", "sub", "relu"), n, 2.0
        self.rng, self.stream = np.random.default_rng(seed), None
        self.x, self.y, self.out = HostArray(n), HostArray(n), HostArray(n)

    def output_buffers(self):
        return (self.out, self.out)

    def run(self, *, skip: int | None = None, wrong: int | None = None):
        """The chain on the host, into ``out``; ``skip`` leaves one element unwritten, ``wrong`` changes one."""
        result = reference(self.ops, self.x.data, self.y.data, self.scalar)
        keep = self.out.data.copy()
        self.out.data[:] = result
        if skip is not None:
            self.out.data[skip] = keep[skip]
        if wrong is not None:
            self.out.data[wrong] = np.nextafter(result[wrong], np.float32(np.inf))


def test_fresh_inputs_are_random_float32_and_never_zeros():
    x, y = random_inputs(np.random.default_rng(1), 4096)
    assert x.dtype == y.dtype == np.float32 and x.shape == y.shape == (4096,)
    assert np.count_nonzero(x) == 4096 and not np.array_equal(x, y) and 0.2 < (x > 0).mean() < 0.8


def test_a_checked_run_passes_and_an_unwritten_or_wrong_element_fails():
    v = TwoOps(10_000, seed=7)
    v.prepare()
    assert v.out.poisoned == 1  # one buffer two ops share: poisoned once
    assert np.array_equal(v.x.data, v.x_host) and np.count_nonzero(v.x_host) == v.n
    v.run()
    ok = v.compare("host", v.out.to_numpy())
    assert ok.mismatches == 0 and ok.ok
    v.prepare()
    v.run(skip=1234)
    bad = v.compare("host", v.out.to_numpy())
    assert bad.mismatches == 1 and bad.first_bad == 1234 and np.isnan(bad.got)
    v.prepare()
    v.run(wrong=5)
    assert v.compare("host", v.out.to_numpy()).mismatches == 1


def test_the_reference_is_computed_once_per_set_of_inputs():
    v = TwoOps(256, seed=3)
    v.randomize()
    first = v.expected()
    assert v.expected() is first
    x, _ = v.randomize()
    assert v.expected() is not first and np.array_equal(v.expected(), reference(v.ops, x, v.y_host, 2.0))
    v.set_inputs(np.arange(256, dtype=np.float64) - 100, np.ones(256))  # any array: kept as float32
    assert v.x_host.dtype == np.float32 and v.expected()[0] == 0.0 and v.expected()[-1] == 2 * (155 + 1) - 1


def test_the_variants_that_own_buffers_share_the_base():
    for cls in (Chain, MemChain, _Set):
        assert issubclass(cls, ChainBuffers)
        assert "randomize" not in vars(cls) and "poison" not in vars(cls) and "expected" not in vars(cls)
