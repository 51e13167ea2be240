# %% [markdown]
# # 16 · Capstone: an MLP inference step, framework-free, as one graph
#
# Everything the course built, on a small real workload: a two-layer perceptron's inference step,
# `out = relu(x W1 + b1) W2 + b2`, for a batch of 32 inputs of 256 features, 512 hidden units and 128 outputs.
# Three kernels of our own (a tiled matmul, a bias add, a relu), compiled by NVRTC; the five launches of one step
# captured **once**; every step a new input batch, pointed at with `cuGraphExecKernelNodeSetParams` (setting one
# kernel node's parameters in the executable, one of notebook 05's paths, not a whole-graph `cuGraphExecUpdate`); measured eagerly, as a graph, and against `torch.cuda.graph` on the same math; checked
# against NumPy bit for bit (the kernels sum in the order NumPy is told to), and against float64 within a stated
# tolerance.
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

def step_launches(x):
    return [k_mm.prepare(MM, (h, x, W1, B, IN, HID), tiles(B, HID), stream),
            k_bias.prepare(("ptr", "ptr", "i32", "i32"), (h, b1, B, HID), flat(B * HID), stream),
            k_relu.prepare(("ptr", "i32"), (h, B * HID), flat(B * HID), stream),
            k_mm.prepare(MM, (out, h, W2, B, HID, OUT), tiles(B, OUT), stream),
            k_bias.prepare(("ptr", "ptr", "i32", "i32"), (out, b2, B, OUT), flat(B * OUT), stream)]

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
# ## Captured once; the input pointer updated per step
# The step's five launches are captured on slot 0's input. For any other slot, only the first matmul's arguments
# change: `cuGraphExecKernelNodeSetParams(exec, node, params)` with the node of the captured graph and the packed
# arguments of that slot's launch (made once, above), then `cuGraphLaunch`. The update applies to the launches
# that follow it; one already queued keeps the arguments it had.

# %% [gpu] captures one step, instantiates it, and checks every slot through the exec update, bit for bit
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
# ## Measure: a step eagerly, as a graph, and as a graph with the input copied in
# Host wall clock around 400 steps, the stream waited for at the end (`perf_counter_ns`), per step; 5 repeats,
# median. "graph + copy" is how `torch.cuda.graph` feeds a new batch: one static input buffer, a copy into it
# (`cuMemcpyDtoDAsync`), then the replay; "graph + set params" points the graph at the batch where it lies.

# %% [gpu] times the three ways of running a step (no check inside the timed loops; one after)
from cugraphlab.bench import summarize
STEPS = 400
static_x = dev.array(B * IN)
copy_exe = None
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in step_launches(static_x):
    cu("cuLaunchKernel", *L.call_args)
copy_graph = Graph(dev, cu("cuStreamEndCapture", s))
copy_exe = copy_graph.instantiate()
copy_exe.upload(stream)
launch_fn = eager[0][0].fn  # the binding's cuLaunchKernel
ways = {
    "eager (5 launches)": lambda i: [launch_fn(*L.call_args) for L in eager[i % SLOTS]],
    "graph + set params": lambda i: (cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[0], first_params[i % SLOTS]),
                                     cu("cuGraphLaunch", exe.handle, s)),
    "graph + copy": lambda i: (cu("cuMemcpyDtoDAsync", static_x.handle, xs[i % SLOTS].handle, B * IN * 4, s),
                               cu("cuGraphLaunch", copy_exe.handle, s)),
}
per_step = {}
for name, step in ways.items():
    for i in range(20):
        step(i)  # warm-up
    cu("cuStreamSynchronize", s)
    samples = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for i in range(STEPS):
            step(i)
        cu("cuStreamSynchronize", s)
        samples.append((time.perf_counter_ns() - t0) / 1e3 / STEPS)
    per_step[name] = summarize(samples, unit="us", clock="perf_counter_ns").median
    last = (STEPS - 1) % SLOTS  # the slot of the last step: its output is what out holds now
    v = cgl.compare_bits(f"{name}, after timing", out.to_numpy().reshape(B, OUT), refs[last])
    print(f"{name:22s} {per_step[name]:7.2f} us per step   {v}")
    assert v.ok, v

# %% [markdown]
# ## The same math in PyTorch, eagerly and as `torch.cuda.graph`
# The same weights and batches as torch tensors; `torch.relu(x @ W1 + b1) @ W2 + b2` with TF32 off. Its matmuls
# are cuBLAS's, summing in their own order, so the check is the stated tolerance from float64, not bit-exact. The
# graph is PyTorch's usual pattern: a warm-up on a side stream, a capture, then per step `static_x.copy_(batch)` and
# `replay()`. (Measured in this process, after cugraphlab's own runs.)

# %% [gpu] runs the step in PyTorch eagerly and as a CUDA graph, checks it within the tolerance, and times it
try:
    import torch
    torch_why = "" if torch.cuda.is_available() else "torch sees no GPU"
except Exception as e:  # not installed
    torch, torch_why = None, f"torch does not import ({type(e).__name__}): pip install torch to compare"
if torch_why:
    print(f"skipped: {torch_why}")
else:
    torch.backends.cuda.matmul.allow_tf32 = False
    tdev = torch.device("cuda", 0)
    tW1, tb1, tW2, tb2 = (torch.from_numpy(a).to(tdev) for a in (W1h, b1h, W2h, b2h))
    txs = [torch.from_numpy(x).to(tdev) for x in xs_host]
    def model(x):
        return torch.relu(x @ tW1 + tb1) @ tW2 + tb2
    t_static = txs[0].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            t_out = model(t_static)  # warm-up: cuBLAS picks its kernels and workspaces before the capture
    torch.cuda.current_stream().wait_stream(side)
    tgraph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(tgraph):
        t_out = model(t_static)
    for i in range(SLOTS):
        t_static.copy_(txs[i]); tgraph.replay()
        close, err = within_tol(t_out.cpu().numpy(), xs_host[i])
        eager_close, eager_err = within_tol(model(txs[i]).cpu().numpy(), xs_host[i])
        assert close and eager_close, (i, err, eager_err)
    print(f"torch eager and torch.cuda.graph: every slot within {TOL:g} of float64 (largest error {max(err, eager_err):.2e})")
    torch_ways = {"torch eager": lambda i: model(txs[i % SLOTS]),
                  "torch.cuda.graph + copy_": lambda i: (t_static.copy_(txs[i % SLOTS]), tgraph.replay())}
    for name, step in torch_ways.items():
        for i in range(20):
            step(i)
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            for i in range(STEPS):
                step(i)
            torch.cuda.synchronize()
            samples.append((time.perf_counter_ns() - t0) / 1e3 / STEPS)
        per_step[name] = summarize(samples, unit="us", clock="perf_counter_ns").median
        print(f"{name:24s} {per_step[name]:7.2f} us per step")

# %% [gpu] draws the host time per step of every way
fig, ax = new_figure(7, 3)
ax.barh(list(per_step), list(per_step.values()),
        color=["tab:orange" if "eager" in k else "tab:green" for k in per_step])
ax.set_xlabel("host us per inference step (median of 5 x 400 steps)")
show_figure(fig)
fastest = min(per_step, key=per_step.get)
print(f"fastest here: {fastest}; eager / graph + set params = "
      f"{per_step['eager (5 launches)'] / per_step['graph + set params']:.2f}x")

# %% [markdown]
# ## What it means
# Five small kernels per step: eagerly, five host calls per step, which set the pace where the kernels are shorter
# than the calls (the measurement says how it went here); one `cuGraphLaunch` replaces them, and pointing the graph
# at the next batch costs one `cuGraphExecKernelNodeSetParams` call, not a new capture. Copying each batch into a
# static buffer (what a `torch.cuda.graph` user does) adds a copy on the GPU and a call on the host; pointing the
# node at the batch avoids both. That needs the kernel node's parameters, which you have for any executable whose
# launches you can rebuild (your own kernels here; a captured library kernel's you do not know). The bits say the
# graph computes exactly what the eager launches compute, and exactly what NumPy computes in the same order;
# float64 says how far either float32 result is from the exact one.
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
for o in (exe, graph, copy_exe, copy_graph, static_x, h, out, W1, b1, W2, b2, *xs, mod, stream):
    o.close()
print("closed")
