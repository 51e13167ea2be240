"""The native floor of ``cuGraphExecUpdate``: the update called from a C loop, timed in C, beside the Python calls.

What an update costs the host from Python has two parts: the driver's own work (pair the nodes of the two graphs,
check the topology, copy each kernel node's parameters into the executable) and what Python and the binding add
(argument conversion, the result-info object, the status tuple). A C loop has only the first. It is built at run
time by ``core.native.load_c_library`` (cached like cubins) and needs no CUDA header and no ``-lcuda``: Python hands
it libcuda's exported ``cuGraphExecUpdate_v2`` (what ``cuGraphExecUpdate`` in cuda.h 12.x/13.x maps to) as a
function pointer, with the raw handles of cugraphlab's objects:

    floor = UpdateFloor()                               # build or load the C loop; libcuda's cuGraphExecUpdate_v2
    loop = floor.update_loop(exe, [graph_b, graph_a])  # cuGraphExecUpdate(exe, graphs[i % 2], &info), i = 0..n-1
    ns = loop(50)                                       # one block of 50 calls, CLOCK_MONOTONIC around it, in C
    each = loop.each(50)                                # the same 50 calls, each timed alone (ns per call)

The result info is one struct on the C stack, reused by every call (the API allows it: an out-parameter). A loop
stops at the first CUresult that is not CUDA_SUCCESS (an update the driver refused included) and Python raises it
as a typed ``CudaError``. CUDA Driver API, "Graph Management": cuGraphExecUpdate.
"""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

from cugraphlab.bench.native.loops import LoopResult, driver_entry_points, handle_address, raise_for_status
from cugraphlab.core.native import NativeLibrary, load_c_library

__all__ = ["UPDATE_SOURCE", "UPDATE_ENTRY_POINTS", "UpdateFloor", "UPDATE_C_CLOCK"]

#: The clock of the C figures.
UPDATE_C_CLOCK = ("clock_gettime(CLOCK_MONOTONIC) inside the C loop: around K cuGraphExecUpdate calls divided by K "
                  "(host)")

#: The driver function the loop calls, by its exported name in libcuda.so.1.
UPDATE_ENTRY_POINTS = ("cuGraphExecUpdate_v2",)

#: The C loop. Driver types are declared here (no cuda.h); the entry point arrives as a function pointer.
UPDATE_SOURCE = r"""
/* cugraphlab native floor: cuGraphExecUpdate in a C loop, timed with CLOCK_MONOTONIC in C. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stddef.h>
#include <time.h>

typedef int CUresult;            /* CUDA_SUCCESS is 0 */
typedef void *CUgraph;
typedef void *CUgraphExec;
typedef void *CUgraphNode;

typedef struct {                 /* CUgraphExecUpdateResultInfo */
    int result;                  /* CUgraphExecUpdateResult */
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} cgl_update_info;

typedef CUresult (*cgl_exec_update_fn)(CUgraphExec hGraphExec, CUgraph hGraph, cgl_update_info *resultInfo);

typedef struct {
    int64_t ns;      /* CLOCK_MONOTONIC ns: the whole block, or the sum of the timed calls */
    int64_t done;    /* calls that returned CUDA_SUCCESS */
    int32_t status;  /* the first CUresult that was not CUDA_SUCCESS (0: none) */
    int32_t reserved;  /* the result enum of the info when status is not 0 */
} cgl_loop_result;

static int64_t cgl_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

int cgl_update_abi_version(void) { return 1; }

/* n calls of update(exec, graphs[i % ngraphs], &info). ns_each NULL: one clock pair around the block; else each
   call is timed alone into ns_each[i] (and out->ns is their sum). */
int cgl_update_loop(void *update, void *exec, void *const *graphs, int64_t ngraphs, int64_t n, int64_t *ns_each,
                    cgl_loop_result *out)
{
    cgl_exec_update_fn upd = (cgl_exec_update_fn)update;
    cgl_update_info info = {0, 0, 0};
    CUresult status = 0;
    int64_t i = 0, total = 0;
    if (ns_each == NULL) {
        const int64_t t0 = cgl_now_ns();
        for (; i < n; ++i) {
            status = upd((CUgraphExec)exec, (CUgraph)graphs[i % ngraphs], &info);
            if (status != 0) break;
        }
        total = cgl_now_ns() - t0;
    } else {
        for (; i < n; ++i) {
            const int64_t t0 = cgl_now_ns();
            status = upd((CUgraphExec)exec, (CUgraph)graphs[i % ngraphs], &info);
            const int64_t t1 = cgl_now_ns();
            if (status != 0) break;
            ns_each[i] = t1 - t0;
            total += t1 - t0;
        }
    }
    out->ns = total;
    out->done = i;
    out->status = status;
    out->reserved = status != 0 ? info.result : 0;
    return status;
}
"""

_VP = ctypes.c_void_p


def _declare(lib: NativeLibrary) -> NativeLibrary:
    lib.cgl_update_abi_version.restype = ctypes.c_int
    lib.cgl_update_abi_version.argtypes = ()
    lib.cgl_update_loop.restype = ctypes.c_int
    lib.cgl_update_loop.argtypes = (_VP, _VP, ctypes.POINTER(_VP), ctypes.c_int64, ctypes.c_int64,
                                    ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(LoopResult))
    return lib


class UpdateFloor:
    """The C loop of ``UPDATE_SOURCE`` built (or loaded from the cache) once, with the driver's entry point.

    ``entry`` maps "cuGraphExecUpdate_v2" to a function address; by default libcuda's (NoDeviceError without a
    driver library); a test may give a ctypes callback. ``cache``: the ``core.cache.Cache`` the library is kept in.
    UnsupportedError without a C compiler, NativeCompileError when it refuses the source.
    """

    def __init__(self, entry: dict[str, int] | None = None, cache=None):
        self.lib = _declare(load_c_library(UPDATE_SOURCE, "exec_update_loop", cache=cache))
        if self.lib.cgl_update_abi_version() != 1:  # pragma: no cover - a stale library under the same key
            raise RuntimeError("the native exec-update loop library has an unexpected ABI")
        self.entry = dict(entry) if entry is not None else driver_entry_points(UPDATE_ENTRY_POINTS)

    @property
    def cache_hit(self) -> bool:
        return self.lib.cache_hit

    def update_loop(self, exe, graphs: Sequence) -> Callable[[int], int]:
        """``loop(n) -> ns``: ``n`` calls of cuGraphExecUpdate(exe, graphs[i % len(graphs)], &info) in C, one clock
        pair around them; ``loop.each(n) -> list[int]``: the same calls each timed alone (ns). ``exe``: a
        GraphExec or raw handle; ``graphs``: Graphs or raw handles (at least one), kept alive by the loop. Raises
        the CudaError of the first failing call (a refused update: CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)."""
        graphs = list(graphs)
        if not graphs:
            raise ValueError("update_loop needs at least one source graph")
        c_graphs = (_VP * len(graphs))(*[handle_address(g) for g in graphs])
        fn, e, k = _VP(self.entry["cuGraphExecUpdate_v2"]), _VP(handle_address(exe)), len(graphs)
        out = LoopResult()
        lib_loop, ref = self.lib.cgl_update_loop, ctypes.byref(out)

        def _raise():
            raise_for_status(out.status, "cuGraphExecUpdate", out.done)

        def loop(n: int) -> int:
            lib_loop(fn, e, c_graphs, k, int(n), None, ref)
            if out.status:
                _raise()
            return int(out.ns)

        def each(n: int) -> list[int]:
            n = int(n)
            buf = (ctypes.c_int64 * max(n, 1))()
            lib_loop(fn, e, c_graphs, k, n, buf, ref)
            if out.status:
                _raise()
            return [int(v) for v in buf[:n]]

        loop.each = each  # type: ignore[attr-defined]
        loop.keep = (exe, graphs, c_graphs, out)  # type: ignore[attr-defined]  - alive as long as the loop
        return loop
