# %% [markdown]
# # 16 · Capstone: an MLP inference step, framework-free, as one graph
#
# Everything the course built, on a small real workload: a two-layer perceptron's inference step,
# `out = relu(x W1 + b1) W2 + b2`, for a batch of 32 inputs of 256 features, 512 hidden units and 128 outputs.
# Three kernels of our own (a tiled matmul, a bias add, a relu), compiled by NVRTC; the five launches of one step
# captured **once**; every step a new input batch, pointed at with `cuGraphExecKernelNodeSetParams` (setting one
# kernel node's parameters in the executable: notebook 05's per-node path, not a whole-graph `cuGraphExecUpdate`);
# checked against NumPy bit for bit (the kernels sum in the order NumPy is told to), and against float64 within a
# stated tolerance. Then measured on two clocks (host wall time and CUDA events, per step), every way of ours
# through the same checked call (`cu`), beside PyTorch: its eager step, its `torch.cuda.graph`, and
# `torch.cuda.graph` capturing **our** kernels (the like-for-like row); and once more at batch 1 with 64-wide
# layers, a step whose kernels are too short to hide its launches.
#
# *Prerequisites: notebooks 01-05 and 07; CUDA C (shared memory, `__syncthreads`).*

# %% [markdown]
# ## The kernels
# `kernels/mlp.cu`, shipped inside the package with its other kernels (`cuda_source` reads it from the wheel):

# %%
MLP_CU = cuda_source("mlp.cu")
print(MLP_CU)

# %% [markdown]
# NVRTC needs no GPU: the kernels compile here whatever the machine, for a T4 (sm_75) and an H200 (sm_90).

# %%
for arch in ("sm_75", "sm_90"):
    compiled = cgl.compile_source(MLP_CU, "mlp", arch=arch, kind="cubin")
    regs = {line.split("'")[1]: line for line in compiled.log.splitlines() if "Compiling entry function" in line}
    print(f"{arch}: cubin {len(compiled.image):,} bytes; entries {', '.join(regs)}")

# %% [markdown]
# ## The answer NumPy expects
# `matmul_ref` sums in the kernels' order, k = 0, 1, ..., each product and each addition rounded to float32, so the
# GPU's result must match it **bit for bit**; `mlp64` is the same math in float64, the truth both float32 results
# are compared with. The tolerance, stated once: every output within `1e-4` of the largest |output|.

# %%
B, IN, HID, OUT, SLOTS, TOL = 32, 256, 512, 128, 8, 1e-4
W1h = (rng.standard_normal((IN, HID)) / np.sqrt(IN)).astype(np.float32)
b1h = (0.1 * rng.standard_normal(HID)).astype(np.float32)
W2h = (rng.standard_normal((HID, OUT)) / np.sqrt(HID)).astype(np.float32)
b2h = (0.1 * rng.standard_normal(OUT)).astype(np.float32)
xs_host = [rng.standard_normal((B, IN), dtype=np.float32) for _ in range(SLOTS)]  # one batch per step, cycled

def matmul_ref(x, w):
    acc = np.zeros((x.shape[0], w.shape[1]), np.float32)
    for k in range(x.shape[1]):
        acc = acc + x[:, k:k + 1] * w[k:k + 1, :]  # float32: the product rounded, then the sum rounded
    return acc

def mlp_ref(x, W1=W1h, b1=b1h, W2=W2h, b2=b2h):
    h = matmul_ref(x, W1) + b1
    h = np.where(h > 0, h, np.float32(0))
    return matmul_ref(h, W2) + b2

def mlp64(x, W1=W1h, b1=b1h, W2=W2h, b2=b2h):
    h = np.maximum(x.astype(np.float64) @ W1.astype(np.float64) + b1, 0.0)
    return h @ W2.astype(np.float64) + b2

def within_tol(got, x, **weights):
    truth = mlp64(x, **weights)
    err = float(np.abs(np.asarray(got, np.float64) - truth).max() / np.abs(truth).max())
    return err <= TOL, err

refs = [mlp_ref(x) for x in xs_host]
ok, err = within_tol(refs[0], xs_host[0])
print(f"NumPy float32 (the kernels' order) against float64: max error {err:.2e} of the largest |output| "
      f"({'within' if ok else 'NOT within'} {TOL:g})")
assert ok

# %% [markdown]
# ## Load, allocate, and prepare every launch
# One cubin for this GPU, loaded; the weights and a ring of `SLOTS` input batches in device memory; the five
# launches of one step (matmul, bias, relu, matmul, bias), once per input slot for the eager runs.

# %% [gpu] loads the kernels for this GPU, uploads weights and inputs, packs the launches
mod = dev.load_module(cgl.compile_source(MLP_CU, "mlp", arch=dev.arch, kind="cubin").image)  # cuModuleLoadData
k_mm, k_bias, k_relu = (mod.kernel(n) for n in ("matmul_tiled", "add_bias", "relu"))
stream = dev.create_stream()
W1, b1, W2, b2 = (dev.to_device(a) for a in (W1h.ravel(), b1h, W2h.ravel(), b2h))
xs = [dev.to_device(x.ravel()) for x in xs_host]
h, out = dev.array(B * HID), dev.array(B * OUT)
tiles = lambda rows, cols: (((cols + 15) // 16, (rows + 15) // 16), (16, 16))  # grid, block of matmul_tiled
flat = lambda count: (cgl.grid_for(count, 256, dev.sm_count, 4), 256)
MM = ("ptr", "ptr", "ptr", "i32", "i32", "i32")

def step_launches(x, h=h, out=out, on=stream, dims=(B, IN, HID, OUT), weights=(W1, b1, W2, b2)):
    """The five launches of one step reading the batch at `x` (any device buffer: ours, or a torch tensor) on the
    stream `on`; `dims` (batch, in, hidden, out) and `weights` (W1, b1, W2, b2 on the device) default to the
    capstone's."""
    b, n_in, n_hid, n_out = dims
    w1, c1, w2, c2 = weights
    return [k_mm.prepare(MM, (h, x, w1, b, n_in, n_hid), tiles(b, n_hid), on),
            k_bias.prepare(("ptr", "ptr", "i32", "i32"), (h, c1, b, n_hid), flat(b * n_hid), on),
            k_relu.prepare(("ptr", "i32"), (h, b * n_hid), flat(b * n_hid), on),
            k_mm.prepare(MM, (out, h, w2, b, n_hid, n_out), tiles(b, n_out), on),
            k_bias.prepare(("ptr", "ptr", "i32", "i32"), (out, c2, b, n_out), flat(b * n_out), on)]

eager = [step_launches(x) for x in xs]  # eager[s]: the five launches of a step on input slot s
print(f"{len(eager)} slots x {len(eager[0])} launches; matmul grids {eager[0][0].config.grid} and {eager[0][3].config.grid}")

# %% [markdown]
# ## Eager, once: five `cuLaunchKernel` calls, checked

# %% [gpu] runs one step eagerly on slot 3 and checks it bit for bit
h.poison(); out.poison()
for L in eager[3]:
    cu("cuLaunchKernel", *L.call_args)
cu("cuStreamSynchronize", stream.handle)
v = cgl.compare_bits("eager step, slot 3", out.to_numpy().reshape(B, OUT), refs[3])
print(v)
assert v.ok, v

# %% [markdown]
# ## Captured once; the input pointer set per step
# The step's five launches are captured on slot 0's input. For any other slot, only the first matmul's arguments
# change: `cuGraphExecKernelNodeSetParams(exec, node, params)` with the node of the captured graph and the packed
# arguments of that slot's launch (made once, above), then `cuGraphLaunch`. The new parameters apply to the launches
# that follow it; one already queued keeps the arguments it had.

# %% [gpu] captures one step, instantiates it, and checks every slot through cuGraphExecKernelNodeSetParams, bit for bit
from cugraphlab.graphs import kernel_node_params, kernel_nodes_in_order
s = stream.handle
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in eager[0]:
    cu("cuLaunchKernel", *L.call_args)
graph = Graph(dev, cu("cuStreamEndCapture", s))
exe = graph.instantiate()
exe.upload(stream)
nodes = kernel_nodes_in_order(graph)  # matmul, bias, relu, matmul, bias
first_params = [kernel_node_params(eager[i][0]) for i in range(SLOTS)]  # the first matmul on each slot
show_graph(graph, "one inference step:")
for i in (5, 1, 0, 7, 2, 6, 4, 3):
    h.poison(); out.poison()
    cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[0], first_params[i])
    cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
    got = out.to_numpy().reshape(B, OUT)
    v = cgl.compare_bits(f"graph, slot {i}", got, refs[i])
    close, err = within_tol(got, xs_host[i])
    print(f"{v}; against float64: {err:.2e} ({'within' if close else 'NOT within'} {TOL:g})")
    assert v.ok and close, v

# %% [markdown]
# ## Measure: every way of running a step, on two clocks
# Per step, medians of 5 loops of 400 steps after a warm-up (`bench.timed_loop`): the **host wall** time
# (`perf_counter_ns` until the loop's end event has completed) and the **device** time (CUDA events recorded on
# the stream the steps run on, around the same loop). Every way of ours goes through the same checked call,
# `cu(...)`: "eager" is five `cuLaunchKernel` per step; "graph + set params" points the graph at the batch where it
# lies and launches it; "graph + copy" is how `torch.cuda.graph` feeds a batch: one static input buffer, a copy
# into it (`cuMemcpyDtoDAsync`), then the replay. After each way's loops, the output of its last step is checked
# bit for bit.

# %% [gpu] times the three ways of ours on both clocks (no check inside the timed loops; one after each)
from types import SimpleNamespace
from cugraphlab.bench import summarize, timed_loop
STEPS = 400
t_start, t_end = dev.create_event(), dev.create_event()

def time_way(step, on):
    """(host wall µs, device µs) per step of `step(i)`, i = 0, 1, ...: medians of 5 loops of STEPS steps on the
    Stream `on`, after 20 steps of warm-up."""
    def run(k):
        for i in range(k):
            step(i)
    run(20)
    wall, dv = zip(*[timed_loop(on, run, STEPS, t_start, t_end) for _ in range(5)])
    return (summarize(wall, unit="us", clock="perf_counter_ns").median,
            summarize(dv, unit="us", clock="cuEventElapsedTime").median)

def capture_step(launches):
    """The launches captured on `stream`, instantiated and uploaded: (graph, executable, kernel nodes in order)."""
    cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    for L in launches:
        cu("cuLaunchKernel", *L.call_args)
    g = Graph(dev, cu("cuStreamEndCapture", s))
    e = g.instantiate()
    e.upload(stream)
    return g, e, kernel_nodes_in_order(g)

def our_ways(c):
    """The three ways of ours for configuration `c`, each one step per call, all through cu(...)."""
    n, nbytes = len(c.eager), c.dims[0] * c.dims[1] * 4
    return {
        "eager (5 launches)": lambda i: [cu("cuLaunchKernel", *L.call_args) for L in c.eager[i % n]],
        "graph + set params": lambda i: (cu("cuGraphExecKernelNodeSetParams", c.exe.handle, c.nodes[0],
                                            c.first_params[i % n]), cu("cuGraphLaunch", c.exe.handle, s)),
        "graph + copy": lambda i: (cu("cuMemcpyDtoDAsync", c.static_x.handle, c.xs[i % n].handle, nbytes, s),
                                   cu("cuGraphLaunch", c.copy_exe.handle, s)),
    }

def time_ours(c, rows):
    for name, step in our_ways(c).items():
        rows[name] = time_way(step, stream)
        last = (STEPS - 1) % len(c.eager)  # the slot of the last step: its output is what c.out holds now
        v = cgl.compare_bits(f"{name}, after timing", c.out.to_numpy().reshape(c.dims[0], c.dims[3]), c.refs[last])
        print(f"{name:40s} {rows[name][0]:8.2f} {rows[name][1]:10.2f}   {v}")
        assert v.ok, v

HEADER = f"{'way':40s} {'host wall':>8s} {'device':>10s}   (us per step, medians)"
static_x = dev.array(B * IN)
copy_graph, copy_exe, _ = capture_step(step_launches(static_x))
main = SimpleNamespace(dims=(B, IN, HID, OUT), eager=eager, exe=exe, nodes=nodes, first_params=first_params,
                       static_x=static_x, copy_exe=copy_exe, xs=xs, out=out, refs=refs, xs_host=xs_host,
                       host_weights=dict(W1=W1h, b1=b1h, W2=W2h, b2=b2h), weights=(W1, b1, W2, b2))
per_step = {}
print(f"batch {B}, layers {IN} -> {HID} -> {OUT}\n{HEADER}")
time_ours(main, per_step)

# %% [markdown]
# ## The same step in PyTorch: cuBLAS's kernels, and ours
# The same weights and batches as torch tensors; `torch.relu(x @ W1 + b1) @ W2 + b2` with TF32 off. Its matmuls
# are cuBLAS's, summing in their own order, so their check is the stated tolerance from float64, not bit-exact.
# Its graph is PyTorch's usual pattern: a warm-up on a side stream, a capture, then per step
# `static_x.copy_(batch)` and `replay()`. The like-for-like row captures **our** five launches with
# `torch.cuda.graph` on a torch stream (`torch.cuda.graph(g, stream=...)`; a launch takes a torch tensor as a
# pointer), fed the same way: the same kernels as our graph rows, bit-exact, only the capture and the replay
# call are PyTorch's. The torch rows are timed by the same loop on torch's current stream (wrapped:
# `cgl.Stream.wrap`), through torch's own calls. (Measured in this process, after cugraphlab's own runs.)

# %% [gpu] runs the step in PyTorch (cuBLAS eagerly and as a graph, and our kernels in a torch graph), checks, times
try:
    import torch
    torch_why = "" if torch.cuda.is_available() else "torch sees no GPU"
except Exception as e:  # not installed
    torch, torch_why = None, f"torch does not import ({type(e).__name__}): pip install torch to compare"

def torch_ways(c):
    """PyTorch's rows for configuration `c`, each checked on every slot before any timing."""
    torch.backends.cuda.matmul.allow_tf32 = False
    tdev = torch.device("cuda", 0)
    w = c.host_weights
    tW1, tb1, tW2, tb2 = (torch.from_numpy(np.ascontiguousarray(w[k])).to(tdev) for k in ("W1", "b1", "W2", "b2"))
    txs = [torch.from_numpy(x).to(tdev) for x in c.xs_host]
    model = lambda x: torch.relu(x @ tW1 + tb1) @ tW2 + tb2
    t_static = txs[0].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(t_static)  # warm-up: cuBLAS picks its kernels and workspaces before the capture
    torch.cuda.current_stream().wait_stream(side)
    tgraph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(tgraph):
        t_out = model(t_static)
    b, n_in, n_hid, n_out = c.dims
    ours_x, ours_h = txs[0].clone(), torch.empty(b * n_hid, device=tdev)
    ours_out = torch.empty(b * n_out, device=tdev)
    cap = torch.cuda.Stream()
    ours = step_launches(ours_x, ours_h, ours_out, cap, c.dims, c.weights)  # packed before the capture
    ours_graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(ours_graph, stream=cap):
        for L in ours:
            cu("cuLaunchKernel", *L.call_args)
    worst = 0.0
    for i, x in enumerate(c.xs_host):
        t_static.copy_(txs[i]); tgraph.replay()
        close, err = within_tol(t_out.cpu().numpy(), x, **w)
        eager_close, eager_err = within_tol(model(txs[i]).cpu().numpy(), x, **w)
        assert close and eager_close, (i, err, eager_err)
        worst = max(worst, err, eager_err)
        ours_x.copy_(txs[i]); ours_graph.replay()
        v = cgl.compare_bits(f"our kernels in torch.cuda.graph, slot {i}", ours_out.cpu().numpy().reshape(b, n_out),
                             c.refs[i])
        assert v.ok, v
    print(f"checked: torch (cuBLAS) eager and graph within {TOL:g} of float64 on every slot (largest error "
          f"{worst:.2e}); our kernels in torch.cuda.graph bit-exact on every slot")
    n = len(txs)
    # our graph's kernels read and write ours_x, ours_h and ours_out: all three must live as long as the graph is
    # replayed (`cugraphlab doctor --replay` found ours_h freed here, its memory back in PyTorch's cache, while the
    # timing below still replayed the graph), so the way keeps them
    kept = (ours_x, ours_h, ours_out)
    ways = {"torch eager (cuBLAS)": lambda i: model(txs[i % n]),
            "torch.cuda.graph (cuBLAS) + copy_": lambda i: (t_static.copy_(txs[i % n]), tgraph.replay()),
            "torch.cuda.graph (our kernels) + copy_": lambda i, kept=kept: (kept[0].copy_(txs[i % n]),
                                                                           ours_graph.replay())}
    return ways, (ours_out, c.refs)

def time_torch(c, rows):
    ways, (ours_out, refs_) = torch_ways(c)
    on = cgl.Stream.wrap(torch.cuda.current_stream(), dev)
    for name, step in ways.items():
        rows[name] = time_way(step, on)
        print(f"{name:40s} {rows[name][0]:8.2f} {rows[name][1]:10.2f}")
    last = (STEPS - 1) % len(refs_)
    v = cgl.compare_bits("our kernels in torch.cuda.graph, after timing",
                         ours_out.cpu().numpy().reshape(c.dims[0], c.dims[3]), refs_[last])
    print(v)
    assert v.ok, v

if torch_why:
    print(f"skipped: {torch_why}")
else:
    print(HEADER)
    time_torch(main, per_step)

# %% [markdown]
# ## A launch-bound step: batch 1, 64-wide layers
# The same kernels and ways on a step a thousand times smaller: one input of 64 features, 64 hidden units, 64
# outputs. Every kernel is now a handful of blocks: the question is no longer how fast the GPU multiplies, but how
# fast the host can hand it five kernels.

# %% [gpu] builds the batch-1 step (its own weights and 8 batches), checks every way bit for bit, and times them
def small_config(b=1, width=64):
    host_w = dict(W1=(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
                  b1=(0.1 * rng.standard_normal(width)).astype(np.float32),
                  W2=(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
                  b2=(0.1 * rng.standard_normal(width)).astype(np.float32))
    xs_h = [rng.standard_normal((b, width), dtype=np.float32) for _ in range(SLOTS)]
    weights = tuple(dev.to_device(host_w[k].ravel()) for k in ("W1", "b1", "W2", "b2"))
    xs_d = [dev.to_device(x.ravel()) for x in xs_h]
    h_d, out_d, static_d = dev.array(b * width), dev.array(b * width), dev.array(b * width)
    dims = (b, width, width, width)
    eager_d = [step_launches(x, h_d, out_d, stream, dims, weights) for x in xs_d]
    g, e, nodes_d = capture_step(eager_d[0])
    cg, ce, _ = capture_step(step_launches(static_d, h_d, out_d, stream, dims, weights))
    c = SimpleNamespace(dims=dims, eager=eager_d, exe=e, nodes=nodes_d,
                        first_params=[kernel_node_params(L[0]) for L in eager_d], static_x=static_d, copy_exe=ce,
                        xs=xs_d, out=out_d, refs=[mlp_ref(x, **host_w) for x in xs_h], xs_host=xs_h,
                        host_weights=host_w, weights=weights,
                        owned=[ce, cg, e, g, static_d, out_d, h_d, *xs_d, *weights])
    for i in range(SLOTS):  # every slot through the set-params graph, bit for bit, before any timing
        h_d.poison(); out_d.poison()
        cu("cuGraphExecKernelNodeSetParams", e.handle, nodes_d[0], c.first_params[i])
        cu("cuGraphLaunch", e.handle, s); cu("cuStreamSynchronize", s)
        v = cgl.compare_bits(f"batch-1 graph, slot {i}", out_d.to_numpy().reshape(b, width), c.refs[i])
        assert v.ok, v
    return c

small = small_config()
print(f"batch 1, layers 64 -> 64 -> 64: every slot bit-exact through the graph\n{HEADER}")
per_step_small = {}
time_ours(small, per_step_small)
if not torch_why:
    time_torch(small, per_step_small)

# %% [gpu] draws both clocks of every way, for both steps
import matplotlib.pyplot as plt
fig, axes = plt.subplots(2, 1, figsize=(8, 5.5))
for ax, (title, rows) in zip(axes, ((f"batch {B}, {IN} -> {HID} -> {OUT}", per_step),
                                    ("batch 1, 64 -> 64 -> 64", per_step_small))):
    names = list(rows)
    ypos = np.arange(len(names))
    ax.barh(ypos - 0.2, [rows[k][0] for k in names], 0.4, color="tab:orange", label="host wall")
    ax.barh(ypos + 0.2, [rows[k][1] for k in names], 0.4, color="tab:blue", label="device (events)")
    ax.set_yticks(ypos, names, fontsize=7); ax.set_title(title, fontsize=9)
axes[-1].set_xlabel("us per inference step (median of 5 x 400 steps)"); axes[0].legend(fontsize=7)
show_figure(fig)
for label, rows in (("capstone", per_step), ("batch 1", per_step_small)):
    e_wall, e_dev = rows["eager (5 launches)"]
    g_wall, g_dev = rows["graph + set params"]
    waited = g_dev < 0.8 * e_dev
    print(f"{label}: device per step, eager {e_dev:.2f} us, graph + set params {g_dev:.2f} us (the same kernels): "
          + ("the graph removed GPU time spent waiting for eager's calls: the host set eager's pace" if waited else
             "the graph removed little GPU time: the kernels set the pace"))
    if "torch.cuda.graph (our kernels) + copy_" in rows:
        print(f"{label}: device per step, torch.cuda.graph of cuBLAS {rows['torch.cuda.graph (cuBLAS) + copy_'][1]:.2f}"
              f" us, of our kernels {rows['torch.cuda.graph (our kernels) + copy_'][1]:.2f} us (the same capture "
              f"and replay, different kernels)")

# %% [markdown]
# ## What it means
# Read the two clocks row by row. The **device** column is the GPU's time per step between the loop's events,
# idle time included; **host wall** is what a step costs until the GPU is done. In a long loop the two agree (the
# loop ends by waiting for the GPU), so the pace is read elsewhere: eager and "graph + set params" run the same
# five kernels, and what the graph takes off the device time is time the GPU spent waiting for eager's calls.
# Where it takes off little, the kernels set the pace and removing calls cannot shorten the step much. The last
# lines of the cell above say which it was, for each step, here.
#
# **Our matmul trades speed for reproducibility.** It sums each output in one fixed order, one thread per
# element, each product and each sum rounded on its own, so that its bits equal NumPy's; cuBLAS tiles, splits and
# vectorizes the same sum in an order of its own choosing. Compare the device times of the two
# `torch.cuda.graph` rows: the same capture, the same replay call, different kernels. A gap there is the kernels'
# speed, not the graph's; a graph cannot make a kernel faster. Where torch's cuBLAS graph is the fastest row, that
# is why; where our graph rows come close to the like-for-like torch row, the capture and replay cost about the
# same whichever API made them.
#
# In the launch-bound step (batch 1, 64-wide layers) the kernels are short and eager pays five host calls for
# them. Where the host sets eager's pace there (the cell's last lines say whether it did), a graph's single launch
# shows in both columns of the graph rows against eager's: it is what the graph is for. Pointing the
# graph at the next batch costs one `cuGraphExecKernelNodeSetParams` call, not a new capture; copying each batch
# into a static buffer (what a `torch.cuda.graph` user does) adds a copy on the GPU and a call on the host. Setting
# a node's parameters needs them, which you have for any executable whose kernel launches you can rebuild (your
# own kernels here); with a library's captured kernels, whose parameters you do not know, the static buffer is
# the way. The bits say the graph computes exactly what the eager launches compute, and exactly what NumPy
# computes in the same order; float64 says how far either float32 result is from the exact one.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · The threads that write nothing (no GPU needed)
# `tiles` (above) gives `matmul_tiled` one thread per output element in 16 x 16 blocks, rounding the grid up in
# each dimension. Write `idle_threads(rows, cols)`: how many threads of that grid fall outside a `rows x cols`
# output (they still help load the shared tiles, bounds-checked, but write nothing). The capstone's two matmuls
# have none; a batch of 17 has many.

# %% [exercise 1]
idle_threads = None  # def idle_threads(rows, cols): ...

# %% [check 1] the threads outside the output, for outputs that fit the tiles and outputs that do not
def _check1(f):
    cases = [(32, 512), (32, 128), (1, 1), (17, 16), (16, 17), (100, 3), (33, 130)]
    want = {(r, c): ((c + 15) // 16) * ((r + 15) // 16) * 256 - r * c for r, c in cases}
    wrong = [(r, c, f(r, c), want[r, c]) for r, c in cases if f(r, c) != want[r, c]]
    return not wrong, (f"all {len(cases)} right" if not wrong else
                       f"e.g. idle_threads({wrong[0][0]}, {wrong[0][1]}) = {wrong[0][2]}, want {wrong[0][3]}")
grade(1, idle_threads, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · New weights, same graph (GPU)
# Put `W2h * 0.5` in a new device buffer and point the graph's second matmul (`nodes[3]`) at it with
# `cuGraphExecKernelNodeSetParams` (a launch of `k_mm` with the new buffer, packed like `step_launches` does).
# Run one step on slot 0 and put the output (`out.to_numpy().reshape(B, OUT)`) in `halved_out`; then point the
# node back at `W2`. The check: bit-exact against `mlp_ref(xs_host[0], W2=W2h * 0.5)`.

# %% [exercise 2]
halved_out = None

# %% [check 2 gpu] the step with half the second layer's weights, bit for bit
def _check2(got):
    v = cgl.compare_bits("W2 halved", np.asarray(got), mlp_ref(xs_host[0], W2=(W2h * np.float32(0.5))))
    return v.ok, str(v)
grade(2, halved_out, _check2)

# %% [gpu] frees what this notebook made
for o in (exe, graph, copy_exe, copy_graph, static_x, *small.owned, t_start, t_end, h, out, W1, b1, W2, b2, *xs,
          mod, stream):
    o.close()
print("closed")
