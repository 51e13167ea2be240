"""A correct CuPy program: elementwise work captured on a non-blocking stream, replayed on fresh inputs.

The doctor must find nothing.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, inputs, need_cupy


def main() -> None:
    cupy = need_cupy()
    n = 1 << 16
    x, y, t, out = (cupy.empty(n, dtype=cupy.float32) for _ in range(4))
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        cupy.add(x, y, out=t)
        cupy.multiply(t, 2, out=out)
        s.synchronize()
        s.begin_capture()  # doctor: capture
        cupy.add(x, y, out=t)
        cupy.multiply(t, 2, out=out)
        graph = s.end_capture()
        for _ in range(3):
            xh, yh = inputs(n), inputs(n)
            x.set(xh)
            y.set(yh)
            out.fill(np.nan)
            graph.launch(s)
            s.synchronize()
            check("(x + y) * 2", out.get(), (xh + yh) * np.float32(2))


if __name__ == "__main__":
    main()
