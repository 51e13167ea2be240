"""On the GPU: Launch.native() / NativeGraphLaunch launch add bit-exact, in loops, with the GIL held or released; a
refused launch raises the typed error; closing it leaves the Launch usable (gpu marker)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

SIG = ("ptr", "ptr", "ptr", "u64")


@pytest.fixture
def parts(device, kernels):
    from cugraphlab.core.launch import LaunchConfig

    n = 4099  # not a multiple of 4: the scalar tail runs too
    with device.create_stream() as s, device.array(n) as dx, device.array(n) as dy, device.array(n) as out:
        launch = kernels["add"].prepare(SIG, (out, dx, dy, n), LaunchConfig(5, 256), s)
        yield device, kernels, s, launch, out, dx, dy, n


def _fresh(dx, dy, n, s, rng):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    dx.copy_from(x, stream=s)
    dy.copy_from(y, stream=s)
    return x + y


def _differ(out, expected, s) -> int:
    got = out.to_numpy(stream=s)
    return int(np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32)))


@pytest.mark.parametrize("release_gil", [False, True])
def test_native_launch_of_add_is_bit_exact_and_loops(parts, release_gil):
    device, kernels, s, launch, out, dx, dy, n = parts
    rng = np.random.default_rng()
    with launch.native(release_gil=release_gil) as nl:
        for _ in range(3):  # fresh inputs, poisoned output, every time
            expected = _fresh(dx, dy, n, s, rng)
            out.poison(s)
            s.synchronize()
            assert _differ(out, expected, s) == n
            assert nl.fire() is None
            s.synchronize()
            assert _differ(out, expected, s) == 0
        expected = _fresh(dx, dy, n, s, rng)
        out.poison(s)
        fire = nl.fire
        for _ in range(5000):  # a hot loop: the queue fills and drains; every call returns None
            fire()
        s.synchronize()
        assert _differ(out, expected, s) == 0 and nl.failures == 0
    with pytest.raises(Exception, match="closed"):
        nl.fire()
    out.poison(s)
    launch()  # the Launch itself is untouched by the native one's close
    s.synchronize()
    assert _differ(out, expected, s) == 0


def test_native_launch_sees_rewritten_arguments(parts):
    device, kernels, s, launch, out, dx, dy, n = parts
    rng = np.random.default_rng()
    x_plus_y = _fresh(dx, dy, n, s, rng)
    with device.array(n) as other, launch.native() as nl:
        other.poison(s)
        out.poison(s)
        launch.args.set(0, other)  # kernelParams is the Launch's own: the next fire writes `other`
        nl.fire()
        s.synchronize()
        assert _differ(other, x_plus_y, s) == 0 and _differ(out, x_plus_y, s) == n
        launch.args.set(0, out)


def test_a_refused_launch_raises_the_typed_error(parts):
    from cugraphlab.core.errors import CudaError
    from cugraphlab.core.launch import LaunchConfig

    device, kernels, s, launch, out, dx, dy, n = parts
    bad = kernels["add"].prepare(SIG, (out, dx, dy, n), LaunchConfig(1, 4096), s)  # 4096 threads: refused
    with bad.native() as nl:
        with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE") as e:
            nl.fire()
        assert "cuLaunchKernel (native)" in str(e.value) and nl.failures == 1
    s.synchronize()  # the stream is fine afterwards


def test_native_graph_launch_is_bit_exact(parts):
    from cugraphlab.core.native_launch import NativeGraphLaunch
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.exec import ready_exec

    device, kernels, s, launch, out, dx, dy, n = parts
    rng = np.random.default_rng()
    with ready_exec(capture_launches(s, [launch], 4), s) as exe, NativeGraphLaunch(exe, s) as g:
        for _ in range(2):
            expected = _fresh(dx, dy, n, s, rng)
            out.poison(s)
            for _ in range(10):
                g.fire()
            s.synchronize()
            assert _differ(out, expected, s) == 0


def test_native_launch_dropped_without_close_is_collected(parts):
    import gc
    import weakref

    device, kernels, s, launch, out, dx, dy, n = parts
    nl = launch.native()
    nl.fire()
    ref, state = weakref.ref(nl), weakref.ref(nl._state)
    del nl
    gc.collect()
    s.synchronize()
    assert ref() is None and state() is None
