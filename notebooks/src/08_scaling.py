# %% [markdown]
# # 08 · Scaling: what a graph costs as it grows, and when it pays off
#
# *Programming Guide, "CUDA Graphs" (a graph is defined once, instantiated once, launched many times); NVIDIA's
# developer blog on the graph improvements of CUDA 12.6 (not its release notes): "constant-time launch" for
# straight-line graphs, which the blog's own figures show as a fixed cost plus about a nanosecond per node.* A graph of L nodes costs something to make
# (capture, instantiate, upload) and something per launch. Which costs grow with L, which stay flat, and after how
# many replays has a graph paid for itself against launching the L kernels one by one?
#
#     cuStreamBeginCapture(S); cuLaunchKernel(k, S) x L; cuStreamEndCapture(S)   # capture: L calls
#     cuGraphInstantiate(graph)                                                   # the driver lays out L nodes
#     cuGraphUpload(exec, S)                                                      # once, before the first launch
#     cuGraphLaunch(exec, S)                                                      # every replay: one call
#
# The work here: a line of L `add` nodes, `t = x + y` then `t = t + y` L-1 times, on 1,024 floats; each node
# depends on the one before, so the result says whether all L ran, in order.
#
# *Prerequisites: notebooks 02, 03 and 07.*

# %% [markdown]
# ## Predict
# From L = 1 to L = 4,096 nodes: how do capture, instantiate, one `cuGraphLaunch` (host) and the device time per
# graph grow: flat, proportional, or something between? And after how many replays does the graph pay off at
# L = 16?

# %% [gpu] makes the buffers and the two launches every node is made of
chain = cgl.Chain(dev, n=1024)
s, n = chain.stream.handle, chain.n
t = dev.array(n)  # the line's running sum
SIG = ("ptr", "ptr", "ptr", "u64")
first = chain.kernels["add"].prepare(SIG, (t, chain.x, chain.y, n), chain.config, chain.stream)  # t = x + y
step = chain.kernels["add"].prepare(SIG, (t, t, chain.y, n), chain.config, chain.stream)        # t = t + y
LENGTHS = (1, 4, 16, 64, 256, 1024, 4096)

def expected(L, x=None, y=None):
    x = chain.x_host if x is None else x
    y = chain.y_host if y is None else y
    want = x + y  # float32, in the order the nodes run
    for _ in range(L - 1):
        want = want + y
    return want

# %% [markdown]
# ## Run: capture, instantiate, upload a line of L nodes, written out

# %% [gpu] captures and instantiates each length, timing each call (host clock)
def make_line(L):
    t0 = time.perf_counter_ns()
    cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    cu("cuLaunchKernel", *first.call_args)
    for _ in range(L - 1):
        cu("cuLaunchKernel", *step.call_args)
    g = Graph(dev, cu("cuStreamEndCapture", s))
    t1 = time.perf_counter_ns()
    exe = g.instantiate()  # cuGraphInstantiate(graph, 0)
    t2 = time.perf_counter_ns()
    cu("cuGraphUpload", exe.handle, s); cu("cuStreamSynchronize", s)
    t3 = time.perf_counter_ns()
    return g, exe, {"capture": (t1 - t0) / 1e3, "instantiate": (t2 - t1) / 1e3, "upload": (t3 - t2) / 1e3}

g0, e0, _ = make_line(16)  # warm-up: the first capture and instantiate of a process pay one-time costs
e0.close(); g0.close()
lines, made = {}, {}
for L in LENGTHS:
    runs = [make_line(L) for _ in range(3)]
    lines[L] = runs[0]
    made[L] = {k: float(np.median([r[2][k] for r in runs])) for k in ("capture", "instantiate", "upload")}
    for g, exe, _ in runs[1:]:
        exe.close(); g.close()
    print(f"L={L:5d}: {lines[L][0].node_count:5d} nodes; capture {made[L]['capture']:9.1f} us, instantiate "
          f"{made[L]['instantiate']:9.1f} us, upload {made[L]['upload']:8.1f} us (medians of 3, host clock)")

# %% [markdown]
# ## The answer, graded
# Every line must hold L nodes, and its result must be NumPy's L float32 additions bit for bit (fresh inputs,
# poisoned output): a node skipped, doubled or run out of order changes the bits.

# %% [gpu] checks the structure and the bits of every line
for L, (g, exe, _) in lines.items():
    assert g.node_count == L, f"L={L}: {g.node_count} nodes"
    chain.randomize(); t.poison(chain.stream)
    cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
    v = cgl.compare_bits(f"line of {L}", t.to_numpy(), expected(L))
    assert v.ok, f"L={L}: differs from NumPy: {v}"
print(f"every line ({', '.join(map(str, LENGTHS))} nodes): the right node count, bit-exact")

# %% [markdown]
# ## Measure: launch cost and device time against L, and the break-even
# Host: `perf_counter_ns` around each of 50 `cuGraphLaunch` calls (the GPU is free, so this is the call, not the
# work), median. Device: CUDA events around 20 launches, per graph. Eager: the same L kernels launched one by one,
# events around 20 rounds. Break-even: (capture + instantiate) / (eager - graph per round), in replays.

# %% [gpu] times host launch, device time per graph and the eager rounds
from cugraphlab.bench import summarize, timed_loop
start, end = dev.create_event(), dev.create_event()
cost = {}
for L, (g, exe, _) in lines.items():
    host = []
    for _ in range(50):
        t0 = time.perf_counter_ns()
        cu("cuGraphLaunch", exe.handle, s)
        host.append((time.perf_counter_ns() - t0) / 1e3)
        cu("cuStreamSynchronize", s)
    rounds = max(2, min(20, 20000 // L))
    graph_run = lambda it, e=exe.handle: [cu("cuGraphLaunch", e, s) for _ in range(it)]
    def eager_run(it, L=L):
        for _ in range(it):
            cu("cuLaunchKernel", *first.call_args)
            for _ in range(L - 1):
                cu("cuLaunchKernel", *step.call_args)
    graph_run(2); eager_run(2)
    dev_us = summarize([timed_loop(chain.stream, graph_run, rounds, start, end)[1] for _ in range(3)],
                       unit="us", clock="cuEventElapsedTime").median
    eager_us = summarize([timed_loop(chain.stream, eager_run, rounds, start, end)[1] for _ in range(3)],
                         unit="us", clock="cuEventElapsedTime").median
    saved = eager_us - dev_us
    setup = made[L]["capture"] + made[L]["instantiate"]
    cost[L] = {"launch": summarize(host[5:], unit="us", clock="perf_counter_ns").median, "device": dev_us,
               "eager": eager_us, "replays": None if saved <= 0 else int(np.ceil(setup / saved))}
    print(f"L={L:5d}: cuGraphLaunch {cost[L]['launch']:6.2f} us (host), graph {dev_us:9.1f} us, eager "
          f"{eager_us:9.1f} us per round (device); pays off after "
          f"{cost[L]['replays'] if cost[L]['replays'] is not None else 'never'} replays")
lo, hi = LENGTHS[0], LENGTHS[-1]
print(f"from {lo} to {hi} nodes: instantiate x{made[hi]['instantiate'] / made[lo]['instantiate']:.0f}, device "
      f"x{cost[hi]['device'] / cost[lo]['device']:.0f}, cuGraphLaunch (host) x{cost[hi]['launch'] / cost[lo]['launch']:.1f}")
fig, ax = new_figure(6.5, 3.6)
x = list(LENGTHS)
for key, label in (("capture", "capture"), ("instantiate", "instantiate")):
    ax.plot(x, [made[L][key] for L in x], "o-", label=label)
for key, label in (("launch", "cuGraphLaunch (host)"), ("device", "device per graph"), ("eager", "eager per round")):
    ax.plot(x, [cost[L][key] for L in x], "s--" if key != "launch" else "^-", label=label)
ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("nodes in the line"); ax.set_ylabel("us")
ax.legend(fontsize=7); ax.grid(True, which="both", alpha=0.25); show_figure(fig)

# %% [markdown]
# ## The same, measured properly: `cugraphlab scaling`
# The package's sweep does what the cells above do, and what they skip: the host launch is timed with the GPU held
# busy by a spinning kernel (so the launch queue never waits for the device), every cost gets a fit
# a + b·nodes with bootstrap intervals, and the launch is read against NVIDIA's model of constant-time launch
# (`cugraphlab scaling` on the command line; here a short sweep of empty kernels). Its figure, and the readings:

# %% [gpu] runs a short scaling sweep (about 10 s) and draws it
from cugraphlab.bench import make_plan, measure_scaling
from cugraphlab.report.scaling import plot_scaling
plan = make_plan([1, 16, 256, 4096], topologies="line", repeats=5, budget_s=10)
sweep = measure_scaling(dev, plan)
show(sweep, ", path:", "verdict: by", "instantiate per node")
show_plot(plot_scaling, sweep)
assert sweep.verified, "a point of the sweep failed its checks"

# %% [markdown]
# The committed H200 sweep (the default: lines and fork/joins of 1 to 4,096 empty kernels), drawn from its record
# without a GPU: the straight line's fits (slope b per node), the launch path against NVIDIA's model for both
# launch series, the Python/C ratio of instantiate, and the figure.

# %% [record] the default scaling sweep on the H200: slopes, the launch verdict, Python against C, the figure
from cugraphlab.report.scaling import plot_scaling
scaling = show_record("scaling_default", "fits: cost", r"re:^(capture|instantiate|cuGraphLaunch, device held|device per graph) +straight line ",
                      ", path:", "instantiate per node", limit=12)
if scaling is not None:
    show_plot(plot_scaling, scaling)

# %% [markdown]
# ## What it means
# Capture and instantiate grow in proportion to the nodes, with slopes of one to two microseconds per node (the
# fits above are in ns per node), and instantiating costs the same from C as from Python (their ratio is 1): that
# time is the driver laying out the graph, not Python. The device time grows in proportion too: a graph does not
# make kernels faster, it removes the launches between them. NVIDIA's "constant-time" launch (CUDA 12.6+) is a
# model, not a flat line: a fixed cost plus about a nanosecond per node, against two hundred times that per node
# before 12.6, so even the model's line rises by 4,096 nodes. The path lines say where this driver stands: a few
# nanoseconds per node for the held launch, about ten for a launch into an idle stream, far nearer the 12.6+ figure
# than the old one; and a launch stays one call of a few µs against thousands of µs of instantiate: that is the
# point of a graph. So the pay-off is fast wherever a launch costs the host more than the kernel costs the
# device: the live sweep above prints after how many replays each length pays off on this GPU (on the H200, within
# a few replays from four nodes up), and later for a graph of one node, where a replay saves least (the sweep's
# first line and the record's break-even give that count). Where the
# kernels are long (large inputs), eager launches hide behind the device and the graph saves little per round.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Fit the line where it holds (no GPU needed)
# A sweep's small graphs do not sit on the line: below some tens of nodes the fixed costs of a call (and, on a real
# GPU, its launch modes) bend the curve, and a least-squares fit through every point lets them pull the
# intercept. Write `fit_line(nodes, us)`: the least-squares `(a, b)` of `us ≈ a + b·nodes` over the points with
# **64 nodes or more** only (two floats; `np.linalg.lstsq`, `np.polyfit` or by hand). The check makes a sweep
# whose small graphs cost extra, and compares with NumPy's fit of the points from 64 nodes up.

# %% [exercise 1]
fit_line = None  # def fit_line(nodes, us): return a, b

# %% [check 1] (a, b) within 1e-6 of numpy.polyfit of the points from 64 nodes up, on a sweep that bends below
def _check1(f):
    L = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096] * 2 + [3, 5, 7, 9], dtype=float)
    us = 9.0 + 1.6 * L + 60.0 / np.sqrt(L) + rng.normal(0, 5, L.size)  # small graphs cost extra
    b_ref, a_ref = np.polyfit(L[L >= 64], us[L >= 64], 1)
    a, b = (float(v) for v in f(L, us))
    ok = abs(a - a_ref) <= 1e-6 * max(1, abs(a_ref)) and abs(b - b_ref) <= 1e-6 * max(1, abs(b_ref))
    return ok, f"a {a:.4f} (numpy {a_ref:.4f}), b {b:.6f} us/node (numpy {b_ref:.6f})"
grade(1, fit_line, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Four branches instead of one line (GPU)
# Capture L = 64 `add` nodes as a fork/join: 4 streams forked from `s` (notebook 04's `cuEventRecord` +
# `cuStreamWaitEvent`), each recording a line of 16 adds into its own buffer (`t_k = x + y`, then `t_k = t_k + y`
# 15 times), joined back into `s`. Launch it once on fresh inputs; put the Graph in `branches` and the four
# buffers' contents in `branch_outs` (a list of 4 arrays). The check: 64 nodes, each branch bit-exact.

# %% [exercise 2]
branches, branch_outs = None, None

# %% [check 2 gpu] 64 nodes; every branch is 16 float32 additions, bit for bit
def _check2(g):
    want = expected(16)
    checks = [cgl.compare_bits(f"branch {k}", np.asarray(o), want) for k, o in enumerate(branch_outs)]
    return g.node_count == 64 and len(checks) == 4 and all(c.ok for c in checks), \
        f"{g.node_count} nodes; " + "; ".join(map(str, checks))
grade(2, branches, _check2)

# %% [gpu] frees what this notebook made
for g, exe, _ in lines.values():
    exe.close(); g.close()
for o in (start, end, t, chain):
    o.close()
print("closed")
