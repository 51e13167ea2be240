"""CuPy: ndarray.get() inside a stream capture.

Thread: cupy/cupy PR #4567, "Support stream capture" (capture works "with a subset of CuPy features": no host
round trip inside it). get() copies to the host and synchronizes the capturing stream. Fix: launch the graph,
synchronize, then get().
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import fixed, inputs, launch_and_check, need_cupy


def main() -> None:
    cupy = need_cupy()
    xh = inputs(4096)
    x = cupy.asarray(xh)
    out = cupy.empty_like(x)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        cupy.multiply(x, 2, out=out)  # warm-up: the kernel is compiled and loaded before the capture
        s.synchronize()
        s.begin_capture()  # doctor: capture
        cupy.multiply(x, 2, out=out)
        if not fixed():
            print(out.get())  # doctor: here
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x * 2", xh * np.float32(2))


if __name__ == "__main__":
    main()
