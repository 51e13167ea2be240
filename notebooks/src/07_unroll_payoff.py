# %% [markdown]
# # 07 · Unrolling, and when a graph pays off
#
# *Programming Guide, "Using Graph APIs": graphs pay off when a workflow is launched many times.* One
# `cuGraphLaunch` can carry K iterations of the chain (4K kernel nodes): the host's cost per iteration falls by K,
# and so does the cost of crossing from one graph launch to the next. And instantiating costs something once: how
# many launches until it is paid back?
#
# *Prerequisites: notebooks 02 and 03.*

# %% [markdown]
# ## Predict
# Host µs per iteration for K = 1, 10, 50? Does the **device** time per iteration change with K? After how many
# launches has a graph paid for its `cuGraphInstantiate`?

# %% [gpu] makes a small chain (launch-bound: 4096 floats)
chain = cgl.Chain(dev, n=4096)
s = chain.stream.handle

# %% [markdown]
# ## Run: capture K iterations into one graph

# %% [gpu] captures K iterations, instantiates and uploads
def unrolled_exec(K):
    cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    for _ in range(K):
        for L in chain.launches:
            cu("cuLaunchKernel", *L.call_args)
    g = Graph(dev, cu("cuStreamEndCapture", s))
    exe = g.instantiate()
    g.close()  # the executable keeps what it needs
    cu("cuGraphUpload", exe.handle, s)  # before any timing: a first launch would otherwise pay the upload
    return exe

KS = (1, 2, 5, 10, 25, 50)
execs = {K: unrolled_exec(K) for K in KS}
print({K: 4 * K for K in KS}, "kernel nodes")

# %% [markdown]
# ## The answer, graded
# K iterations of the chain read `x`, `y` and write the same buffers, so K iterations give the result of one.

# %% [gpu] checks every unrolled graph bit for bit
for K, exe in execs.items():
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
    v = cgl.compare_bits(f"unroll {K}", chain.out.to_numpy(), chain.expected())
    assert v.ok, f"unroll {K}: differs from NumPy: {v}"
print("every unrolled graph: bit-exact")

# %% [markdown]
# ## Measure: µs per iteration against K, and the break-even point
# 1000 iterations per timed loop (1000 / K launches), 3 repeats, both clocks (`bench.timed_loop`); eager as the
# reference; making the graph (capture + `cuGraphInstantiate`) timed on the host, the cost a graph must repay.

# %% [gpu] times eager and every K, and instantiation
from cugraphlab.bench import summarize, timed_loop
start, end = dev.create_event(), dev.create_event()
ITERS = 1000

def per_iter(run):
    run(ITERS // 10)
    wall, dv = zip(*[timed_loop(chain.stream, run, ITERS, start, end) for _ in range(3)])
    return summarize(wall, unit="us", clock="perf_counter_ns").median, summarize(dv, unit="us", clock="cuEventElapsedTime").median

eager_wall, eager_dev = per_iter(lambda k: chain.run("eager", k))
rows = {}
for K, exe in execs.items():
    def run(iters, exe=exe, K=K):
        for _ in range(iters // K):
            cu("cuGraphLaunch", exe.handle, s)
    rows[K] = per_iter(run)
    print(f"unroll {K:>2}: {rows[K][0]:6.2f} us/iter wall, {rows[K][1]:6.2f} us/iter device")
print(f"eager:     {eager_wall:6.2f} us/iter wall, {eager_dev:6.2f} us/iter device")
gap = max(abs(w - dv) / dv for w, dv in rows.values())
print(f"wall and device agree within {100 * gap:.1f}% at every K (the loop ends by waiting for the GPU); from K=1 to "
      f"K={KS[-1]} the device time per iteration falls {rows[KS[0]][1]:.2f} -> {rows[KS[-1]][1]:.2f} us")

setup = []
for _ in range(20):
    t0 = time.perf_counter_ns()
    g1 = chain.capture()  # notebook 02's capture as a helper
    e = cu("cuGraphInstantiate", g1.handle, 0)
    setup.append((time.perf_counter_ns() - t0) / 1e3)
    cu("cuGraphExecDestroy", e); g1.close()
setup_us = summarize(setup, unit="us", clock="perf_counter_ns").median
saving = eager_wall - rows[1][0]
print(f"capture + cuGraphInstantiate (4 nodes): {setup_us:.1f} us; saving per launch (K=1): {saving:.2f} us -> "
      + (f"pays off after about {int(np.ceil(setup_us / saving))} launches" if saving > 0 else "no saving at this size"))

fig, ax = new_figure(6, 3.2)
ax.plot(KS, [rows[K][0] for K in KS], "o-", label="graph, wall")
ax.plot(KS, [rows[K][1] for K in KS], "s--", label="graph, device")
ax.axhline(eager_wall, color="tab:orange", label="eager, wall")
ax.set_xscale("log"); ax.set_xlabel("iterations per graph (K)"); ax.set_ylabel("us per iteration")
ax.legend(); show_figure(fig)

# %% [markdown]
# ## On the H200: break-even and unrolling from 1 to 4,096 nodes
# The committed `cugraphlab scaling` record (empty kernels in a straight line), drawn without a GPU: after how many
# replays capture + instantiate are repaid against eager launches, and what unrolling K iterations buys.

# %% [record] break-even and unrolling on the H200
show_record("scaling_default", "break-even:", r"re:^straight line +(1|16|4096) +(1|16|4096) ", r"re:^ *(2|16|4096)  +\d+\.\d+ ")

# %% [markdown]
# ## What it means
# Here the wall clock and the events agree at every K: the timed loop ends by waiting for the GPU, so both clocks
# measure the same interval (the cell above says how closely). What unrolling buys shows on the device side: each graph launch costs the
# GPU a crossing from one graph to the next (notebook 01's record has "gap across a graph-to-graph boundary"), and
# K iterations in one graph pay it once. A graph does not make kernels faster; it keeps the GPU fed. It pays off
# when it is launched more than `(capture + instantiate) / saving` times (the cell above, the record and exercise 1
# use the same rule): for a loop run thousands of times, at once; for work
# built once and run once, never (and `cuGraphExecUpdate`, notebook 05, moves the line).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · The break-even rule (no GPU needed)
# Write `break_even(setup_us, eager_us, graph_us)`: the number of replays after which a graph that cost `setup_us`
# to make (capture + instantiate) has saved it, when each replay costs `graph_us` instead of `eager_us`; `None`
# when a replay saves nothing. A graph that has run n times has saved `n * (eager_us - graph_us)`.

# %% [exercise 1]
break_even = None  # def break_even(setup_us, eager_us, graph_us): ...

# %% [check 1] against the rule on the H200's own break-even rows, and the cases with no saving
def _check1(f):
    cases = [((35.37, 6.34, 2.79), 10), ((109.8, 81.91, 11.87), 2), ((17922, 21747, 2813), 1),
             ((12.0, 5.0, 5.0), None), ((12.0, 4.0, 5.0), None), ((10.0, 7.0, 2.0), 2)]
    wrong = [(args, f(*args), want) for args, want in cases if f(*args) != want]
    return not wrong, f"{len(cases) - len(wrong)} of {len(cases)} right" + (
        f"; break_even{wrong[0][0]} gave {wrong[0][1]}, want {wrong[0][2]}" if wrong else "")
grade(1, break_even, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Four batches in one launch (GPU)
# The unrolled graphs above repeat one iteration on the same buffers. A real loop reads a new batch each
# iteration: one launch can still carry K of them, if each batch's data sits at an address known when the graph is
# made. Make four chains that share the kernels, each with its own buffers (`cgl.Chain(dev, n=4096,
# kernels=chain.kernels)`), in a list `batches`. Build **one** graph `batched` holding their 16 launches in a
# line, node by node as in notebook 03 (`cu("cuGraphAddKernelNode", batched.handle, deps or None, len(deps),
# kernel_node_params(L))`, with `kernel_node_params` from `cugraphlab.graphs`). Give each chain fresh inputs and a
# poisoned output (and wait for its stream), launch the graph once on `s`, and put the four outputs in
# `batch_outs`. The check: 16 kernel nodes, and each output bit-exact against its own chain's NumPy result.

# %% [exercise 2]
batches, batched, batch_outs = None, None, None

# %% [check 2 gpu] 16 nodes; each batch's output from its own inputs, bit for bit
def _check2(outs):
    outs = list(outs)
    vs = [cgl.compare_bits(f"batch {i}", np.asarray(o), b.expected()) for i, (o, b) in enumerate(zip(outs, batches))]
    ok = batched.node_count == 16 and len(outs) == len(batches) == 4 and all(v.ok for v in vs)
    return ok, f"{batched.node_count} nodes, {len(outs)} outputs; " + "; ".join(map(str, vs))
grade(2, batch_outs, _check2)

# %% [markdown]
# ## Change this and run again
# Make the chain 256 times larger (`n=1 << 20`). Does unrolling still help? Where do the wall and device lines meet?

# %% [gpu] frees what this notebook made
for o in (*execs.values(), start, end, batched, *(batches or ()), chain):
    if o is not None:
        o.close()
print("closed")
