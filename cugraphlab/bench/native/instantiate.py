"""The native floor of instantiation: ``cuGraphInstantiate`` called from C, timed in C, beside the Python call.

``cugraphlab scaling`` asks whether instantiating a graph from Python costs, per node, within 10% of the same call
made by a C program. Python's figure is ``perf_counter_ns`` around the binding's ``cuGraphInstantiate(graph, 0)``;
this module makes the C one: a loop built at run time by ``core.native.load_c_library`` (cached like cubins), which
needs no CUDA header and no ``-lcuda``: Python hands it the driver's entry points as function pointers, as
``bench.native`` does for ``cuLaunchKernel``/``cuGraphLaunch`` (whose C ``cuGraphLaunch`` loop gives the launch
floor):

    floor = InstantiateFloor()                  # build or load the C loop; libcuda's cuGraphInstantiateWithFlags
    ns = floor.instantiate_ns(graph, 1)         # per call: t0; cuGraphInstantiateWithFlags(&exec, graph, 0); t1;
                                                #           cuGraphExecDestroy(exec) (outside the timing)

``cuGraphInstantiateWithFlags`` is what a C program built against cuda.h 12.x or 13.x calls when it writes
``cuGraphInstantiate(&exec, graph, flags)`` (the header maps the name), and the entry point cuda-bindings' own
``cuGraphInstantiate(graph, flags)`` resolves to. The loop stops at the first CUresult that is not CUDA_SUCCESS;
Python raises it as a typed ``CudaError``. CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

import ctypes

from ...core.native import NativeLibrary, load_c_library
from .loops import LoopResult, driver_entry_points, handle_address, raise_for_status

__all__ = ["INSTANTIATE_SOURCE", "INSTANTIATE_ENTRY_POINTS", "InstantiateFloor", "NATIVE_CLOCK"]

#: The clock of the C figures (a record's ``clocks["c_monotonic"]``).
NATIVE_CLOCK = ("clock_gettime(CLOCK_MONOTONIC) inside a C loop: around each cuGraphInstantiate, or around K "
                "cuGraphLaunch calls divided by K (host)")

#: The driver functions the loop calls, by their exported names in libcuda.so.1.
INSTANTIATE_ENTRY_POINTS = ("cuGraphInstantiateWithFlags", "cuGraphExecDestroy")

#: The C loop. Driver types are declared here (no cuda.h); entry points arrive as function pointers.
INSTANTIATE_SOURCE = r"""
/* cugraphlab native floor: cuGraphInstantiate in a C loop, each call timed with CLOCK_MONOTONIC in C. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

typedef int CUresult;            /* CUDA_SUCCESS is 0 */
typedef void *CUgraph;
typedef void *CUgraphExec;

typedef CUresult (*cgl_instantiate_fn)(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags);
typedef CUresult (*cgl_exec_destroy_fn)(CUgraphExec hGraphExec);

typedef struct {
    int64_t ns;      /* the sum of the timed calls */
    int64_t done;    /* instantiations that returned CUDA_SUCCESS (and were destroyed) */
    int32_t status;  /* the first CUresult that was not CUDA_SUCCESS (0: none) */
    int32_t failed;  /* which call failed: 1 cuGraphInstantiate, 2 cuGraphExecDestroy (0: none) */
} cgl_loop_result;

static int64_t cgl_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

int cgl_instantiate_abi_version(void) { return 1; }

/* n x (instantiate, timed; destroy, not timed); ns_each[i] the i-th instantiation's nanoseconds */
int cgl_instantiate_loop(void *instantiate, void *exec_destroy, void *graph, unsigned long long flags, int64_t n,
                         int64_t *ns_each, cgl_loop_result *out)
{
    cgl_instantiate_fn inst = (cgl_instantiate_fn)instantiate;
    cgl_exec_destroy_fn destroy = (cgl_exec_destroy_fn)exec_destroy;
    CUresult status = 0;
    int32_t failed = 0;
    int64_t i = 0, total = 0;
    for (; i < n; ++i) {
        CUgraphExec exec = 0;
        const int64_t t0 = cgl_now_ns();
        status = inst(&exec, (CUgraph)graph, flags);
        const int64_t t1 = cgl_now_ns();
        if (status != 0) { failed = 1; break; }
        ns_each[i] = t1 - t0;
        total += t1 - t0;
        status = destroy(exec);
        if (status != 0) { failed = 2; break; }
    }
    out->ns = total;
    out->done = i;
    out->status = status;
    out->failed = failed;
    return status;
}
"""

_VP = ctypes.c_void_p


def _declare(lib: NativeLibrary) -> NativeLibrary:
    lib.cgl_instantiate_abi_version.restype = ctypes.c_int
    lib.cgl_instantiate_abi_version.argtypes = ()
    lib.cgl_instantiate_loop.restype = ctypes.c_int
    lib.cgl_instantiate_loop.argtypes = (_VP, _VP, _VP, ctypes.c_ulonglong, ctypes.c_int64,
                                         ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(LoopResult))
    return lib


class InstantiateFloor:
    """The C loop of ``INSTANTIATE_SOURCE`` built (or loaded from the cache) once, with the driver's entry points.

    ``entry`` maps ``INSTANTIATE_ENTRY_POINTS`` to function addresses; by default libcuda's (NoDeviceError without
    a driver library), a test may give others (ctypes callbacks). ``cache``: the ``core.cache.Cache`` the library
    is kept in. UnsupportedError without a C compiler.
    """

    def __init__(self, entry: dict[str, int] | None = None, cache=None):
        self.lib = _declare(load_c_library(INSTANTIATE_SOURCE, "instantiate_loop", cache=cache))
        if self.lib.cgl_instantiate_abi_version() != 1:  # pragma: no cover - a stale library under the same key
            raise RuntimeError("the native instantiate loop library has an unexpected ABI")
        self.entry = dict(entry) if entry is not None else driver_entry_points(INSTANTIATE_ENTRY_POINTS)

    @property
    def cache_hit(self) -> bool:
        return self.lib.cache_hit

    def instantiate_ns(self, graph, n: int = 1, flags: int = 0) -> list[int]:
        """``n`` instantiations of ``graph`` (a Graph or a raw CUgraph) with ``flags``, each timed in C and its
        executable destroyed at once: the nanoseconds of each call (cuGraphInstantiate; CUDA Driver API, "Graph
        Management"). Raises the CudaError of the first failing call."""
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        each = (ctypes.c_int64 * n)()
        out = LoopResult()
        self.lib.cgl_instantiate_loop(_VP(self.entry["cuGraphInstantiateWithFlags"]),
                                      _VP(self.entry["cuGraphExecDestroy"]), _VP(handle_address(graph)),
                                      ctypes.c_ulonglong(int(flags)), n, each, ctypes.byref(out))
        if out.status:
            call = "cuGraphExecDestroy" if out.reserved == 2 else "cuGraphInstantiate"  # C's ``failed``
            raise_for_status(out.status, call, out.done)
        return [int(v) for v in each]
