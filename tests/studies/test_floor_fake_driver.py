"""``measure_latency``'s native rows and ``measure_floor``'s rows end to end on the fake driver (no GPU): the rows
exist, the C loops run on the very launch and graph the Python rows use, and a missing compiler leaves the reason.
The figures mean nothing here (the fake's clocks); the GPU tests check them."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from cugraphlab.core.errors import UnsupportedError


@pytest.fixture
def floor_driver(monkeypatch):
    from fake_floor import install_floor_driver

    yield install_floor_driver(monkeypatch)


def _timeline(ops, iters=3):
    from fake_floor import stamped_timeline

    return stamped_timeline(ops, iters)


def test_latency_has_c_rows_measured_on_the_same_objects(floor_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.bench.measure.latency import measure_latency
    from fake_floor import FakeNativeFloor

    monkeypatch.setattr("cugraphlab.bench.measure.latency.measure_timeline", lambda *a, **k: SimpleNamespace(modes=[]))
    native = FakeNativeFloor(ns_per_call=1_500)
    with Device(0) as dev:
        r = measure_latency(dev, size=4096, time_cap_s=0.01, native_factory=lambda: native)
    keys = [row.key for row in r.rows]
    assert {"c_launch_empty", "py_adds_launch", "c_graph_launch", "py_adds_graph"} <= set(keys)
    assert r.row("c_launch_empty").us.median == pytest.approx(1.5)
    assert {c[0] for c in native.calls} == {"cuLaunchKernel", "cuGraphLaunch"}
    assert {c[1] for c in native.calls if c[0] == "cuLaunchKernel"} == {"empty"}
    assert r.decomposition["c_launch_us"] == pytest.approx(1.5)
    assert "c_launch_empty" in r.samples


def test_latency_without_a_compiler_says_why_in_the_rows(floor_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.bench.measure.latency import measure_latency
    from cugraphlab.report.measure import render_latency

    monkeypatch.setattr("cugraphlab.bench.measure.latency.measure_timeline", lambda *a, **k: SimpleNamespace(modes=[]))

    def no_cc():
        raise UnsupportedError("native code (launch_loop): no C compiler (none of cc, gcc, clang is on PATH)")

    with Device(0) as dev:
        r = measure_latency(dev, size=4096, time_cap_s=0.01, native_factory=no_cc)
    assert r.row("c_launch_empty").us is None and "no C compiler" in r.row("c_graph_launch").note
    assert "native floor: not measured" in render_latency(r)
    assert r.to_dict()["decomposition"]["c_launch_us"] is None


def test_floor_rows_on_the_fake_driver(floor_driver, monkeypatch):
    from cugraphlab import Device
    from fake_floor import FakeNativeFloor
    from studies.floor.measure import measure_floor
    from studies.floor.report import render_floor

    ops = ("add", "mul", "sub", "relu")
    monkeypatch.setattr("cugraphlab.bench.measure.timeline.measure_timeline", lambda *a, **k: _timeline(ops))
    native = FakeNativeFloor()
    monkeypatch.setattr("cugraphlab.bench.measure.latency_native.open_native_floor", lambda: (native, ""))
    with Device(0) as dev:
        r = measure_floor(dev, sizes=(1 << 16, 1024), iters=20, repeats=1, host_k=5, host_samples=2)
    for n in (1 << 16, 1024):
        keys = {row.key for row in r.rows if row.size == n}
        assert {"busy_add", "busy_relu", "gap_inside", "gap_boundary", "graph_iter", "fused_warm", "fused_cold",
                "host_launch_py", "host_launch_c", "host_launch_adds", "host_graph_c", "host_graph_adds"} <= keys
        assert r.row(n, "busy_mul").us == pytest.approx(1.5) and r.row(n, "gap_boundary").us == pytest.approx(2.5)
    # 2^16 floats: 768 KiB sets against the fake's 4 MiB L2 -> measured; 1,024 floats would need thousands of sets
    assert r.row(1 << 16, "fused_cold").us is not None and r.row(1024, "fused_cold").us is None
    assert "sets" in r.row(1024, "fused_cold").note
    assert r.row(1 << 16, "busy_add").nbytes == 12 * (1 << 16)
    text = render_floor(r)
    assert "fused, cold L2" in text and "host: C cuLaunchKernel" in text
