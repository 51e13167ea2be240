# %% [markdown]
# # 04 · Fork and join across streams
#
# *Programming Guide, "Cross-stream Dependencies and Events".* A second stream joins a capture by waiting on an
# event recorded on the capturing stream (**fork**), and hands its work back the same way before the capture ends
# (**join**). Nothing runs during capture: the events only draw edges. Two independent chains become two parallel
# branches of one graph, and a final `add(final, out_a, out_b)` node has two predecessors.

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
ok = []
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
from cugraphlab.bench import timed_loop, summarize
start, end = dev.create_event(), dev.create_event()
res = {}
for name, exe in exes.items():
    run = lambda k, e=exe: [cu("cuGraphLaunch", e.handle, sa) for _ in range(k)]
    run(30)
    samples = [timed_loop(a.stream, run, 300, start, end)[1] for _ in range(5)]
    res[name] = summarize(samples, unit="us", clock="cuEventElapsedTime")
    print(f"{name:10s} {res[name].median:7.2f} us per launch (device clock)")
fig, ax = new_figure()
ax.bar(list(res), [r.median for r in res.values()], color=["tab:green", "tab:gray"])
ax.set_ylabel("device us per launch")
show_figure(fig)

# %% [markdown]
# ## What it means
# The events recorded during capture became edges, not waits: chain b's four nodes have no edge to chain a's, so
# the GPU may run them side by side. For small kernels that do not fill the GPU, two branches finish sooner than
# one line of nine; for large ones that each fill the GPU the gain shrinks. Ending a capture while B still has
# unjoined work fails with `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`.
#
# ## Change this and run again
# Delete the two join lines (`cuEventRecord(join_ev, B)` and `cuStreamWaitEvent(A, join_ev)`) and run the capture
# cell. Which error do you get, from which call?

# %% [gpu] frees what this notebook made
for o in (*exes.values(), fj, serial, final, fork_ev, join_ev, start, end, b, a):
    o.close()
print("closed")
