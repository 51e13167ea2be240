"""On the GPU: CuPy arrays and torch tensors as kernel arguments, CuPy and torch streams as launch streams, foreign
memory wrapped as a DeviceArray, and DeviceArrays handed to CuPy and torch through DLPack; every result bit-exact
against NumPy on fresh random inputs with poisoned outputs (gpu marker; each library skipped where absent)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

SOURCE = r"""
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
"""
SIG = ("ptr", "ptr", "ptr", "f32", "u64")
N = 1 << 18


@pytest.fixture(scope="module")
def saxpy(device):
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    device.make_current()
    with device.load_module(compile_source(SOURCE, "saxpy_interop", cache=Cache(None))) as m:
        yield m.kernel("saxpy")


@pytest.fixture
def inputs(rng):
    x = rng.standard_normal(N, dtype=np.float32)
    y = rng.standard_normal(N, dtype=np.float32)
    a = np.float32(rng.uniform(0.5, 4))
    return x, y, a, a * x + y


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    return np.array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_cupy_arrays_on_a_cupy_stream(device, saxpy, inputs):
    cp = pytest.importorskip("cupy")
    x, y, a, expected = inputs
    cs = cp.cuda.Stream(non_blocking=True)
    with cs:
        xc, yc = cp.asarray(x), cp.asarray(y)
        out = cp.full(N, np.nan, dtype=cp.float32)
    launch = saxpy.prepare(SIG, (out, xc, yc, a, N), (128, 256), cs)
    assert int(launch.stream.handle) == cs.ptr and not launch.stream.owned
    launch()
    cs.synchronize()
    assert _same(cp.asnumpy(out), expected)


def test_cupy_arrays_on_a_cugraphlab_stream_and_cupy_reading_a_device_array(device, saxpy, inputs):
    cp = pytest.importorskip("cupy")
    x, y, a, expected = inputs
    xc, yc = cp.asarray(x), cp.asarray(y)
    cp.cuda.Stream.null.synchronize()
    with device.create_stream() as s, device.array(N) as out:
        out.poison()
        saxpy.prepare(SIG, (out, xc, yc, a, N), (128, 256), s)()
        s.synchronize()
        via_dlpack = cp.from_dlpack(out)  # __dlpack__: no copy
        via_cai = cp.asarray(out)  # __cuda_array_interface__: no copy
        assert via_dlpack.data.ptr == via_cai.data.ptr == out.ptr
        assert _same(cp.asnumpy(via_dlpack), expected) and _same(cp.asnumpy(via_cai), expected)


def test_torch_tensors_on_a_torch_stream(device, saxpy, inputs):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    x, y, a, expected = inputs
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        out = torch.full((N,), float("nan"), device="cuda", dtype=torch.float32)
    launch = saxpy.prepare(SIG, (out, xt, yt, a, N), (128, 256), ts)
    assert int(launch.stream.handle) == ts.cuda_stream
    launch()
    ts.synchronize()
    assert _same(out.cpu().numpy(), expected)


def test_torch_reads_a_device_array_and_a_tensor_is_wrapped(device, saxpy, inputs):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    from cugraphlab.core.memory import DeviceArray
    from cugraphlab.core.stream import Stream

    x, y, a, expected = inputs
    xt = torch.from_numpy(x).cuda()
    torch.cuda.synchronize()
    wrapped = DeviceArray.wrap(xt)
    assert (wrapped.ptr, wrapped.n, wrapped.dtype, wrapped.owned) == (xt.data_ptr(), N, np.float32, False)
    assert _same(wrapped.to_numpy(), x)
    with device.to_device(y) as dy, device.array(N) as out:
        out.poison()
        stream = Stream.wrap(torch.cuda.current_stream())
        saxpy.prepare(SIG, (out, wrapped, dy, a, N), (128, 256), stream)()
        stream.synchronize()
        t = torch.from_dlpack(out)  # __dlpack__ / __dlpack_device__: no copy
        assert t.data_ptr() == out.ptr and t.device.type == "cuda"
        assert _same(t.cpu().numpy(), expected)
        del t
    wrapped.close()


def test_a_graph_captured_on_a_wrapped_cupy_stream(device, saxpy, inputs):
    cp = pytest.importorskip("cupy")
    import cugraphlab as cgl
    from cugraphlab.core.stream import Stream

    x, y, a, expected = inputs
    cs = cp.cuda.Stream(non_blocking=True)
    stream = Stream.wrap(cs, device=device)
    with cs:
        xc, yc = cp.asarray(x), cp.asarray(y)
        out = cp.empty(N, dtype=cp.float32)
    launch = saxpy.prepare(SIG, (out, xc, yc, a, N), (128, 256), stream)
    with cgl.capture(stream) as cap:
        launch()
    with cap.graph as g, g.instantiate() as exe:
        with cs:
            out.fill(np.nan)
        exe.launch(stream)
        cs.synchronize()
        assert _same(cp.asnumpy(out), expected)
