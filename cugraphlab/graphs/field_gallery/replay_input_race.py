"""cugraphlab: new inputs copied on a copy stream, the graph launched on its own stream without waiting for them.

Threads: ashalliants/ninfer-3090 PR #44 (inputs staged by a host-to-device copy, then a captured graph launched on
a non-blocking stream that nothing ordered after the copy: 146 of 200 replays read stale inputs) and NVIDIA/warp
#1792 (a readback raced an asynchronous replay). The copy and the replay are not ordered: the replay may read the
old, the new or half of each. Fix: record an event on the copy stream after the copy and make the launch stream
wait for it (cuStreamWaitEvent) before the launch.
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import capture
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n = 1 << 20
    with cgl.Device(0) as dev, dev.create_stream() as s, dev.create_stream() as copies, \
            dev.create_event() as ev:
        x, out = dev.to_device(inputs(n)), dev.array(n)
        launch = twice(dev, s, out, x, n)
        with capture(s) as cap:  # doctor: capture
            launch()
        with cap.graph as graph, graph.instantiate() as exe:
            for step in range(3):
                xh = inputs(n)
                cgl.cu("cuMemcpyHtoDAsync", x.handle, xh.ctypes.data, x.nbytes, copies.handle)  # the next batch
                if fixed():
                    ev.record(copies)
                    s.wait(ev)
                out.poison(stream=s)
                exe.launch(s)  # doctor: here
                got = out.to_numpy(stream=s)
                copies.synchronize()
                if fixed():
                    check(f"step {step}: 2 * x", got, xh * np.float32(2))
                else:
                    same = np.array_equal(got, xh * np.float32(2))
                    print(f"step {step}: the replay {'happened to read' if same else 'did not read'} the new data")


if __name__ == "__main__":
    main()
