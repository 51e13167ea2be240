# %% [markdown]
# # 04 · Fork and join across streams
#
# *Programming Guide, "Cross-stream Dependencies and Events".* A second stream joins a capture by waiting on an
# event recorded on the capturing stream (**fork**), and hands its work back the same way before the capture ends
# (**join**). Nothing runs during capture: the events only draw edges. Two independent chains become two parallel
# branches of one graph, and a final `add(final, out_a, out_b)` node has two predecessors.
#
# *Prerequisites: notebooks 02 and 03.*

# %% [markdown]
# ## Predict
# How many nodes, how many edges, and how many predecessors will the final `add` have? For small vectors, will the
# fork/join graph run faster on the device than the same nine kernels in one line?

# %% [gpu] makes two chains on two streams and the final add
N = 1 << 14
a = cgl.Chain(dev, n=N)  # its own stream: a.stream
b = cgl.Chain(dev, n=N, kernels=a.kernels)  # the same kernels, its own buffers and stream
final = dev.array(N)
join_add = a.kernels["add"].prepare(("ptr", "ptr", "ptr", "u64"), (final, a.out, b.out, N), a.config, a.stream)
fork_ev, join_ev = dev.create_event(timing=False), dev.create_event(timing=False)
sa, sb = a.stream.handle, b.stream.handle

# %% [markdown]
# ## Run: capture across two streams
#     cuStreamBeginCapture(A)
#     cuEventRecord(fork, A); cuStreamWaitEvent(B, fork)   # B joins A's capture
#     chain a on A, chain b on B                            # no edge between them
#     cuEventRecord(join, B); cuStreamWaitEvent(A, join)   # B's work flows back into A
#     add(final, a.out, b.out) on A; cuStreamEndCapture(A)

# %% [gpu] captures the fork/join graph
cu("cuStreamBeginCapture", sa, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuEventRecord", fork_ev.handle, sa)
cu("cuStreamWaitEvent", sb, fork_ev.handle, 0)
for L in a.launches:
    cu("cuLaunchKernel", *L.call_args)  # on A
for L in b.launches:
    cu("cuLaunchKernel", *L.call_args)  # on B
cu("cuEventRecord", join_ev.handle, sb)
cu("cuStreamWaitEvent", sa, join_ev.handle, 0)
cu("cuLaunchKernel", *join_add.call_args)
fj = Graph(dev, cu("cuStreamEndCapture", sa))
show_graph(fj, "fork/join:")
from collections import Counter
preds = Counter(int(to) for _, to in fj.edges())
print(f"{fj.node_count} nodes, {len(fj.edges())} edges, the join node has {max(preds.values())} predecessors")

# %% [markdown]
# ### The same nine kernels in one line
# Built node by node (notebook 03), one after the other: the serial baseline.

# %% [gpu] builds the serial graph of the same nine kernels
from cugraphlab.graphs import add_launch_sequence
serial = Graph(dev)
add_launch_sequence(serial, a.launches + b.launches + [join_add])
print(f"serial: {serial.node_count} nodes, {len(serial.edges())} edges")

# %% [markdown]
# ## The answer, graded
# `final = chain(xa, ya) + chain(xb, yb)` in NumPy float32.

# %% [gpu] runs both graphs and checks them bit for bit
exes = {"fork/join": fj.instantiate(), "serial": serial.instantiate()}
for name, exe in exes.items():
    a.randomize(); b.randomize(); a.poison(); b.poison(); final.poison()
    cu("cuGraphLaunch", exe.handle, sa)
    cu("cuStreamSynchronize", sa)
    expected = np.add(a.expected(), b.expected(), dtype=np.float32)
    v = cgl.compare_bits(name, final.to_numpy(), expected)
    print(v)
    assert v.ok, f"{name} graph differs from NumPy: {v}"
assert fj.node_count == 9 and max(preds.values()) == 2, "the fork/join graph should be 9 nodes with a 2-way join"

# %% [markdown]
# ## Measure: device time per launch, fork/join against serial

# %% [gpu] times both graphs (CUDA events), 5 repeats of 300 launches
from cugraphlab.bench import summarize, timed_loop
start, end = dev.create_event(), dev.create_event()
res = {}
for name, exe in exes.items():
    run = lambda k, e=exe: [cu("cuGraphLaunch", e.handle, sa) for _ in range(k)]
    run(30)
    samples = [timed_loop(a.stream, run, 300, start, end)[1] for _ in range(5)]
    res[name] = summarize(samples, unit="us", clock="cuEventElapsedTime")
    print(f"{name:10s} {res[name].median:7.2f} us per launch (device clock)")
print(f"fork/join against serial: {res['fork/join'].median / res['serial'].median:.2f}x the device time")
fig, ax = new_figure()
ax.bar(list(res), [r.median for r in res.values()], color=["tab:green", "tab:gray"])
ax.set_ylabel("device us per launch")
show_figure(fig)

# %% [markdown]
# ## On the H200: lines against fork/joins of up to 4,096 nodes
# The committed `cugraphlab scaling` record: the device time per graph, fitted as `a + b·nodes`, for a straight
# line and for fork/joins of 2 to 16 branches (empty kernels).

# %% [record] device time per graph node: one line against parallel branches, on the H200
show_record("scaling_default", "fits: cost", "device per graph             ", limit=10)

# %% [markdown]
# ## What it means
# The events recorded during capture became edges, not waits: chain b's four nodes have no edge to chain a's, so
# the GPU may run them side by side. For small kernels that do not fill the GPU, branches finish sooner than one
# line: the record's device slope per node falls from one branch to eight (about four times lower), and no
# further from eight to sixteen, where the two slopes read the same within their intervals: past some width the
# GPU runs no more of these tiny kernels side by side. For large kernels that each fill the GPU the gain shrinks. Ending a capture while B still has unjoined work fails with `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`
# (notebook 06 makes that mistake on purpose).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Count before you capture (no GPU needed)
# Write `forkjoin_counts(K, L)`: the nodes and edges of a capture where K streams each record a line of L kernels
# (each forked from the origin stream by one event) and the origin then joins them all and launches one final
# kernel. Return `(nodes, edges)`. (The fork events add no node; the final kernel depends on every branch's last.)

# %% [exercise 1]
forkjoin_counts = None  # def forkjoin_counts(K, L): return nodes, edges

# %% [check 1] against the rule, for 1 to 5 branches of 1 to 6 kernels
def _check1(f):
    wrong = [(K, L, f(K, L)) for K in range(1, 6) for L in range(1, 7) if tuple(f(K, L)) != (K * L + 1, K * L)]
    return not wrong, f"{30 - len(wrong)} of 30 right" + (f"; e.g. K={wrong[0][0]}, L={wrong[0][1]}: {wrong[0][2]}"
                                                          if wrong else "")
grade(1, forkjoin_counts, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Three branches (GPU)
# Add a third chain `c3 = cgl.Chain(dev, n=N, kernels=a.kernels)` on its own stream and capture a graph where a,
# b and c3 run in parallel, then `final = a.out + b.out` and `final = final + c3.out` (two more `add`
# launches on A, after the joins). Launch it once on fresh inputs of all three chains and put the Graph in
# `three` and `final.to_numpy()` in `three_out`. The check: 14 nodes, and the output bit-exact against NumPy.

# %% [exercise 2]
three, three_out = None, None

# %% [check 2 gpu] 14 nodes, and final = (a + b) + c3 bit for bit
def _check2(g):
    want = np.add(np.add(a.expected(), b.expected(), dtype=np.float32), c3.expected(), dtype=np.float32)
    v = cgl.compare_bits("three branches", np.asarray(three_out), want)
    return g.node_count == 14 and v.ok, f"{g.node_count} nodes; {v}"
grade(2, three, _check2)

# %% [markdown]
# ## Change this and run again
# Delete the two join lines (`cuEventRecord(join_ev, B)` and `cuStreamWaitEvent(A, join_ev)`) and run the capture
# cell. Which error do you get, from which call?

# %% [gpu] frees what this notebook made
for o in (*exes.values(), fj, serial, final, fork_ev, join_ev, start, end, b, a):
    o.close()
print("closed")
