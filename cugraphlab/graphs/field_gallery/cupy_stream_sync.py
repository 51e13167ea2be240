"""CuPy: stream.synchronize() between begin_capture and end_capture.

Thread: cupy/cupy PR #4567, "Support stream capture" (review: is_capturing "could be raised if such a query is
illegal, please refer to the CUDA Programming Guide"; synchronizing a capturing stream is always refused).
Fix: synchronize after graph.launch(s).
"""

from cugraphlab.graphs.field_gallery._field import fixed, inputs, launch_and_check, need_cupy


def main() -> None:
    cupy = need_cupy()
    xh, yh = inputs(4096), inputs(4096)
    x, y = cupy.asarray(xh), cupy.asarray(yh)
    out = cupy.empty_like(x)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        cupy.add(x, y, out=out)
        s.synchronize()
        s.begin_capture()  # doctor: capture
        cupy.add(x, y, out=out)
        if not fixed():
            s.synchronize()  # doctor: here
        graph = s.end_capture()
        launch_and_check(graph, s, out, "x + y", xh + yh)


if __name__ == "__main__":
    main()
