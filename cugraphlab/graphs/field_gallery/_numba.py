"""The numba-cuda cases' kernel: out[i] = 2 * x[i], over CuPy arrays of fresh random floats."""
from __future__ import annotations

import numpy as np

from cugraphlab.graphs.field_gallery._field import inputs


def doubling(cuda, cupy, n: int = 4096):
    """``(double, xh, x, out, dx, dout)``: the jitted kernel, the host inputs, the CuPy input and output and their
    numba views (``x`` is returned so that the input outlives its view)."""

    @cuda.jit
    def double(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * np.float32(2)

    xh = inputs(n)
    x, out = cupy.asarray(xh), cupy.empty(n, dtype=cupy.float32)
    return double, xh, x, out, cuda.as_cuda_array(x), cuda.as_cuda_array(out)
