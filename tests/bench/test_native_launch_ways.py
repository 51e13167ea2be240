"""The native launch as a way of bench.paired and as rows of ``latency``, on the CPU: the C fire() calls the C fake
(tests/helpers/native_launch_fake.py) with the rig's very launch; without a C compiler the ways are skipped and the
rows carry the reason."""
from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest

from cugraphlab.core.cache import Cache
from fake_driver import patch_driver

needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                              reason="no C compiler on this machine")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return Cache(tmp_path_factory.mktemp("native-ways-cache"))


@pytest.fixture
def fake(cache, monkeypatch):
    from cugraphlab.core import native_launch
    from native_launch_fake import NativeLaunchFakeDriver

    f = NativeLaunchFakeDriver(cache)
    monkeypatch.setattr(native_launch, "launch_kernel_entry", lambda: f.launch)
    monkeypatch.setattr(native_launch, "graph_launch_entry", lambda: f.graph_launch)
    real = native_launch.native_launch_library
    monkeypatch.setattr(native_launch, "native_launch_library", lambda c=None: real(cache))
    return f


class _Rig:
    """What the native builders read of a paired_ways.Rig: mode, launch, graph_exec, stream, adopt."""

    def __init__(self, mode="launch"):
        from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs

        launch = Launch.__new__(Launch)
        launch.kernel = SimpleNamespace(name="add", handle=0xADD)
        self.stream = SimpleNamespace(handle=0x57)
        launch.stream = self.stream
        launch.config = LaunchConfig((4, 1, 1), (256, 1, 1))
        launch.args = PackedArgs(("ptr", "ptr", "ptr", "u64"), (0x1000, 0x2000, 0x3000, 1024))
        self.mode, self.launch, self.graph_exec = mode, launch, SimpleNamespace(handle=0x6E)
        self.adopted = []

    def adopt(self, child):
        self.adopted.append(child)
        return child


@needs_cc
@pytest.mark.parametrize("name, nogil", [("cugraphlab_native", False), ("cugraphlab_native_nogil", True)])
def test_native_ways_fire_the_rigs_launch(fake, name, nogil):
    from cugraphlab.bench.paired.ways import _BUILDERS, NATIVE_WAYS, OWN_WAYS, WAYS

    assert name in WAYS and name in OWN_WAYS and name in NATIVE_WAYS
    rig = _Rig()
    run = _BUILDERS[name](rig)
    assert run(50) is None  # timed by the harness around it
    r = fake.rec
    assert r.calls == 50 and (r.f, r.stream, r.params) == (0xADD, 0x57, rig.launch.args.address)
    assert tuple(r.dims) == (4, 1, 1, 256, 1, 1, 0) and r.first_slot == 0x1000
    (native,) = rig.adopted  # owned by the rig: closed with it, before its stream
    assert native.release_gil is nogil
    native.close()
    with pytest.raises(Exception, match="closed"):
        run(1)
    assert r.calls == 50


@needs_cc
def test_native_graph_way(fake):
    from cugraphlab.bench.paired.ways import _BUILDERS, GRAPH_WAYS

    assert "cugraphlab_native" in GRAPH_WAYS and "cugraphlab_native_nogil" not in GRAPH_WAYS
    rig = _Rig("graph")
    _BUILDERS["cugraphlab_native"](rig)(7)
    assert (fake.rec.graph_calls, fake.rec.graph_exec, fake.rec.graph_stream, fake.rec.calls) == (7, 0x6E, 0x57, 0)


def test_without_a_compiler_the_native_ways_are_skipped_with_the_reason(monkeypatch):
    from cugraphlab.bench.paired.ways import build_ways
    from cugraphlab.core import native_launch

    monkeypatch.setenv("CC", "no-such-compiler-cgl")
    monkeypatch.setattr("cugraphlab.core.native_library._libraries", {})
    monkeypatch.setattr(native_launch, "launch_kernel_entry", lambda: 0x1)
    rig = _Rig()
    rig.mode = "launch"
    ways, skipped = build_ways(rig, ["cugraphlab_native", "cugraphlab_native_nogil"])
    assert ways == [] and set(skipped) == {"cugraphlab_native", "cugraphlab_native_nogil"}
    assert all("no C compiler" in why and "\n" not in why for why in skipped.values())


def test_validate_ways_knows_the_native_ways():
    from cugraphlab.bench.paired.ways import validate_ways

    assert validate_ways("cugraphlab_native,cugraphlab_native_nogil") == [
        "bindings", "cugraphlab_native", "cugraphlab_native_nogil"]
    assert validate_ways("cugraphlab_native", "graph") == ["bindings", "cugraphlab_native"]


# --- latency ---------------------------------------------------------------------------------------------------------
@pytest.fixture
def floor_driver(monkeypatch):
    from fake_floor import FloorFakeDriver

    d = FloorFakeDriver()
    patch_driver(monkeypatch, d)
    return d


@needs_cc
def test_latency_has_native_rows_on_the_c_floors_entry_point(floor_driver, fake, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.bench.measure.latency import measure_latency
    from fake_floor import FakeNativeFloor

    monkeypatch.setattr("cugraphlab.bench.measure.latency.measure_timeline", lambda *a, **k: SimpleNamespace(modes=[]))
    floor = FakeNativeFloor(ns_per_call=1_500)
    floor.entry = {"cuLaunchKernel": fake.launch}
    with Device(0) as dev:
        r = measure_latency(dev, size=4096, time_cap_s=0.01, native_factory=lambda: floor)
    assert r.row("native_launch_empty").us is not None and r.row("native_adds_launch").us is not None
    assert fake.rec.calls > 0 and fake.rec.params is None  # the empty kernel: no arguments
    assert tuple(fake.rec.dims)[:4] == (1, 1, 1, 32)  # the empty launch's shape (LaunchConfig(1, 32))
    assert r.decomposition["native_launch_us"] is not None and "native_launch_empty" in r.samples


def test_latency_native_rows_say_why_without_an_entry_point(floor_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.bench.measure.latency import measure_latency
    from fake_floor import FakeNativeFloor

    monkeypatch.setattr("cugraphlab.bench.measure.latency.measure_timeline", lambda *a, **k: SimpleNamespace(modes=[]))
    with Device(0) as dev:
        r = measure_latency(dev, size=4096, time_cap_s=0.01, native_factory=lambda: FakeNativeFloor())
    assert r.row("native_launch_empty").us is None and "entry point" in r.row("native_adds_launch").note
    assert r.decomposition["native_launch_us"] is None
