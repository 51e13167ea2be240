# %% [markdown]
# # 05 · Updating an instantiated graph (and why an update is refused)
#
# *Programming Guide, "Updating Instantiated Graphs".* An executable graph keeps copies of every kernel's
# arguments. To run it on other buffers or scalars, cheapest first:
#
# 1. `cuGraphExecKernelNodeSetParams(exec, node, params)`: new arguments for one node;
# 2. a new graph of the same shape, then `cuGraphExecUpdate(exec, graph)`: the driver pairs the nodes and copies the
#    parameters over; it **refuses** when the topology changed, and says why;
# 3. `cuGraphInstantiate` again: always works, costs the most.

# %% [markdown]
# ## Predict
# Which of the three is cheapest, and by how much? If the new graph has one node fewer, what does
# `cuGraphExecUpdate` answer, and is the executable still usable afterwards?

# %% [gpu] builds the chain graph node by node (notebook 03) and instantiates it
from cugraphlab.graphs import add_launch_sequence, kernel_node_params
from cugraphlab.experiment.ops import op_arguments
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle
graph = Graph(dev)
nodes = add_launch_sequence(graph, chain.launches)  # cuGraphAddKernelNode x 4 (notebook 03)
exe = graph.instantiate()


def new_inputs(scalar):
    """Other buffers, other values, another scalar: the four launches of the chain pointed at them."""
    xh, yh = (rng.standard_normal(chain.n, dtype=np.float32) for _ in range(2))
    x, y = dev.to_device(xh), dev.to_device(yh)
    launches = [chain.kernels[k].prepare(sig, args, chain.config, chain.stream)
                for k, sig, args in op_arguments(chain.ops, x, y, chain.outs, scalar, chain.n)]
    return (x, y), launches, cgl.reference(chain.ops, xh, yh, scalar)


def run_and_check(label, expected):
    chain.poison()
    cu("cuGraphLaunch", exe.handle, s)
    cu("cuStreamSynchronize", s)
    v = cgl.compare_bits(label, chain.out.to_numpy(), expected)
    print(v)
    assert v.ok, f"{label}: the updated graph differs from NumPy: {v}"

# %% [markdown]
# ## (1) set the parameters of each node

# %% [gpu] points the executable at new buffers with cuGraphExecKernelNodeSetParams
bufs_a, launches_a, expected_a = new_inputs(-1.25)
for node, L in zip(nodes, launches_a):
    cu("cuGraphExecKernelNodeSetParams", exe.handle, node, kernel_node_params(L))  # node: of the original graph
run_and_check("after set_params", expected_a)

# %% [markdown]
# ## (2) a new graph of the same shape, then cuGraphExecUpdate

# %% [gpu] captures the chain on other inputs and updates the executable from it
bufs_b, launches_b, expected_b = new_inputs(3.5)
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in launches_b:
    cu("cuLaunchKernel", *L.call_args)
g_b = Graph(dev, cu("cuStreamEndCapture", s))
info = cu("cuGraphExecUpdate", exe.handle, g_b.handle)  # CUgraphExecUpdateResultInfo
print("cuGraphExecUpdate:", info.result.name)
run_and_check("after exec update", expected_b)

# %% [markdown]
# ## (3) the refused update: one node fewer
# `cu(...)` raises a typed error naming the CUresult; `graphs.try_exec_update` also reads the driver's
# `CUgraphExecUpdateResultInfo` (which result, which node) and says the reason in words.

# %% [gpu] tries to update from a graph without relu and reads why the driver refuses
from cugraphlab.graphs import try_exec_update
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in launches_b[:3]:
    cu("cuLaunchKernel", *L.call_args)
g_short = Graph(dev, cu("cuStreamEndCapture", s))
try:
    cu("cuGraphExecUpdate", exe.handle, g_short.handle)
    refused = False
except CudaError as e:
    refused = True
    print("refused:", e.name)
report = try_exec_update(exe, g_short)
updated = report.updated
print(f"result: {report.result}; node: {report.error_node}; reason: {report.reason}")
assert refused and not updated, "an update to another topology must be refused"
run_and_check("after the refused update (still the graph of (2))", expected_b)

# %% [markdown]
# ## Measure: host cost of each path
# `bench.measure_update_costs` times every path (one sample per update, host clock), alternating two input sets,
# and checks the output bit for bit after each.

# %% [gpu] measures every update path, 30 repeats each
from cugraphlab.bench import measure_update_costs
costs = measure_update_costs(chain, repeats=30, warmup=5)
for path, sm in costs.costs.items():
    print(f"{path:24s} {sm.median:8.2f} us  (p5 {sm.p5:.2f}, p95 {sm.p95:.2f})  "
          f"{'bit-exact' if costs.verified[path] else 'FAILED'}")
assert all(costs.verified.values()), f"an update path gave wrong results: {costs.verified}"
fig, ax = new_figure(7, 3)
ax.barh(list(costs.costs), [sm.median for sm in costs.costs.values()], color="tab:cyan")
ax.set_xscale("log"); ax.set_xlabel(f"host us per update ({costs.clock}, log scale)")
show_figure(fig)

# %% [markdown]
# ## What it means
# Setting node parameters touches only the executable; `cuGraphExecUpdate` first needs a new graph (a capture
# costs about as much as launching eagerly), then pairs the nodes. When the topology changed, the driver refuses
# with `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` and `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`, and the
# executable keeps its previous parameters: it is still valid, so a program can fall back to instantiating.
#
# ## Change this and run again
# In (2), launch `launches_b` in another order: `mul` before `add` (`launches_b[1], launches_b[0], ...`). Is the
# update refused? If not, what does the check say, and why?

# %% [gpu] frees what this notebook made
for o in (exe, graph, g_b, g_short, *bufs_a, *bufs_b, chain):
    o.close()
print("closed")
