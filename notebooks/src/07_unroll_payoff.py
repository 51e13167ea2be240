# %% [markdown]
# # 06 · Unrolling, and when a graph pays off
#
# *Programming Guide, "Using Graph APIs": graphs pay off when a workflow is launched many times.* One
# `cuGraphLaunch` can carry K iterations of the chain (4K kernel nodes): the host's cost per iteration falls by K
# while the device runs the same kernels. And instantiating costs something once: how many launches until it is
# paid back?

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
# reference; `cuGraphInstantiate` timed on the host.

# %% [gpu] times eager and every K, and instantiation
from cugraphlab.bench import timed_loop, summarize
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

inst = []
g1 = chain.capture()  # notebook 02's capture as a helper
for _ in range(20):
    t0 = time.perf_counter_ns()
    e = cu("cuGraphInstantiate", g1.handle, 0)
    inst.append((time.perf_counter_ns() - t0) / 1e3)
    cu("cuGraphExecDestroy", e)
g1.close()
inst_us = summarize(inst, unit="us", clock="perf_counter_ns").median
saving = eager_wall - rows[1][0]
print(f"cuGraphInstantiate (4 nodes): {inst_us:.1f} us; saving per launch (K=1): {saving:.2f} us -> "
      + (f"pays off after about {inst_us / saving:.0f} launches" if saving > 0 else "no saving at this size"))

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
from cugraphlab.report.scaling import render_scaling
rec = h200_record("scaling_default")
if rec is not None:
    text = render_scaling(rec)
    be = text[text.index("break-even:"):text.index("goals:")].rstrip().splitlines()
    print("\n".join(line for line in be if not line.startswith("fork/join")))  # notebook 13 shows the rest

# %% [markdown]
# ## What it means
# The wall time per iteration falls towards the device time as K grows: past a few iterations per graph, the GPU,
# not the host, sets the pace. The device time barely moves: a graph does not make kernels faster, it keeps the
# GPU fed. A graph pays off when it is launched more than `instantiate / saving` times: for a loop run thousands of
# times, at once; for work built once and run once, never (and `cuGraphExecUpdate`, notebook 05, moves the line).
#
# ## Change this and run again
# Make the chain 256 times larger (`n=1 << 20`). Does unrolling still help? Where do the wall and device lines meet?

# %% [gpu] frees what this notebook made
for o in (*execs.values(), start, end, chain):
    o.close()
print("closed")
