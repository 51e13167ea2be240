"""The whole scaling sweep on a fake driver that keeps graphs and plays the hold kernel (no GPU needed): every point
is measured, counted and checked, the hold is engaged and released each time, and the record holds what the
report and ``cugraphlab diff`` read."""
from __future__ import annotations

import ctypes
import json
import shutil

import pytest

from cugraphlab.core.module import Kernel

NAMES = ("empty", "add", "mul", "sub", "relu", "fused", "hold", "stamp")


class FakeKernels(dict):
    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def _arg0(params) -> int:
    """The first kernel argument (an 8-byte slot) of a cuLaunchKernel kernelParams address."""
    slot = ctypes.cast(int(params), ctypes.POINTER(ctypes.c_void_p))[0]
    return ctypes.c_uint64.from_address(slot).value


@pytest.fixture
def sim(monkeypatch):
    from graph_fake import GraphFakeDriver

    class HoldingFake(GraphFakeDriver):
        """Plays kernels/hold.cu: started at once, released when the host sets the flag (seen at the next sync);
        the stamp lands 1 µs per queued graph launch after the release."""

        def __init__(self):
            super().__init__()
            self.kernels = FakeKernels({n: Kernel(None, n, 0x7000 + i) for i, n in enumerate(NAMES)})
            self.holds = 0
            self.releases = 0
            self.ctl = None
            self.queued = 0
            self.clock = 10_000

        def on_launch_hook(self, func, stream, params):
            if func == self.kernels["hold"].handle:
                assert self.ctl is None, "a second hold while one is engaged"
                self.ctl = (ctypes.c_uint64 * 8).from_address(_arg0(params))
                self.ctl[1], self.ctl[2] = 1, self.clock
                self.holds += 1
                self.queued = 0
            elif func == self.kernels["stamp"].handle and self.ctl is not None:
                self.stamp_pending = True

        def cuGraphLaunch(self, exe, stream):
            if self.ctl is not None:
                self.queued += 1
            return super().cuGraphLaunch(exe, stream)

        def cuStreamSynchronize(self, h):
            if self.ctl is not None:
                assert self.ctl[0] == 1, "synchronized a held stream before releasing it: a deadlock on a GPU"
                self.clock += 1000
                self.ctl[3] = self.clock
                self.ctl[5] = self.clock + 1000 * self.queued
                self.ctl[4] = 0
                self.ctl = None
                self.releases += 1
            return super().cuStreamSynchronize(h)

    fake = HoldingFake()
    fake.on_launch = fake.on_launch_hook
    monkeypatch.setattr("cugraphlab.core._calls._driver", fake)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)
    monkeypatch.setattr("cugraphlab.core.device.Device.load_kernels", lambda self, names=None, **kw: fake.kernels)
    monkeypatch.setattr("cugraphlab.bench.environment.driver_release", lambda: "999.99")
    return fake


@pytest.mark.parametrize("work", ["empty", "chain"])
def test_a_small_sweep_measures_counts_and_releases_every_hold(sim, work):
    from cugraphlab.bench.scaling import KEPT_SAMPLES, ScalingResult, make_plan, measure_scaling
    from cugraphlab.report.scaling import csv_rows, render_scaling

    plan = make_plan([1, 4, 16], [1, 2], work=work, repeats=3, budget_s=0.5)
    lines = []
    # no native floor here: its C loop would call the real driver with the fake's handles
    result = measure_scaling(0, plan, seed=5, progress=lines.append, native_floor=None)
    assert len(result.points) == len(plan.shapes) == 3 + 3 + 2 and len(lines) == len(plan.shapes)
    assert sim.holds == sim.releases > 0 and sim.ctl is None
    k = 1 if work == "empty" else 4
    for p, shape in zip(result.points, plan.shapes):
        assert p["nodes"] == shape.nodes(k)
        assert p["structure"]["capture"] == p["structure"]["explicit"] == [shape.nodes(k), shape.edges(k)]
        assert p["held"]["held_released"] and p["held"]["held_timed_out"] == 0
        s = p["summaries"]
        assert s["held_launch_us"]["n"] >= 3 and s["instantiate_us"]["n"] >= 3
        # the fake's stamp lands 1 µs per queued launch after the release: the device figure is read right
        assert s["device_us"]["median"] == pytest.approx(1.0)
        for cost in ("capture_us", "instantiate_us", "held_launch_us", "eager_us_per_iter"):
            label = f"{p['series']}:L{p['length']}:{cost}"
            assert len(result.samples[label]["values"]) == min(s[cost]["n"], KEPT_SAMPLES)
    # the fake compares nothing for chain work (its kernels do not run): bits are the GPU test's job
    assert all(p["ok"] == (p["verified"] is not False) for p in result.points)
    d = json.loads(json.dumps(result.to_dict()))
    assert d["kind"] == "cugraphlab.scaling" and ScalingResult.check(d)
    assert set(d["fits"]) >= {"capture_us", "instantiate_us", "held_launch_us"}
    assert "line" in d["fits"]["instantiate_us"] and "forkjoin:w2" in d["fits"]["instantiate_us"]
    assert d["verdict"]["held_launch_us"]["line"]["text"]
    assert d["module_loading"]["effective"]
    assert d["goals"]["instantiate_vs_native"]["met"] is None  # no native floor measured
    assert d["config"]["kept_samples"] == KEPT_SAMPLES
    text = render_scaling(d)
    assert "straight line" in text and "fork/join, 2 branches" in text and "break-even" in text
    assert len(csv_rows(d)) == len(plan.shapes)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_the_native_floor_runs_its_c_loops_behind_the_same_hold(sim, tmp_path):
    """The hook's C loops on fake entry points: a C instantiation per fresh capture of each line (its time grows
    2 µs a node here), fitted per node; the C launch loop queued behind the hold for the lines of 4..128 nodes."""
    from native_graph_fakes import FakeEntry

    from cugraphlab.bench.scaling import NATIVE_REPEATS, _held_batch, make_plan, measure_scaling, native_floor_hook
    from cugraphlab.core.cache import Cache

    fake = FakeEntry(us_for=lambda graph: 2.0 * len(sim.graphs[graph]["nodes"]))
    plan = make_plan([1, 4, 16, 64, 256], [2], repeats=3, budget_s=0.5)

    def floor(workload, hold, shapes):
        return native_floor_hook(workload, hold, shapes, entry=fake.entry, cache=Cache(tmp_path))

    holds = sim.holds
    r = measure_scaling(0, plan, seed=1, native_floor=floor)
    n = r.native
    assert "unavailable" not in n, n
    line_nodes = [1, 4, 16, 64, 256]
    assert len(fake.instantiated) == len(line_nodes) * (NATIVE_REPEATS + 1)  # fork/join shapes are not used
    assert len(fake.destroyed) == len(fake.instantiated)
    assert sorted(map(int, n["instantiate_us"])) == line_nodes
    assert n["instantiate_us_per_node"] == pytest.approx(2.0, rel=0.3)
    # C launches only for 4, 16 and 64 nodes (the goal's range), K per hold, every hold released
    k = {m: _held_batch(m) for m in (4, 16, 64)}
    assert sorted(map(int, n["launch_us_by_nodes"])) == [4, 16, 64]
    assert len(fake.launched) == sum(k[m] * (NATIVE_REPEATS + 1) for m in k)
    assert sim.holds == sim.releases and sim.ctl is None and sim.holds > holds
    assert 0 < n["launch_us"] < 1000 and n["launch_at_nodes"] in k
    g = r.goals
    assert g["instantiate_vs_native"]["native_us_per_node"] == n["instantiate_us_per_node"]
    assert g["instantiate_vs_native"]["met"] in (True, False) and g["launch"]["native_launch_us"] == n["launch_us"]
    assert "c_monotonic" in r.clocks


def test_without_a_driver_library_the_native_floor_says_why(sim, monkeypatch):
    from cugraphlab.bench import native
    from cugraphlab.bench.scaling import make_plan, measure_scaling
    from cugraphlab.core.errors import NoDeviceError

    def no_libcuda(names=()):
        raise NoDeviceError("libcuda.so.1 is not loadable (test)")

    monkeypatch.setattr(native, "driver_entry_points", no_libcuda)
    monkeypatch.setattr("cugraphlab.bench.native_graph.driver_entry_points", no_libcuda)
    r = measure_scaling(0, make_plan([1, 4], [1], repeats=3, budget_s=0.2))
    assert r.native["unavailable"].startswith("NoDeviceError: libcuda.so.1 is not loadable")
    note = r.goals["instantiate_vs_native"]["note"]
    assert r.goals["instantiate_vs_native"]["met"] is None and "libcuda.so.1" in note
    assert "c_monotonic" not in r.clocks
