"""The whole scaling sweep on a fake driver that keeps graphs and plays the hold kernel (no GPU needed): every point
is measured, counted and checked, the hold is engaged and released each time, and the record holds what the
report and ``cugraphlab diff`` read."""
from __future__ import annotations

import ctypes
import json
import shutil
import statistics

import pytest

from cugraphlab.core.module import Kernel
from fake_driver import patch_driver
from scaling_goals import goals_of

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
    patch_driver(monkeypatch, fake)
    monkeypatch.setattr("cugraphlab.core.device.Device.load_kernels", lambda self, names=None, **kw: fake.kernels)
    monkeypatch.setattr("cugraphlab.bench.records.environment.driver_release", lambda: "999.99")
    return fake


@pytest.mark.parametrize("work", ["empty", "chain"])
def test_a_small_sweep_measures_counts_and_releases_every_hold(sim, work):
    from cugraphlab.bench.scaling.sweep import KEPT_SAMPLES, ScalingResult, make_plan, measure_scaling
    from cugraphlab.report.scaling import csv_rows, render_scaling

    plan = make_plan([1, 4, 16], [1, 2], work=work, repeats=3, budget_s=0.5, rounds=2)
    lines = []
    # no C loop here: it would call the real driver with the fake's handles
    result = measure_scaling(0, plan, seed=5, progress=lines.append, native=False)
    rounds = result.config["held"]["rounds"]
    assert rounds == 2 and len(lines) == 1 + len(plan.shapes) + rounds
    assert len(result.points) == len(plan.shapes) == 3 + 3 + 2
    assert sim.holds == sim.releases > 0 and sim.ctl is None
    k = 1 if work == "empty" else 4
    for p, shape in zip(result.points, plan.shapes):
        assert p["nodes"] == shape.nodes(k)
        assert p["structure"]["capture"] == p["structure"]["explicit"] == [shape.nodes(k), shape.edges(k)]
        assert p["held"]["held_released"] and p["held"]["held_timed_out"] == 0
        s = p["summaries"]
        # the held launches come in rounds: HELD_PAIRS a round, Python alone without the C loop
        assert s["held_launch_us"]["n"] == rounds * plan.held_pairs and s["instantiate_us"]["n"] >= 3
        assert p["paired"]["launch"]["group"] == sorted(p["paired"]["launch"]["group"])
        assert set(p["paired"]["launch"]["group"]) == {0, 1} and "instantiate" not in p["paired"]
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
    # the straight line's launch series against NVIDIA's model (from 4 nodes up), the driver's version read
    for cost in ("repeat_launch_api_us", "held_launch_us"):
        assert d["launch_model"]["series"][cost]["nodes_range"] == [4, 16 * k]  # the model's range starts at 4
    assert d["launch_model"]["driver"]["version_int"] == d["env"]["driver"]["version_int"]
    assert d["module_loading"]["effective"]
    assert goals_of(d)["instantiate_vs_native"]["met"] is None  # no C loop
    assert "native=False" in goals_of(d)["instantiate_vs_native"]["note"]
    assert goals_of(d)["launch"]["paired"] is False and goals_of(d)["launch"]["points"]
    assert d["config"]["kept_samples"] == KEPT_SAMPLES
    text = render_scaling(d)
    assert "straight line" in text and "fork/join, 2 branches" in text and "break-even" in text
    assert "graph launch against NVIDIA's model" in text and "repeat launch (API), path:" in text
    assert len(csv_rows(d)) == len(plan.shapes)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_python_and_c_are_paired_on_the_same_graph_and_hold(sim, tmp_path):
    """The C loops on fake entry points: each paired-instantiate sample instantiates its own capture from Python and
    from C twice (P C C P, then C P P C), the C time growing 2 µs a node here; each held visit is a Python hold and a
    C hold of K launches of the same executable, alternating which goes first."""
    from cugraphlab.bench.scaling.sweep import PAIR_MIN_SAMPLES, _held_batch, make_plan, measure_scaling
    from cugraphlab.core.cache import Cache
    from native_graph_fakes import FakeEntry

    fake = FakeEntry(us_for=lambda graph: 2.0 * len(sim.graphs[graph]["nodes"]))
    plan = make_plan([1, 4, 16, 64, 256], [2], repeats=3, budget_s=0.5, rounds=2)
    r = measure_scaling(0, plan, seed=1, native_entry=fake.entry, native_cache=Cache(tmp_path))
    assert "unavailable" not in r.native and "c_monotonic" in r.clocks
    eligible = [p for p in r.points if p["topology"] == "line" or 4 <= p["nodes"] <= 128]
    assert {p["nodes"] for p in eligible} == {1, 4, 16, 64, 256, 6, 18, 66}
    from cugraphlab.bench.scaling.paired import resolve_pairs

    samples = 0
    for p in r.points:
        inst = resolve_pairs(p["paired"].get("instantiate"), r.samples)
        assert bool(inst) == (p in eligible)
        if not inst:
            continue
        n = len(inst["python_us"])
        assert n == len(inst["c_us"]) == len(inst["group"]) and n >= 2 * PAIR_MIN_SAMPLES and n % 4 == 0
        assert inst["group"] == [g for g in range(n // 2) for _ in range(2)]
        assert inst["python_first"] == [int(g % 2 == 0 if i == 0 else g % 2 == 1) for g in range(n // 2) for i in (0, 1)]
        samples += n // 2 + 1  # and the warm-up sample
        assert statistics.median(inst["c_us"]) >= 2.0 * p["nodes"] * 0.9
        launch = resolve_pairs(p["paired"]["launch"], r.samples)
        assert len(launch["python_us"]) == len(launch["c_us"]) == 2 * plan.held_pairs
        assert sum(launch["python_first"]) == plan.held_pairs  # Python first in half the pairs
        assert "held_launch_c_us" in p["summaries"]
    assert len(fake.instantiated) == 2 * samples and len(fake.destroyed) == len(fake.instantiated)
    assert len(fake.launched) == sum(_held_batch(p["nodes"]) * 2 * plan.held_pairs for p in r.points)
    assert sim.holds == sim.releases and sim.ctl is None
    g = goals_of(r)["instantiate_vs_native"]
    assert g["paired"] and g["native_us_per_node"] == pytest.approx(2.0, rel=0.3)
    assert g["met"] in (True, False, None) and len(g["points"]) == len(eligible)
    assert goals_of(r)["launch"]["paired"] and [x["nodes"] for x in goals_of(r)["launch"]["points"]] == [4, 16, 64]
    assert r.paired["instantiate"]["slope"]["points"] == 5


def test_the_held_rounds_visit_every_point_in_another_order_each_round():
    """Round r starts at point r * n / rounds (a point takes every place once in n rounds); each visit alternates
    the first way."""
    from cugraphlab.bench.probes.hold import HeldSample
    from cugraphlab.bench.scaling.sweep import _Held, _held_rounds, make_plan

    class Exe:
        def __init__(self, h):
            self.handle = h

    class FakeHold:
        was_released = True

        def __init__(self):
            self.calls = []

        def time_graph_launches(self, h, k, loop=None):
            self.calls.append((h, "c" if loop else "python"))
            return HeldSample(1.0, 1.0, k, False)

    plan = make_plan([1, 2, 4, 8], [1], topologies="line", rounds=4, budget_s=100)
    states = [_Held(i, "line", s, s.length, None, Exe(i), object()) for i, s in enumerate(plan.shapes)]
    hold = FakeHold()
    facts = _held_rounds(states, hold, plan)
    assert facts["rounds"] == 4
    per_visit = 2 * plan.held_pairs
    visits = [hold.calls[i][0] for i in range(0, len(hold.calls), per_visit)]
    assert visits == [0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2]
    positions = {i: [visits[r * 4:(r + 1) * 4].index(i) for r in range(4)] for i in range(4)}
    assert all(sorted(v) == [0, 1, 2, 3] for v in positions.values())  # every place once: no order bias
    for st in states:
        assert len(st.python) == len(st.c) == 4 * plan.held_pairs
        assert sum(st.python_first) == 2 * plan.held_pairs
    first = [hold.calls[i][1] for i in range(0, per_visit, 2)]
    assert first == ["python", "c", "python"]  # point 0, round 0: pairs j = 0, 1, 2


def test_without_a_driver_library_the_native_floor_says_why(sim, monkeypatch):
    from cugraphlab.bench.native import loops as native
    from cugraphlab.bench.scaling.sweep import make_plan, measure_scaling
    from cugraphlab.core.errors import NoDeviceError

    def no_libcuda(names=()):
        raise NoDeviceError("libcuda.so.1 is not loadable (test)")

    monkeypatch.setattr(native, "driver_entry_points", no_libcuda)
    monkeypatch.setattr("cugraphlab.bench.native.instantiate.driver_entry_points", no_libcuda)
    r = measure_scaling(0, make_plan([1, 4], [1], repeats=3, budget_s=0.2))
    assert r.native["unavailable"].startswith("NoDeviceError: libcuda.so.1 is not loadable")
    note = goals_of(r)["instantiate_vs_native"]["note"]
    assert goals_of(r)["instantiate_vs_native"]["met"] is None and "libcuda.so.1" in note
    assert "c_monotonic" not in r.clocks
    assert all(p["summaries"]["held_launch_us"]["n"] >= 2 for p in r.points)  # Python alone, still in rounds
