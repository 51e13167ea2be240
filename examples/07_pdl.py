"""Example 7: programmatic dependent launch (PDL, sm_90+). Let the next kernel launch while this one finishes.
The course teaches it in notebooks/12_pdl.ipynb (the course's own order: docs/course/course.md).

Between two kernels on a stream the GPU normally drains the first grid, flushes its writes, and only then starts
launching the second: a gap of about half a microsecond per kernel. With PDL:

    kernel (compiled with -DCGL_PDL):   griddepcontrol.launch_dependents   # "my successor may start launching"
                                        griddepcontrol.wait                # "wait until my predecessor is done"
    host:  cuLaunchKernelEx(config, f, args, 0)  with the launch attribute
           CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1

The results are exactly those of fully serialized launches (each kernel waits before touching memory); only the
launch work overlaps. Captured into a graph, the launches become kernel nodes joined by programmatic edges.

Run (with the package installed): python3 examples/07_pdl.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    captured PDL graph: 4 kernel nodes, 3 programmatic edges
    plain eager (cuLaunchKernel)     21.56 us/iteration (host clock, perf_counter_ns)
    PDL eager (cuLaunchKernelEx)     16.57 us/iteration (host clock, perf_counter_ns)
    plain graph                      10.53 us/iteration (host clock, perf_counter_ns)
    PDL graph                         9.75 us/iteration (host clock, perf_counter_ns)
    pdl eager: bit-exact (1,048,576 elements)
    pdl graph: bit-exact (1,048,576 elements)
    pdl graph: bit-exact (1,048,576 elements)
"""
import sys
import time

import cugraphlab as cgl
from cugraphlab.experiment import PdlChain
from cugraphlab.graphs import programmatic_edge_count

ITERS = 2000


def per_iter_us(run, stream) -> float:
    """Host wall clock (perf_counter_ns) per iteration, until the stream has finished."""
    stream.synchronize()
    t0 = time.perf_counter_ns()
    run(ITERS)
    stream.synchronize()
    return (time.perf_counter_ns() - t0) / 1e3 / ITERS


def main() -> int:
    with cgl.Device(0) as dev:
        try:
            pdl = PdlChain(dev, n=1 << 20)  # UnsupportedError before sm_90: said in one line, no crash
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        with pdl:
            checks = [pdl.verify("eager"), pdl.verify("graph")]  # fresh inputs, poisoned outputs, NumPy bits
            graph = pdl.capture()
            print(f"captured PDL graph: {graph.node_count} kernel nodes, "
                  f"{programmatic_edge_count(graph)} programmatic edges")
            graph.close()
            plain = pdl.chain  # the same kernels and buffers, launched the ordinary way
            rows = [
                ("plain eager (cuLaunchKernel)", per_iter_us(lambda k: plain.run("eager", k), pdl.stream)),
                ("PDL eager (cuLaunchKernelEx)", per_iter_us(lambda k: pdl.run("eager", k), pdl.stream)),
                ("plain graph", per_iter_us(lambda k: plain.run("graph", k), pdl.stream)),
                ("PDL graph", per_iter_us(lambda k: pdl.run("graph", k), pdl.stream)),
            ]
            for name, us in rows:
                print(f"{name:30s} {us:7.2f} us/iteration (host clock, perf_counter_ns)")
            checks.append(pdl.check_result("graph"))  # the timed runs' output too
            for v in checks:
                print(v)
            return 0 if all(v.ok for v in checks) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
