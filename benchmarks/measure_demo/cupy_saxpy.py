"""A user's CuPy work, measured by cugraphlab: out = a * x + y in two CuPy ufuncs with out= (no allocation).

    cugraphlab measure benchmarks/measure_demo/cupy_saxpy.py:step --setup make --prepare refill --check verify \\
        --stream cupy

``make(stream)`` runs once and returns the state every other function gets; ``step(stream, state)`` is the work
(one call), enqueued on the CuPy stream it is given; ``refill`` draws fresh random inputs and poisons the output
before each way's checked call; ``verify`` compares with NumPy bit for bit."""
from __future__ import annotations

import numpy as np

N = 1 << 20
POISON = 0x7FC0DEAD  # a NaN: an element never written cannot pass


class State:
    def __init__(self, cp):
        self.cp = cp
        self.rng = np.random.default_rng()
        self.a = np.float32(self.rng.uniform(0.5, 4.0))
        self.x, self.y, self.tmp, self.out = (cp.empty(N, dtype=cp.float32) for _ in range(4))
        self.expected = None


def make(stream):
    import cupy as cp

    state = State(cp)
    refill(state)
    return state


def step(stream, s):
    with stream:  # CuPy launches on its current stream: make it the one measure gives
        s.cp.multiply(s.x, s.a, out=s.tmp)
        s.cp.add(s.tmp, s.y, out=s.out)


def refill(s):
    hx = s.rng.standard_normal(N, dtype=np.float32)
    hy = s.rng.standard_normal(N, dtype=np.float32)
    s.x.set(hx)
    s.y.set(hy)
    s.out.view(s.cp.uint32).fill(POISON)
    s.cp.cuda.Device().synchronize()  # CuPy's default stream is not the measured one: finish here
    s.expected = s.a * hx + hy  # NumPy float32: one rounding after *, one after +


def verify(s):
    got = s.cp.asnumpy(s.out)
    bad = np.count_nonzero(got.view(np.uint32) != s.expected.view(np.uint32))
    assert bad == 0, f"{bad:,} of {N:,} elements differ from NumPy"
