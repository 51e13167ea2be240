"""The host-bound work of benchmarks/ci_recipe.py: a saxpy launch on 1,024 floats (the host's cost, ~4-5 µs per
call on an H200), measured from the command line as ``work.py:step --setup make``. With ``CGL_DELAY_US=1`` in the
environment each call spins 1 µs after the launch: the change the CI recipe must catch. The same function name
with and without the delay, so that both records have one configuration. Top-level functions only: each of
``measure --processes``' processes imports this file by path."""
import os
import time
from pathlib import Path

import numpy as np

SAXPY = Path(__file__).resolve().parents[1] / "measure_demo" / "saxpy.cu"
N = 1024
DELAY_NS = int(float(os.environ.get("CGL_DELAY_US", "0")) * 1000)


class Saxpy:
    def __init__(self, stream):
        import cugraphlab as cgl
        from cugraphlab.core.program import resolve_arch

        dev = stream.device
        arch, kind = resolve_arch(None, dev.compute_capability)
        self.module = dev.load_module(cgl.compile_source(SAXPY.read_text(), "saxpy", arch=arch, kind=kind).image)
        rng = np.random.default_rng()
        self.x, self.y, self.out = dev.array(N), dev.array(N), dev.array(N)
        self.x.copy_from(rng.standard_normal(N, dtype=np.float32), stream)
        self.y.copy_from(rng.standard_normal(N, dtype=np.float32), stream)
        self.launch = self.module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"),
                                                          (self.out, self.x, self.y, np.float32(2.0), N),
                                                          (4, 256), stream)


def make(stream):
    return Saxpy(stream)


def step(stream, s):
    s.launch()
    if DELAY_NS:
        t0 = time.perf_counter_ns()
        while time.perf_counter_ns() - t0 < DELAY_NS:
            pass
