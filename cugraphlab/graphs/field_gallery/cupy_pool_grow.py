"""CuPy: the memory pool grows (cudaMalloc) inside a thread-local capture.

Thread: cupy/cupy#6290, "Improve stream capture support" (cuSPARSE and others "require the usage of
cudaMallocAsync" under capture; a plain cudaMalloc is refused by a strict capture). Fix: allocate before
begin_capture and reuse the array (or use cupy.cuda.MemoryAsyncPool, or relaxed mode).
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import fixed, inputs, launch_and_check, need_cupy

N = 12_582_917  # float32 elements: a size the pool has not served yet


def main() -> None:
    cupy = need_cupy()
    xh = inputs(4096)
    x = cupy.asarray(xh)
    out = cupy.empty_like(x)
    s = cupy.cuda.Stream(non_blocking=True)
    scratch = cupy.empty(N, dtype=cupy.float32) if fixed() else None
    with s:
        cupy.multiply(x, 3, out=out)  # warm-up: both kernels compiled and loaded before the capture
        out[...] = x
        s.synchronize()
        s.begin_capture(mode=cupy.cuda.runtime.streamCaptureModeThreadLocal)  # doctor: capture
        if not fixed():
            scratch = cupy.empty(N, dtype=cupy.float32)  # doctor: here
        cupy.multiply(x, 3, out=scratch[:4096])
        out[...] = scratch[:4096]
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x * 3", xh * np.float32(3))


if __name__ == "__main__":
    main()
