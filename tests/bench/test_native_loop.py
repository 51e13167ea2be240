"""bench.native: the C launch loops run on the CPU against fake driver entry points (ctypes callbacks)."""
from __future__ import annotations

import ctypes
import shutil

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")

_VP, _U = ctypes.c_void_p, ctypes.c_uint
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, _VP, _U, _U, _U, _U, _U, _U, _U, _VP, _VP, _VP)
GRAPH = ctypes.CFUNCTYPE(ctypes.c_int, _VP, _VP)


class FakeEntry:
    """cuLaunchKernel / cuGraphLaunch stand-ins that record their arguments and can fail at call ``fail_at``."""

    def __init__(self, fail_at: int | None = None, status: int = 700):
        self.calls, self.graph_calls, self.fail_at, self.status = [], [], fail_at, status
        self.params_seen = []

        def launch(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
            self.calls.append((f, gx, gy, gz, bx, by, bz, smem, stream, params, extra))
            if params:  # read the first kernelParams slot like the driver would
                slot = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))[0]
                self.params_seen.append(ctypes.c_uint64.from_address(slot).value)
            return self.status if self.fail_at is not None and len(self.calls) == self.fail_at else 0

        def graph(exe, stream):
            self.graph_calls.append((exe, stream))
            return self.status if self.fail_at is not None and len(self.graph_calls) == self.fail_at else 0

        self.launch_cb, self.graph_cb = LAUNCH(launch), GRAPH(graph)

    @property
    def entry(self) -> dict:
        return {"cuLaunchKernel": ctypes.cast(self.launch_cb, _VP).value,
                "cuGraphLaunch": ctypes.cast(self.graph_cb, _VP).value}


@pytest.fixture
def floor_with(tmp_path):
    from cugraphlab.bench.native.loops import NativeFloor

    def make(fake):
        return NativeFloor(entry=fake.entry, cache=Cache(tmp_path))

    return make


def test_launch_loop_calls_n_times_with_the_arguments(floor_with):
    from cugraphlab.core.launch import PackedArgs

    fake = FakeEntry()
    floor = floor_with(fake)
    args = PackedArgs(("u64", "u64"), (0xABCDEF, 3))
    loop = floor.raw_launch_loop(0x1234, (5, 1, 1, 256, 1, 1, 0), 0x5678, args.address)
    ns = loop(37)
    assert len(fake.calls) == 37 and ns >= 0
    f, gx, gy, gz, bx, by, bz, smem, stream, params, extra = fake.calls[0]
    assert (f, gx, gy, gz, bx, by, bz, smem, stream, params, extra) == (
        0x1234, 5, 1, 1, 256, 1, 1, 0, 0x5678, args.address, None)
    assert fake.params_seen == [0xABCDEF] * 37  # the kernelParams array reached the call intact
    assert len(set(fake.calls)) == 1
    assert loop(0) >= 0 and len(fake.calls) == 37


def test_launch_loop_stops_at_the_first_failure_and_raises_it(floor_with):
    fake = FakeEntry(fail_at=5, status=700)  # CUDA_ERROR_ILLEGAL_ADDRESS
    loop = floor_with(fake).raw_launch_loop(1, (1, 1, 1, 32, 1, 1, 0), 2, 0)
    with pytest.raises(CudaError) as e:
        loop(100)
    assert len(fake.calls) == 5  # stopped at the failing call
    assert e.value.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and "after 4 successful calls" in str(e.value)
    assert "cuLaunchKernel" in str(e.value)


def test_graph_loop(floor_with):
    fake = FakeEntry()
    loop = floor_with(fake).graph_loop(0x9000, 0x42)
    loop(12)
    assert fake.graph_calls == [(0x9000, 0x42)] * 12
    bad = FakeEntry(fail_at=1, status=400)  # CUDA_ERROR_INVALID_HANDLE
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_HANDLE"):
        floor_with(bad).graph_loop(1, 2)(3)
    assert len(bad.graph_calls) == 1


def test_launch_loop_of_a_launch_object(floor_with, fake_driver):
    """The C loop takes the raw handles of a cugraphlab Launch: its function, dims, stream and packed arguments."""
    from cugraphlab.core.device import Device
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs

    fake = FakeEntry()
    with Device(0) as dev, dev.create_stream() as s:
        kernel = type("K", (), {"handle": 0x7777, "name": "add"})()
        launch = Launch(kernel, PackedArgs(("ptr", "u64"), (0x1000, 1024)), LaunchConfig(3, 256, 16), s)
        loop = floor_with(fake).launch_loop(launch)
        loop(4)
    assert fake.calls[0][:9] == (0x7777, 3, 1, 1, 256, 1, 1, 16, int(s.handle))
    assert fake.calls[0][9] == launch.args.address and fake.params_seen[0] == 0x1000


def test_programmatic_launches_are_refused(floor_with, fake_driver):
    from cugraphlab.core.device import Device
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs

    with Device(0) as dev, dev.create_stream() as s:
        kernel = type("K", (), {"handle": 1, "name": "add"})()
        launch = Launch(kernel, PackedArgs((), ()), LaunchConfig(1, 32, programmatic=True), s)
        with pytest.raises(ValueError, match="cuLaunchKernelEx"):
            floor_with(FakeEntry()).launch_loop(launch)


def test_the_library_is_cached(tmp_path):
    from cugraphlab.bench.native.loops import NativeFloor

    fake = FakeEntry()
    a = NativeFloor(entry=fake.entry, cache=Cache(tmp_path))
    b = NativeFloor(entry=fake.entry, cache=Cache(tmp_path))
    assert not a.cache_hit and b.cache_hit
