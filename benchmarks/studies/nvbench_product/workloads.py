"""The workloads both sides of the product study time (cugraphlab's ``measure.py``, cuda-bench's ``nvbench_side.py``).

One function per workload, ``build(dev, stream, kernels)`` -> ``Built``: its own buffers (inputs fresh random
values, negative ones too; outputs poisoned), and the work in the form ``cgl.measure`` takes:

    name                 kind      the work
    saxpy 2^20           launch    a user's saxpy (out = a*x + y), compiled from its source like a user's
    add|mul|sub|relu 2^20  launch  the chain's kernels (kernels/add.cu ...), one float4 per thread
    add|mul|sub|relu 1,024 launch  the same at 1,024 floats
    long 2^20            launch    LONG_REPS dependent multiply-adds per float: a kernel of about 100 µs
    reduce 2^20          launch    a tree sum of each block's 256 floats in shared memory: one float per block
    graph50 add 2^20     graph     a GraphExec of 50 launches of add 2^20 (captured, instantiated, uploaded)
    cupy chain 2^20      callable  fn(stream): four CuPy elementwise ops (add, multiply by 2, subtract, relu)
    torch chain 2^20     callable  fn(stream): the same four in PyTorch

``Built.call_on(stream)`` gives a function of no arguments that enqueues one call of the work on any cugraphlab
Stream (cuda-bench's wrapped with ``cugraphlab.Stream.wrap``): the Launch bound there, a cuGraphLaunch there, or the
callable given that stream in its library's view (``bench.measure.streams.view_for``). ``Built.check()`` compares the
output bit for bit with NumPy float32 (``compare_bits``); ``Built.poison()`` overwrites it first and waits (the work
may run on another stream). Kernels are
compiled with the package's options (``--fmad=false``), so each float32 operation rounds once, as NumPy's does.

Also the command line's targets: ``cugraphlab measure workloads.py:cli_call --setup setup_<slug> --prepare
cli_prepare --check cli_check`` measures workload ``<slug>`` (``slug("add 2^20") == "add_2e20"``) as a callable
that makes one call of it on the stream it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from cugraphlab import compare_bits
from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs, grid_for
from cugraphlab.experiment.chain import BLOCK, chain_grid
from cugraphlab.experiment.ops import OPS

__all__ = ["WORKLOADS", "BUILDERS", "Built", "build", "load_kernels", "slug", "SAXPY_SOURCE", "LONG_SOURCE",
           "REDUCE_SOURCE", "LONG_REPS", "GRAPH_LAUNCHES", "BIG", "SMALL", "cli_call", "cli_prepare", "cli_check"]

BIG, SMALL = 1 << 20, 1 << 10
SAXPY_A = 2.5
SCALAR = 2.0  # mul's factor, as in the chain (and the callables' multiply)
LONG_REPS = 1024  # about 100 µs at 2^20 floats on an H200 (the study prints what it measured)
LONG_A, LONG_B = 0.999, 0.001
REDUCE_BLOCK = 256
GRAPH_LAUNCHES = 50

SAXPY_SOURCE = r"""
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
"""
LONG_SOURCE = r"""
extern "C" __global__ void long_fma(float* out, const float* x, float a, float b, unsigned int reps,
                                   unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
#pragma unroll 16
    for (unsigned int r = 0; r < reps; ++r)
        v = v * a + b;  /* two roundings: --fmad=false */
    out[i] = v;
}
"""
REDUCE_SOURCE = r"""
extern "C" __global__ void block_sum(float* out, const float* x, unsigned long long n)
{
    __shared__ float s[256];
    unsigned long long i = blockIdx.x * 256ull + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
"""
CHAIN = ("add", "mul", "sub", "relu")
EXTRA_SOURCES = {"saxpy": SAXPY_SOURCE, "long_fma": LONG_SOURCE, "block_sum": REDUCE_SOURCE}


def slug(name: str) -> str:
    """``"add 2^20"`` -> ``"add_2e20"``, ``"add 1,024"`` -> ``"add_1024"``: the name as a Python identifier."""
    return name.replace("^", "e").replace(",", "").replace(" ", "_")


def load_kernels(dev):
    """The KernelSet every launch workload needs (the chain's four and the three sources above); close it last."""
    return dev.load_kernels(names=list(CHAIN), extra_sources=dict(EXTRA_SOURCES))


@dataclass
class Built:
    """One workload made on a device (module docstring). ``work``: what ``cgl.measure`` is given (bound to the
    stream it was built with); ``stream_kind``: the view a callable asks for; ``bytes``: what one call must move."""

    name: str
    kind: str
    work: object
    enqueue_on: Callable  # stream -> a function of no arguments enqueuing one call on it
    poison: Callable[[], None]
    expected: Callable[[], np.ndarray]
    read: Callable[[], np.ndarray]
    bytes: int
    stream_kind: str = "cugraphlab"
    owned: list = field(default_factory=list)

    def call_on(self, stream) -> Callable[[], None]:
        return self.enqueue_on(stream)

    def check(self, what: str = "after measuring"):
        """``out`` against NumPy float32, bit for bit (a Verification: ``ok``, and where it first differed)."""
        return compare_bits(f"{self.name}: {what}", self.read(), self.expected())

    def close(self) -> None:
        for thing in reversed(self.owned):
            try:
                thing.close()
            except Exception:
                pass
        self.owned.clear()


def _random(rng, n: int) -> np.ndarray:
    return rng.standard_normal(n, dtype=np.float32)


def _arrays(dev, stream, host: list[np.ndarray], outs: int, n_out: int, owned: list) -> list:
    made = []
    for h in host:
        a = dev.array(h.size)
        owned.append(a)
        a.copy_from(h, stream)
        made.append(a)
    for _ in range(outs):
        a = dev.array(n_out)
        owned.append(a)
        a.poison(stream)
        made.append(a)
    return made


def _poisoner(out, stream) -> Callable[[], None]:
    """Poison ``out`` and wait for it: the work may run on another stream (measure's, cuda-bench's)."""
    def poison() -> None:
        out.poison(stream)
        stream.synchronize()

    return poison


def _launch_built(name, dev, stream, kernel, signature, args, config, out, expected, nbytes, owned) -> Built:
    packed = PackedArgs(signature, args)
    launch = Launch(kernel, packed, config, stream)
    return Built(name, "launch", launch, lambda s: Launch(kernel, packed, config, s),
                 _poisoner(out, stream), expected, lambda: out.to_numpy(stream=stream), nbytes, owned=owned)


def saxpy(dev, stream, kernels, rng=None) -> Built:
    rng = rng or np.random.default_rng()
    hx, hy = _random(rng, BIG), _random(rng, BIG)
    owned: list = []
    x, y, out = _arrays(dev, stream, [hx, hy], 1, BIG, owned)
    exp = np.add(np.multiply(np.float32(SAXPY_A), hx, dtype=np.float32), hy, dtype=np.float32)
    cfg = LaunchConfig(grid_for(BIG, BLOCK, dev.sm_count, 8), BLOCK)
    return _launch_built("saxpy 2^20", dev, stream, kernels["saxpy"], ("ptr", "ptr", "ptr", "f32", "u64"),
                         (out, x, y, SAXPY_A, BIG), cfg, out, lambda: exp, 12 * BIG, owned)


def _chain_expected(op: str, hx, hy) -> np.ndarray:
    if op == "add":
        return np.add(hx, hy, dtype=np.float32)
    if op == "sub":
        return np.subtract(hx, hy, dtype=np.float32)
    if op == "mul":
        return np.multiply(hx, np.float32(SCALAR), dtype=np.float32)
    return np.where(hx > 0, hx, np.float32(0)).astype(np.float32)


def chain_kernel(op: str, n: int):
    """The builder of the chain's kernel ``op`` at ``n`` floats (its args as in ``experiment.ops``)."""
    def builder(dev, stream, kernels, rng=None) -> Built:
        rng = rng or np.random.default_rng()
        hx, hy = _random(rng, n), _random(rng, n)
        owned: list = []
        x, y, out = _arrays(dev, stream, [hx, hy], 1, n, owned)
        spec = OPS[op]
        if spec.reads_y:
            args, nbytes = (out, x, y, n), 12 * n
        elif spec.uses_scalar:
            args, nbytes = (out, x, SCALAR, n), 8 * n
        else:
            args, nbytes = (out, x, n), 8 * n
        exp = _chain_expected(op, hx, hy)
        cfg = LaunchConfig(chain_grid(n, dev.sm_count), BLOCK)
        return _launch_built(f"{op} {_size(n)}", dev, stream, kernels[op], spec.signature, args, cfg, out,
                             lambda: exp, nbytes, owned)

    builder.__name__ = f"{op}_{_size(n)}"
    return builder


def _size(n: int) -> str:
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e and e >= 16 else f"{n:,}"


def long_expected(hx: np.ndarray, reps: int = LONG_REPS) -> np.ndarray:
    v = hx.copy()
    a, b = np.float32(LONG_A), np.float32(LONG_B)
    for _ in range(reps):
        np.multiply(v, a, out=v)
        np.add(v, b, out=v)
    return v


def long_kernel(dev, stream, kernels, rng=None) -> Built:
    rng = rng or np.random.default_rng()
    hx = _random(rng, BIG)
    owned: list = []
    x, out = _arrays(dev, stream, [hx], 1, BIG, owned)
    cache: list = []

    def expected():  # about a second of NumPy: made once, when first checked
        if not cache:
            cache.append(long_expected(hx))
        return cache[0]

    cfg = LaunchConfig(-(-BIG // BLOCK), BLOCK)
    return _launch_built("long 2^20", dev, stream, kernels["long_fma"], ("ptr", "ptr", "f32", "f32", "u32", "u64"),
                         (out, x, LONG_A, LONG_B, LONG_REPS, BIG), cfg, out, expected, 8 * BIG, owned)


def reduce_expected(hx: np.ndarray) -> np.ndarray:
    """The kernel's own order: halves added pairwise, 128 apart, then 64, ... then 1, within each block."""
    v = hx.reshape(-1, REDUCE_BLOCK)
    width = REDUCE_BLOCK
    while width > 1:
        width //= 2
        v = np.add(v[:, :width], v[:, width:2 * width], dtype=np.float32)
    return v[:, 0].copy()


def reduce_kernel(dev, stream, kernels, rng=None) -> Built:
    rng = rng or np.random.default_rng()
    hx = _random(rng, BIG)
    owned: list = []
    blocks = BIG // REDUCE_BLOCK
    x, out = _arrays(dev, stream, [hx], 1, blocks, owned)
    exp = reduce_expected(hx)
    cfg = LaunchConfig(blocks, REDUCE_BLOCK)
    return _launch_built("reduce 2^20", dev, stream, kernels["block_sum"], ("ptr", "ptr", "u64"), (out, x, BIG),
                         cfg, out, lambda: exp, 4 * BIG + 4 * blocks, owned)


def graph50(dev, stream, kernels, rng=None) -> Built:
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.exec import ready_exec

    inner = chain_kernel("add", BIG)(dev, stream, kernels, rng)
    graph = capture_launches(stream, [inner.work] * GRAPH_LAUNCHES)
    exe = ready_exec(graph, stream)
    inner.owned.append(exe)

    def enqueue_on(s):
        return lambda: exe.launch(s)

    return Built(f"graph{GRAPH_LAUNCHES} add 2^20", "graph", exe, enqueue_on, inner.poison, inner.expected,
                 inner.read, GRAPH_LAUNCHES * inner.bytes, owned=inner.owned)


def _callable_built(lib: str, dev, stream, rng) -> Built:
    """The four elementwise ops in CuPy or PyTorch, on buffers of that library (made on ``dev``)."""
    from cugraphlab.bench.measure.streams import view_for

    rng = rng or np.random.default_rng()
    hx, hy = _random(rng, BIG), _random(rng, BIG)
    exp = np.maximum(np.subtract(np.multiply(np.add(hx, hy, dtype=np.float32), np.float32(SCALAR),
                                             dtype=np.float32), hy, dtype=np.float32), np.float32(0))
    ordinal = getattr(dev, "ordinal", 0)
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(ordinal):
            x, y = cupy.asarray(hx), cupy.asarray(hy)
            t1, t2, t3, out = (cupy.empty(BIG, dtype=cupy.float32) for _ in range(4))
        cupy.cuda.Device(ordinal).synchronize()

        def fn(s):
            with s:
                cupy.add(x, y, out=t1)
                cupy.multiply(t1, SCALAR, out=t2)
                cupy.subtract(t2, y, out=t3)
                cupy.maximum(t3, 0, out=out)

        def poison():
            with view_for("cupy", stream):
                out.fill(np.float32(np.nan))
            stream.synchronize()

        def read():
            stream.synchronize()
            return cupy.asnumpy(out)
    else:
        import torch

        d = torch.device("cuda", ordinal)
        x, y = torch.from_numpy(hx).to(d), torch.from_numpy(hy).to(d)
        t1, t2, t3, out = (torch.empty(BIG, dtype=torch.float32, device=d) for _ in range(4))
        torch.cuda.synchronize(d)

        def fn(s):
            with torch.cuda.stream(s):
                torch.add(x, y, out=t1)
                torch.mul(t1, SCALAR, out=t2)
                torch.sub(t2, y, out=t3)
                torch.clamp_min(t3, 0.0, out=out)

        def poison():
            with torch.cuda.stream(view_for("torch", stream)):
                out.fill_(float("nan"))
            stream.synchronize()

        def read():
            stream.synchronize()
            return out.cpu().numpy()

    fn.__name__ = fn.__qualname__ = f"{lib}_chain"
    def enqueue_on(s):
        v = view_for(lib, s)
        return lambda: fn(v)

    # 4 ops: add reads 2 writes 1, the other three read 1 (sub 2) and write 1
    return Built(f"{lib} chain 2^20", "callable", fn, enqueue_on, poison, lambda: exp, read, 4 * BIG * 11,
                 stream_kind=lib, owned=[])


def cupy_chain(dev, stream, kernels=None, rng=None) -> Built:
    return _callable_built("cupy", dev, stream, rng)


def torch_chain(dev, stream, kernels=None, rng=None) -> Built:
    return _callable_built("torch", dev, stream, rng)


BUILDERS: dict[str, Callable] = {"saxpy 2^20": saxpy}
for _n in (BIG, SMALL):
    for _op in CHAIN:
        BUILDERS[f"{_op} {_size(_n)}"] = chain_kernel(_op, _n)
BUILDERS["long 2^20"] = long_kernel
BUILDERS["reduce 2^20"] = reduce_kernel
BUILDERS[f"graph{GRAPH_LAUNCHES} add 2^20"] = graph50
BUILDERS["cupy chain 2^20"] = cupy_chain
BUILDERS["torch chain 2^20"] = torch_chain
WORKLOADS = tuple(BUILDERS)
#: the library each workload needs beyond cugraphlab (a side skips it, with a line, where it does not import)
NEEDS = {"cupy chain 2^20": "cupy", "torch chain 2^20": "torch"}


def build(name: str, dev, stream, kernels, rng=None) -> Built:
    """Workload ``name`` (one of ``WORKLOADS``) on ``dev``, its work bound to ``stream``."""
    if name not in BUILDERS:
        raise KeyError(f"no workload {name!r}; workloads: {', '.join(WORKLOADS)}")
    return BUILDERS[name](dev, stream, kernels, rng)


# --- the command line's targets: cugraphlab measure workloads.py:cli_call --setup setup_<slug> ... ------------------
class _CliState:
    """What a ``setup_<slug>`` returns: the workload built on the measure's stream, with the kernels it owns."""

    def __init__(self, name: str, stream):
        self.kernels = load_kernels(stream.device)
        self.built = build(name, stream.device, stream, self.kernels)
        self.call = self.built.call_on(stream)


def _cli_setup(name: str):
    def setup(stream):
        return _CliState(name, stream)

    setup.__name__ = setup.__qualname__ = f"setup_{slug(name)}"
    return setup


for _name in WORKLOADS:
    globals()[f"setup_{slug(_name)}"] = _cli_setup(_name)


def cli_call(stream, state: _CliState) -> None:
    """One call of the workload (enqueued on the stream it was built on: the one ``measure`` times)."""
    state.call()


def cli_prepare(state: _CliState) -> None:
    state.built.poison()


def cli_check(state: _CliState):
    return state.built.check("cugraphlab measure")
