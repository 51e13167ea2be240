# %% [markdown]
# # 07 · Conditional nodes: WHILE, IF, IF/ELSE, SWITCH
#
# *Programming Guide, "Conditional Graph Nodes".* A conditional node owns body graphs and is controlled by a
# **handle**, a small integer that kernels set on the GPU with `cudaGraphSetConditional(handle, value)`. WHILE
# runs its body while the value is non-zero; IF runs it once if non-zero (and, given two bodies, the ELSE body if
# zero); SWITCH with K bodies runs body `value`, or none when `value >= K`. No trip back to the host.
#
#     h    = cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)
#     node = cuGraphAddNode(graph, deps, CUgraphNodeParams{type=CONDITIONAL, conditional={h, WHILE, size=1, ctx}})
#     body = params.conditional.phGraph_out[0]        # made by the driver, owned by the node
#
# WHILE and IF need a CUDA 12.3 driver; IF/ELSE and SWITCH need 12.8.

# %% [markdown]
# ## Predict
# A WHILE node runs the chain 1000 times in one `cuGraphLaunch`. The same loop decided in Python needs, per
# iteration, a launch, a copy of the counter to the host and a wait. How many µs per iteration for each?

# %% [gpu cuda12.3] compiles the decision kernels (they call cudaGraphSetConditional) and makes the chain
from cugraphlab.experiment.conditional import load_conditional_kernels
from cugraphlab.core._calls import graph_add_node  # cuGraphAddNode; its form differs in cuda-bindings 12 and 13
from cugraphlab.graphs import add_kernel_node, add_launch_sequence, add_memset_node
chain = cgl.Chain(dev, n=1 << 16)
ck = load_conditional_kernels(dev)  # kernels/conditional.cu: `conditional` counts and sets the handle
state = dev.array(4, "uint32")  # struct CglLoopState { u64 count; f32 acc; u32 keep_going; }
ctx = dev.context
NITER = 1000

# %% [markdown]
# ## Run: a WHILE node built by hand
# Parent: `memset(state, 0) -> WHILE(h)`. Body: `add -> mul -> sub -> relu -> conditional(h, state, NITER)`: the
# last kernel adds one to `state.count` and sets `h` to `count < NITER`. `CU_GRAPH_COND_ASSIGN_DEFAULT` sets `h`
# to 1 at each launch, so the body runs at least once.

# %% [gpu cuda12.3] builds the WHILE graph with the conditional-node calls
g = Graph(dev)
reset = add_memset_node(g, state, 0)  # notebook 03's node kinds
h = cu("cuGraphConditionalHandleCreate", g.handle, ctx, 1, int(d.CU_GRAPH_COND_ASSIGN_DEFAULT))
p = d.CUgraphNodeParams()
p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
p.conditional.handle = h
p.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
p.conditional.size = 1
p.conditional.ctx = ctx
while_node = graph_add_node(g.handle, [reset], p)
body = p.conditional.phGraph_out[0]  # never destroy it: the parent graph frees it
last = add_launch_sequence(body, chain.launches, ctx=ctx)[-1]  # body nodes must name the context
decide = ck["conditional"].prepare(("u64", "ptr", "u64", "i32"), (int(h), state, NITER, 1), (1, 32), chain.stream)
add_kernel_node(body, decide, [last], ctx=ctx)
show_graph(g, "parent:")
show_graph(body, "body:")
exe = g.instantiate()

# %% [markdown]
# ## The answer, graded: the body ran exactly NITER times, and the output is bit-exact

# %% [gpu cuda12.3] launches the WHILE graph once and checks the count and the bits
chain.randomize(); chain.poison()
cu("cuGraphLaunch", exe.handle, chain.stream.handle)
cu("cuStreamSynchronize", chain.stream.handle)
count = int(state.to_numpy()[:2].view(np.uint64)[0])
v = cgl.compare_bits("WHILE", chain.out.to_numpy(), chain.expected())
print(f"body ran {count} times; {v}")
assert count == NITER, f"the WHILE body ran {count} times, expected {NITER}"
assert v.ok, f"the WHILE graph's output differs from NumPy: {v}"

# %% [markdown]
# ## IF: run the chain only when a flag in device memory is set
# From here on the package's `conditional_graphs` builds the same kinds of graphs (the calls above), and checks.

# %% [gpu cuda12.3] runs the IF graph with the flag set and clear
loops = cgl.conditional_graphs(chain)
for flag in (True, False):
    c = loops.run_if(flag)  # flag clear: the output must still be the poison pattern
    print(("ok   " if c.ok else "FAIL ") + str(c))
    assert c.ok, f"IF with flag {flag}: {c}"

# %% [markdown]
# ## Measure: WHILE node against the loop decided in Python

# %% [gpu cuda12.3] times the WHILE node and the Python-driven loop (host clock)
wexe, st = loops.while_exec(NITER), chain.stream
samples = {"WHILE node": [], "Python loop": []}
for _ in range(3):
    st.synchronize(); t0 = time.perf_counter_ns()
    wexe.launch(st); st.synchronize()
    samples["WHILE node"].append((time.perf_counter_ns() - t0) / 1e3 / NITER)
    t0 = time.perf_counter_ns()
    ran = loops.run_host_loop(200)  # 200 x (launch, copy the counter back, wait, decide in Python)
    samples["Python loop"].append((time.perf_counter_ns() - t0) / 1e3 / ran)
from cugraphlab.bench import summarize
med = {k: summarize(v, unit="us", clock="perf_counter_ns").median for k, v in samples.items()}
for k, m in med.items():
    print(f"{k:12s} {m:7.2f} us/iteration (host clock)")
fig, ax = new_figure()
ax.bar(list(med), list(med.values()), color=["tab:green", "tab:red"]); ax.set_ylabel("us per iteration")
show_figure(fig)
v = cgl.compare_bits("after timing", chain.result("graph"), chain.expected())
assert v.ok, f"after timing: {v}"

# %% [markdown]
# ## IF/ELSE and SWITCH (CUDA 12.8)
# `BranchGraphs` builds `cond_sign(h, x) -> IF(h, 2 bodies)` (the GPU decides on the sign of a sum NumPy
# predicts) and `cond_switch(h, index) -> SWITCH(h, 4 bodies)`; every body writes buffers of its own, so each
# check also proves that no other body ran.

# %% [gpu cuda12.8] runs both IF/ELSE branches and every SWITCH index
kit = cgl.BranchGraphs(chain, 4)
checks = [kit.run_if_else(True), kit.run_if_else(False)] + [kit.run_switch(i) for i in range(kit.count + 1)]
for c in checks:
    print(("ok   " if c.ok else "FAIL ") + str(c))
assert all(c.ok for c in checks), "an IF/ELSE or SWITCH check failed"
kit.close()

# %% [markdown]
# ## On the H200: SWITCH against IF and against one graph per size
# The committed `cugraphlab switch` record, drawn without a GPU.

# %% [record] SWITCH costs on the H200
from cugraphlab.report.switch import render_switch
rec = h200_record("switch", "records", 0)
if rec is not None:
    print(render_switch(rec))

# %% [markdown]
# ## What it means
# The decision moved to the GPU: a WHILE node costs about what its body costs, while the Python loop pays a launch,
# a copy and a wait per iteration. The handle is the only channel: a kernel in the graph sets it, the node reads it.
#
# ## Change this and run again
# Build the WHILE graph with a default value of 0 (`cuGraphConditionalHandleCreate(g, ctx, 0, flags)`). How many
# times does the body run, and why?

# %% [gpu cuda12.3] frees what this notebook made
for o in (exe, g, state, ck, chain):
    o.close()
print("closed")
