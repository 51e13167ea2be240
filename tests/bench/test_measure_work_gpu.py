"""On the GPU: a user's saxpy from a .cu file and a user's CuPy callable measured eager / graph (/ native / floor),
each way bit-checked through check= against NumPy on fresh random inputs with the output poisoned first; from
Python, from the command line and in worker processes. No test compares two timings (speed goals live in
benchmarks/measure_overhead.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cugraphlab.bench.measure.way import REFERENCES

pytestmark = pytest.mark.gpu

DEMO = Path(__file__).resolve().parents[2] / "benchmarks" / "measure_demo"
N = 1 << 20
QUICK = dict(time_budget_s=1.0, max_samples=30)


class Saxpy:
    """saxpy.cu compiled and prepared on ``stream``; prepare() = fresh inputs + poisoned out, check() = bit-exact."""

    def __init__(self, dev, stream, n: int = N):
        import cugraphlab as cgl
        from cugraphlab.core.program import resolve_arch

        arch, kind = resolve_arch(None, dev.compute_capability)
        compiled = cgl.compile_source((DEMO / "saxpy.cu").read_text(), "saxpy", arch=arch, kind=kind)
        self.module = dev.load_module(compiled.image)
        self.n, self.stream, self.rng = n, stream, np.random.default_rng()
        self.x, self.y, self.out = dev.array(n), dev.array(n), dev.array(n)
        self.a = np.float32(self.rng.uniform(0.5, 4.0))
        self.launch = self.module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"),
                                                          (self.out, self.x, self.y, self.a, n),
                                                          (cgl.grid_for(n, 256, dev.sm_count), 256), stream)
        self.prepared = self.checked = 0
        self.prepare()

    def prepare(self):
        hx = self.rng.standard_normal(self.n, dtype=np.float32)
        hy = self.rng.standard_normal(self.n, dtype=np.float32)
        self.x.copy_from(hx, self.stream)
        self.y.copy_from(hy, self.stream)
        self.out.poison(self.stream)
        self.expected = self.a * hx + hy
        self.prepared += 1

    def check(self):
        from cugraphlab import compare_bits

        self.checked += 1
        return compare_bits("saxpy", self.out.to_numpy(stream=self.stream), self.expected)

    def close(self):
        for a in (self.x, self.y, self.out, self.module):
            a.close()


def test_a_user_saxpy_is_measured_four_ways_and_each_way_is_bit_exact(device):
    import cugraphlab as cgl

    with device.create_stream() as s:
        k = Saxpy(device, s)
        try:
            r = cgl.measure(k.launch, check=k.check, prepare=k.prepare, **QUICK)
        finally:
            k.close()
    assert [w.way for w in r.ways] == ["eager", "graph", "native", "floor", "reference", "graph reference"]
    for w in r.ways:
        assert w.measured, w.note
        assert w.check == ("passed" if w.way not in REFERENCES else None), w.check
        assert w.host.median > 0 and w.device.median > 0
        assert (w.relative is None) == (w.way in REFERENCES)  # the references are what x ref divides by
    assert k.checked == 4 and k.prepared == 6 and r.verified is True  # prepare also runs once before timing
    assert r.graph_costs["nodes"] == 1 and r.break_even["setup_us"] > 0
    assert r.sm_clock["rounds"] > 0 and r.sm_clock["median_mhz"] > 0


def test_the_saxpy_cu_file_is_measured_from_the_command_line(tmp_path, capsys):
    from cugraphlab.cli import main

    record = tmp_path / "saxpy.json"
    code = main(["measure", str(DEMO / "saxpy.cu"), "--kernel", "saxpy", "--size", "2^20", "--args",
                 "out,x,y,2.0,n", "--check", f"{DEMO}/saxpy_check.py:check", "--time-budget", "1",
                 "--json", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    d = json.loads(record.read_text())
    assert d["verified"] is True and [w["check"] for w in d["ways"]] == ["passed"] * 4 + [None, None]


def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # pragma: no cover - a CuPy for another CUDA major
        pytest.skip(f"CuPy cannot reach the GPU here: {e}")
    return cp


@pytest.mark.parametrize("stream_kind", ["cupy", "object"])
def test_a_cupy_callable_is_measured_eager_and_as_a_graph_bit_exact(device, stream_kind):
    cp = _cupy()
    import sys

    import cugraphlab as cgl

    sys.path.insert(0, str(DEMO))
    try:
        import cupy_saxpy as demo
    finally:
        sys.path.remove(str(DEMO))
    stream = "cupy" if stream_kind == "cupy" else cp.cuda.Stream(non_blocking=True)
    r = cgl.measure(demo.step, setup=demo.make, prepare=demo.refill, check=demo.verify, stream=stream,
                    device=device, **QUICK)
    assert [w.way for w in r.ways] == ["eager", "graph", "reference", "graph reference"]
    assert r["graph"].measured, r["graph"].note
    assert [w.check for w in r.ways] == ["passed", "passed", None, None]
    assert r.graph_costs["nodes"] == 2  # two CuPy kernels per call


def test_the_cupy_file_is_measured_from_the_command_line_in_two_processes(tmp_path, capsys):
    _cupy()
    from cugraphlab.cli import main

    record = tmp_path / "cupy.json"
    code = main(["measure", f"{DEMO}/cupy_saxpy.py:step", "--setup", "make", "--prepare", "refill", "--check",
                 "verify", "--stream", "cupy", "--processes", "2", "--time-budget", "1", "--json", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    d = json.loads(record.read_text())
    assert d["processes"] == 2 and d["verified"] is True
    assert set(d["samples"]["eager: wall"]["groups"]) == {0, 1}


def test_a_capture_broken_by_a_sync_is_diagnosed_and_a_callable_on_another_stream_refused(device):
    import cugraphlab as cgl
    from cugraphlab.bench.measure import StreamIgnoredError

    with device.create_stream() as s, device.create_stream() as other:
        k = Saxpy(device, s, n=4096)
        try:
            def syncs(stream):
                k.launch()
                stream.synchronize()

            r = cgl.measure(syncs, stream=s, **QUICK)
            assert r["eager"].measured and not r["graph"].measured
            assert r["graph"].diagnosis["findings"][0]["kind"] == "sync"
            elsewhere = cgl.Launch(k.launch.kernel, k.launch.args, k.launch.config, other)
            with pytest.raises(StreamIgnoredError):
                cgl.measure(lambda stream: elsewhere(), stream=s, **QUICK)
        finally:
            k.close()
