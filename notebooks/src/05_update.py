# %% [markdown]
# # 05 · Updating an instantiated graph (and why an update is refused)
#
# *Programming Guide, "Updating Instantiated Graphs".* An executable graph keeps copies of every kernel's
# arguments. To run it on other buffers or scalars there are three ways (which is cheapest is measured below):
#
# 1. `cuGraphExecKernelNodeSetParams(exec, node, params)`: new arguments for one node, straight into the
#    executable;
# 2. a new graph of the same shape (captured or built), then `cuGraphExecUpdate(exec, graph)`: the driver pairs the
#    nodes and copies the parameters over; it **refuses** when the topology changed, and says why;
# 3. `cuGraphInstantiate` again: always works.
#
# *Prerequisites: notebooks 02 and 03.*

# %% [markdown]
# ## Predict
# Which of the three is cheapest, and by how much? Is making the new graph part of the cost of (2)? If the new
# graph has one node fewer, what does `cuGraphExecUpdate` answer, and is the executable still usable afterwards?

# %% [gpu] builds the chain graph node by node (notebook 03) and instantiates it
from cugraphlab.graphs import add_launch_sequence, kernel_node_params
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle
graph = Graph(dev)
nodes = add_launch_sequence(graph, chain.launches)  # cuGraphAddKernelNode x 4 (notebook 03)
exe = graph.instantiate()


def chain_launches(x, y, scalar):
    """The chain's four launches on inputs x, y and another scalar, into the chain's own output buffers."""
    t1, t2, t3, out = chain.outs
    k, cfg, st, n = chain.kernels, chain.config, chain.stream, chain.n
    return [k["add"].prepare(("ptr", "ptr", "ptr", "u64"), (t1, x, y, n), cfg, st),
            k["mul"].prepare(("ptr", "ptr", "f32", "u64"), (t2, t1, scalar, n), cfg, st),
            k["sub"].prepare(("ptr", "ptr", "ptr", "u64"), (t3, t2, y, n), cfg, st),
            k["relu"].prepare(("ptr", "ptr", "u64"), (out, t3, n), cfg, st)]


def new_inputs(scalar):
    """Other buffers, other values, another scalar: the four launches of the chain pointed at them."""
    xh, yh = (rng.standard_normal(chain.n, dtype=np.float32) for _ in range(2))
    x, y = dev.to_device(xh), dev.to_device(yh)
    return (x, y), chain_launches(x, y, scalar), cgl.reference(chain.ops, xh, yh, scalar)


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
# and checks the output bit for bit after each. `recapture_update` includes making the new graph by capture;
# `exec_update` starts from a graph already made.

# %% [gpu] measures every update path, 30 repeats each, and ranks them
from cugraphlab.bench import measure_update_costs
costs = measure_update_costs(chain, repeats=30, warmup=5)
for path, sm in sorted(costs.costs.items(), key=lambda kv: kv[1].median):
    print(f"{path:24s} {sm.median:8.2f} us  (p5 {sm.p5:.2f}, p95 {sm.p95:.2f})  "
          f"{'bit-exact' if costs.verified[path] else 'FAILED'}")
assert all(costs.verified.values()), f"an update path gave wrong results: {costs.verified}"
c = {k: sm.median for k, sm in costs.costs.items()}
print(f"cheapest: {min(c, key=c.get)}; a capture + cuGraphExecUpdate costs {c['recapture_update'] / c['reinstantiate']:.2f}x "
      f"re-instantiating the graph we have ({'dearer' if c['recapture_update'] > c['reinstantiate'] else 'cheaper'}"
      " here, for 4 nodes)")
fig, ax = new_figure(7, 3)
ax.barh(list(costs.costs), [sm.median for sm in costs.costs.values()], color="tab:cyan")
ax.set_xscale("log"); ax.set_xlabel(f"host us per update ({costs.clock}, log scale)")
show_figure(fig)

# %% [markdown]
# ## On the H200: what cuGraphExecUpdate costs the driver, and what Python adds
# The committed exec-update record: the same update timed from C (the driver alone) and from Python, in one
# process, paired, for an update that changes every node's parameters.

# %% [record] cuGraphExecUpdate from C and from Python on the H200
show_record("exec_update", "rows:", r"re:^changed parameters  (C|bindings|native) +\d", part=("paired",), within="rows:")

# %% [markdown]
# ## What it means
# Setting node parameters and `cuGraphExecUpdate` touch only the executable, and both are cheap once you have
# what they need; the update path needs a new graph first, and making it (a capture) is most of its cost: for a
# graph this small, re-instantiating can cost less than capturing and updating (the cell above compares them
# here). When the topology changed, the driver
# refuses with `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` and `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`, and the
# executable keeps its previous parameters: it is still valid, so a program can fall back to instantiating.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Change one scalar, nothing else (GPU)
# Update only `mul`'s node so that the executable multiplies by `-0.5` (keep the inputs of (2)): make a launch
# with the new scalar (`chain_launches(*bufs_b, -0.5)[1]`) and `cuGraphExecKernelNodeSetParams` it into the
# executable's second node. Launch once, and put the output in `half_out`. The check: bit-exact against
# `expected_b`'s inputs with scalar `-0.5`.

# %% [exercise 1]
half_out = None

# %% [check 1 gpu] the chain on (2)'s inputs with scalar -0.5, bit for bit
def _check1(out1):
    xh, yh = (buf.to_numpy() for buf in bufs_b)
    v = cgl.compare_bits("mul -0.5", np.asarray(out1), cgl.reference(chain.ops, xh, yh, -0.5))
    return v.ok, str(v)
grade(1, half_out, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Is a reordered graph the same graph? (GPU)
# Capture `launches_b` in another order, `mul` first: `launches_b[1], launches_b[0], launches_b[2], launches_b[3]`,
# and try `try_exec_update(exe, that_graph)`. Predict first: is it refused? (The driver pairs nodes by kind and
# position in the topology, not by what they compute.) Put `(your prediction, the UpdateReport)` in `reordered`,
# the prediction written before you run it: `True` for "refused", `False` for "updated". The check: the prediction
# is what the driver answered, and where it updated, the executable now computes the reordered chain (mul first),
# not the chain of (2).

# %% [exercise 2]
reordered = None

# %% [check 2 gpu] your prediction against what the driver answered, and what the executable computes now
def _check2(answer):
    predicted_refused, report = answer
    updated, result = report.updated, report.result
    if bool(predicted_refused) == updated:
        return False, f"you predicted {'refused' if predicted_refused else 'updated'}; the driver answered {result}"
    if not updated:
        return True, f"refused as predicted: {result}: the executable keeps the graph of (2)"
    chain.poison()
    cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
    differs = not cgl.compare_bits("reordered", chain.out.to_numpy(), expected_b).ok
    return differs, (f"updated ({result}), as predicted: the executable now runs mul before add, so its output "
                     f"{'differs from' if differs else 'still equals'} the chain's: same shape, other work")
grade(2, reordered, _check2)

# %% [markdown]
# ## Change this and run again
# In the measurement, use a graph of 50 unrolled iterations (`chain.graph_exec(unroll=50)`, notebook 07) and time
# `reinstantiate` against `exec_update` by hand. Which grows with the number of nodes?

# %% [gpu] frees what this notebook made
for o in (exe, graph, g_b, g_short, *bufs_a, *bufs_b, chain):
    o.close()
print("closed")
