"""The test suite benchmarks/plugin_false_alarms.py runs again and again with the cugraphlab pytest plugin: three
tests of a small saxpy launch (1,024 floats: the host's cost, not the GPU's), measured by the ``cgl_measure``
fixture. ``test_delayed`` spins for ``CGL_DELAY_US`` µs (default 0) after each launch: the change a comparison must
catch. Every function the fixture is given is top-level: the plugin's worker processes import this file by path."""
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
        self.rng = np.random.default_rng()
        self.x, self.y, self.out = dev.array(N), dev.array(N), dev.array(N)
        self.a = np.float32(2.0)
        self.stream = stream
        self.launch = self.module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"),
                                                          (self.out, self.x, self.y, self.a, N), (4, 256), stream)
        refill(self)


def make(stream):
    return Saxpy(stream)


def step(stream, s):
    s.launch()


def step_delayed(stream, s):
    s.launch()
    if DELAY_NS:
        t0 = time.perf_counter_ns()
        while time.perf_counter_ns() - t0 < DELAY_NS:
            pass


def refill(s):
    hx = s.rng.standard_normal(N, dtype=np.float32)
    hy = s.rng.standard_normal(N, dtype=np.float32)
    s.x.copy_from(hx, s.stream)
    s.y.copy_from(hy, s.stream)
    s.out.poison(s.stream)
    s.expected = s.a * hx + hy


def verify(s):
    got = s.out.to_numpy(stream=s.stream)
    assert np.array_equal(got.view(np.uint32), s.expected.view(np.uint32)), "saxpy differs from NumPy"


def test_eager(cgl_measure):
    r = cgl_measure(step, setup=make, prepare=refill, check=verify, ways=("eager",))
    assert r.verified


def test_eager_and_graph(cgl_measure):
    r = cgl_measure(step, setup=make, ways=("eager", "graph"))
    assert r["graph"].measured, r["graph"].note


def test_delayed(cgl_measure):
    cgl_measure(step_delayed, setup=make, ways=("eager",))
