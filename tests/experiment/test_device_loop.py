"""experiment.device_loop without a GPU: the NumPy prediction of a device loop, the graphs it builds (on the fake
driver), and lifetime: the linked module and every device-launchable exec owned, freed once, collected."""
from __future__ import annotations

import gc
import math
import struct
import weakref
from pathlib import Path

import numpy as np
import pytest

from cugraphlab.experiment.device_loop import predict_loop
from cugraphlab.experiment.ops import DEFAULT_OPS, reference


def test_counter_loop_prediction():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    count, acc, out = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=7)
    assert count == 7 and acc == 0.0
    assert np.array_equal(out.view(np.uint32), reference(DEFAULT_OPS, x, y, 2.0).view(np.uint32))


def test_feedback_prediction_is_the_chain_applied_n_times():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    _count, _acc, out = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=True, limit=3)
    want = x
    for _ in range(3):
        want = reference(DEFAULT_OPS, want, y, 2.0)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    _c, _a, once = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=True, limit=1)
    assert not np.array_equal(once, out)  # feedback really changes the result


def test_threshold_prediction_rounds_like_float32():
    x = np.full(8, 0.1, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    # chain: relu(2 * (x + 0) - 0) = 0.2 per element; 4 probed: s = 0.8 (float32 sums), stop once acc >= 4
    count, acc, _ = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=1000, probe=4, threshold=4.0)
    s = np.float32(0)
    for v in np.full(4, np.float32(0.1) + np.float32(0), dtype=np.float32) * np.float32(2):
        s = np.float32(s + v)
    a, k = np.float32(0), 0
    while True:
        a, k = np.float32(a + s), k + 1
        if not a < np.float32(4.0):
            break
    assert (count, acc) == (k, float(a))
    assert predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=3, probe=4, threshold=4.0)[0] == 3


@pytest.fixture
def fake(monkeypatch):
    from fake_devlaunch import install

    return install(monkeypatch)


def _params(fake, graph) -> list[bytes]:
    """Each kernel node's packed argument slots, read from the void** the node was given."""
    import ctypes

    out = []
    for _node, kind, params in fake.nodes[int(graph)]:
        if kind != "KERNEL":
            continue
        address = params[1]
        pointers = ctypes.cast(address, ctypes.POINTER(ctypes.c_void_p))
        out.append(b"".join(ctypes.string_at(pointers[i], 8) for i in range(2)))
    return out


@pytest.mark.nvjitlink
def test_graphs_built(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.device_loop import device_loop
    from cugraphlab.graphs.device_launch import DEVICE_STREAMS

    with Device(0) as dev, Chain(dev, n=1000) as chain:
        loop = device_loop(chain, capacity=8)
        assert device_loop(chain) is loop  # one per chain
        with loop.build_self(10) as g:
            assert [k for _n, k, _p in fake.nodes[int(g.handle)]] == ["KERNEL"] * 5  # 4 ops + dl_relaunch
        with loop.build_self(10, stamped=True) as g:
            assert len(fake.nodes[int(g.handle)]) == 6  # + the marker kernel
        with loop.build_self(10, with_chain=False, stamped=True) as g:
            assert len(fake.nodes[int(g.handle)]) == 1
        work = loop.work_exec()
        assert fake.flags[int(work.handle)] == 4 and int(work.handle) in fake.uploads
        with loop.build_launcher(work, "tail") as g:
            (slots,) = _params(fake, g.handle)
            handle, stream = struct.unpack("<QQ", slots)
            assert handle == int(work.handle) and stream == DEVICE_STREAMS["tail"]
        with loop.build_scheduler(work, 5) as g:
            (slots,) = _params(fake, g.handle)
            assert struct.unpack("<Q", slots[:8])[0] == int(work.handle)
        launcher = loop.launcher_exec("fire_and_forget")
        assert fake.flags[int(launcher.handle)] == 0  # the launching graph is a host graph
        loop.enqueue(loop.self_exec(10))
        assert fake.memsets[-1] == (loop.state.ptr, 0, 8) and fake.launches[-1][0] == int(loop.self_exec(10).handle)
        from cugraphlab.core.errors import InvalidArgumentError

        with pytest.raises(InvalidArgumentError):
            loop.build_launcher(work, "later")
        with pytest.raises(InvalidArgumentError):
            loop.build_self(10, probe=5000)
        with pytest.raises(InvalidArgumentError):
            loop.build_self(10, threshold=math.nan)


def _all_released_once(fake, keep=("context",)):
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0 and k not in keep]
    assert live == [], f"never released: {live}"
    assert fake.released_twice() == []


@pytest.mark.nvjitlink
def test_forgotten_device_loop_is_collected(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.device_loop import device_loop

    dev = Device(0)

    def make():
        chain = Chain(dev, n=512)
        loop = device_loop(chain, capacity=4)  # the chain keeps it: a cycle the collector frees
        loop.self_exec(3)
        loop.scheduler_exec(3)
        loop.launcher_exec("tail")
        loop.launcher_exec("fire_and_forget", target="probe", stamped=True)
        return chain

    chain = make()
    ref = weakref.ref(chain)
    kinds = sorted(set(fake.made.values()))
    assert {"graph exec", "module", "memory"} <= set(kinds)
    del chain
    gc.collect()
    assert ref() is None
    _all_released_once(fake)
    dev.close()
    _all_released_once(fake, keep=())


@pytest.mark.nvjitlink
def test_closing_the_chain_closes_the_loop_first(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.device_loop import device_loop

    with Device(0) as dev:
        chain = Chain(dev, n=512)
        loop = device_loop(chain, capacity=4)
        exe = loop.self_exec(3)
        chain.close()
        assert loop.closed and exe.closed
        _all_released_once(fake)


@pytest.mark.nvjitlink
def test_linked_module_is_owned(fake):
    from cugraphlab import Device
    from cugraphlab.experiment.device_loop import DEVLAUNCH_KERNELS, load_devlaunch_kernels

    with Device(0) as dev:
        ks = load_devlaunch_kernels(dev)
        assert set(ks.kernels) == set(DEVLAUNCH_KERNELS) and ks.compiled["devlaunch"].kind == "cubin"
        ref = weakref.ref(ks)
        del ks
        gc.collect()
        assert ref() is None
        _all_released_once(fake)


@pytest.mark.nvjitlink
def test_compile_kernel_set_handles_the_relocatable_source(monkeypatch):
    """`cugraphlab compile`: devlaunch.cu is linked where it can be, else compiled plainly with the reason logged."""
    from cugraphlab.core import link, sources
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.experiment.kernel_set import compile_kernel_set

    monkeypatch.setattr(sources, "kernel_dir", lambda: Path(__file__).resolve().parents[2] / "kernels")

    def missing():
        raise UnsupportedError("device graph launch: libcudadevrt.a not found (test)")

    monkeypatch.setattr(link, "find_cudadevrt", missing)
    report = compile_kernel_set("sm_90", use_cache=False)
    dl = {c.name: c for c in report.compiled}["devlaunch"]
    assert dl.kind == "cubin" and "left out" in dl.log and "libcudadevrt.a not found" in dl.log
    assert "devlaunch" in dl.registers and "dl_launch" not in dl.registers  # only the plain kernel
    assert {"add", "conditional", "devlaunch"} <= {c.name for c in report.compiled}
