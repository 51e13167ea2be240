"""Example 10: graph memory nodes. The chain's intermediates t1, t2, t3 live only inside the graph.
The course teaches it in notebooks/14_memory_nodes.ipynb (the course's own order: docs/course/course.md).

    t1 = cuGraphAddMemAllocNode(...)   -> add(t1, x, y)
    t2 = cuGraphAddMemAllocNode(...)   -> mul(t2, t1, 2) -> cuGraphAddMemFreeNode(t1)
    t3 = cuGraphAddMemAllocNode(...)   -> sub(t3, t2, y) -> cuGraphAddMemFreeNode(t2)
                                          relu(out, t3)  -> cuGraphAddMemFreeNode(t3)

The same graph comes from stream capture of cuMemAllocAsync / cuLaunchKernel / cuMemFreeAsync. The driver gives
each alloc node its address when the node is made; t3 is allocated after t1 is freed, so it may take t1's address
(virtual-address reuse). The first launch of an executable maps physical memory; later launches reuse it. The
footprint attributes (cuDeviceGetGraphMemAttribute: used and reserved, current and high) show it. Destroying the
exec (cuGraphExecDestroy) gives its memory back to the graph pool, not to the OS: the attributes and cuMemGetInfo
read the same until cuDeviceGraphMemTrim, which unmaps it. A graph that does not free an allocation cannot be
launched again until it is freed, unless instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.
The same chain in other shapes (MemChain(shape=...): "parallel", "parallel_end", "block") moves memory nodes off
the path; all are timed here beside the preallocated chain.

Run (with the package installed): python3 examples/10_memory_nodes.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    the chain, intermediates allocated in the graph
    10 nodes, 9 edges
      [0] MEM_ALLOC    4 MiB (4,194,304 bytes) at 0x302000000
      [1] KERNEL:add   grid 1024, block 256  after [0]
      [2] MEM_ALLOC    4 MiB (4,194,304 bytes) at 0x302400000  after [1]
      [3] KERNEL:mul   grid 1024, block 256  after [2]
      [4] MEM_FREE     frees 0x302000000  after [3]
      [5] MEM_ALLOC    4 MiB (4,194,304 bytes) at 0x302000000  after [4]
      [6] KERNEL:sub   grid 1024, block 256  after [5]
      [7] MEM_FREE     frees 0x302400000  after [6]
      [8] KERNEL:relu  grid 1024, block 256  after [7]
      [9] MEM_FREE     frees 0x302000000  after [8]
    edges: [0] -> [1]  [1] -> [2]  [2] -> [3]  [3] -> [4]  [4] -> [5]  [5] -> [6]  [6] -> [7]  [7] -> [8]  [8] -> [9]
    layers (nodes on one line may run at the same time):
       0 | [0] mem_alloc
       1 | [1] add
       2 | [2] mem_alloc
       3 | [3] mul
       4 | [4] mem_free
       5 | [5] mem_alloc
       6 | [6] sub
       7 | [7] mem_free
       8 | [8] relu
       9 | [9] mem_free

    t1 0x302000000, t2 0x302400000, t3 0x302000000: t3 at t1's address
    explicit vs captured: same topology: 10 nodes, 9 edges

    before instantiate           used 0.0 MiB (high 0.0), reserved 0.0 MiB (high 0.0)
    after the first launch       used 32.0 MiB (high 32.0), reserved 32.0 MiB (high 32.0)  (317.5 us until complete, host clock)
    repeats (device clock: CUDA events): preallocated chain 10.36 us/iteration; memory nodes, line 11.21 (+8.3%)
                                       parallel 11.23 (+8.4%)
                                       parallel_end 11.28 (+8.9%)
                                       block 11.18 (+7.9%)

    exec destroyed               used 32.0 MiB (high 32.0), reserved 32.0 MiB (high 32.0)  (the pool keeps it)
    cuDeviceGraphMemTrim         used 0.0 MiB (high 32.0), reserved 0.0 MiB (high 32.0)  (32.0 MiB more free, cuMemGetInfo)

    a graph that leaves its allocation unfreed:
      ok   launch 1: the allocation at 0x304000000 outlives the graph; a copy after it reads the pattern 0x778d4b55 in all 1,024 elements
      ok   launch 2 without freeing: refused with CUDA_ERROR_INVALID_VALUE (UnfreedAllocationError)
      ok   after free_outstanding (cuMemFreeAsync x1), launch 3 works and wrote the pattern again
      ok   a second instantiate while the first exec lives: refused with CUDA_ERROR_NOT_SUPPORTED (SecondExecError)
      ok   AUTO_FREE_ON_LAUNCH: two launches without a free both work; the second wrote the pattern
      ok   execs closed (they cuMemFree what their launches left): the pool still holds used 33,554,432 bytes, reserved 33,554,432; after cuDeviceGraphMemTrim used 0, reserved 0 (0 and 0 before)
    first launch: bit-exact (1,048,576 elements)
    graph memory nodes (line, explicit): bit-exact (1,048,576 elements)
    graph memory nodes (parallel, explicit): bit-exact (1,048,576 elements)
    graph memory nodes (parallel_end, explicit): bit-exact (1,048,576 elements)
    graph memory nodes (block, explicit): bit-exact (1,048,576 elements)
    used graph memory back at its start after the trim: yes
"""
import sys
import time

import cugraphlab as cgl
from cugraphlab.experiment import MemChain, demonstrate_unfreed, topology_check
from cugraphlab.graphs import graph_mem_footprint, trim_graph_mem

ITERS = 2000


def device_us_per_iter(run, stream, start, end) -> float:
    """Device clock (CUDA events on the stream) per iteration of ITERS launches."""
    stream.synchronize()
    start.record(stream)
    run(ITERS)
    end.record(stream)
    end.synchronize()
    return start.elapsed_us(end) / ITERS


def main() -> int:
    with cgl.Device(0) as dev:
        try:
            mc = MemChain(dev, n=1 << 20, instantiate=False)  # UnsupportedError without memory pools: one line
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        with mc, cgl.Chain(dev, n=1 << 20, kernels=mc.kernels, stream=mc.stream) as pre, \
                dev.create_event() as start, dev.create_event() as end:
            print(mc.view("the chain, intermediates allocated in the graph") + "\n")
            print(mc.address_reuse())
            same, diff, _, _ = topology_check(dev, 1 << 20, kernels=mc.kernels, stream=mc.stream)
            print(f"explicit vs captured: {diff}\n")

            dev.synchronize()
            trim_graph_mem(dev)
            base = graph_mem_footprint(dev)
            print(f"{'before instantiate':28s} {base}")
            mc.instantiate()
            mc.prepare()
            t0 = time.perf_counter_ns()
            mc.run(1)  # the first launch maps the graph's physical memory
            mc.stream.synchronize()
            first_us = (time.perf_counter_ns() - t0) / 1e3
            checks = [mc.check_result("first launch")]
            print(f"{'after the first launch':28s} {graph_mem_footprint(dev)}  ({first_us:.1f} us until complete, "
                  "host clock)")

            pre.run("graph", 10)  # warm the preallocated chain's graph too
            pre_us = device_us_per_iter(lambda k: pre.run("graph", k), mc.stream, start, end)
            mem_us = device_us_per_iter(mc.run, mc.stream, start, end)
            checks.append(mc.verify())
            print(f"repeats (device clock: CUDA events): preallocated chain {pre_us:.2f} us/iteration; "
                  f"memory nodes, line {mem_us:.2f} ({(mem_us / pre_us - 1) * 100:+.1f}%)")
            for shape in ("parallel", "parallel_end", "block"):
                with MemChain(dev, n=1 << 20, shape=shape, kernels=mc.kernels, stream=mc.stream) as other:
                    other.run(10)
                    us = device_us_per_iter(other.run, mc.stream, start, end)
                    checks.append(other.verify())
                    print(f"{'':34s} {shape} {us:.2f} ({(us / pre_us - 1) * 100:+.1f}%)")
            print()

            mc.close_exec()
            dev.synchronize()
            free_before = dev.memory_info()[0]
            print(f"{'exec destroyed':28s} {graph_mem_footprint(dev)}  (the pool keeps it)")
            trim_graph_mem(dev)
            trimmed = graph_mem_footprint(dev)
            freed = dev.memory_info()[0] - free_before
            print(f"{'cuDeviceGraphMemTrim':28s} {trimmed}  ({freed / 2**20:.1f} MiB more free, cuMemGetInfo)\n")
            back = trimmed.used_current == base.used_current

            demo = demonstrate_unfreed(dev, mc.stream, 1024)
            print("a graph that leaves its allocation unfreed:")
            for step in demo.steps:
                print(("  ok   " if step["ok"] else "  FAIL ") + step["text"])
            for v in checks:
                print(v)
            print(f"used graph memory back at its start after the trim: {'yes' if back else 'NO'}")
            ok = all(v.ok for v in checks) and same and demo.ok and back
            return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
