"""numba-cuda: copy_to_host() of a result inside a capture made on a CuPy stream.

Thread: cupy/cupy#6290, "Improve stream capture support" (what may run while CuPy captures). numba's
copy_to_host waits for the copy. Fix: copy after the replay (or copy_to_host(stream=...) into pinned memory).
Skips where numba-cuda does not import or cannot compile (on the H200 image its first compile fails against numpy
2.5: "module 'numpy' has no attribute 'row_stack'").
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import fixed, launch_and_check, need, need_cupy, stack_works
from cugraphlab.graphs.field_gallery._numba import doubling


def main() -> None:
    cuda = need("numba.cuda")
    cupy = need_cupy()

    s = cupy.cuda.Stream(non_blocking=True)
    with stack_works("numba-cuda"):  # its first compile: skipped where numba-cuda is broken against numpy
        double, xh, x, out, dx, dout = doubling(cuda, cupy)
        ns = cuda.external_stream(s.ptr)
        double[16, 256, ns](dx, dout)  # compiled and loaded before the capture
        s.synchronize()
    with s:
        s.begin_capture()  # doctor: capture
        double[16, 256, ns](dx, dout)
        if not fixed():
            host = dout.copy_to_host()  # doctor: here
            print(host[:4])
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x * 2 by numba", xh * np.float32(2))


if __name__ == "__main__":
    main()
