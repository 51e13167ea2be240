"""numba-cuda: a kernel launched without a stream (the legacy stream) while CuPy captures a blocking stream.

Thread: cupy/cupy#6290, "Improve stream capture support" (libraries that launch on their own default stream while
CuPy captures). numba's default is the legacy NULL stream: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT.
Fix: pass the capturing stream (kernel[grid, block, cuda.external_stream(s.ptr)]).
Skips where numba-cuda does not import or cannot compile (on the H200 image its first compile fails against numpy
2.5: "module 'numpy' has no attribute 'row_stack'").
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import fixed, launch_and_check, need, need_cupy, stack_works
from cugraphlab.graphs.field_gallery._numba import doubling


def main() -> None:
    cuda = need("numba.cuda")
    cupy = need_cupy()

    with stack_works("numba-cuda"):  # its first compile: skipped where numba-cuda is broken against numpy
        double, xh, x, out, dx, dout = doubling(cuda, cupy)
        double[16, 256](dx, dout)
        cuda.synchronize()
    s = cupy.cuda.Stream()  # blocking, CuPy's default
    ns = cuda.external_stream(s.ptr)
    with s:
        s.begin_capture()  # doctor: capture
        if fixed():
            double[16, 256, ns](dx, dout)
        else:
            double[16, 256](dx, dout)  # doctor: here
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x * 2 by numba", xh * np.float32(2))


if __name__ == "__main__":
    main()
