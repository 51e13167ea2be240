# %% [markdown]
# # 01 · Launch overhead and eager launches
#
# *CUDA Programming Guide, "CUDA Graphs": why graphs exist.* Every kernel launched from the host is one driver
# call, `cuLaunchKernel`. This notebook launches a chain of four small kernels, one call each, and measures what
# a launch costs on the host and what the GPU's clock sees.
#
# The chain, on float32 vectors `x`, `y` of `N` elements: `out = relu((x + y) * 2 - y)`, four kernels
# `add`, `mul`, `sub`, `relu`, each writing its own buffer.
#
# *Prerequisites: Python and NumPy; what a CUDA kernel, a grid and a block are. No graph yet.*

# %% [markdown]
# ## The kernels, as NVRTC compiles them
# The package ships its kernels as CUDA C (`kernels/*.cu`); NVRTC compiles them at run time for this GPU. `add`
# is one grid-stride loop (`map2` in `elementwise.cuh`) over float4s, then the tail; `__fadd_rn` rounds exactly as
# NumPy's float32 `+` does, so the results can be compared bit for bit.

# %%
print(cuda_source("add.cu"))

# %% [markdown]
# ## Predict
# One `cuLaunchKernel` call from Python: how many microseconds of host time? And for `N = 4096` floats (16 KiB),
# is the GPU's work per kernel longer or shorter than that? Write your guesses down before running.

# %% [gpu] compiles the four kernels (NVRTC), allocates the buffers and packs the launches
N = 4096
ks = dev.load_kernels(names=["add", "mul", "sub", "relu"])  # NVRTC -> cubin -> cuModuleLoadData, cuModuleGetFunction
stream = dev.create_stream()  # cuStreamCreate(CU_STREAM_NON_BLOCKING)
xh = rng.standard_normal(N, dtype=np.float32)
yh = rng.standard_normal(N, dtype=np.float32)
x, y = dev.to_device(xh), dev.to_device(yh)  # cuMemAlloc + cuMemcpyHtoD
t = [dev.array(N) for _ in range(4)]  # t[0] = x + y, t[1] = t[0] * 2, t[2] = t[1] - y, t[3] = relu(t[2])
grid, block = cgl.grid_for(N // 4, 256, dev.sm_count, 8), 256  # each thread handles a float4
# kernelParams is a void** to the argument values; PackedArgs lays them out once (prepare does it).
launches = [
    ks["add"].prepare(("ptr", "ptr", "ptr", "u64"), (t[0], x, y, N), (grid, block), stream),
    ks["mul"].prepare(("ptr", "ptr", "f32", "u64"), (t[1], t[0], 2.0, N), (grid, block), stream),
    ks["sub"].prepare(("ptr", "ptr", "ptr", "u64"), (t[2], t[1], y, N), (grid, block), stream),
    ks["relu"].prepare(("ptr", "ptr", "u64"), (t[3], t[2], N), (grid, block), stream),
]
print(launches)

# %% [markdown]
# ## Run: four driver calls
# `cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes, stream, kernelParams, extra)`.
# The call only *queues* the kernel; `cuStreamSynchronize` waits until the GPU is done. The outputs are poisoned
# (a NaN pattern) first, so an element no kernel wrote cannot pass the check.

# %% [gpu] launches the chain once with four cuLaunchKernel calls
for a in t:
    a.poison()
for L in launches:
    f, gx, gy, gz, bx, by, bz, smem, hstream, params, extra = L.call_args
    cu("cuLaunchKernel", f, gx, gy, gz, bx, by, bz, smem, hstream, params, extra)
cu("cuStreamSynchronize", stream.handle)
out = t[3].to_numpy()
print(out[:6])

# %% [markdown]
# ## The answer, graded: bit-exact against NumPy
# NumPy computes the same chain in float32, op by op; the GPU's result must match bit for bit.

# %% [gpu] compares the GPU's output with NumPy bit for bit
expected = cgl.reference("add,mul,sub,relu", xh, yh, 2.0)
v = cgl.compare_bits("eager", out, expected)
print(v)
assert v.ok, f"the GPU's chain differs from NumPy: {v}"

# %% [markdown]
# ## Measure: two clocks
# `bench.timed_loop` times a loop on two clocks at once: the host wall clock (`perf_counter_ns`, from the first
# call until the last kernel finished) and CUDA events recorded on the stream before and after the loop
# (`cuEventElapsedTime`). Events measure the **stream's interval**, idle gaps included: they tell how long the GPU
# took to get through the loop, not how long each kernel was busy. A separate loop times the calls alone, without
# waiting for the GPU. Small repeats here; `cugraphlab latency` does it properly.

# %% [gpu] times eager launches (host and device clocks), 5 repeats of 500 iterations
from cugraphlab.bench import summarize, timed_loop
start, end = dev.create_event(), dev.create_event()
fn = launches[0].fn  # the binding's cuLaunchKernel, looked up once (traced only while tracing is on)
calls = [L.call_args for L in launches]

def eager(iters):
    for _ in range(iters):
        for c in calls:
            if fn(*c)[0]:  # a CUresult other than CUDA_SUCCESS
                cu("cuLaunchKernel", *c)  # the same call through the door raises the typed error naming it

eager(50)  # warm-up: the first launches of a module pay one-time costs
wall, device = zip(*[timed_loop(stream, eager, 500, start, end) for _ in range(5)])
call_us = []
for _ in range(5):
    stream.synchronize()
    t0 = time.perf_counter_ns()
    eager(200)
    call_us.append((time.perf_counter_ns() - t0) / 1e3 / 200 / 4)
stream.synchronize()
w, dv, c1 = (summarize(s, unit="us", clock=k) for s, k in ((wall, "perf_counter_ns"), (device, "cuEventElapsedTime"),
                                                          (call_us, "perf_counter_ns")))
print(f"one cuLaunchKernel call:        {c1.median:6.2f} us (host clock)")
print(f"one iteration (4 kernels):      {w.median:6.2f} us wall, {dv.median:6.2f} us between the events")
print(f"per kernel, between the events: {dv.median / 4:6.2f} us, {dv.median / 4 / c1.median:.2f}x one call's host time")
print("the events' time per kernel follows the host's calls: the GPU waited for each launch (launch-bound)"
      if dv.median / 4 < 1.5 * c1.median else "the events' time per kernel exceeds the calls: the GPU sets the pace")

# %% [markdown]
# ## On the H200: how long a kernel is busy
# Events cannot say how long a kernel works when the GPU waits for the host between kernels. The committed
# floor study's record can (`benchmarks/studies/floor`): each kernel stamps `%globaltimer` when its first block
# starts and its last block ends. At 1,024 floats (the smallest size it measured), in µs: a kernel's busy time, the
# gap between two kernels of one graph and between two graphs, and one launch's host time from Python and from C:

# %% [record] the chain's kernels on the H200: busy time, gaps, host launch cost
floor = show_record("floor", "rows:", r"re:^ +1024  (busy_add|gap_inside|gap_boundary|host_launch_py|host_launch_c) ",
                    part=("floor",), within="rows:")

# %% [gpu] draws one call's host time, the events' time per kernel and the H200's busy time per kernel
rows = floor.get("rows", []) if isinstance(floor, dict) else [vars(r) for r in getattr(floor, "rows", [])]
busy = next((r["us"] for r in rows if r["size"] == 1024 and r["key"] == "busy_add"), float("nan"))
fig, ax = new_figure(6.5, 2.6)
ax.barh(["host: one cuLaunchKernel", "events: per kernel (N=4096)", "H200: add busy (N=1024)"],
        [c1.median, dv.median / 4, busy], color=["tab:orange", "tab:gray", "tab:blue"])
ax.set_xlabel("microseconds (medians)")
ax.set_title("the host's call against the kernel's work")
show_figure(fig)
print(f"one call here costs the host {c1.median / busy:.0f}x the H200's busy time of one add kernel at 1,024 floats "
      f"(the record; this notebook's kernels run 4,096 floats on this GPU: an order of magnitude, not a like-for-like "
      f"ratio)")

# %% [markdown]
# ## What it means
# For small kernels the host cannot issue launches as fast as the GPU finishes them: the GPU idles between
# kernels, so the events' time per kernel is the launch interval, set by the calls, and the kernel's own work is a
# small part of it (the record above). (The Python-level cost of one call through cuda-bindings is part of the
# call; `cugraphlab latency` separates the binding from the driver.) A CUDA graph replaces the four calls with one
# (notebook 02).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · The reference, by hand (no GPU needed)
# Write `my_chain(x, y)`: the chain `relu((x + y) * 2 - y)` in NumPy float32, op by op. (The kernel's relu is
# `a > 0.0f ? a : 0.0f`: `np.where(v > 0, v, np.float32(0))` matches it; `np.maximum(v, 0)` would keep a NaN.) The
# check compares it bit for bit with `cgl.reference` on fresh random inputs of an odd length.

# %% [exercise 1]
my_chain = None  # def my_chain(x, y): ...

# %% [check 1] my_chain against cgl.reference, bit for bit, on 10,001 fresh random floats
def _check1(f):
    xs, ys = (rng.standard_normal(10_001, dtype=np.float32) for _ in range(2))
    got = np.asarray(f(xs, ys))
    if got.dtype != np.float32 or got.shape != xs.shape:
        return False, f"got {got.dtype} of shape {got.shape}, want float32 of shape {xs.shape}"
    v = cgl.compare_bits("my_chain", got, cgl.reference("add,mul,sub,relu", xs, ys, 2.0))
    return v.ok, str(v)
grade(1, my_chain, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · A kernel of your own, compiled (no GPU needed)
# NVRTC runs without a GPU. Write the CUDA C of a kernel `extern "C" __global__ void axpy(float* out,
# const float* x, const float* y, float a, unsigned long long n)`: a grid-stride loop (`i += gridDim.x *
# blockDim.x`, so any grid covers any n) computing `out[i] = a * x[i] + y[i]` with `__fmul_rn` and `__fadd_rn`, so
# that no compiler may fuse the two into one multiply-add (NumPy rounds twice). Put the source in `axpy_source`
# (try `cgl.compile_source(axpy_source, "axpy", arch="sm_75", kind="ptx")` yourself). The check compiles it for
# `sm_75` (a T4) **with fused multiply-add allowed** (`--fmad=true`; cugraphlab's own compiles turn it off) and
# reads the PTX: an entry named `axpy`, a rounded multiply (`mul.rn.f32`) and add (`add.rn.f32`), no `fma`, and
# the loop's stride (`%nctaid.x`, the grid's size).

# %% [exercise 2]
axpy_source = None  # axpy_source = r''' extern "C" __global__ void axpy(...) { ... } '''

# %% [check 2] the PTX of axpy with fused multiply-add allowed: its entry, the rounded multiply and add, no fma, the stride
def _check2(source):
    c = cgl.compile_source(source, "axpy", arch="sm_75", kind="ptx", base_options=("--std=c++17", "--fmad=true"))
    ptx = bytes(c.image).decode(errors="replace")
    found = {"entry axpy": ".entry axpy" in ptx, "mul.rn.f32": "mul.rn.f32" in ptx, "add.rn.f32": "add.rn.f32" in ptx,
             "no fma": "fma" not in ptx, "grid-stride (%nctaid.x)": "%nctaid.x" in ptx}
    return all(found.values()), ", ".join(f"{k}: {'yes' if ok else 'NO'}" for k, ok in found.items())
grade(2, axpy_source, _check2)

# %% [markdown exercise 3]
# ### Exercise 3 · Launch it (GPU)
# Load your `axpy` for this GPU (`compile_source(..., arch=dev.arch, kind="cubin")`, `dev.load_module(image)`,
# `.kernel("axpy")`), launch it with `cu("cuLaunchKernel", ...)` on `N3 = (1 << 20) + 3` floats with `a = 1.5`,
# and put the output (a NumPy array) in `axpy_out` and your inputs in `axpy_in = (x, y)`. The check is bit-exact
# against `np.float32(1.5) * x + y` in NumPy.

# %% [exercise 3]
axpy_out, axpy_in = None, None

# %% [check 3 gpu] axpy's output against NumPy, bit for bit
def _check3(out3):
    x3, y3 = axpy_in
    want = np.float32(1.5) * x3 + y3
    v = cgl.compare_bits("axpy", np.asarray(out3), want)
    return v.ok and len(out3) == (1 << 20) + 3, str(v)
grade(3, axpy_out, _check3)

# %% [markdown]
# ## Change this and run again
# Set `N = 1 << 22` in the first GPU cell and run everything again. At what size does the events' time per kernel
# exceed the launch cost, so that launching is no longer the bottleneck?

# %% [gpu] frees what this notebook made
for a in (x, y, *t):
    a.close()
for o in (start, end, stream, ks):
    o.close()
print("closed")
