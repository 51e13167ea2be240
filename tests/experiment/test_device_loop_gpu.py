"""Device graph launch on the GPU: every launch mode and loop bit-exact against NumPy with exact iteration counts,
a device launch from outside a graph refused with its cudaError_t, and lifetime (dropped, collected, freed)."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def loop(device):
    from cugraphlab import Chain
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.experiment.device_loop import device_loop

    with Chain(device, n=1000) as chain:  # not a multiple of 4: the kernels' scalar tails run too
        try:
            kit = device_loop(chain, capacity=512)
        except UnsupportedError as e:
            pytest.skip(f"device graph launch unavailable: {e}")
        yield kit


@pytest.mark.parametrize("mode", ["fire_and_forget", "tail", "sibling"])
def test_launch_modes_bit_exact(loop, mode):
    chk = loop.run_launch(mode)
    assert chk.ok, str(chk)
    assert chk.launches == 1


@pytest.mark.parametrize("shape", ["self", "scheduler"])
@pytest.mark.parametrize("n", [1, 2, 1000])
def test_counted_loops(loop, shape, n):
    chk = loop.run_loop(shape, n)
    assert chk.ok, str(chk)
    assert chk.launches == (n - 1 if shape == "self" else 2 * n)


@pytest.mark.parametrize("shape", ["self", "scheduler"])
def test_feedback_loops_apply_the_chain_n_times(loop, shape):
    chk = loop.run_loop(shape, 25, feedback=True)
    assert chk.ok, str(chk)


@pytest.mark.parametrize("shape", ["self", "scheduler"])
def test_threshold_loops_stop_where_numpy_says(loop, shape):
    loop.fresh()
    s = float(np.abs(loop.chain.expected()[:32]).sum()) or 1.0
    chk = loop.run_loop(shape, 10_000, threshold=s * 37.0, probe=32)
    assert chk.ok, str(chk)
    assert 1 < chk.iterations < 10_000


def test_stamped_loop_timeline(loop):
    from cugraphlab.bench.graphs.devlaunch import timeline_segments

    loop.clear_slots()
    chk = loop.run_loop("self", 100, stamped=True)
    assert chk.ok, str(chk)
    seg = timeline_segments(loop.read_slots(100), "self")
    it = seg["iteration (start to start)"]
    assert len(it) == 99 and (it > 0).all()
    parts = sum(np.median(seg[k]) for k in seg if k != "iteration (start to start)")
    assert parts == pytest.approx(np.median(it), rel=0.25)


def test_host_launch_of_a_device_graph_works(loop):
    exe = loop.self_exec(5)
    loop.fresh()
    loop.enqueue(exe)
    loop.enqueue(exe)  # twice in a row: the second waits for the first's whole environment
    assert loop.read_state().count == 5


def test_dropped_device_loops_are_collected(device, loop):
    """(``loop``: skips, with its reason, where device graph launch is unavailable, e.g. NVRTC 12 without CUDA 12
    headers.)"""
    from cugraphlab import Chain
    from cugraphlab.experiment.device_loop import device_loop

    free0 = device.memory_info()[0]
    refs = []
    for _ in range(10):
        chain = Chain(device, n=1 << 18)
        kit = device_loop(chain, capacity=16)
        assert kit.run_loop("self", 3).ok
        kit.launcher_exec("tail")
        refs.append(weakref.ref(chain))
        del chain, kit
    gc.collect()
    assert all(r() is None for r in refs)
    device.synchronize()
    assert device.memory_info()[0] >= free0 - (64 << 20)  # 10 x (7 buffers of 1 MiB + execs) came back


def test_close_releases_once(device, loop):
    from cugraphlab import Chain
    from cugraphlab.experiment.device_loop import DeviceLoop

    with Chain(device, n=256) as chain:
        kit = DeviceLoop(chain, capacity=4)
        exe = kit.self_exec(2)
        assert kit.run_loop("self", 2).ok
        kit.close()
        kit.close()
        assert kit.closed and exe.closed
        assert chain.verify("graph").ok  # the chain's own buffers and graphs are untouched


def test_device_launch_outside_a_graph_is_refused(loop):
    """A kernel that calls cudaGraphLaunch, launched directly on a stream (not inside a graph), is refused.
    Measured on an H200 (driver 580, CUDA 13.0): the driver refuses the host launch itself, cuLaunchKernel answering
    CUDA_ERROR_NOT_SUPPORTED, so the kernel never runs; a driver that ran it would have to report a cudaError_t on
    the device. Either way nothing is launched, and the context stays usable (not a sticky error).
    Last in the file: should a driver make this error sticky, no other test here is affected."""
    from cugraphlab.core.errors import CudaError
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs
    from cugraphlab.graphs.device_launch import DEVICE_STREAMS, DeviceLaunchError

    work = loop.work_exec()
    args = PackedArgs(("u64", "u64", "ptr", "ptr", "u64"),
                      (work.device_handle, DEVICE_STREAMS["fire_and_forget"], loop.state, 0, 0))
    loop.reset()
    try:
        Launch(loop.kernels["dl_launch"], args, LaunchConfig(1, 32), loop.chain.stream)()
    except CudaError as e:
        assert e.name == "CUDA_ERROR_NOT_SUPPORTED", e
        st = loop.read_state()
        assert st.launches == 0
    else:
        st = loop.read_state()
        assert st.status != 0 and st.launches == 0
        err = DeviceLaunchError(st.status)
        assert err.code == st.status and st.status_name in str(err)
    assert loop.chain.verify("graph").ok  # the context is still usable
