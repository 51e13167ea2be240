"""numba-cuda: copy_to_host() of a result inside a capture made on a CuPy stream.

Thread: cupy/cupy#6290, "Improve stream capture support" (what may run while CuPy captures). numba's
copy_to_host waits for the copy. Fix: copy after the replay (or copy_to_host(stream=...) into pinned memory).
Skips where numba-cuda does not import or cannot compile (on the H200 image its first compile fails against numpy
2.5: "module 'numpy' has no attribute 'row_stack'").
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need, need_cupy, stack_works


def main() -> None:
    cuda = need("numba.cuda")
    cupy = need_cupy()
    xh = inputs(4096)
    x, out = cupy.asarray(xh), cupy.empty(4096, dtype=cupy.float32)
    s = cupy.cuda.Stream(non_blocking=True)
    with stack_works("numba-cuda"):  # its first compile: skipped where numba-cuda is broken against numpy
        @cuda.jit
        def double(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = x[i] * np.float32(2)

        ns = cuda.external_stream(s.ptr)
        dx, dout = cuda.as_cuda_array(x), cuda.as_cuda_array(out)
        double[16, 256, ns](dx, dout)  # compiled and loaded before the capture
        s.synchronize()
    with s:
        s.begin_capture()  # doctor: capture
        double[16, 256, ns](dx, dout)
        if not fixed():
            host = dout.copy_to_host()  # doctor: here
            print(host[:4])
        graph = s.end_capture()
        out.fill(np.nan)
        graph.launch(s)
        s.synchronize()
    check("x * 2 by numba", out.get(), xh * np.float32(2))


if __name__ == "__main__":
    main()
