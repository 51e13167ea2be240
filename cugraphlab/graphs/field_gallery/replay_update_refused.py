"""cugraphlab: a graph captured again each step and updated into the executable, the topology changing on odd steps.

Threads: ggml-org/llama.cpp PR #7302 (CUDA graph updates refused when the graph's shape changes, "update
reconciliation makes the CUDA graph branch slower than the no-graphs branch") and pytorch/pytorch#171672. Every
refused cuGraphExecUpdate costs its own time and then an instantiate. Fix: keep the captured topology the same
each step (here: no extra kernel on odd steps), so that every update is accepted; where it must differ, keep one
executable per shape.
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import capture, try_exec_update
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n, steps = 4096, 6
    with cgl.Device(0) as dev, dev.create_stream() as s:
        xs = [dev.to_device(inputs(n)) for _ in range(2)]
        out = dev.array(n)
        launches = [twice(dev, s, out, x, n) for x in xs]
        exe = None
        try:
            for step in range(steps):
                with capture(s) as cap:  # doctor: capture
                    launches[step % 2]()
                    if step % 2 and not fixed():
                        launches[step % 2]()  # an extra node on odd steps: another topology
                with cap.graph as graph:
                    if exe is None:
                        exe = graph.instantiate()
                    else:
                        report = try_exec_update(exe, graph)  # doctor: here
                        if not report.updated:
                            exe.close()
                            exe = graph.instantiate()
                out.poison(stream=s)
                exe.launch(s)
                check(f"step {step}: 2 * x", out.to_numpy(stream=s), xs[step % 2].to_numpy() * np.float32(2))
        finally:
            if exe is not None:
                exe.close()


if __name__ == "__main__":
    main()
