"""Example 3: building the graph by hand, node by node, and checking it equals the captured one.
The course teaches it in notebooks/03_node_by_node.ipynb (the course's own order: docs/course/course.md).

    cuGraphCreate(0) -> graph
    cuGraphAddKernelNode(graph, deps, len(deps), CUDA_KERNEL_NODE_PARAMS) -> node
        params: func, gridDimX/Y/Z, blockDimX/Y/Z, sharedMemBytes, kernelParams (void**), extra = 0
        deps: [] for the first op, [previous node] for the others

The driver copies the argument values into the node when it is added. The first graph below is built with these
two calls written out (through ``cgl.cu``, cugraphlab's one door to the driver: it checks every CUresult, raises a
typed error with a hint, and shows in ``cgl.tracing()``); ``build_chain_graph`` does the same for the second one,
which also has memset and memcpy nodes in front (cuGraphAddMemsetNode, cuGraphAddMemcpyNode), so one launch poisons
the outputs and copies staged inputs in.
Run (with the package installed): python3 examples/03_explicit_build.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    built by hand:
    4 nodes, 3 edges
      [0] KERNEL:add   grid 1025, block 256
      [1] KERNEL:mul   grid 1025, block 256  after [0]
      [2] KERNEL:sub   grid 1025, block 256  after [1]
      [3] KERNEL:relu  grid 1025, block 256  after [2]
    edges: [0] -> [1]  [1] -> [2]  [2] -> [3]
    layers (nodes on one line may run at the same time):
       0 | [0] add
       1 | [1] mul
       2 | [2] sub
       3 | [3] relu

    built vs captured: same topology: 4 nodes, 3 edges
    explicit graph: bit-exact (1,048,579 elements)

    with memset and memcpy nodes in front:
    10 nodes, 9 edges
      [0] MEMCPY
      [1] MEMCPY
      [2] MEMSET
      [3] MEMSET
      [4] MEMSET
      [5] MEMSET
      [6] KERNEL:add   grid 1025, block 256  after [0], [1], [2], [3], [4], [5]
      [7] KERNEL:mul   grid 1025, block 256  after [6]
      [8] KERNEL:sub   grid 1025, block 256  after [7]
      [9] KERNEL:relu  grid 1025, block 256  after [8]
    edges: [0] -> [6]  [1] -> [6]  [2] -> [6]  [3] -> [6]  [4] -> [6]  [5] -> [6]  [6] -> [7]  [7] -> [8]  [8] -> [9]
    layers (nodes on one line may run at the same time):
       0 | [0] memcpy  [1] memcpy  [2] memset  [3] memset  [4] memset  [5] memset
       1 | [6] add
       2 | [7] mul
       3 | [8] sub
       4 | [9] relu
    memset + memcpy + chain: bit-exact (1,048,579 elements)
"""
import sys

import numpy as np

import cugraphlab as cgl
from cugraphlab import compare_bits, reference
from cugraphlab.experiment import build_chain_graph
from cugraphlab.graphs import graph_view, render_text, same_topology


def run_once(chain, graph):
    with graph.instantiate() as exe:
        exe.launch(chain.stream)
        chain.stream.synchronize()


def build_by_hand(dev, chain) -> cgl.Graph:
    """cuGraphCreate, then one cuGraphAddKernelNode per op, each after the one before."""
    d = cgl.driver_module()  # cuda.bindings.driver
    graph = cgl.Graph(dev, cgl.cu("cuGraphCreate", 0))  # the Graph object owns it: cuGraphDestroy on close
    try:
        deps = []
        for launch in chain.launches:  # kernel, packed arguments and launch shape of each op (example 1)
            p = d.CUDA_KERNEL_NODE_PARAMS()
            p.func = launch.kernel.handle
            p.gridDimX, p.gridDimY, p.gridDimZ = launch.config.grid
            p.blockDimX, p.blockDimY, p.blockDimZ = launch.config.block
            p.sharedMemBytes = launch.config.shared_bytes
            p.kernelParams = int(launch.args.address)  # void**: the driver copies the values now
            p.extra = 0
            node = cgl.cu("cuGraphAddKernelNode", graph.handle, deps or None, len(deps), p)
            deps = [node]  # the next op reads this op's output: one edge
        return graph
    except BaseException:
        graph.close()
        raise


def main() -> int:
    ok = True
    with cgl.Device(0) as dev, cgl.Chain(dev, n=(1 << 20) + 3) as chain:
        with build_by_hand(dev, chain) as built, chain.capture() as captured:
            print(render_text(graph_view(built), "built by hand:"))
            same, diff = same_topology(built, captured)
            print(f"\nbuilt vs captured: {diff}")
            ok &= same
            chain.randomize()
            chain.poison()
            run_once(chain, built)
            v = chain.check_result("explicit graph")
            print(v)
            ok &= v.ok

        # Staged inputs: the graph copies them into x and y itself, after poisoning every output.
        rng = np.random.default_rng()
        xh = rng.standard_normal(chain.n, dtype=np.float32)
        yh = rng.standard_normal(chain.n, dtype=np.float32)
        with dev.to_device(xh) as sx, dev.to_device(yh) as sy:
            chain.x.poison()  # stale inputs: only the memcpy nodes can make the result right
            chain.y.poison()
            with build_chain_graph(chain, with_memset=True, staged=(sx, sy)) as g:
                print("\n" + render_text(graph_view(g), "with memset and memcpy nodes in front:"))
                run_once(chain, g)
            v = compare_bits("memset + memcpy + chain", chain.out.to_numpy(), reference(chain.ops, xh, yh, 2.0))
            print(v)
            ok &= v.ok
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
