"""cugraphlab: a host callback (a host node of the graph) that calls the CUDA driver.

Thread: cupy/cupy PR #9283, "Allow host function call during CUDA graph capture" (host functions recorded as host
nodes); the driver's rule for them: "Callbacks must not make any CUDA API calls" (cuStreamAddCallback,
cuLaunchHostFunc). Here the callback logs free device memory at replay. Fix: keep the callback pure Python
(count, set a flag) and ask the driver after the replay.
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import HostCallback, capture, launch_host_func
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs

LOG: list = []


def log_free_memory() -> None:
    if fixed():
        LOG.append("replayed")
    else:
        LOG.append(cgl.cu("cuMemGetInfo"))  # doctor: here


def main() -> None:
    n = 4096
    xh = inputs(n)
    with cgl.Device(0) as dev, dev.create_stream() as s, HostCallback.python(log_free_memory) as cb:
        x, out = dev.to_device(xh), dev.array(n)
        launch = twice(dev, s, out, x, n)
        with capture(s) as cap:  # doctor: capture
            launch()
            launch_host_func(s, cb, owner=cap)
        with cap.graph as graph, graph.instantiate() as exe:
            out.poison()
            exe.launch(s)
            s.synchronize()
        check("2 * x before the host node", out.to_numpy(), xh * np.float32(2))
        assert cb.calls == 1, f"the host node ran {cb.calls} times"
        print("host node ran once; free memory after the replay:", cgl.cu("cuMemGetInfo"), LOG, cb.errors)


if __name__ == "__main__":
    main()
