"""On the GPU: a small scaling sweep runs and counts nodes right, the chain variants are bit-exact against NumPy
(poisoned outputs first), the held-device launch figure exists and the hold kernel is always released; the native
floor (C instantiate and C launch loops) runs on the real driver."""
from __future__ import annotations

import math
import time

import pytest

from scaling_goals import goals_of

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def hold_kernels(device):
    with device.load_kernels(names=["empty", "hold"]) as ks:
        yield ks


def test_a_small_sweep_runs_counts_nodes_and_holds(device):
    from cugraphlab.bench.scaling.sweep import make_plan, measure_scaling

    plan = make_plan([1, 4, 16, 64], [1, 4], work="empty", repeats=3, budget_s=3)
    r = measure_scaling(device, plan)
    assert r.verified, [p for p in r.points if not p["ok"]]
    assert len(r.points) == len(plan.shapes)
    for p, shape in zip(r.points, plan.shapes):
        assert p["structure"]["capture"] == p["structure"]["explicit"] == [shape.nodes(1), shape.edges(1)]
        s = p["summaries"]
        assert 0 < s["held_launch_us"]["median"] < 1000 and p["held"]["held_released"]
        assert p["held"]["held_timed_out"] == 0
        assert 0 < s["device_us"]["median"] < 1e5
        assert s["instantiate_us"]["n"] >= 3 and s["capture_us"]["median"] > 0
    # each line length has its device time (how 64 kernels compare with 1 is benchmarks/ratio_figures.py's figure)
    line = {p["length"]: p["summaries"]["device_us"]["median"] for p in r.points if p["topology"] == "line"}
    assert set(line) == {1, 4, 16, 64} and all(math.isfinite(v) and v > 0 for v in line.values()), line
    assert r.fits["instantiate_us"]["line"]["slope"] > 0
    assert r.module_loading["cold_launch_total_us"] > 0 and r.env["driver"]["version_int"] >= 12000
    assert r.verdict["held_launch_us"]["line"]["text"]
    # both straight-line launch series read against NVIDIA's model: fitted over 4..64 nodes, a path named
    m = r.launch_model
    for cost in ("repeat_launch_api_us", "held_launch_us"):
        e = m["series"][cost]
        assert e["nodes_range"] == [4, 64] and e["fit"]["intercept"] > 0, e
        assert e["path"]["path"] in ("12.6+", "between", "pre-12.6") and e["path"]["slope_ns"] is not None
    assert m["driver"]["by_version"] == ("12.6+" if r.env["driver"]["version_int"] >= 12060 else "pre-12.6")
    # the C loops ran, paired with Python: per line point both instantiations on the same capture, both held launches
    assert "unavailable" not in r.native, r.native
    assert "c_monotonic" in r.clocks and r.config["held"]["rounds"] >= 2
    inst = {e["nodes"]: e for e in r.paired["instantiate"]["points"] if e["topology"] == "line"}
    assert set(inst) == {1, 4, 16, 64} and all(e["c_us"]["median"] > 0 for e in inst.values())
    for e in inst.values():  # Python over C with its interval (the figure itself: benchmarks/ratio_figures.py)
        iv = e["ratio"]
        assert 0 < iv["lo"] <= iv["median"] <= iv["hi"] and math.isfinite(iv["hi"]), e
    slope = r.paired["instantiate"]["slope"]
    assert slope["c_us_per_node"]["median"] > 0 and slope["ratio"]["lo"] <= slope["ratio"]["median"]
    g = goals_of(r)
    assert g["instantiate_vs_native"]["paired"] and g["launch"]["paired"]
    assert [x["nodes"] for x in g["launch"]["points"]] == [4, 16, 64]
    assert all(0 < x["c_us"]["median"] < 1000 and x["difference_us"] for x in g["launch"]["points"])


def test_chain_variants_are_bit_exact(device):
    from cugraphlab.experiment.scaling import ScalingWorkload, Shape

    with ScalingWorkload(device, "chain", max_width=3, n=(1 << 12) + 3, seed=11) as w:
        for shape in (Shape("line", 3), Shape("forkjoin", 7, 3)):
            for make in (w.capture, w.build):
                with make(shape) as g:
                    assert w.structure(g) == w.expected_structure(shape)
                    with g.instantiate() as exe:
                        exe.upload(w.stream)
                        checks = w.verify(exe, shape)
                assert len(checks) == shape.width and all(c.ok for c in checks), [str(c) for c in checks]
        # the check can fail: poisoned outputs that no graph wrote do not pass
        c = w.chains[0]
        c.randomize()
        c.poison()
        assert not c.check_result("unwritten").ok


def test_the_chain_sweep_verifies_every_point(device):
    from cugraphlab.bench.scaling.sweep import make_plan, measure_scaling

    r = measure_scaling(device, make_plan([1, 4], [2], work="chain", repeats=3, budget_s=2, size=4099), seed=3)
    assert all(p["verified"] is True and p["mismatches"] == 0 for p in r.points) and r.verified


def test_held_launches_are_timed_and_released(device, hold_kernels):
    from cugraphlab.bench.probes.hold import DeviceHold
    from cugraphlab.experiment.scaling import ScalingWorkload, Shape

    with ScalingWorkload(device, "empty", kernels=hold_kernels) as w, \
            DeviceHold(device, hold_kernels, w.stream) as hold, \
            w.capture(Shape("line", 16)) as g, g.instantiate() as exe:
        exe.upload(w.stream)
        exe.launch(w.stream)
        w.stream.synchronize()
        r = hold.time_graph_launches(exe.handle, 32)
        assert not r.timed_out and hold.was_released and not hold.engaged
        assert 0 < r.host_us < 1000 and math.isfinite(r.device_us) and r.device_us > 16 * 0.1
        # the hold really holds: nothing queued behind it has run before the release
        hold.engage()
        exe.launch(w.stream)
        hold.mark_end()
        time.sleep(0.01)
        assert hold.slots[5] == 0  # the stamp behind the graph has not run: the stream is held
        t_release, stamp, timed_out = hold.release()
        assert not timed_out and stamp > t_release > hold.slots[2]


def test_the_hold_lets_go_by_itself(device, hold_kernels):
    from cugraphlab.bench.probes.hold import DeviceHold

    with device.create_stream() as s, DeviceHold(device, hold_kernels, s, timeout_ms=20) as hold:
        hold.engage()
        time.sleep(0.2)  # no release for ten timeouts: the kernel must have ended on its own
        t0 = time.perf_counter()
        _t_release, _stamp, timed_out = hold.release()
        assert timed_out and time.perf_counter() - t0 < 0.1
        assert hold.slots[3] - hold.slots[2] >= 20e6


def test_the_c_instantiate_loop_makes_real_executables(device, hold_kernels):
    from cugraphlab.bench.native.instantiate import InstantiateFloor
    from cugraphlab.core._calls import cu
    from cugraphlab.experiment.scaling import ScalingWorkload, Shape

    floor = InstantiateFloor()
    with ScalingWorkload(device, "empty", kernels=hold_kernels) as w:
        with w.capture(Shape("line", 256)) as big, w.capture(Shape("line", 1)) as small:
            ns_big = sorted(floor.instantiate_ns(big, 15))
            ns_small = sorted(floor.instantiate_ns(small, 15))
        assert ns_big[0] > 0 and ns_small[0] > 0
        assert ns_big[7] > ns_small[7]  # 256 nodes take longer to instantiate than one
        free0 = cu("cuMemGetInfo")[0]
        with w.capture(Shape("line", 16)) as g:
            floor.instantiate_ns(g, 200)  # every executable destroyed at once: no device memory kept
        assert free0 - cu("cuMemGetInfo")[0] < 16 << 20
