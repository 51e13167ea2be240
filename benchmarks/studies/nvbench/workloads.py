"""The kernels both tools time: a user's saxpy at 2^20 floats and the chain's four kernels (kernels/add.cu, mul.cu,
sub.cu, relu.cu; their argument kinds from ``cugraphlab.experiment.ops``) at 2^20 and 1,024 floats.

A ``Workload`` owns its buffers (x, y random, out poisoned) and makes its one prepared launch on any stream
(``launch_on``): cugraphlab's own stream, or nvbench's, wrapped. ``check()`` compares ``out`` bit for bit with NumPy
float32 (``compare_bits``), so a kernel either tool launched is proven to have run on these inputs. ``bytes`` is
what one launch must move (each array read or written once), for the GB/s columns.

A stream another library made (nvbench's, a ``cuda.bench.CudaStream``) is wrapped with ``cugraphlab.Stream.wrap``:
its ``__cuda_stream__`` gives the CUstream, which the wrapper never destroys.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cugraphlab import compare_bits
from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs, grid_for
from cugraphlab.experiment.chain import BLOCK, chain_grid
from cugraphlab.experiment.ops import OPS

__all__ = ["SAXPY_SOURCE", "SAXPY_A", "KERNELS", "SIZES", "Workload", "plan", "build_workloads", "size_label"]

#: A user's own kernel, as a user writes it: one float per thread, a grid-stride loop. Compiled with cugraphlab's
#: default options (``--fmad=false``), so a*x + y rounds twice, as NumPy's float32 ``a * x + y`` does.
SAXPY_SOURCE = r"""
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
"""
SAXPY_A = 2.5
SCALAR = 2.0  # mul's factor, as in the chain
KERNELS = ("saxpy", "add", "mul", "sub", "relu")
SIZES = (1 << 20, 1 << 10)


def size_label(n: int) -> str:
    e = int(np.log2(n))
    return f"2^{e}" if 1 << e == n else f"{n:,}"


def plan(quick: bool = False) -> list[tuple[str, int]]:
    """(kernel, floats) of the study: saxpy at 2^20, the chain's four kernels at 2^20 and 1,024."""
    out = [("saxpy", 1 << 20)] + [(k, n) for n in SIZES for k in KERNELS[1:]]
    return out[:3] if quick else out


@dataclass
class Workload:
    """One kernel at one size with its own buffers; ``launch_on(stream)`` prepares its launch (packed once)."""

    kernel_name: str
    n: int
    kernel: object
    signature: tuple
    config: LaunchConfig
    x: object
    y: object
    out: object
    hx: np.ndarray
    hy: np.ndarray
    launches: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.kernel_name} {size_label(self.n)}"

    @property
    def bytes(self) -> int:
        arrays = 3 if self.kernel_name in ("saxpy", "add", "sub") else 2
        return arrays * 4 * self.n

    def args(self, out=None, x=None, y=None) -> tuple:
        out = self.out if out is None else out
        x = self.x if x is None else x
        y = self.y if y is None else y
        k = self.kernel_name
        if k == "saxpy":
            return (out, x, y, SAXPY_A, self.n)
        if OPS[k].reads_y:
            return (out, x, y, self.n)
        if OPS[k].uses_scalar:
            return (out, x, SCALAR, self.n)
        return (out, x, self.n)

    def launch_on(self, stream, **buffers) -> Launch:
        """The launch on ``stream`` (a cugraphlab Stream, its own or wrapped); kept per stream unless ``buffers``
        (out=, x=, y=: other arrays or addresses, for rotating sets) are given."""
        if buffers:
            return Launch(self.kernel, PackedArgs(self.signature, self.args(**buffers)), self.config, stream)
        key = int(stream.handle)
        if key not in self.launches:
            self.launches[key] = Launch(self.kernel, PackedArgs(self.signature, self.args()), self.config, stream)
        return self.launches[key]

    def expected(self, hx=None, hy=None) -> np.ndarray:
        hx = self.hx if hx is None else hx
        hy = self.hy if hy is None else hy
        k = self.kernel_name
        if k == "saxpy":
            return np.add(np.multiply(np.float32(SAXPY_A), hx, dtype=np.float32), hy, dtype=np.float32)
        if k == "add":
            return np.add(hx, hy, dtype=np.float32)
        if k == "sub":
            return np.subtract(hx, hy, dtype=np.float32)
        if k == "mul":
            return np.multiply(hx, np.float32(SCALAR), dtype=np.float32)
        return np.where(hx > 0, hx, np.float32(0)).astype(np.float32)

    def check(self, stream, what: str):
        """``out`` against NumPy, bit for bit (a Verification: ``ok``, and where it first differed)."""
        return compare_bits(f"{self.name}: {what}", self.out.to_numpy(stream=stream), self.expected())

    def poison(self, stream) -> None:
        self.out.poison(stream)

    def close(self) -> None:
        self.launches.clear()
        for a in (self.x, self.y, self.out):
            a.close()


def build_workloads(dev, kernels, stream, items, seed: int = 25) -> list[Workload]:
    """A Workload per (kernel, floats) of ``items`` on ``dev``: random inputs (negative ones too, for relu and
    sub), output poisoned. ``kernels``: a KernelSet holding the chain's kernels and "saxpy"."""
    rng = np.random.default_rng(seed)
    out = []
    for name, n in items:
        hx = rng.standard_normal(n, dtype=np.float32)
        hy = rng.standard_normal(n, dtype=np.float32)
        if name == "saxpy":
            sig, grid = ("ptr", "ptr", "ptr", "f32", "u64"), grid_for(n, BLOCK, dev.sm_count, 8)
        else:
            sig, grid = OPS[name].signature, chain_grid(n, dev.sm_count)
        x, y, o = dev.array(n), dev.array(n), dev.array(n)
        x.copy_from(hx, stream)
        y.copy_from(hy, stream)
        o.poison(stream)
        out.append(Workload(name, n, kernels[name], sig, LaunchConfig(grid, BLOCK), x, y, o, hx, hy))
    return out
