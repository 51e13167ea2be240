# %% [markdown]
# # 03 · Building a graph node by node
#
# *Programming Guide, "Creating a Graph Using Graph APIs".* Capture records what a stream would have run; the
# graph API says the same thing directly: `cuGraphCreate`, then one `cuGraphAddKernelNode` per kernel with the
# nodes it depends on. Each node takes a `CUDA_KERNEL_NODE_PARAMS`: function, grid, block, shared memory and the
# same `void** kernelParams` a `cuLaunchKernel` call takes.
#
# *Prerequisites: notebooks 01 and 02.*

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
# `cuGraphInstantiate`, then one `cuGraphLaunch` + synchronize. Which is the largest? The cell prints each median
# and names it.

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
b, i = rows["build (5 calls)"].median, rows["instantiate"].median
largest = max(rows, key=lambda k: rows[k].median)
print(f"the largest: {largest}; instantiating cost {i / b:.2f}x building here ({i:.1f} against {b:.1f} us), both paid "
      f"once per graph, not per launch")
fig, ax = new_figure()
ax.bar(list(rows), [sm.median for sm in rows.values()], color="tab:purple")
ax.set_ylabel("host us (median of 20)")
show_figure(fig)

# %% [markdown]
# ## On the H200: building, capturing and instantiating from 1 to 4,096 nodes
# The committed `cugraphlab scaling` record fits each cost as `a + b·nodes` (lines of empty kernels): the
# per-node slopes of building by hand, capturing and instantiating (notebook 08 has the whole sweep).

# %% [record] the cost per node of building, capturing and instantiating, on the H200
show_record("scaling_default", "cost = a + b * nodes", r"re:^(capture|explicit build|instantiate) +straight line ")

# %% [markdown]
# ## What it means
# Building by hand gives the same graph as capture, with every dependency stated. The node holds a copy of its
# arguments: changing them later needs `cuGraphExecKernelNodeSetParams` or `cuGraphExecUpdate` (notebook 05).
# Building and instantiating both grow with the nodes (the record's slopes) and are paid once: a graph pays them
# back over many launches (notebook 07).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Edges added afterwards (GPU)
# Build the chain graph again, but add the four nodes with **no** dependencies, then join them with
# `cuGraphAddDependencies(graph, from, to, ...)`. Its form differs between the bindings: CUDA 13's takes an
# edge-data list (`None`: plain edges) before the count, 12.x's does not (`d.CUDA_VERSION` tells which you have).
# Put the Graph in `late_edges`. The check: the same topology as a captured chain, and bit-exact on fresh inputs.

# %% [exercise 1]
late_edges = None

# %% [check 1 gpu] the same topology as a capture, and bit-exact
def _check1(g):
    cap = chain.capture()
    same, diff = same_topology(g, cap)
    cap.close()
    with g.instantiate() as e1:
        chain.randomize(); chain.poison()
        cu("cuGraphLaunch", e1.handle, s); cu("cuStreamSynchronize", s)
    v = cgl.compare_bits("edges added afterwards", chain.out.to_numpy(), chain.expected())
    return same and v.ok, f"{diff}; {v}"
grade(1, late_edges, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · The scalar, before the node (GPU)
# The prediction above changed `mul`'s scalar *after* adding its node. Set it to `3.0` **before** adding the node
# (`chain.launches[1].args.set(2, 3.0)`), build the graph, launch it once on fresh inputs, and put the output in
# `scalar_out`; then set the scalar back to `2.0`. The check: bit-exact against `cgl.reference(..., 3.0)`.

# %% [exercise 2]
scalar_out = None

# %% [check 2 gpu] the graph computed with 3.0, bit for bit
def _check2(out2):
    v = cgl.compare_bits("scalar 3.0", np.asarray(out2), cgl.reference(chain.ops, chain.x_host, chain.y_host, 3.0))
    return v.ok, str(v)
grade(2, scalar_out, _check2)

# %% [markdown]
# ## Change this and run again
# Give `sub` the dependencies `[nodes[0]]` instead of `[nodes[1]]` (it then no longer waits for `mul`). Does the
# check still pass every time? Why is "it passed once" not proof that a graph is right?

# %% [gpu] frees what this notebook made
for o in (exe, built, chain):
    o.close()
print("closed")
