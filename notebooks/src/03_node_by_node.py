# %% [markdown]
# # 03 · Building a graph node by node
#
# *Programming Guide, "Creating a Graph Using Graph APIs".* Capture records what a stream would have run; the
# graph API says the same thing directly: `cuGraphCreate`, then one `cuGraphAddKernelNode` per kernel with the
# nodes it depends on. Each node takes a `CUDA_KERNEL_NODE_PARAMS`: function, grid, block, shared memory and the
# same `void** kernelParams` a `cuLaunchKernel` call takes.

# %% [markdown]
# ## Predict
# The driver copies the argument values into a node **when it is added**. If you change a packed argument after
# adding the node, does the graph see the change?

# %% [gpu] makes the chain (notebook 01's launches)
chain = cgl.Chain(dev, n=(1 << 16) + 3)  # an odd size: the kernels' tail handling is checked too
s = chain.stream.handle

# %% [markdown]
# ## Run: four kernel nodes, each after the one before

# %% [gpu] builds the chain graph with cuGraphCreate and cuGraphAddKernelNode
def kernel_params(L):
    p = d.CUDA_KERNEL_NODE_PARAMS()
    p.func = L.kernel.handle
    p.gridDimX, p.gridDimY, p.gridDimZ = L.config.grid
    p.blockDimX, p.blockDimY, p.blockDimZ = L.config.block
    p.sharedMemBytes = L.config.shared_bytes
    p.kernelParams = int(L.args.address)  # the packed void** (an int address passes through as the pointer)
    p.extra = 0
    return p

built = Graph(dev, cu("cuGraphCreate", 0))
nodes, deps = [], []
for L in chain.launches:
    node = cu("cuGraphAddKernelNode", built.handle, deps or None, len(deps), kernel_params(L))
    nodes.append(node)
    deps = [node]  # the next op depends on this one
show_graph(built, "built by hand:")

# %% [markdown]
# ### Same as the captured graph?
# `graphs.same_topology` compares node kinds, kernel names and edges (after notebook 02, capture is a helper here).

# %% [gpu] compares the built graph with a captured one
from cugraphlab.graphs import same_topology
captured = chain.capture()
same, diff = same_topology(built, captured)
print(diff)
assert same, f"built and captured graphs differ: {diff}"
captured.close()

# %% [markdown]
# ## The answer, graded (and the prediction tested)
# After adding the nodes, the scalar of `mul` is changed in its packed arguments. The graph keeps 2.0.

# %% [gpu] runs the built graph and checks it bit for bit
mul_args = chain.launches[1].args
mul_args.set(2, 7.0)  # after the node was added: the node still holds 2.0
exe = built.instantiate()  # cuGraphInstantiate
chain.randomize(); chain.poison()
cu("cuGraphLaunch", exe.handle, s)
cu("cuStreamSynchronize", s)
v = cgl.compare_bits("built graph", chain.out.to_numpy(), chain.expected())
mul_args.set(2, 2.0)  # put it back for the eager runs below
print(v)
assert v.ok, f"the built graph differs from NumPy with scalar 2.0: {v}"

# %% [markdown]
# ## Measure: what building and instantiating cost
# Host time of each step (perf_counter_ns), 20 repeats: `cuGraphCreate` + 4 x `cuGraphAddKernelNode`, then
# `cuGraphInstantiate`, then one `cuGraphLaunch` + synchronize.

# %% [gpu] times build, instantiate and one launch
from cugraphlab.bench import summarize
build_us, inst_us, launch_us = [], [], []
for _ in range(20):
    t0 = time.perf_counter_ns()
    g = cu("cuGraphCreate", 0); dep = []
    for L in chain.launches:
        dep = [cu("cuGraphAddKernelNode", g, dep or None, len(dep), kernel_params(L))]
    t1 = time.perf_counter_ns()
    e = cu("cuGraphInstantiate", g, 0)
    t2 = time.perf_counter_ns()
    cu("cuGraphLaunch", e, s); cu("cuStreamSynchronize", s)
    t3 = time.perf_counter_ns()
    cu("cuGraphExecDestroy", e); cu("cuGraphDestroy", g)
    build_us.append((t1 - t0) / 1e3); inst_us.append((t2 - t1) / 1e3); launch_us.append((t3 - t2) / 1e3)
rows = {k: summarize(v, unit="us", clock="perf_counter_ns") for k, v in
        (("build (5 calls)", build_us), ("instantiate", inst_us), ("first launch + sync", launch_us))}
for k, sm in rows.items():
    print(f"{k:22s} {sm.median:8.1f} us  (p5 {sm.p5:.1f}, p95 {sm.p95:.1f})")
fig, ax = new_figure()
ax.bar(list(rows), [sm.median for sm in rows.values()], color="tab:purple")
ax.set_ylabel("host us (median of 20)")
show_figure(fig)

# %% [markdown]
# ## What it means
# Building by hand gives the same graph as capture, with every dependency stated. The node holds a copy of its
# arguments: changing them later needs `cuGraphExecKernelNodeSetParams` or `cuGraphExecUpdate` (notebook 05).
# Instantiation is the expensive step: done once, it is paid back over many launches (notebook 06).
#
# ## Change this and run again
# Give `sub` the dependencies `[nodes[0]]` instead of `[nodes[1]]` (it then no longer waits for `mul`). Does the
# check still pass every time? Why is "it passed once" not proof that a graph is right?

# %% [gpu] frees what this notebook made
for o in (exe, built, chain):
    o.close()
print("closed")
