"""cugraphlab: one executable graph launched on two streams, each stream reading the graph's output after its launch.

Threads: XPU-Forces/xpu_graph PR #491 (a graph replayed on the current stream, not the capture stream, so the
runner's synchronize of the capture stream did not wait for the replay) and microsoft/onnxruntime PR #9978 (replay
is not thread-safe: one graph instance per thread and stream). The driver orders the launches of one executable
behind each other (cuGraphLaunch), but not the work around them: stream B's launch overwrites ``out`` while stream
A's copy of it may still be reading. Nothing fails. Fix: make the second stream wait for an event
recorded on the first after its work (or instantiate the graph once per stream, each with its own buffers).
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import capture
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n, steps = 1 << 16, 6
    xh = inputs(n)
    with cgl.Device(0) as dev, dev.create_stream() as a, dev.create_stream() as b, dev.create_event() as ev:
        x, out = dev.to_device(xh), dev.array(n)
        launch = twice(dev, a, out, x, n)
        with capture(a) as cap:  # doctor: capture
            launch()
        host = [np.full(n, np.nan, np.float32) for _ in range(steps)]
        streams = (a, b)
        with cap.graph as graph, graph.instantiate() as exe:
            for step in range(steps):
                s = streams[step % 2]
                exe.launch(s)  # doctor: here
                cgl.cu("cuMemcpyDtoHAsync", host[step].ctypes.data, out.handle, out.nbytes, s.handle)
                if fixed():  # the next stream starts after this one's launch and copy
                    ev.record(s)
                    streams[(step + 1) % 2].wait(ev)
            a.synchronize()
            b.synchronize()
        for step in range(steps):
            check(f"step {step}: 2 * x", host[step], xh * np.float32(2))


if __name__ == "__main__":
    main()
