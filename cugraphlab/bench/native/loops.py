"""The native floor: ``cuLaunchKernel`` and ``cuGraphLaunch`` called from a C loop, beside the same loops in Python.

What a launch costs the host has three parts: the driver (writing the launch into its queue), the binding (turning
Python objects into C arguments) and Python itself (the loop, the call). A C loop has only the first, so "C: X µs,
Python adds Y µs" splits them. The C here is built at run time by ``core.native.load_c_library`` (cached like
cubins); it needs no CUDA header and no ``-lcuda``: Python hands it the driver's entry points as function pointers
(the addresses of ``libcuda.so.1``'s exported ``cuLaunchKernel`` and ``cuGraphLaunch``, what a C program linked
with ``-lcuda`` calls) together with the raw handles of cugraphlab's objects:

    floor = NativeFloor()                         # build or load the C loops; find the driver's entry points
    loop = floor.launch_loop(launch)              # same CUfunction, grid, block, packed kernelParams, stream
    ns = loop(5000)                               # cuLaunchKernel x 5000 inside C, timed by CLOCK_MONOTONIC in C
    ns = floor.graph_loop(graph_exec, stream)(5000)   # cuGraphLaunch x 5000 inside C

A loop stops at the first CUresult that is not CUDA_SUCCESS and says how many calls succeeded; Python raises it as
a typed ``CudaError``. Nothing waits on the GPU: the caller drains the stream before a timed block.

The Python counterparts (``bindings_loop``: the bare binding with the argument tuple built once; ``launch_loop``:
cugraphlab's ``Launch``; ``runner_loop``: cugraphlab's hot loop) time themselves with ``perf_counter_ns`` in the
harness (``bench.paired``). ``bench.probes.hold`` holds the stream with a spinning kernel so the same loops give the host cost
of the call alone.
"""
from __future__ import annotations

import ctypes
from typing import Callable

from ...core._calls import driver_fn, driver_module
from ...core.errors import InvalidArgumentError, NoDeviceError, check
from ...core.native import NativeLibrary, load_c_library
from ...graphs.handles import as_handle

__all__ = ["NATIVE_SOURCE", "LoopResult", "NativeFloor", "driver_entry_points", "raise_for_status",
           "bindings_loop", "launch_loop", "runner_loop", "graph_bindings_loop", "handle_address",
           "native_floor"]

#: The C loops. Driver types are declared here (no cuda.h); entry points arrive as function pointers.
NATIVE_SOURCE = r"""
/* cugraphlab native floor: cuLaunchKernel / cuGraphLaunch in a C loop, timed with CLOCK_MONOTONIC in C. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

typedef int CUresult;            /* CUDA_SUCCESS is 0 */
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUgraphExec;

typedef CUresult (*cgl_launch_kernel_fn)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                         unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                         void **kernelParams, void **extra);
typedef CUresult (*cgl_graph_launch_fn)(CUgraphExec hGraphExec, CUstream hStream);

typedef struct {
    int64_t ns;      /* CLOCK_MONOTONIC nanoseconds from before the first call to after the last */
    int64_t done;    /* calls that returned CUDA_SUCCESS */
    int32_t status;  /* the first CUresult that was not CUDA_SUCCESS (0: none) */
    int32_t reserved;
} cgl_loop_result;

static int64_t cgl_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

int cgl_abi_version(void) { return 1; }

/* dims: gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes */
int cgl_launch_loop(void *launch_kernel, void *f, const unsigned int *dims, void *stream, void **params,
                    int64_t n, cgl_loop_result *out)
{
    cgl_launch_kernel_fn launch = (cgl_launch_kernel_fn)launch_kernel;
    const unsigned int gx = dims[0], gy = dims[1], gz = dims[2], bx = dims[3], by = dims[4], bz = dims[5];
    const unsigned int smem = dims[6];
    CUresult status = 0;
    int64_t i = 0;
    const int64_t t0 = cgl_now_ns();
    for (; i < n; ++i) {
        status = launch((CUfunction)f, gx, gy, gz, bx, by, bz, smem, (CUstream)stream, params, 0);
        if (status != 0) break;
    }
    const int64_t t1 = cgl_now_ns();
    out->ns = t1 - t0;
    out->done = i;
    out->status = status;
    out->reserved = 0;
    return status;
}

int cgl_graph_loop(void *graph_launch, void *exec, void *stream, int64_t n, cgl_loop_result *out)
{
    cgl_graph_launch_fn launch = (cgl_graph_launch_fn)graph_launch;
    CUresult status = 0;
    int64_t i = 0;
    const int64_t t0 = cgl_now_ns();
    for (; i < n; ++i) {
        status = launch((CUgraphExec)exec, (CUstream)stream);
        if (status != 0) break;
    }
    const int64_t t1 = cgl_now_ns();
    out->ns = t1 - t0;
    out->done = i;
    out->status = status;
    out->reserved = 0;
    return status;
}
"""


class LoopResult(ctypes.Structure):
    """``cgl_loop_result``: elapsed ns (CLOCK_MONOTONIC, in C), successful calls, first failing CUresult."""

    _fields_ = [("ns", ctypes.c_int64), ("done", ctypes.c_int64), ("status", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


_VP = ctypes.c_void_p


def _declare(lib: NativeLibrary) -> NativeLibrary:
    lib.cgl_abi_version.restype = ctypes.c_int
    lib.cgl_abi_version.argtypes = ()
    lib.cgl_launch_loop.restype = ctypes.c_int
    lib.cgl_launch_loop.argtypes = (_VP, _VP, ctypes.POINTER(ctypes.c_uint), _VP, _VP, ctypes.c_int64,
                                    ctypes.POINTER(LoopResult))
    lib.cgl_graph_loop.restype = ctypes.c_int
    lib.cgl_graph_loop.argtypes = (_VP, _VP, _VP, ctypes.c_int64, ctypes.POINTER(LoopResult))
    return lib


def driver_entry_points(names=("cuLaunchKernel", "cuGraphLaunch")) -> dict[str, int]:
    """The addresses of ``libcuda.so.1``'s exported driver functions (the plain, non-per-thread-stream forms that a
    C program built against cuda.h without CUDA_API_PER_THREAD_DEFAULT_STREAM calls). NoDeviceError without a
    driver library."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise NoDeviceError(f"libcuda.so.1 is not loadable ({e}): the native floor needs the NVIDIA driver") from e
    return {n: int(ctypes.cast(getattr(lib, n), _VP).value) for n in names}


def raise_for_status(status: int, call: str, done: int) -> None:
    """Raise the CudaError of a CUresult returned inside a C loop (after ``done`` successful calls)."""
    if status == 0:
        return
    try:
        code = driver_module().CUresult(status)
    except Exception:  # not a known CUresult value: keep the number
        code = status
    check((code,), f"{call} (C loop, after {done:,} successful calls)")


def handle_address(x) -> int:
    """A driver handle (a cugraphlab object holding one in ``.handle``, a cuda.bindings CUfunction / CUstream /
    CUgraph / CUgraphExec, or an int) as the address the C loops take."""
    return int(as_handle(x))


class NativeFloor:
    """The C loops of ``NATIVE_SOURCE`` built (or loaded from the cache) once, with the driver's entry points.

    ``entry`` maps "cuLaunchKernel"/"cuGraphLaunch" to function addresses; by default libcuda's, a test may give
    others (a ctypes callback counting calls). ``cache`` is the ``core.cache.Cache`` the library is kept in.
    """

    def __init__(self, entry: dict[str, int] | None = None, cache=None):
        self.lib = _declare(load_c_library(NATIVE_SOURCE, "launch_loop", cache=cache))
        if self.lib.cgl_abi_version() != 1:  # pragma: no cover - a stale library under the same key
            raise RuntimeError("the native launch loop library has an unexpected ABI")
        self.entry = dict(entry) if entry is not None else driver_entry_points()

    @property
    def cache_hit(self) -> bool:
        return self.lib.cache_hit

    def raw_launch_loop(self, func: int, dims, stream: int, params: int) -> Callable[[int], int]:
        """``loop(n) -> ns``: ``n`` calls of cuLaunchKernel(func, *dims, stream, params, NULL) in C.

        ``dims``: (gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes); ``func``/``stream`` raw handles,
        ``params`` the address of the ``void*[]`` kernelParams array (``PackedArgs.address``). Raises the CudaError of
        the first failing call."""
        dims = tuple(int(d) for d in dims)
        if len(dims) != 7:
            raise InvalidArgumentError(f"dims must hold 7 values (grid xyz, block xyz, shared bytes), got {len(dims)}")
        c_dims = (ctypes.c_uint * 7)(*dims)
        fn, f, s, p = _VP(self.entry["cuLaunchKernel"]), _VP(func), _VP(stream), _VP(params or None)
        out = LoopResult()
        lib_loop, ref = self.lib.cgl_launch_loop, ctypes.byref(out)

        def loop(n: int) -> int:
            lib_loop(fn, f, c_dims, s, p, int(n), ref)
            if out.status:
                raise_for_status(out.status, "cuLaunchKernel", out.done)
            return int(out.ns)

        loop.keep = (c_dims, out)  # type: ignore[attr-defined]  - the arrays live as long as the loop
        return loop

    def launch_loop(self, launch) -> Callable[[int], int]:
        """The C loop of a ``core.launch.Launch`` (not programmatic): its CUfunction, grid, block, shared memory,
        packed kernelParams and stream. Wraps cuLaunchKernel (CUDA Driver API, "Execution Control")."""
        if launch.config.programmatic:
            raise InvalidArgumentError("the C loop calls cuLaunchKernel: a programmatic Launch needs cuLaunchKernelEx")
        dims = (*launch.config.grid, *launch.config.block, launch.config.shared_bytes)
        loop = self.raw_launch_loop(handle_address(launch.kernel), dims, handle_address(launch.stream),
                                    int(launch.args.address))
        loop.launch = launch  # type: ignore[attr-defined]  - keeps the packed arguments alive
        return loop

    def graph_loop(self, graph_exec, stream) -> Callable[[int], int]:
        """``loop(n) -> ns``: ``n`` calls of cuGraphLaunch(exec, stream) in C (CUDA Driver API, "Graph
        Management"). ``graph_exec``: a GraphExec or a raw handle; ``stream``: a Stream or a raw handle."""
        fn, e, s = _VP(self.entry["cuGraphLaunch"]), _VP(handle_address(graph_exec)), _VP(handle_address(stream))
        out = LoopResult()
        lib_loop, ref = self.lib.cgl_graph_loop, ctypes.byref(out)

        def loop(n: int) -> int:
            lib_loop(fn, e, s, int(n), ref)
            if out.status:
                raise_for_status(out.status, "cuGraphLaunch", out.done)
            return int(out.ns)

        loop.keep = (graph_exec, stream, out)  # type: ignore[attr-defined]
        return loop


_floor: NativeFloor | None = None


def native_floor() -> NativeFloor:
    """The process's NativeFloor (the C loops built once, then shared); UnsupportedError without a C compiler."""
    global _floor
    if _floor is None:
        _floor = NativeFloor()
    return _floor


# --- the same loops in Python ------------------------------------------------------------------------------------
def bindings_loop(launch) -> Callable[[int], None]:
    """``loop(n)``: the bare binding, ``cuda.bindings.driver.cuLaunchKernel(*args)`` ``n`` times with the whole
    argument tuple built once (the launch's CUfunction, dims, stream and kernelParams address) and the status
    tested; the floor every Python way is a ratio to."""
    fn = driver_module().cuLaunchKernel
    c = launch.call_args if not launch.config.programmatic else None
    if c is None:
        raise InvalidArgumentError("bindings_loop needs a cuLaunchKernel Launch (not programmatic)")

    def loop(n: int) -> None:
        for _ in range(n):
            r = fn(*c)
            if r[0]:
                check(r, "cuLaunchKernel")

    return loop


def launch_loop(launch) -> Callable[[int], None]:
    """``loop(n)``: cugraphlab's ``Launch`` called ``n`` times (``launch()``: one binding call, one status test)."""

    def loop(n: int) -> None:
        for _ in range(n):
            launch()

    return loop


def runner_loop(runner) -> Callable[[int], None]:
    """``loop(n)``: cugraphlab's hot loop, ``experiment.runners.Runner.eager(n)`` over its launches."""
    return runner.eager


def graph_bindings_loop(graph_exec, stream) -> Callable[[int], None]:
    """``loop(n)``: ``cuda.bindings.driver.cuGraphLaunch(exec, stream)`` ``n`` times with the status tested."""
    fn = driver_fn("cuGraphLaunch")
    h, s = graph_exec.handle, stream.handle

    def loop(n: int) -> None:
        for _ in range(n):
            r = fn(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")

    return loop
