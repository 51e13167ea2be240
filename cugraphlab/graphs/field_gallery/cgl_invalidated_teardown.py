"""cugraphlab: a retry loop that tears down invalidated captures (an allocation in each, GLOBAL mode).

Threads: NVIDIA/cuda-python#2834 ("tearing down the invalidated GraphBuilder segfaults") and pytorch/pytorch#68985
("Graph API crashing when allocating memory" during capture). Each attempt is invalidated by cuMemAlloc and torn
down; the process must stay usable. Fix: allocate before the capture (or cuMemAllocAsync on the capturing stream,
captured as a memory node).
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import capture
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n = 4096
    xh = inputs(n)
    with cgl.Device(0) as dev, dev.create_stream() as s:
        x, out = dev.to_device(xh), dev.array(n)
        launch = twice(dev, s, out, x, n)
        scratch = cgl.cu("cuMemAlloc", 1 << 20) if fixed() else None
        graph = None
        for attempt in range(3):
            try:
                with capture(s, mode="global") as cap:  # doctor: capture
                    launch()
                    if scratch is None:
                        scratch_now = cgl.cu("cuMemAlloc", 1 << 20)  # doctor: here
                        cgl.cu("cuMemFree", scratch_now)
                graph = cap.graph
                break
            except cgl.CaptureError as e:
                print(f"attempt {attempt}: capture failed ({e.name}), torn down")
            except cgl.CudaError as e:
                print(f"attempt {attempt}: {e.name}, capture torn down")
        if graph is None:
            raise SystemExit("no attempt captured a graph")
        with graph, graph.instantiate() as exe:
            out.poison()
            exe.launch(s)
            s.synchronize()
        check("2 * x", out.to_numpy(), xh * np.float32(2))
        cgl.cu("cuMemFree", scratch)


if __name__ == "__main__":
    main()
