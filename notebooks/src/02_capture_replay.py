# %% [markdown]
# # 02 · Stream capture and replay
#
# *Programming Guide, "Creating a Graph Using Stream Capture".* Between `cuStreamBeginCapture` and
# `cuStreamEndCapture`, work queued on a stream is **recorded** into a graph instead of run. The graph is
# instantiated once (`cuGraphInstantiate`) and then replayed with one call (`cuGraphLaunch`) per iteration.
#
# The chain is notebook 01's four launches; `cgl.Chain` packs them exactly as notebook 01 did by hand
# (`chain.launches`, buffers `chain.x`, `chain.y`, `chain.out`, its own `chain.stream`).
#
# *Prerequisites: notebook 01.*

# %% [markdown]
# ## Predict
# 1. While the stream is capturing, do the four kernels run?
# 2. How many nodes and edges will the captured graph have?
# 3. Replaying it: host µs per iteration, against notebook 01's four `cuLaunchKernel` calls?

# %% [gpu] makes the chain (kernels, buffers, the four packed launches)
N = 4096
chain = cgl.Chain(dev, n=N)
s = chain.stream.handle
print(chain.describe())

# %% [markdown]
# ## Run: capture, instantiate, upload, launch
# `CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`: only this thread's unsafe calls (a synchronize, a `cuMemAlloc`) break the
# capture (notebook 06 breaks one on purpose).

# %% [gpu] captures the four launches into a graph and instantiates it
chain.poison()  # NaN pattern in every output
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in chain.launches:
    cu("cuLaunchKernel", *L.call_args)  # recorded as a kernel node, after the one before
handle = cu("cuStreamEndCapture", s)  # a CUgraph
graph = Graph(dev, handle)  # owns it: cuGraphDestroy on close
still_poison = np.isnan(chain.out.to_numpy()).all()
print(f"nothing ran during the capture: {still_poison}")
show_graph(graph, "the captured chain:")
exe_handle = cu("cuGraphInstantiate", graph.handle, 0)  # validate and prepare, once
exe = GraphExec(dev, exe_handle)  # owns it: cuGraphExecDestroy on close
cu("cuGraphUpload", exe.handle, s)  # the first launch's setup, done now
cu("cuGraphLaunch", exe.handle, s)  # the whole chain in one call
cu("cuStreamSynchronize", s)

# %% [markdown]
# ## The answer, graded

# %% [gpu] checks the replayed graph's output bit for bit
v = cgl.compare_bits("graph", chain.out.to_numpy(), chain.expected())
print(v)
assert still_poison, "the outputs changed during the capture: something ran instead of being recorded"
assert v.ok, f"the graph's output differs from NumPy: {v}"
assert graph.node_count == 4 and len(graph.edges()) == 3, "a capture of 4 launches on one stream is a 4-node line"

# %% [markdown]
# ## Measure: eager against replay
# Both on the same stream and buffers, timed with `bench.timed_loop` (host wall clock and CUDA events), 5 repeats
# of 500 iterations after a warm-up. Remember notebook 01: the events measure the stream's interval, gaps
# included, so they fall when the host's cost falls; the kernels' own busy time does not change.

# %% [gpu] times eager launches against one cuGraphLaunch per iteration
from cugraphlab.bench import summarize, timed_loop
start, end = dev.create_event(), dev.create_event()
launch = exe.fn  # the binding's cuGraphLaunch

def eager(iters):
    chain.run("eager", iters)  # notebook 01's loop of cuLaunchKernel calls

def replay(iters):
    for _ in range(iters):
        if launch(exe.handle, s)[0]:
            cu("cuGraphLaunch", exe.handle, s)  # raises the typed error

rows = {}
for name, run in (("eager: 4 x cuLaunchKernel", eager), ("graph: 1 x cuGraphLaunch", replay)):
    run(50)
    wall, dv = zip(*[timed_loop(chain.stream, run, 500, start, end) for _ in range(5)])
    rows[name] = (summarize(wall, unit="us", clock="perf_counter_ns"), summarize(dv, unit="us", clock="cuEventElapsedTime"))
for name, (w, dv) in rows.items():
    print(f"{name:28s} {w.median:7.2f} us/iter wall   {dv.median:7.2f} us/iter between the events")
(we, de), (wg, dg) = ((w.median, dv.median) for w, dv in rows.values())
print(f"the graph saves {we - wg:.2f} us of wall time per iteration ({we / wg:.2f}x); the events' interval falls "
      f"with it ({de:.2f} -> {dg:.2f} us): the GPU waited less for launches")
fig, ax = new_figure()
ax.bar(list(rows), [w.median for w, _ in rows.values()], color=["tab:orange", "tab:green"])
ax.set_ylabel("us per iteration (wall, median)")
show_figure(fig)
v = cgl.compare_bits("after timing", chain.out.to_numpy(), chain.expected())
assert v.ok, f"the timed runs' output differs from NumPy: {v}"

# %% [markdown]
# ## On the H200: the same chain from other Python stacks
# The committed `cugraphlab compare` record, drawn without a GPU: host µs per launch and per iteration, eager and
# as a graph, for the bare bindings, cugraphlab, PyTorch and others (each in its own process, bit-exact against
# NumPy); the table at 1,024 floats, the figure at both sizes.

# %% [record] graph against eager, stack by stack, on the H200
from cugraphlab.report.plots.compare import plot_compare_stacks
stacks = show_record("compare_default_1", "size 1,024 floats", "bindings *", "cugraphlab *", "torch ", "cupy_raw *",
                     "jit per op", within="size 1,024 floats")
if stacks is not None:
    show_plot(plot_compare_stacks, stacks)

# %% [markdown]
# ## What it means
# The capture ran nothing: it only recorded four kernel nodes joined by three edges. One `cuGraphLaunch` then
# submits all four, so the host's cost per iteration falls, and with it the time the GPU spends waiting between
# kernels: the interval the events measure. The kernels' own work is the same in both: the same kernels on the same
# buffers (notebook 01's record has one kernel's busy time, measured inside a graph, so it shows that work, not an
# eager-against-graph comparison of it); what
# the graph cannot remove is the GPU's own gap between dependent kernels (notebooks 07 and 12).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Capture the body twice (GPU)
# Capture `chain.launches` **twice** in one capture (two loops before `cuStreamEndCapture`), instantiate it, launch
# it once on fresh inputs (`chain.randomize(); chain.poison()`), and put the Graph in `twice` and the output in
# `twice_out` (`chain.out.to_numpy()`). Predict the node and edge counts first. The check: 8 nodes, 7 edges, and
# the output bit-exact (each op reads only `x`, `y` and the op before, so twice gives the result of once).

# %% [exercise 1]
twice, twice_out = None, None

# %% [check 1 gpu] 8 nodes in a line, and the output bit-exact
def _check1(g):
    nodes, edges = g.node_count, len(g.edges())
    v = cgl.compare_bits("captured twice", twice_out, chain.expected())
    return nodes == 8 and edges == 7 and v.ok, f"{nodes} nodes, {edges} edges; {v}"
grade(1, twice, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · New data, the same graph (GPU)
# The graph holds the chain's buffers' **addresses**, not their contents. Replay `exe` twice, each time on fresh
# inputs written into the same buffers (`chain.randomize(); chain.poison()` before each launch), without
# capturing again; after each replay keep `(x, y, out)` as host arrays (`chain.x_host`, `chain.y_host`,
# `chain.out.to_numpy()`). Put the two triples in `two_replays`. The check computes each replay's result from its
# own inputs in NumPy and compares bit for bit; the two inputs must differ.

# %% [exercise 2]
two_replays = None

# %% [check 2 gpu] each replay computed from the inputs it was given, bit for bit
def _check2(replays):
    (x1, y1, o1), (x2, y2, o2) = replays
    v1 = cgl.compare_bits("replay 1", np.asarray(o1), cgl.reference(chain.ops, x1, y1, chain.scalar))
    v2 = cgl.compare_bits("replay 2", np.asarray(o2), cgl.reference(chain.ops, x2, y2, chain.scalar))
    fresh = not np.array_equal(x1, x2)
    return v1.ok and v2.ok and fresh, f"{v1}; {v2}; fresh inputs the second time: {fresh}"
grade(2, two_replays, _check2)

# %% [markdown]
# ## Change this and run again
# Make the chain 256 times larger (`N = 1 << 20`) and run the measurement again. Does the graph still save as much
# per iteration? (Notebook 07 answers it with unrolling.)

# %% [gpu] frees what this notebook made
for o in (exe, graph, start, end, chain):
    o.close()
print("closed")
