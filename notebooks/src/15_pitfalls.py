# %% [markdown]
# # 15 · Pitfalls: each shown, explained, and caught
#
# Seven mistakes that graphs make easy: (1) a stale pointer at replay, (2) a capture broken by a synchronize,
# (3) an update the driver refuses, (4) a measurement without a warm-up, (5) a scalar baked in at capture, (6) the
# legacy default stream during a capture, (7) one executable launched from two streams. Each is made on purpose
# here. The first six are caught: by the bit-exact check against NumPy, by a typed error naming the CUresult, by
# the update's result info, or by the timing summary's spread. The seventh is no error anywhere: the driver orders
# the two launches one after the other, as documented, and the results stay right; what is lost is concurrency,
# and (7) catches it without a clock: it holds one stream and asks whether the other one finished meanwhile.
#
# *Prerequisites: notebooks 01 to 07.*

# %% [gpu] makes the chain
from cugraphlab.bench import summarize
from cugraphlab.graphs import capture, kernel_node_params, kernel_nodes_in_order, try_exec_update
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
# the driver answer, and what happens to the capture? (Notebook 06 has the doctor's view.)

# %% [gpu] synchronizes inside a capture and reads the two errors
first = None
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuLaunchKernel", *chain.launches[0].call_args)
try:
    cu("cuStreamSynchronize", s)
except CaptureError as e:
    print("caught (the synchronize):", e.name)
    first = e.name
r = d.cuStreamEndCapture(s)  # the capture is invalidated: ending it says so (the binding itself: not raised)
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
st = cu("cuStreamIsCapturing", s)
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
report = try_exec_update(exe, longer)
print(f"caught: {report.result} ({report.reason})")
assert report.refused and "TOPOLOGY" in report.result, report.result
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
# The mean (and any single run) of a loop without warm-up includes one-time costs: the upload of the executable,
# lazy module loading, clocks ramping up. Every timer in `cugraphlab.bench` warms up first, uploads graphs before
# timing, reports the median with its spread, and checks the output after the timed loop, so that a fast
# wrong answer is not a result.
#
# ## 5. A scalar baked in at capture
# **Predict:** the chain's graph was captured with `mul`'s scalar 2.0. You set the packed argument to 5.0
# (`chain.launches[1].args.set(2, 5.0)`) and replay. 2.0 or 5.0? Kernel arguments are copied into the node when it
# is captured (notebook 03): the Python value, and the packed bytes, are no longer read.

# %% [gpu] replays after changing a captured scalar, catches it, and fixes it with cuGraphExecKernelNodeSetParams
g5 = chain.capture()
exe5 = g5.instantiate()
mul_node = kernel_nodes_in_order(g5)[1]  # add, mul, sub, relu
chain.launches[1].args.set(2, 5.0)  # too late: the node holds 2.0
chain.randomize(); chain.poison()
cu("cuGraphLaunch", exe5.handle, s); cu("cuStreamSynchronize", s)
want5 = cgl.reference(chain.ops, chain.x_host, chain.y_host, 5.0)
v = cgl.compare_bits("replay, scalar set to 5.0 after the capture", chain.out.to_numpy(), want5)
print("caught:", v)
assert not v.ok and cgl.compare_bits("still 2.0", chain.out.to_numpy(), chain.expected()).ok
cu("cuGraphExecKernelNodeSetParams", exe5.handle, mul_node, kernel_node_params(chain.launches[1]))  # the fix
chain.poison()
cu("cuGraphLaunch", exe5.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("after cuGraphExecKernelNodeSetParams", chain.out.to_numpy(), want5)
print("fixed: ", v)
assert v.ok, f"after the fix: {v}"
chain.launches[1].args.set(2, 2.0)  # back, for what follows
exe5.close(); g5.close()

# %% [markdown]
# ## 6. The legacy default stream during a capture
# **Predict:** you capture on a stream created with default flags (`cuStreamCreate(0)`: a *blocking* stream, which
# synchronizes with the legacy NULL stream), and some library launches a kernel on stream 0 meanwhile. What
# happens? The Programming Guide ("Prohibited and Unhandled Operations"): "When any stream in the same context is
# being captured, and it was not created with cudaStreamNonBlocking, any attempted use of the legacy stream is
# invalid. This is because the legacy stream handle at all times encompasses these other streams".

# %% [gpu] launches on stream 0 while a blocking stream captures, then the same with a non-blocking stream
ks = dev.load_kernels(names=["empty"])
empty = ks["empty"].handle
blocking = cu("cuStreamCreate", 0)  # flags 0: blocking with respect to the legacy stream
caught = None
cu("cuStreamBeginCapture", blocking, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuLaunchKernel", empty, 1, 1, 1, 1, 1, 1, 0, blocking, 0, 0)
try:
    cu("cuLaunchKernel", empty, 1, 1, 1, 1, 1, 1, 0, d.CUstream(0), 0, 0)  # stream 0: the legacy stream
except CudaError as e:
    caught = e.name
    print("caught (the launch on stream 0):", e.name)
r = d.cuStreamEndCapture(blocking)
print("cuStreamEndCapture:", r[0].name)
if r[0] == 0 and r[1] is not None and int(r[1]):
    cu("cuGraphDestroy", r[1])
cu("cuStreamDestroy", blocking)
assert caught == "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", caught
# the fix: capture on a non-blocking stream (cugraphlab's streams are: CU_STREAM_NON_BLOCKING)
with capture(chain.stream) as cap:
    cu("cuLaunchKernel", empty, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)
    cu("cuLaunchKernel", empty, 1, 1, 1, 1, 1, 1, 0, d.CUstream(0), 0, 0)  # runs now, outside the graph
cu("cuCtxSynchronize")
print(f"fixed: the non-blocking capture made a graph of {cap.graph.node_count} node (the stream-0 launch ran at "
      "once, and is not in it)")
assert cap.graph.node_count == 1
cap.graph.close()

# %% [markdown]
# ## 7. One executable launched from two streams
# **Predict:** you launch the same executable on stream A and on stream B, hoping they run side by side. Do they?
# The Driver API (`cuGraphLaunch`): "Each launch is ordered behind both any previous work in hStream and any
# previous launches of hGraphExec. To execute a graph concurrently, it must be instantiated multiple times into
# multiple executable graphs." And an executable writes the buffers it was captured with: two copies running at
# once would race on them. Concurrency needs two executables **and** two sets of buffers.

# %% [gpu] holds stream A, queues a launch behind the hold, and asks whether stream B finished meanwhile
from cugraphlab.bench import DeviceHold
hk = dev.load_kernels(names=["hold"])  # one thread spinning until the host sets a flag (bench.DeviceHold)
big = cgl.Chain(dev, n=1 << 16, kernels=chain.kernels)  # small grids: the GPU has room to run both at once
other = cgl.Chain(dev, n=1 << 16, kernels=chain.kernels)
e1, e2 = big.graph_exec(), other.graph_exec()
sa, sb = big.stream.handle, other.stream.handle
for exe_, stream_ in ((e1, sa), (e2, sb)):  # first launches (upload, module loading) before any hold
    cu("cuGraphLaunch", exe_.handle, stream_)
cu("cuCtxSynchronize")
NOT_READY, SUCCESS = d.CUresult.CUDA_ERROR_NOT_READY, d.CUresult.CUDA_SUCCESS

def finished_while_held(exe_b, wait_s=0.2):
    """A held by the spinning kernel, e1 queued on A behind it, then exe_b launched on B: did B finish while A was
    still held? (cuStreamQuery(B) polled for up to wait_s; the hold lets go only when the host releases it)"""
    for c in (big, other):
        c.randomize(); c.poison()
    cu("cuCtxSynchronize")
    with DeviceHold(dev, hk, big.stream, timeout_ms=5000) as hold:
        with hold.held() as held:
            cu("cuGraphLaunch", e1.handle, sa)  # queued on A, behind the hold
            cu("cuGraphLaunch", exe_b.handle, sb)
            t0 = time.perf_counter()
            while d.cuStreamQuery(sb)[0] == NOT_READY and time.perf_counter() - t0 < wait_s:
                time.sleep(0.001)
            done = d.cuStreamQuery(sb)[0] == SUCCESS
        assert held["report"].released, "the hold let go by its own timeout: this answer is not a held one"
    cu("cuCtxSynchronize")
    return done

one_done = finished_while_held(e1)  # the same executable on B
two_done = finished_while_held(e2)  # another executable, with its own buffers, on B
print(f"one executable on A and B:      B finished while A was held: {one_done}")
print(f"two executables, one per stream: B finished while A was held: {two_done}")
assert not one_done, "B's launch of e1 finished while A's launch of e1 was still queued: not the documented order"
assert two_done, "B's own executable did not finish while A was held"
for c, name in ((big, "chain A"), (other, "chain B")):
    v = cgl.compare_bits(name, c.out.to_numpy(), c.expected())
    print(v)
    assert v.ok, f"{name}: {v}"
hk.close()

# %% [markdown]
# Read the two lines. While A is held nothing on A can start, so whatever B's launch is ordered behind waits as
# long as the hold. With one executable, B's launch is ordered behind A's launch of it (the sentence above), and B
# does not finish. With two executables nothing ties B to A, and B finishes while A is still held. No clock is
# needed: `cuStreamQuery` reads an order, and the assertions hold on any GPU. The results are right both ways;
# what the mistake costs is the overlap, which a timing would show only where the kernels leave the GPU room.

# %% [markdown]
# ## On the H200: the capture mistakes, in every mode
# The committed doctor record (notebook 06): the synchronize and the stream-0 launch are refused in every capture
# mode.

# %% [record] the synchronize and the legacy stream in every capture mode, on the H200
show_record("doctor", "re:^(sync|legacy_stream) +refused")

# %% [markdown]
# ## What it means
# A graph is a frozen copy of what was enqueued: its addresses, its scalars, its order. Everything that changes
# between replays must either live in memory the graph reads (pitfall 1's fix) or be written into the
# executable (`cuGraphExecKernelNodeSetParams`, `cuGraphExecUpdate`: pitfalls 3 and 5). Captures must stay inside
# one world of streams: no waiting, no legacy stream (pitfalls 2 and 6). And an executable is one sequence of
# work: it never overlaps itself, whichever stream launches it (pitfall 7).
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Fix the baked-in scalar with a whole-graph update (GPU)
# Instead of setting one node's parameters (pitfall 5), capture the chain again with `mul`'s scalar set to 5.0 and
# update a fresh executable of the old capture from it with `cuGraphExecUpdate` (or `try_exec_update`). Launch it
# on fresh inputs, put the output in `updated_out`, and set the scalar back to 2.0. The check: bit-exact against
# scalar 5.0.

# %% [exercise 1]
updated_out = None

# %% [check 1 gpu] the whole-graph update carried the new scalar
def _check1(out1):
    v = cgl.compare_bits("updated to 5.0", np.asarray(out1), cgl.reference(chain.ops, chain.x_host, chain.y_host, 5.0))
    return v.ok, str(v)
grade(1, updated_out, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Fix a stale pointer without copying (GPU)
# Pitfall 1 fixed the moved input by copying it into the buffer the graph reads. The other fix points the graph
# at the new buffer. Capture the chain (`chain.capture()`) and instantiate it; put fresh inputs in a **new** device
# array (`xh_moved = rng.standard_normal(chain.n, dtype=np.float32)`, `x_moved = dev.to_device(xh_moved)`); make
# the executable's `add` node read `x_moved` (`add` packs `(out, x, y, n)`: set argument 1 in
# `chain.launches[0].args`, then `cuGraphExecKernelNodeSetParams` with `kernel_node_params`, as pitfall 5 did for
# the scalar; then set argument 1 back to `chain.x`). Launch it with a poisoned output and put the output in
# `moved_out`; keep `xh_moved` and `x_moved`. The check: bit-exact against NumPy on `xh_moved` and `chain.y_host`,
# and `chain.x` must not hold `xh_moved` (no copy).

# %% [exercise 2]
moved_out = None

# %% [check 2 gpu] the executable read the new buffer, and nothing was copied into the old one
def _check2(out2):
    want = cgl.reference(chain.ops, xh_moved, chain.y_host, chain.scalar)
    v = cgl.compare_bits("the graph pointed at x_moved", np.asarray(out2), want)
    copied = np.array_equal(chain.x.to_numpy(), xh_moved)
    return v.ok and not copied, f"{v}; xh_moved copied into chain.x: {copied}"
grade(2, moved_out, _check2)

# %% [markdown]
# ## Change this and run again
# In pitfall 4, add `cu("cuGraphUpload", cold.handle, s)` right after instantiating. Is the first launch still an
# outlier?

# %% [gpu] frees what this notebook made
for o in (ks, other, big, chain):
    o.close()
print("closed")
