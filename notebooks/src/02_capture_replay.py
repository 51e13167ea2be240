# %% [markdown]
# # 02 · Stream capture and replay
#
# *Programming Guide, "Creating a Graph Using Stream Capture".* Between `cuStreamBeginCapture` and
# `cuStreamEndCapture`, work queued on a stream is **recorded** into a graph instead of run. The graph is
# instantiated once (`cuGraphInstantiate`) and then replayed with one call (`cuGraphLaunch`) per iteration.
#
# The chain is notebook 01's four launches; `cgl.Chain` packs them exactly as notebook 01 did by hand
# (`chain.launches`, buffers `chain.x`, `chain.y`, `chain.out`, its own `chain.stream`).

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
# capture (notebook 12 breaks one on purpose).

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
# ### Picture
# The cell below shows the drawing of the graph when this cugraphlab can draw graphs (a graph view with
# `_repr_svg_`), and the text view otherwise.

# %% [gpu] shows the captured graph (drawing, or text view)
view = graph_view(graph)
if hasattr(view, "_repr_svg_"):
    from IPython.display import display
    display(view)
else:
    print(render_text(view, "drawing not available in this version; the text view:"))

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
# of 500 iterations after a warm-up.

# %% [gpu] times eager launches against one cuGraphLaunch per iteration
from cugraphlab.bench import timed_loop, summarize
start, end = dev.create_event(), dev.create_event()
launch = exe.fn  # the binding's cuGraphLaunch

def eager(iters):
    chain.run("eager", iters)  # notebook 01's loop of cuLaunchKernel calls

def replay(iters):
    for _ in range(iters):
        r = launch(exe.handle, s)
        if r[0]:
            cu("cuGraphLaunch", exe.handle, s)  # raises the typed error

rows = {}
for name, run in (("eager: 4 x cuLaunchKernel", eager), ("graph: 1 x cuGraphLaunch", replay)):
    run(50)
    wall, dv = zip(*[timed_loop(chain.stream, run, 500, start, end) for _ in range(5)])
    rows[name] = (summarize(wall, unit="us", clock="perf_counter_ns"), summarize(dv, unit="us", clock="cuEventElapsedTime"))
for name, (w, dv) in rows.items():
    print(f"{name:28s} {w.median:7.2f} us/iter wall   {dv.median:7.2f} us/iter device")
fig, ax = new_figure()
ax.bar(list(rows), [w.median for w, _ in rows.values()], color=["tab:orange", "tab:green"])
ax.set_ylabel("us per iteration (wall, median)")
show_figure(fig)
v = cgl.compare_bits("after timing", chain.out.to_numpy(), chain.expected())
assert v.ok, f"the timed runs' output differs from NumPy: {v}"

# %% [markdown]
# ## On the H200: the same chain from eight stacks
# The committed `cugraphlab compare` record, drawn without a GPU: host µs per launch and per iteration, eager and
# as a graph, for the bare bindings, cugraphlab, ctypes, CuPy, PyTorch, cuda.core, Triton and JAX (each in its own
# process, bit-exact against NumPy).

# %% [record] graph against eager, stack by stack, on the H200
from cugraphlab.report.compare import render_baseline_rows
from cugraphlab.report.plots.compare import plot_compare_stacks
rec = h200_record("compare_default")
if rec is not None:
    print(render_baseline_rows(rec, rec.sizes[0]))
    show_plot(plot_compare_stacks, rec)

# %% [markdown]
# ## What it means
# The capture ran nothing: it only recorded four kernel nodes joined by three edges. One `cuGraphLaunch` then
# submits all four, so the host's cost per iteration falls; the kernels themselves take the same device time.
# What the graph cannot remove is the GPU's own gap between dependent kernels (notebooks 06 and 08).
#
# ## Change this and run again
# Capture the loop body **twice** (repeat the `for L in chain.launches` loop) before `cuStreamEndCapture`. How
# many nodes now? Does the output still match NumPy, and why (each op reads only `x`, `y` and the previous op)?

# %% [gpu] frees what this notebook made
for o in (exe, graph, start, end, chain):
    o.close()
print("closed")
