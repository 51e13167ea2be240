"""The folded self loop (relu's last block decides and tail-launches) and the decision every K iterations, without a
GPU: the NumPy prediction at a granularity of K, the graphs built on the fake driver (nodes, kernels, packed
arguments), the refusals, and the kernel's source (relu's own arithmetic, the last-block protocol); where nvJitLink
and libcudadevrt.a are found, the real relocatable build holds the kernel."""
from __future__ import annotations

import ctypes
import math
import struct
import tempfile

import numpy as np
import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.experiment.device_loop import DEVLAUNCH_KERNELS, RELAUNCH_FOLD_KERNEL, every_label, predict_loop
from cugraphlab.experiment.ops import DEFAULT_OPS


def _inputs(n=64, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


def test_every_k_counted_prediction_is_the_plain_one():
    x, y = _inputs()
    for every in (1, 5, 50):
        a = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=True, limit=100 if every == 50 else 50, every=every)
        b = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=True, limit=100 if every == 50 else 50)
        assert a[0] == b[0] and np.array_equal(a[2].view(np.uint32), b[2].view(np.uint32))


def test_every_k_needs_a_multiple():
    x, y = _inputs()
    with pytest.raises(InvalidArgumentError, match="multiple of every"):
        predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=101, every=50)


@pytest.mark.parametrize("every", [2, 7, 50])
def test_every_k_threshold_overshoots_to_the_next_multiple(every):
    """Without feedback, deciding once per K stops at the first multiple of K at or after the per-iteration stop,
    with the total the per-iteration loop would have there: the device adds the probe K times per decision."""
    x, y = _inputs()
    s = np.float32(0)
    for v in predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=1)[2][:8]:
        s = np.float32(s + v)
    threshold = float(s) * 123.4
    one, _acc1, _ = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=10_000, probe=8,
                                 threshold=threshold)
    assert 100 < one < 200
    limit = 10_000 - 10_000 % every
    k, acc, _ = predict_loop(DEFAULT_OPS, x, y, 2.0, feedback=False, limit=limit, probe=8, threshold=threshold,
                             every=every)
    assert k == -(-one // every) * every and k - one <= every - 1
    want = np.float32(0)
    for _ in range(k):  # the device: acc += s, `every` times per decision, each add rounded
        want = np.float32(want + s)
    assert np.float32(acc).view(np.uint32) == want.view(np.uint32)
    if one % every:
        assert k > one  # it really overshoots (a test that could not fail otherwise)


def test_label():
    assert every_label(50) == "decision every 50 iterations"


# --- the kernel source ----------------------------------------------------------------------------------------
def _source() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "kernels" / "devlaunch.cu").read_text()


def _folded_body(src: str) -> str:
    start = src.index(f'extern "C" __global__ void {RELAUNCH_FOLD_KERNEL}(')
    return src[start:src.index("\n}\n", start)]


def test_folded_kernel_is_relu_then_the_last_block():
    src = _source()
    body = _folded_body(src)
    assert "map1(out, x, n, [](float a) { return op_relu(a); });" in body  # relu.cu's exact arithmetic
    order = [body.index(t) for t in ("map1(", "__syncthreads();", "__threadfence();", "atomicAdd(&st->blocks",
                                     "gridDim.x - 1", "st->blocks = 0", "cudaGraphLaunch(cudaGetCurrentGraphExec()")]
    assert order == sorted(order)
    assert body.count("cudaGraphLaunch(") == 1 and "threadIdx.x != 0) return" in body
    assert src.index("#ifdef __CUDACC_RDC__") < src.index(body)  # needs the device runtime: relocatable only
    assert "__ldcg(out + i)" in src  # the probe read through L2: other blocks wrote it
    state = src[src.index("struct CglDevLoop {"):src.index("};", src.index("struct CglDevLoop {"))]
    sizes = {"u64": 8, "float": 4, "unsigned": 4}
    fields = [line.split()[0] for line in state.splitlines()[1:] if line.strip() and not line.strip().startswith("//")]
    assert sum(sizes[f] for f in fields) == 32  # STATE_WORDS * 4: the host's memset covers the block counter


def test_relocatable_build_holds_the_folded_kernel():
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.core.link import build_relocatable
    from cugraphlab.core.sources import read_headers

    try:
        c = build_relocatable(_source(), "devlaunch", arch="sm_90", headers=read_headers(),
                              cache=Cache(tempfile.mkdtemp()))
    except UnsupportedError as e:
        pytest.skip(f"no relocatable build here: {e}")
    for name in DEVLAUNCH_KERNELS:
        assert name.encode() in c.image


# --- the graphs, on the fake driver ---------------------------------------------------------------------------
@pytest.fixture
def fake(monkeypatch):
    from fake_devlaunch import install

    return install(monkeypatch)


def _kernels(fake, graph) -> list[tuple[int, int]]:
    return [params for _n, kind, params in fake.nodes[int(graph.handle)] if kind == "KERNEL"]


def _slots(address: int, count: int) -> list[bytes]:
    pointers = ctypes.cast(address, ctypes.POINTER(ctypes.c_void_p))
    return [ctypes.string_at(pointers[i], 8) for i in range(count)]


@pytest.mark.nvjitlink
def test_folded_graph(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.device_loop import device_loop

    with Device(0) as dev, Chain(dev, n=1000) as chain:
        loop = device_loop(chain, capacity=8)
        fold = int(loop.kernels[RELAUNCH_FOLD_KERNEL].handle)
        relu = int(chain.kernels["relu"].handle)
        with loop.build_folded(10) as g:
            ks = _kernels(fake, g)
            assert len(ks) == 4 and ks[-1][0] == fold  # add, mul, sub, the folded relu: no decision node
            assert [f for f, _p in ks[:3]] == [int(chain.kernels[k].handle) for k in ("add", "mul", "sub")]
            out, src, n, state, probe, _thr, limit, every, slots, cap = _slots(ks[-1][1], 10)
            assert struct.unpack("<Q", out)[0] == chain.out.ptr and struct.unpack("<Q", src)[0] == chain.outs[2].ptr
            assert struct.unpack("<Q", n)[0] == 1000 and struct.unpack("<Q", state)[0] == loop.state.ptr
            assert [struct.unpack("<Q", v)[0] for v in (probe, limit, every, slots, cap)] == [0, 10, 1, 0, 0]
        with loop.build_folded(10, feedback=True, stamped=True) as g:
            ks = _kernels(fake, g)
            assert len(ks) == 5 and ks[0][0] == int(loop.kernels["devlaunch"].handle)  # the marker first
            out, *_rest, slots, cap = _slots(ks[-1][1], 10)
            assert struct.unpack("<Q", out)[0] == chain.x.ptr  # feedback: relu writes x
            assert struct.unpack("<Q", slots)[0] == loop.slots.ptr and struct.unpack("<Q", cap)[0] == 8
        with loop.build_folded(100, 5.0, 32, every=50) as g:
            ks = _kernels(fake, g)
            assert len(ks) == 200 and [f for f, _p in ks].count(fold) == 1 and ks[-1][0] == fold
            assert [f for f, _p in ks].count(relu) == 49
            vals = _slots(ks[-1][1], 10)
            assert struct.unpack("<Q", vals[4])[0] == 32 and struct.unpack("<f", vals[5][:4])[0] == 5.0
            assert struct.unpack("<Q", vals[7])[0] == 50
        a = loop.folded_exec(100, every=50)
        assert fake.flags[int(a.handle)] == 4 and int(a.handle) in fake.uploads  # DEVICE_LAUNCH, uploaded
        assert loop.folded_exec(100, every=50) is a and loop.folded_exec(100) is not a
        loop.enqueue(a)
        assert fake.memsets[-1] == (loop.state.ptr, 0, 8) and fake.launches[-1][0] == int(a.handle)


@pytest.mark.nvjitlink
def test_folded_refusals(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.device_loop import device_loop

    with Device(0) as dev, Chain(dev, n=1000) as chain:
        loop = device_loop(chain, capacity=8)
        with pytest.raises(InvalidArgumentError, match="multiple of 50"):
            loop.build_folded(1001, every=50)
        with pytest.raises(InvalidArgumentError, match="decision every 50 iterations"):
            loop.build_folded(1000, 3.0, 32, every=50, feedback=True)
        loop.build_folded(1000, 3.0, 32, every=50).close()  # without feedback it is allowed
        loop.build_folded(1000, 3.0, 32, feedback=True).close()  # and with every=1
        with pytest.raises(InvalidArgumentError, match="for the folded loop"):
            loop.run_loop("self", 100, every=50)
        with pytest.raises(InvalidArgumentError, match="probe"):
            loop.build_folded(10, probe=5000)
        with pytest.raises(InvalidArgumentError):
            loop.build_folded(10, threshold=math.nan)
    with Device(0) as dev, Chain(dev, ("add", "mul", "sub"), n=1000) as chain:
        with pytest.raises(InvalidArgumentError, match="ending in relu"):
            device_loop(chain, capacity=8).build_folded(10)
