# %% [markdown]
# # 10 · Conditional nodes: WHILE, IF, IF/ELSE, SWITCH
#
# *Programming Guide, "Conditional Graph Nodes".* A conditional node owns body graphs and is controlled by a
# **conditional handle**, an opaque 64-bit `CUgraphConditionalHandle` (`cudaGraphConditionalHandle` in CUDA C)
# whose *value* a kernel sets on the GPU with `cudaGraphSetConditional(handle, value)`. WHILE runs its body while
# the value is non-zero; IF runs it once if non-zero (and, given two bodies, the ELSE body if zero); SWITCH with K
# bodies runs body `value`, or none when `value >= K`. No trip back to the host.
#
#     h    = cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)
#     node = cuGraphAddNode(graph, deps, CUgraphNodeParams{type=CONDITIONAL, conditional={h, WHILE, size=1, ctx}})
#     body = params.conditional.phGraph_out[0]        # made by the driver, owned by the node
#
# NVIDIA introduced IF and WHILE nodes first (cugraphlab gates them on a CUDA 12.3 driver); "Starting in CUDA 12.8,
# two more conditional node types are supported": IF with an ELSE body, and SWITCH (NVIDIA technical blog,
# "Dynamic Control Flow in CUDA Graphs with Conditional Nodes").
#
# *Prerequisites: notebooks 03 (nodes by hand) and 07 (what a launch costs).*

# %% [markdown]
# ## The kernel that decides
# The body's last kernel counts one more iteration and sets the handle; it is the package's
# `kernels/conditional.cu`, compiled by NVRTC with the CUDA header that declares `cudaGraphSetConditional`:

# %%
print(cuda_source("conditional.cu", "conditional"))

# %% [markdown]
# ## Predict
# A WHILE node runs the chain 1000 times in one `cuGraphLaunch`. The same loop decided in Python needs, per
# iteration, a launch, a copy of the counter to the host and a wait. How many µs per iteration for each, and what
# does an iteration of the WHILE node cost against the same work launched as one graph per iteration?

# %% [gpu cuda12.3] compiles the decision kernels (they call cudaGraphSetConditional) and makes the chain
from cugraphlab.graphs import add_kernel_node, add_launch_sequence, add_memset_node, conditional_options
chain = cgl.Chain(dev, n=1 << 16)
ck = dev.load_kernels(names=["conditional"], options=conditional_options())  # -I<the CUDA headers>
state = dev.array(4, "uint32")  # struct CglLoopState { u64 count; f32 acc; u32 keep_going; }
ctx = dev.context
NITER = 1000

def add_node(graph_handle, deps, params):
    """cuGraphAddNode in the form these bindings speak: CUDA 13 added an edge-data list (None: plain edges)."""
    if d.CUDA_VERSION >= 13000:
        return cu("cuGraphAddNode", graph_handle, deps or None, None, len(deps), params)
    return cu("cuGraphAddNode", graph_handle, deps or None, len(deps), params)

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
while_node = add_node(g.handle, [reset], p)
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
# ## Measure: the WHILE node, one graph per iteration, and the loop decided in Python
# Device clock (CUDA events) for the two graph loops: one launch of the WHILE graph (NITER iterations), and the
# chain's graph launched NITER times (the same kernels without the decision). Host clock for the Python loop:
# per iteration a launch, a copy of the counter back, a wait and a decision in Python.

# %% [gpu cuda12.3] times the WHILE node, the chain's graph per iteration and the Python-driven loop
from cugraphlab.bench import summarize
from cugraphlab.experiment import conditional_graphs
loops = conditional_graphs(chain)
per_iter_exe, st = chain.graph_exec(), chain.stream
start, end = dev.create_event(), dev.create_event()
samples = {"WHILE node": [], "one graph per iteration": [], "Python loop": []}
for _ in range(3):
    st.synchronize()
    start.record(st); cu("cuGraphLaunch", exe.handle, st.handle); end.record(st); end.synchronize()
    samples["WHILE node"].append(start.elapsed_us(end) / NITER)
    start.record(st)
    for _ in range(NITER):
        cu("cuGraphLaunch", per_iter_exe.handle, st.handle)
    end.record(st); end.synchronize()
    samples["one graph per iteration"].append(start.elapsed_us(end) / NITER)
    t0 = time.perf_counter_ns()
    ran = loops.run_host_loop(200)  # 200 x (launch, copy the counter back, wait, decide in Python)
    samples["Python loop"].append((time.perf_counter_ns() - t0) / 1e3 / ran)
med = {k: summarize(v, unit="us", clock="").median for k, v in samples.items()}
for k, m in med.items():
    print(f"{k:24s} {m:7.2f} us/iteration ({'host' if k == 'Python loop' else 'device'} clock)")
print(f"a WHILE iteration costs {med['WHILE node'] - med['one graph per iteration']:+.2f} us against a graph launch "
      f"per iteration, and {med['WHILE node'] - med['Python loop']:+.2f} us against the Python loop")
fig, ax = new_figure()
ax.bar(list(med), list(med.values()), color=["tab:green", "tab:gray", "tab:red"]); ax.set_ylabel("us per iteration")
show_figure(fig)
chain.randomize(); chain.poison()
cu("cuGraphLaunch", exe.handle, st.handle); st.synchronize()
v = cgl.compare_bits("after timing", chain.out.to_numpy(), chain.expected())
assert v.ok, f"after timing: {v}"

# %% [markdown]
# ## SWITCH, by hand (CUDA 12.8)
# A SWITCH node with three bodies: body 0 is the chain, and each body also writes its own mark (`100 + i`) into
# `which`, so the check sees which body ran, and that no other did. The index comes from device memory through
# this kernel:

# %%
print(cuda_source("cond_switch.cu", "cond_switch"))

# %% [gpu cuda12.8] builds cond_switch(h, index) -> SWITCH(h, 3 bodies) and runs every index
bk = dev.load_kernels(names=["cond_switch"], options=conditional_options())
index, which = dev.array(1, "uint32"), dev.array(1, "uint32")
sw = Graph(dev)
hs = cu("cuGraphConditionalHandleCreate", sw.handle, ctx, 0, 0)  # no default: cond_switch sets it every launch
setter = add_kernel_node(sw, bk["cond_switch"].prepare(("u64", "ptr"), (int(hs), index), (1, 32), chain.stream))
ps = d.CUgraphNodeParams()
ps.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
ps.conditional.handle = hs
ps.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH
ps.conditional.size = 3
ps.conditional.ctx = ctx
add_node(sw.handle, [setter], ps)
bodies = tuple(ps.conditional.phGraph_out[:3])  # the driver's: freed with the parent graph
add_launch_sequence(bodies[0], chain.launches, ctx=ctx)
for i, b in enumerate(bodies):
    add_memset_node(b, which, 100 + i, ctx=ctx)
sw_exe = sw.instantiate()
which.poison()
none = int(which.to_numpy()[0])  # the poison pattern: no body wrote its mark
for i in range(4):  # 3 runs no body
    chain.randomize(); chain.poison(); which.poison()
    index.copy_from(np.array([i], dtype=np.uint32))
    cu("cuGraphLaunch", sw_exe.handle, chain.stream.handle); chain.stream.synchronize()
    mark, out_now = int(which.to_numpy()[0]), chain.out.to_numpy()
    if i == 0:
        v0 = cgl.compare_bits("body 0 (the chain)", out_now, chain.expected())
        ok, what = mark == 100 and v0.ok, str(v0)
    else:
        chain_ran = not np.isnan(out_now).all()
        ok, what = mark == (100 + i if i < 3 else none) and not chain_ran, f"the chain ran: {chain_ran}"
    print(f"{'ok  ' if ok else 'FAIL'} index {i}: mark {'none' if mark == none else mark}; {what}")
    assert ok, f"SWITCH index {i}"
for o in (sw_exe, sw, bk, index, which):
    o.close()

# %% [markdown]
# ## IF/ELSE and SWITCH over the chain's variants
# `experiment.BranchGraphs` builds `cond_sign(h, x) -> IF(h, 2 bodies)` (the GPU decides on the sign of a sum
# NumPy predicts) and `cond_switch(h, index) -> SWITCH(h, 4 bodies)`, the same calls as above; every body writes
# buffers of its own, so each check also proves that no other body ran.

# %% [gpu cuda12.8] runs both IF/ELSE branches and every SWITCH index
from cugraphlab.experiment import BranchGraphs
kit = BranchGraphs(chain, 4)
checks = [kit.run_if_else(True), kit.run_if_else(False)] + [kit.run_switch(i) for i in range(kit.count + 1)]
for c in checks:
    print(("ok   " if c.ok else "FAIL ") + str(c))
assert all(c.ok for c in checks), "an IF/ELSE or SWITCH check failed"
kit.close()

# %% [markdown]
# ## On the H200: what a conditional node costs per launch
# The committed `cugraphlab switch` record: the chain's graph at 1,024 floats launched without a conditional
# node, inside one IF node, and inside a SWITCH of 4 bodies (device µs per launch).

# %% [record] the chain with and without a conditional node, on the H200
show_record("switch", "re:^(no conditional|IF node|SWITCH, index 0|SWITCH, index 4) ", part=("records", 0))

# %% [markdown]
# ## What it means
# The decision moved to the GPU: the Python loop pays a launch, a copy and a wait per iteration, the WHILE node
# none of them. A conditional node is not free, though: on the H200 one IF node raises a launch of the chain from
# 4.99 to 11.52 µs of device time (the record), and a WHILE iteration costs its body plus the node's own work (the
# measurement above compares it with one graph launch per iteration). The handle is the only channel: a kernel in
# the graph sets its value, the node reads it.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · How often does the body run? (no GPU needed)
# Write `while_runs(default, limit)`: how many times the body of this notebook's WHILE node runs when its handle
# is created with `defaultLaunchValue = default` (and `CU_GRAPH_COND_ASSIGN_DEFAULT`) and its last kernel sets
# the value to `count < limit`. (The node tests the value before every iteration, the first included.)

# %% [exercise 1]
while_runs = None  # def while_runs(default, limit): ...

# %% [check 1] the rule for defaults 0 and 1 and limits 0 to 5
def _check1(f):
    want = {(dflt, lim): (0 if dflt == 0 else max(lim, 1)) for dflt in (0, 1) for lim in range(6)}
    wrong = {k: f(*k) for k, w in want.items() if f(*k) != w}
    return not wrong, "all 12 right" if not wrong else f"wrong for (default, limit) in {sorted(wrong)}"
grade(1, while_runs, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · A WHILE node that never starts (GPU)
# Build the WHILE graph again with a default value of 0 (`cuGraphConditionalHandleCreate(g, ctx, 0, flags)`),
# launch it once on fresh inputs with a poisoned output, and put the body count (`state.count`) in `zero_count`
# and the output in `zero_out`. The check: 0 iterations, and the output still the poison (the chain never ran).

# %% [exercise 2]
zero_count, zero_out = None, None

# %% [check 2 gpu cuda12.3] no iteration, the output untouched
def _check2(count):
    untouched = np.isnan(np.asarray(zero_out)).all()
    return count == 0 and untouched, f"{count} iterations; output untouched: {untouched}"
grade(2, zero_count, _check2)

# %% [markdown exercise 3]
# ### Exercise 3 · IF/ELSE by hand (GPU, CUDA 12.8)
# Build `cond_if_flag(h, flag) -> IF(h, 2 bodies)` yourself: `cond_if_flag` (in `kernels/conditional.cu`:
# `ck.modules["conditional"].kernel("cond_if_flag")`) sets the value to `*flag != 0`; body 0 writes 1 into a
# one-element uint32 array `taken` (a memset node), body 1 writes 2. Launch with the flag set, then clear, and put
# the two values `taken` held in `if_else_marks` (a tuple). The check: `(1, 2)`.

# %% [exercise 3]
if_else_marks = None

# %% [check 3 gpu cuda12.8] flag set -> the IF body, flag clear -> the ELSE body
grade(3, if_else_marks, lambda marks: (tuple(marks) == (1, 2), f"marks {tuple(marks)} (want (1, 2))"))

# %% [gpu cuda12.3] frees what this notebook made
for o in (exe, g, start, end, state, ck, chain):
    o.close()
print("closed")
