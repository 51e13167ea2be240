"""cugraphlab: a host wait inside the capture that fills a conditional node's body.

Thread: NVIDIA/cuda-python#111, "[EPIC] Support CUDA graphs" (conditional nodes among the graph features the
stacks add); the CUDA Programming Guide captures conditional bodies with cudaStreamBeginCaptureToGraph, and a
synchronize inside that capture invalidates it like any other. Fix: keep host waits out of the body; decide on
the device (a kernel sets the condition).
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import add_conditional_node, capture_into, create_handle
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n = 4096
    xh = inputs(n)
    with cgl.Device(0) as dev, dev.create_stream() as s:
        x, out = dev.to_device(xh), dev.array(n)
        launch = twice(dev, s, out, x, n)
        graph = cgl.Graph(dev, cgl.cu("cuGraphCreate", 0))
        h = create_handle(graph, dev.context, 1)  # the IF node runs its body once per launch
        node, body = add_conditional_node(graph, [], "IF", h, dev.context)
        with capture_into(s, body):  # doctor: capture
            launch()
            if not fixed():
                s.synchronize()  # doctor: here
        with graph.instantiate() as exe:
            out.poison()
            exe.launch(s)
            s.synchronize()
            check("2 * x in the IF body", out.to_numpy(), xh * np.float32(2))
        graph.close()


if __name__ == "__main__":
    main()
