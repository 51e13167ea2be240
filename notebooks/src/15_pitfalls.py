# %% [markdown]
# # 14 · Pitfalls: each shown, explained, and caught
#
# Four mistakes that graphs make easy: (1) a stale pointer at replay, (2) a capture broken by a synchronize,
# (3) an update the driver refuses, (4) a measurement without a warm-up. Each is made on purpose here, and each is
# caught: by the bit-exact check against NumPy, by a typed error naming the CUresult, by the update's result info,
# or by the timing summary's spread.

# %% [gpu] makes the chain
from cugraphlab.graphs import capture, try_exec_update
from cugraphlab.bench import summarize
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle

# %% [markdown]
# ## 1. Stale pointers at replay
# **Predict:** the graph was captured reading `chain.x`. You put new inputs in a *new* device array `x_new`. What
# does the next replay compute? A graph holds the addresses it was given, not the Python names.

# %% [gpu] replays a graph after the inputs moved to a new buffer, and catches it
exe = chain.graph_exec()
xh_new = rng.standard_normal(chain.n, dtype=np.float32)
x_new = dev.to_device(xh_new)  # new data, new address: the graph never heard of it
chain.poison()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
wanted = cgl.reference(chain.ops, xh_new, chain.y_host, chain.scalar)
v = cgl.compare_bits("replay after moving the inputs", chain.out.to_numpy(), wanted)
print("caught:", v)
assert not v.ok, "the check should see that the graph read the old buffer"
chain.set_inputs(xh_new, chain.y_host)  # the fix: copy into the buffer the graph reads (or set the node's params)
chain.poison()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("after copying into the captured buffer", chain.out.to_numpy(), wanted)
print("fixed: ", v)
assert v.ok, f"after the fix: {v}"
x_new.close()

# %% [markdown]
# Worse than stale: a buffer **freed** after capture and reused by another allocation. The replay then reads or
# writes someone else's memory, silently. Keep every buffer a graph uses alive as long as its executable is.
#
# ## 2. A capture broken by a synchronize
# **Predict:** inside a capture, `cuStreamSynchronize(stream)` would wait for work that is not running. What does
# the driver answer, and what happens to the capture?

# %% [gpu] synchronizes inside a capture and reads the two errors
from cugraphlab.core._calls import stream_capture_info
first = None
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuLaunchKernel", *chain.launches[0].call_args)
try:
    cu("cuStreamSynchronize", s)
except CaptureError as e:
    print("caught (the synchronize):", e.name)
    first = e.name
r = driver_fn("cuStreamEndCapture")(s)  # the capture is invalidated: ending it says so
print("cuStreamEndCapture:", r[0].name)
if r[0] == 0 and r[1] is not None and int(r[1]):
    cu("cuGraphDestroy", r[1])
assert first == "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", first
assert r[0] == d.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, r[0]
# the package's capture() does the clean-up itself and raises the same typed error
try:
    with capture(chain.stream):
        chain.launches[0]()
        chain.stream.synchronize()
except CaptureError as e:
    print("caught by graphs.capture:", e.name)
st, *_ = stream_capture_info(chain.stream.handle)
print("stream capture status now:", st.name)
assert st == d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE, "the stream should no longer be capturing"

# %% [markdown]
# ## 3. A refused update
# **Predict:** the chain grew a fifth op (another `relu`). `cuGraphExecUpdate` from the longer graph: refused, or
# updated?

# %% [gpu] tries an update to a longer graph, then falls back to instantiating
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in chain.launches + [chain.launches[-1]]:
    cu("cuLaunchKernel", *L.call_args)
longer = Graph(dev, cu("cuStreamEndCapture", s))
updated, result, node, reason = try_exec_update(exe, longer)
print(f"caught: {result} ({reason})")
assert not updated and "TOPOLOGY" in result, result
new_exe = longer.instantiate()  # the fallback that always works
chain.randomize(); chain.poison()
cu("cuGraphLaunch", new_exe.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("after the fallback", chain.out.to_numpy(), chain.expected())  # relu twice = relu once
print(v)
assert v.ok, f"after the fallback: {v}"
new_exe.close(); longer.close()

# %% [markdown]
# ## 4. A forgotten warm-up
# **Predict:** a fresh executable, not uploaded, launched 30 times and each launch timed. Is the first sample like
# the others?

# %% [gpu] times launches of a fresh executable without upload or warm-up
g = chain.capture()
cold = g.instantiate()  # no cuGraphUpload, no warm-up
g.close()
samples = []
for _ in range(30):
    t0 = time.perf_counter_ns()
    cu("cuGraphLaunch", cold.handle, s); cu("cuStreamSynchronize", s)
    samples.append((time.perf_counter_ns() - t0) / 1e3)
with_cold = summarize(samples, unit="us", clock="perf_counter_ns")
warm = summarize(samples[5:], unit="us", clock="perf_counter_ns")
print(f"first launch {samples[0]:.1f} us; the others: median {warm.median:.1f} us")
print(f"all 30: mean {with_cold.mean:.1f}, max {with_cold.max:.1f}; warm 25: mean {warm.mean:.1f}, max {warm.max:.1f}")
print("caught: the first sample is an outlier" if samples[0] > warm.p95 else "the first sample was not slower here")
fig, ax = new_figure()
ax.plot(samples, "o-"); ax.set_xlabel("launch #"); ax.set_ylabel("host us (launch + sync)")
ax.set_title("the first launch pays the upload"); show_figure(fig)
cold.close()

# %% [markdown]
# ## What it means
# The mean (and any single run) of a loop without warm-up includes one-time costs: the upload of the executable,
# lazy module loading, clocks ramping up. Every timer in `cugraphlab.bench` warms up first, uploads graphs before
# timing, reports the median with its spread, and checks the output after the timed loop, so that a fast
# wrong answer is not a result.
#
# ## Change this and run again
# Add `cu("cuGraphUpload", cold.handle, s)` right after instantiating. Is the first launch still an outlier?

# %% [gpu] frees what this notebook made
chain.close()
print("closed")
