# %% [markdown]
# # 10 · Graph memory nodes
#
# *Programming Guide, "Graph Memory Nodes".* A graph can allocate and free memory itself: the chain's
# intermediates live only inside the graph.
#
#     t1 = cuGraphAddMemAllocNode(graph, deps, n, CUDA_MEM_ALLOC_NODE_PARAMS{poolProps, bytesize})  # .dptr: address
#     add(t1, x, y) ... mul(t2, t1, 2) -> cuGraphAddMemFreeNode(graph, [mul], 1, t1)
#
# The driver gives each alloc node its address when the node is made; the first launch of the executable maps
# physical memory, later launches reuse it (`cuDeviceGetGraphMemAttribute` shows the footprint).

# %% [markdown]
# ## Predict
# t3 is allocated after t1 is freed. Can t3 get t1's address? How much graph memory is in use before the first
# launch, after it, and after the executable is destroyed?

# %% [gpu] makes the chain's inputs and output
from cugraphlab.graphs import add_kernel_node, graph_mem_footprint, trim_graph_mem
from cugraphlab.graphs.memory import alloc_node_params
chain = cgl.Chain(dev, n=1 << 18)
s, n, nbytes = chain.stream.handle, chain.n, chain.n * 4

# %% [markdown]
# ## Run: alloc and free nodes around the chain, written out

# %% [gpu] builds the chain with its intermediates in memory nodes
g = Graph(dev)
def alloc(deps):
    p = alloc_node_params(dev, nbytes)  # pinned device memory on this GPU, no peer access
    node = cu("cuGraphAddMemAllocNode", g.handle, deps or None, len(deps), p)
    return node, int(p.dptr)  # the driver wrote the address into the params
def free(ptr, deps):
    return cu("cuGraphAddMemFreeNode", g.handle, deps, len(deps), d.CUdeviceptr(ptr))
k = chain.kernels
keep = []  # the launches' packed arguments: copied into the nodes, kept anyway
def kernel(name, sig, args, deps):
    L = k[name].prepare(sig, args, chain.config, chain.stream); keep.append(L)
    return add_kernel_node(g, L, deps)
a1, t1 = alloc([])
n_add = kernel("add", ("ptr", "ptr", "ptr", "u64"), (t1, chain.x, chain.y, n), [a1])
a2, t2 = alloc([n_add])
n_mul = kernel("mul", ("ptr", "ptr", "f32", "u64"), (t2, t1, 2.0, n), [a2])
f1 = free(t1, [n_mul])
a3, t3 = alloc([f1])
n_sub = kernel("sub", ("ptr", "ptr", "ptr", "u64"), (t3, t2, chain.y, n), [a3])
f2 = free(t2, [n_sub])
n_relu = kernel("relu", ("ptr", "ptr", "u64"), (chain.out, t3, n), [n_sub])
f3 = free(t3, [n_relu])
print(f"t1 {t1:#x}, t2 {t2:#x}, t3 {t3:#x}: t3 {'reuses' if t3 == t1 else 'does not reuse'} t1's address")
show_graph(g, "the chain, intermediates in the graph:")

# %% [markdown]
# ## The answer, graded, and the footprint

# %% [gpu] instantiates, launches, checks the bits and reads the footprint
dev.synchronize(); trim_graph_mem(dev)
print(f"{'before instantiate':24s} {graph_mem_footprint(dev)}")
exe = g.instantiate()
chain.randomize(); chain.poison()
t0 = time.perf_counter_ns()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
first_us = (time.perf_counter_ns() - t0) / 1e3
print(f"{'after the first launch':24s} {graph_mem_footprint(dev)}  ({first_us:.1f} us, host clock)")
v = cgl.compare_bits("memory nodes", chain.out.to_numpy(), chain.expected())
print(v)
assert v.ok, f"the memory-node chain differs from NumPy: {v}"

# %% [markdown]
# ## Measure: memory nodes against preallocated buffers (device clock)

# %% [gpu] times repeated launches of both graphs
from cugraphlab.bench import timed_loop, summarize
pre = chain.graph_exec()
start, end = dev.create_event(), dev.create_event()
res = {}
for name, e in (("memory nodes", exe.handle), ("preallocated", pre.handle)):
    run = lambda it, e=e: [cu("cuGraphLaunch", e, s) for _ in range(it)]
    run(20)
    res[name] = summarize([timed_loop(chain.stream, run, 500, start, end)[1] for _ in range(3)],
                          unit="us", clock="cuEventElapsedTime").median
    print(f"{name:14s} {res[name]:7.2f} us per launch (device clock)")
fig, ax = new_figure(); ax.bar(list(res), list(res.values()), color=["tab:brown", "tab:gray"])
ax.set_ylabel("device us per launch"); show_figure(fig)
exe.close(); dev.synchronize()
print(f"{'exec destroyed':24s} {graph_mem_footprint(dev)}")
trim_graph_mem(dev)
print(f"{'cuDeviceGraphMemTrim':24s} {graph_mem_footprint(dev)}")

# %% [markdown]
# ## On the H200: every shape of memory node, first launches and the footprint
# The committed `cugraphlab memnodes` record, drawn without a GPU: first launches of fresh executables, the steady
# state of four shapes against preallocated buffers, and the pool step by step.

# %% [record] memory nodes on the H200
from cugraphlab.report.memnodes import render_memnodes
rec = h200_record("memnodes")
if rec is not None:
    print(render_memnodes(rec))

# %% [markdown]
# ## What it means
# After the first launch, memory nodes cost about what preallocated buffers cost: the memory stays mapped to the
# executable, and virtual addresses are reused inside the graph once freed. `cugraphlab.MemChain` and
# `cugraphlab memnodes` go further (capture of `cuMemAllocAsync`, graphs that leave memory unfreed).
#
# ## Change this and run again
# Delete the free node of t3 (`f3`). Instantiate and launch twice: what does the second launch answer, and which
# instantiate flag (`CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`) fixes it?

# %% [gpu] frees what this notebook made
for o in (g, start, end, chain):
    o.close()
print("closed")
