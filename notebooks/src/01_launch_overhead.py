# %% [markdown]
# # 01 · Launch overhead and eager launches
#
# *CUDA Programming Guide, "CUDA Graphs": why graphs exist.* Every kernel launched from the host is one driver
# call, `cuLaunchKernel`. This notebook launches a chain of four small kernels, one call each, and measures what
# a launch costs on the host and how long the GPU is busy.
#
# The chain, on float32 vectors `x`, `y` of `N` elements: `out = relu((x + y) * 2 - y)`, four kernels
# `add`, `mul`, `sub`, `relu`, each writing its own buffer.

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
# ## Measure
# `cugraphlab.bench.timed_loop` times a loop on two clocks at once: the host wall clock (`perf_counter_ns`, from
# the first call until the last kernel finished) and the device clock (CUDA events recorded before and after,
# `cuEventElapsedTime`). A separate loop times the calls alone, without waiting for the GPU. Small repeats here;
# `cugraphlab latency` does it properly.

# %% [gpu] times eager launches (host and device clocks), 5 repeats of 500 iterations
from cugraphlab.bench import timed_loop, summarize
from cugraphlab.core.errors import check
start, end = dev.create_event(), dev.create_event()
fn = launches[0].fn  # the binding's cuLaunchKernel, looked up once (traced only while tracing is on)
calls = [L.call_args for L in launches]

def eager(iters):
    for _ in range(iters):
        for c in calls:
            r = fn(*c)
            if r[0]:
                check(r, "cuLaunchKernel")  # a typed error naming the CUresult

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
print(f"one cuLaunchKernel call:       {c1.median:6.2f} us (host clock)")
print(f"one iteration (4 kernels):     {w.median:6.2f} us wall, {dv.median:6.2f} us device")
print(f"device time per kernel:        {dv.median / 4:6.2f} us")

# %% [gpu] draws host cost against device time per kernel
fig, ax = new_figure(6, 2.6)
ax.barh(["host: one cuLaunchKernel", "device: one kernel (N=4096)"], [c1.median, dv.median / 4],
        color=["tab:orange", "tab:blue"])
ax.set_xlabel("microseconds (median of 5)")
ax.set_title("Launching costs more than the work")
show_figure(fig)

# %% [markdown]
# ## On the H200: where the time of one iteration goes
# The committed `benchmarks/floor.py` record, drawn without a GPU: each kernel's busy time (`%globaltimer`), the
# gaps between kernels inside a graph, and what one launch costs the host from Python and from C.

# %% [record] the floor of the chain on the H200: busy time, gaps, host launch cost
rec = h200_record("floor", "floor", rebuild=False)  # a study's record (benchmarks/studies/floor): its rows as they are
for row in (rec or {}).get("rows", [])[:14]:
    print(f"{row['size']:>9,}  {row['what']:<52} {row['us']:8.3f} us  ({row['clock']})")

# %% [markdown]
# ## What it means
# For small kernels the host cannot issue launches as fast as the GPU finishes them: the GPU idles between
# kernels, and the wall time per iteration is set by the launch calls, not by the work. (The Python-level cost of
# one call through cuda-bindings is part of it; `cugraphlab latency` separates the binding from the driver.)
# A CUDA graph replaces the four calls with one (notebook 02).
#
# ## Change this and run again
# Set `N = 1 << 22` in the first GPU cell and run everything again. At what size does the device time per kernel
# exceed the launch cost, so that launching is no longer the bottleneck?

# %% [gpu] frees what this notebook made
for a in (x, y, *t):
    a.close()
for o in (start, end, stream, ks):
    o.close()
print("closed")
