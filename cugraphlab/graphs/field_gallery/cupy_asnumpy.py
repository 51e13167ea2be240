"""CuPy: cupy.asnumpy inside a stream capture.

Thread: cupy/cupy#6290, "Improve stream capture support" (what CuPy allows while a stream captures: no host
round trip inside it). cupy.asnumpy copies to the host and waits for the copy. Fix: launch the graph,
synchronize, then cupy.asnumpy.
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
            host = cupy.asnumpy(out)  # doctor: here
            print(host[:4])
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x * 2", xh * np.float32(2))


if __name__ == "__main__":
    main()
