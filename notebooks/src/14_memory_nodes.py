# %% [markdown]
# # 14 · Graph memory nodes
#
# *Programming Guide, "Graph Memory Nodes".* A graph can allocate and free memory itself: the chain's
# intermediates live only inside the graph.
#
#     t1 = cuGraphAddMemAllocNode(graph, deps, n, CUDA_MEM_ALLOC_NODE_PARAMS{poolProps, bytesize})  # .dptr: address
#     add(t1, x, y) ... mul(t2, t1, 2) -> cuGraphAddMemFreeNode(graph, [mul], 1, t1)
#
# The driver gives each alloc node its virtual address when the node is made; physical memory is mapped to the
# executable when it is first uploaded, by `cuGraphUpload` or by its first launch, and later launches reuse it
# (`cuDeviceGetGraphMemAttribute` shows the footprint).
#
# *Prerequisites: notebooks 03 and 05.*

# %% [markdown]
# ## Predict
# t3 is allocated after t1 is freed. Can t3 get t1's address? How much graph memory is in use before the first
# launch, after it, and after the executable is destroyed?

# %% [gpu] makes the chain's inputs and output
from cugraphlab.graphs import add_kernel_node, alloc_node_params, graph_mem_footprint, trim_graph_mem
chain = cgl.Chain(dev, n=1 << 18)
s, n, nbytes = chain.stream.handle, chain.n, chain.n * 4

# %% [markdown]
# ## Run: alloc and free nodes around the chain, written out

# %% [gpu] builds the chain with its intermediates in memory nodes
g = Graph(dev)
def alloc(graph, deps):
    p = alloc_node_params(dev, nbytes)  # pinned device memory on this GPU, no peer access
    node = cu("cuGraphAddMemAllocNode", graph.handle, deps or None, len(deps), p)
    return node, int(p.dptr)  # the driver wrote the address into the params
def free(graph, ptr, deps):
    return cu("cuGraphAddMemFreeNode", graph.handle, deps, len(deps), d.CUdeviceptr(ptr))
k = chain.kernels
keep = []  # the launches' packed arguments: copied into the nodes, kept anyway
def kernel(graph, name, sig, args, deps):
    L = k[name].prepare(sig, args, chain.config, chain.stream); keep.append(L)
    return add_kernel_node(graph, L, deps)
a1, t1 = alloc(g, [])
n_add = kernel(g, "add", ("ptr", "ptr", "ptr", "u64"), (t1, chain.x, chain.y, n), [a1])
a2, t2 = alloc(g, [n_add])
n_mul = kernel(g, "mul", ("ptr", "ptr", "f32", "u64"), (t2, t1, 2.0, n), [a2])
f1 = free(g, t1, [n_mul])
a3, t3 = alloc(g, [f1])
n_sub = kernel(g, "sub", ("ptr", "ptr", "ptr", "u64"), (t3, t2, chain.y, n), [a3])
f2 = free(g, t2, [n_sub])
n_relu = kernel(g, "relu", ("ptr", "ptr", "u64"), (chain.out, t3, n), [n_sub])
f3 = free(g, t3, [n_relu])
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
from cugraphlab.bench import summarize, timed_loop
pre = chain.graph_exec()
start, end = dev.create_event(), dev.create_event()
res = {}
for name, e in (("memory nodes", exe.handle), ("preallocated", pre.handle)):
    run = lambda it, e=e: [cu("cuGraphLaunch", e, s) for _ in range(it)]
    run(20)
    res[name] = summarize([timed_loop(chain.stream, run, 500, start, end)[1] for _ in range(3)],
                          unit="us", clock="cuEventElapsedTime").median
    print(f"{name:14s} {res[name]:7.2f} us per launch (device clock)")
extra = res["memory nodes"] - res["preallocated"]
print(f"the memory nodes add {extra:+.2f} us per launch ({100 * extra / res['preallocated']:+.1f}%) here")
fig, ax = new_figure(); ax.bar(list(res), list(res.values()), color=["tab:brown", "tab:gray"])
ax.set_ylabel("device us per launch"); show_figure(fig)
exe.close(); dev.synchronize()
print(f"{'exec destroyed':24s} {graph_mem_footprint(dev)}")
trim_graph_mem(dev)
print(f"{'cuDeviceGraphMemTrim':24s} {graph_mem_footprint(dev)}")

# %% [markdown]
# ## On the H200: first launches, and the steady state against preallocated buffers
# The committed `cugraphlab memnodes` record (2^20 floats, 12 MiB of intermediates), drawn without a GPU.

# %% [record] memory nodes on the H200: a fresh executable's first launch, and repeat launches
memnodes = show_record("memnodes", "First launch of a fresh executable", "memory nodes, cold", "preallocated chain graph",
                       within="First launch of a fresh executable")
if memnodes is not None:
    show(memnodes, "Repeat launches", "memory nodes, line ", "preallocated chain (graph)", "the memory nodes add",
         within="Repeat launches")

# %% [markdown]
# ## What it means
# After the first launch, memory nodes cost a little device time on every launch (the cell above prints it here;
# in the record they add 0.81-0.93 µs per launch whatever the shape), and nothing more: the memory stays mapped
# to the executable, and virtual addresses are reused inside the graph once freed. The first launch of a fresh
# executable is the expensive one (the record: mapping the pool), which `cuGraphUpload` can move ahead of time.
# The two first launches differ in kind: the live one above is a single launch, the first of its kind in this
# process, on this GPU; the record's is a median with its p5-p95 over many fresh executables, each after a trim,
# on the H200 (its header line). Read one against the other as an order of magnitude, not as a match.
#
# The footprint lines say where the memory goes: destroying the executable did not lower "used" or "reserved"
# (the lines after `exe.close()` above); only `cuDeviceGraphMemTrim` handed it back (both fall to 0, while "high"
# remembers the peak). The driver keeps graph memory in its pool for the next graph until it is trimmed.
# `experiment.MemChain` and `cugraphlab memnodes` go further (capture of `cuMemAllocAsync`, graphs that leave
# memory unfreed).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Memory a launch leaves behind (GPU)
# Build the graph again without the free node of t3 (`f3`): t3 then outlives the launch. Instantiate it plainly and
# launch it twice: put the error name the second launch raises (`CudaError.name`) in `second_error`. Then
# instantiate it with `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`, launch it twice on fresh inputs, and put
# the output in `autofree_out`. (Use `cgl.CudaError`; a graph with memory nodes can have one executable at a time:
# close the first before the second.)

# %% [exercise 1]
second_error, autofree_out = None, None

# %% [check 1 gpu] the second launch refused without the flag, and bit-exact with it
def _check1(err):
    v = cgl.compare_bits("auto free on launch", np.asarray(autofree_out), chain.expected())
    return err == "CUDA_ERROR_INVALID_VALUE" and v.ok, f"second launch without the flag: {err}; with it: {v}"
grade(1, second_error, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · When can an address be reused? (GPU)
# Build the chain's memory-node graph again, but allocate t3 right after `add` (its alloc node depending on `n_add`,
# before t1 is freed), so t1 and t3 are alive together. Put `(t1, t3)` (the two addresses) in `overlap_addresses`
# and the output of one launch on fresh inputs in `overlap_out`. The check: different addresses, and bit-exact.

# %% [exercise 2]
overlap_addresses, overlap_out = None, None

# %% [check 2 gpu] t1 and t3 alive together get different addresses, and the output is right
def _check2(addrs):
    a, b = addrs
    v = cgl.compare_bits("t3 allocated early", np.asarray(overlap_out), chain.expected())
    return a != b and v.ok, f"t1 {a:#x}, t3 {b:#x}; {v}"
grade(2, overlap_addresses, _check2)

# %% [gpu] frees what this notebook made
for o in (g, start, end, chain):
    o.close()
print("closed")
