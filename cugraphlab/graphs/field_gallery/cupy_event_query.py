"""CuPy: asking whether an event recorded inside the capture is done.

Thread: cupy/cupy PR #4567, "Support stream capture" (review: Stream.done and is_capturing, queries that are
"illegal" during capture). An event recorded in a capture is a node of the graph, not a real event yet.
Fix: record and query the event around the replay, not inside the capture.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_cupy


def main() -> None:
    cupy = need_cupy()
    xh = inputs(4096)
    x = cupy.asarray(xh)
    out = cupy.empty_like(x)
    ev = cupy.cuda.Event()
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        cupy.subtract(x, 3, out=out)
        s.synchronize()
        s.begin_capture()  # doctor: capture
        cupy.subtract(x, 3, out=out)
        if not fixed():
            ev.record(s)
            finished = ev.done  # doctor: here
            print("finished:", finished)
        graph = s.end_capture()
        out.fill(np.nan)
        graph.launch(s)
        ev.record(s)
        ev.synchronize()
        assert ev.done
    check("x - 3", out.get(), xh - np.float32(3))


if __name__ == "__main__":
    main()
