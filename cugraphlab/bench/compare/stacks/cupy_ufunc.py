"""CuPy ufuncs: ``cp.add(x, y, out=...)``, ``cp.multiply``, ``cp.subtract``, relu as ``cp.maximum(t, 0)``.

CuPy's own elementwise kernels (compiled by CuPy on first use), one ufunc call (one kernel) per op into
preallocated outputs, float32 scalars so each ufunc picks its float32 loop. Their device time is shown because the
kernels are not ours. relu as ``maximum`` differs from ``t > 0 ? t : 0`` only for NaN and -0.0, which these
inputs never produce before relu (finite normals, scalar 2.0), so the rows are checked bit-exactly like the others.
Graph: ``Stream.begin_capture`` / ``end_capture`` (``CupyData.capture``).
"""
from __future__ import annotations

import numpy as np

from ..way import Stack
from .cupy_raw import CupyData, cupy_versions, load_cupy

__all__ = ["open_stack", "CupyUfuncWay"]


class CupyUfuncWay(CupyData):
    way = "ufuncs with out="
    same_cubin = False

    def __init__(self, cp, n, ops, scalar):
        super().__init__(cp, n, ops, scalar)
        s, zero = np.float32(scalar), np.float32(0)
        fns = {"add": cp.add, "mul": cp.multiply, "sub": cp.subtract, "relu": cp.maximum}
        steps, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            second = self.y if name in ("add", "sub") else (s if name == "mul" else zero)
            steps.append((fns[name], src, second, dst))
            src = dst
        self.steps = tuple(steps)
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "no one-kernel form without writing a kernel (cupy.fuse/ElementwiseKernel "
                                     "are other ways)"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        add, x, y, out = self.cp.add, self.x, self.y, self.outs[0]
        with self.stream:
            for _ in range(k):
                add(x, y, out=out)

    def _iteration(self):
        for f, a, b, out in self.steps:
            f(a, b, out=out)

    def _run_eager(self, k):
        steps = self.steps
        with self.stream:
            for _ in range(k):
                for f, a, b, out in steps:
                    f(a, b, out=out)

    def prepare(self, mode):
        if mode == "graph":
            self.capture(self._iteration)


class _CupyUfuncStack(Stack):
    name = "cupy_ufunc"

    def __init__(self, cp):
        self.cp = cp
        self.versions = cupy_versions(cp)

    def ways(self, n, ops, scalar):
        return [CupyUfuncWay(self.cp, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _CupyUfuncStack:
    """CuPy's ufuncs on device ``device``."""
    return _CupyUfuncStack(load_cupy(device))
