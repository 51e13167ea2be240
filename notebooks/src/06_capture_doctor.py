# %% [markdown]
# # 06 · The capture doctor: which call broke my capture, and why
#
# *Programming Guide, "Prohibited and Unhandled Operations" (CUDA Graphs); Driver API, "Stream Management".*
# While a stream captures, nothing runs: work is recorded. A call that needs work to have run (a synchronize, an
# allocation in a strict mode) is refused, and the driver **invalidates** the capture. A synchronous copy is
# another case: the gallery below shows it running, not captured, in every mode (the copy happens now and never
# becomes a node); it is refused only through the legacy-stream rule, when it would wait on a blocking stream. The
# error you see often comes later and names no culprit: `cuStreamEndCapture` says only
# `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`. The doctor watches the capture through cugraphlab's one door to the
# driver and asks the driver after every call:
#
#     cuStreamBeginCapture(origin, mode)
#       ... every driver call made through cugraphlab, then for each stream s of the capture:
#       cuStreamIsCapturing(s)          # ACTIVE, or INVALIDATED: this call flipped it
#     cuStreamGetCaptureInfo(s)         # before the end: a forked stream must have flowed back into origin
#     cuStreamEndCapture(origin)
#
# `capture(stream, explain=True)` turns it on; `cugraphlab doctor SCRIPT.py` turns it on for every capture of a
# script; `cugraphlab doctor --gallery ours` makes each class of mistake on purpose (examples/13_doctor.py is the
# short version). It comes early in the course: every later notebook captures, and a broken capture is the most
# common first bug.
#
# *Prerequisites: notebooks 02 and 04 (capture, fork and join).*

# %% [markdown]
# ## Predict
# (1) Inside a capture you call `cuStreamSynchronize` on the capturing stream. Which call gets the error, and
# what does `cuStreamEndCapture` answer? (2) You fork a second stream into the capture and forget to join it back.
# Which call fails, and does its error say which stream was left behind?

# %% [gpu] makes the chain and an empty kernel
from cugraphlab.bench import summarize
from cugraphlab.graphs import capture
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle
ks = dev.load_kernels(names=["empty"])
THREAD_LOCAL = d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
def status(stream_handle):
    return cu("cuStreamIsCapturing", stream_handle).name.replace("CU_STREAM_CAPTURE_STATUS_", "")

# %% [markdown]
# ## Run 1: the driver alone
# The raw calls, and the capture status read after each (`cuStreamIsCapturing`). The end is called on the
# binding itself (`d.cuStreamEndCapture`, unchecked), so that its error code can be printed instead of raised.

# %% [gpu] synchronizes inside a capture, with the raw calls
cu("cuStreamBeginCapture", s, THREAD_LOCAL)
cu("cuLaunchKernel", *chain.launches[0].call_args)
print("after cuLaunchKernel:    ", status(s))
try:
    cu("cuStreamSynchronize", s)
except CaptureError as e:
    print("cuStreamSynchronize:     ", e.name)
print("after cuStreamSynchronize:", status(s))
r = d.cuStreamEndCapture(s)  # (CUresult, CUgraph)
print("cuStreamEndCapture:      ", r[0].name, "(and no graph)")
if r[0] == 0 and r[1] is not None and int(r[1]):
    cu("cuGraphDestroy", r[1])
print("after the end:           ", status(s))

# %% [markdown]
# In a real program the synchronize hides in a helper three calls deep, and the message the user sees comes from
# `cuStreamEndCapture`. Now the same mistake under the doctor. (A prepared `Launch` fires through the bindings
# directly, for speed, so the doctor would not see it: inside a watched capture launch through `cu(...)`.)
#
# ## Run 2: the same mistake, explained

# %% [gpu] synchronizes inside a watched capture, and reads the diagnosis
sync_case = capture(chain.stream, explain=True)
try:
    with sync_case:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        chain.stream.synchronize()  # the mistake: waits for work that is only being recorded
        cu("cuLaunchKernel", *chain.launches[1].call_args)
except CaptureError as e:
    print(f"CaptureError {e.name}; the doctor says:\n")
show(sync_case.diagnosis, limit=40)
f = sync_case.diagnosis.first
print(f"\nclass {f.kind!r}, call {f.call}, at {f.where}")

# %% [gpu] forks a stream into a capture and never joins it
side = dev.create_stream()
ev_fork = dev.create_event(timing=False)
branch = ks["empty"].prepare((), (), ((1,), (1,)), side)
fork_case = capture(chain.stream, explain=True)
try:
    with fork_case:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        cu("cuEventRecord", ev_fork.handle, s)             # fork: the side stream joins the capture ...
        cu("cuStreamWaitEvent", side.handle, ev_fork.handle, 0)
        cu("cuLaunchKernel", *branch.call_args)            # ... records a node, and never flows back
except CaptureError as e:
    print(f"CaptureError {e.name}; the doctor says:\n")
show(fork_case.diagnosis, limit=40)
print(f"\nside stream still capturing: {status(side.handle)}")

# %% [markdown]
# ## The answer, graded
# Both diagnoses must name the class and the call; then the correct capture (the wait moved out, the branch
# joined with `cuEventRecord(side)` + `cuStreamWaitEvent(origin)`) must have **no** finding and replay bit-exact
# against NumPy on fresh inputs with a poisoned output.

# %% [gpu] grades the diagnoses, then captures correctly and checks the bits
assert f.kind == "sync" and f.call == "cuStreamSynchronize", f
assert f.where and not f.where.startswith("cugraphlab/"), f.where  # a line of this notebook, not of the library
u = fork_case.diagnosis.first
assert u is not None and u.kind == "unjoined", fork_case.diagnosis.summary()
print(f"named: {f.kind} at {f.call}; {u.kind} at {u.call} (stream {u.stream or '?'})")
ev_join = dev.create_event(timing=False)
good = capture(chain.stream, explain=True)
with good:
    cu("cuEventRecord", ev_fork.handle, s)
    cu("cuStreamWaitEvent", side.handle, ev_fork.handle, 0)
    cu("cuLaunchKernel", *branch.call_args)                # the branch, recorded on the side stream
    for L in chain.launches:
        cu("cuLaunchKernel", *L.call_args)
    cu("cuEventRecord", ev_join.handle, side.handle)       # join: the side stream flows back
    cu("cuStreamWaitEvent", s, ev_join.handle, 0)
show(good.diagnosis)
assert not good.diagnosis.findings, good.diagnosis.summary()
exe = good.graph.instantiate()
chain.randomize(); chain.poison()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("the correct capture", chain.out.to_numpy(), chain.expected())
print(v)
assert v.ok, f"the correct capture differs from NumPy: {v}"

# %% [markdown]
# ## A mistake made past cugraphlab's door
# CuPy, PyTorch or a raw `cuda.bindings` call do not go through `cu(...)`, so the doctor sees only that the
# stream's state changed between two of its calls. With CUPTI (the CUDA Profiling Tools Interface, which calls
# back on every driver and runtime API call of the process; `pip install cupti-python`) it names the call too.

# %% [gpu] a raw cuCtxSynchronize inside a watched capture: what the doctor alone can say
raw_case = capture(chain.stream, explain=True)
try:
    with raw_case:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        d.cuCtxSynchronize()  # the mistake, past cugraphlab's door (as a library would make it)
except CaptureError as e:
    print(f"CaptureError {e.name}")
raw = raw_case.diagnosis.first
print(f"class {raw.kind!r}: {raw.mistake.title}")

# %% [gpu cupti] the same mistake under the doctor's CUPTI mode: the call is named
cupti_case = capture(chain.stream, explain=True, cupti=True)
try:
    with cupti_case:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        d.cuCtxSynchronize()
except CaptureError as e:
    print(f"CaptureError {e.name}; the doctor with CUPTI says:")
named = cupti_case.diagnosis.first
print(f"class {named.kind!r}, call {named.call}, at {named.where}")
assert named.kind == "sync" and named.call == "cuCtxSynchronize", named

# %% [markdown]
# ## Measure: what watching costs
# The doctor asks the driver after every call, so a watched capture is slower. Is the **graph** any different?
# Capture time on the host clock (`perf_counter_ns` around the whole capture), replay on the device clock
# (CUDA events around 200 launches), 30 captures each.

# %% [gpu] times captures with and without explain=True, and the replays of both graphs
from cugraphlab.bench import timed_loop
def capture_once(explain):
    t0 = time.perf_counter_ns()
    with capture(chain.stream, explain=explain) as cap:
        for L in chain.launches:
            cu("cuLaunchKernel", *L.call_args)
    return (time.perf_counter_ns() - t0) / 1e3, cap.graph
cost, execs = {}, {}
for explain in (False, True):
    samples = []
    for i in range(31):
        us, graph = capture_once(explain)
        if i == 0:  # the first capture warms up; its graph is the one replayed
            execs[explain] = graph.instantiate()
        else:
            samples.append(us)
        graph.close()
    cost[explain] = summarize(samples, unit="us", clock="perf_counter_ns")
start, end = dev.create_event(), dev.create_event()
replay = {}
for explain, e in execs.items():
    run = lambda it, e=e: [cu("cuGraphLaunch", e.handle, s) for _ in range(it)]
    run(20)
    replay[explain] = summarize([timed_loop(chain.stream, run, 200, start, end)[1] for _ in range(3)],
                                unit="us", clock="cuEventElapsedTime").median
for explain in (False, True):
    c = cost[explain]
    print(f"explain={explain!s:5}: capture {c.median:7.1f} us [p5 {c.p5:.1f}, p95 {c.p95:.1f}] (host clock); "
          f"replay {replay[explain]:.2f} us per launch (device clock)")
print(f"watching costs x{cost[True].median / cost[False].median:.1f} per capture, "
      f"x{replay[True] / replay[False]:.3f} per replay")
fig, ax = new_figure()
ax.bar(["capture", "capture, explained"], [cost[False].median, cost[True].median], color=["tab:gray", "tab:red"])
ax.set_ylabel("host us per capture (4 launches)"); show_figure(fig)

# %% [markdown]
# ## Every mistake, in every mode (the gallery)
# `cugraphlab doctor --gallery ours` makes each class of mistake on purpose (a sync, stream 0, a synchronous copy, an
# allocation, an event query, another thread, an unjoined fork, two captures mixed, and a clean capture), under
# each capture mode, and checks that nothing is left behind (no stream still capturing, the context usable, the
# free memory back). Its table of modes, read row by row: "refused: CODE" is the error the driver gave the call;
# "allowed" means the mode let the call through and the capture went on. One row is neither: the synchronous
# `cuMemcpyHtoD` (host_copy) is **accepted** (CUDA_SUCCESS) in every mode, but it ran at once, on the legacy stream,
# and is not part of the graph: a replay will not copy. The doctor flags it anyway, and its table says
# "ran, not captured" for it.

# %% [gpu] runs cugraphlab doctor --gallery ours (about 10 s) and prints its modes table
import subprocess, sys
run = subprocess.run([sys.executable, "-m", "cugraphlab", "doctor", "--gallery", "ours", "--no-overhead"],
                     capture_output=True, text=True, timeout=300)
out = run.stdout
table = out[out.index("which capture mode refuses which call:"):].split("\n\n")[0]
print(table)
print("exit", run.returncode)
assert run.returncode == 0, (run.stderr or run.stdout)[-2000:]

# %% [markdown]
# The committed H200 run of the same gallery, drawn from its record without a GPU:

# %% [record] which capture mode refuses which call, on the H200
doctor = h200_record("doctor")
if doctor is not None:
    print(pick(render(doctor), ("refused: ", "ran, not captured", "clean          allowed")))

# %% [markdown]
# ## Mistakes from the field
# The gallery above is of our own making. `cugraphlab doctor --gallery field` runs the mistakes people reported in
# public threads, each a short script in the stack where it happened, each with its fixed twin
# (cugraphlab/graphs/field_gallery/). Three of them:
#
# * **PyTorch, `.item()` inside `torch.cuda.graph`** (Lightning-AI/lightning-thunder#727: "RuntimeError: CUDA
#   error: operation not permitted when stream is capturing"): reading a loss on the host waits for work that is
#   only being recorded.
# * **CuPy, the memory pool grows inside a thread-local capture** (cupy/cupy#6290): `cupy.empty` of a size the
#   pool has never served calls `cudaMalloc`, which a strict capture refuses.
# * **cuda.core, the memory resource created lazily** (NVIDIA/cuda-python#2834): the first `Device.allocate`
#   creates `Device.memory_resource`, whose pool attribute calls a strict capture refuses; and tearing down the
#   invalidated builder crashed the process.
#
# None of these captures goes through cugraphlab's door. Under `cugraphlab doctor`, the capture calls of PyTorch,
# CuPy and cuda.core are watched (begin, end), the exceptions raised in your files while a capture is open are
# recorded, and the doctor names the first one that broke the capture: its line, the call on it, the class of
# mistake and the fix in the stack's own terms. The cell below feeds each case's recorded error (the text its
# stack raises at the marked line) to that explainer: no GPU needed.

# %%
from cugraphlab.graphs import explain_events, field_case, recorded_events
from cugraphlab.report.doctor import render_diagnosis
for key in ("torch_item", "cupy_pool_grow", "core_memory_resource"):
    c = field_case(key)
    (d,) = [d for d in explain_events(recorded_events(c)) if d.findings]
    print(f"--- {key} ({c.thread}): {c.script.name}:{c.line()}  {c.script.read_text().splitlines()[c.line() - 1].strip()}")
    print(render_diagnosis(d), end="\n\n")

# %% [gpu] runs those three cases and their fixed twins under the doctor, each in its own process
from cugraphlab.experiment import run_field_gallery
from cugraphlab.report.doctor import render_field
rows = run_field_gallery(["torch_item", "cupy_pool_grow", "core_memory_resource"], timeout=120, workers=3)
print(render_field([r.to_dict() for r in rows]))

# %% [markdown]
# ## What it means
# The driver refuses the culprit (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` for the synchronize) and from then on
# answers every call on the stream with `..._INVALIDATED`; the doctor keeps the first call, its Python line, the
# state change (ACTIVE -> INVALIDATED), the class of mistake and the fix. An unjoined fork fails only at the end
# (`CUDA_ERROR_STREAM_CAPTURE_UNJOINED`): the doctor names the stream that never flowed back. Watching costs
# the capture several times its time, and nothing at replay: the executable is the same. Turn it on while
# writing a capture (or run `cugraphlab doctor SCRIPT.py`), off when it works.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · An allocation the capture records (GPU)
# The gallery's allocation is `cuMemAlloc`, and the doctor's fix for it names another way: stream-ordered
# allocation. Capture the chain's first launch twice under the doctor (`capture(chain.stream, explain=True)`, the
# default mode): once with an allocation `dev.array(1 << 20)` inside, once with `alloc_async(chain.stream, 1 << 22)`
# then `free_async(chain.stream, address)` inside (`from cugraphlab.graphs import alloc_async, free_async`: the
# driver's `cuMemAllocAsync` / `cuMemFreeAsync` on the capturing stream). Put
# `{"cuMemAlloc": the first finding's kind or None, "cuMemAllocAsync": the same}` in `alloc_ways` and the second
# capture's Graph in `async_graph` (close the array, if one was made, and the first graph, if there is one). The
# check: what the doctor found each way, and the node kinds of `async_graph` (`async_graph.node_kinds()`).

# %% [exercise 1]
alloc_ways, async_graph = None, None

# %% [check 1 gpu] cuMemAlloc refused, cuMemAllocAsync recorded as an alloc node and a free node
def _check1(ways):
    want = {"cuMemAlloc": "allocation", "cuMemAllocAsync": None}
    kinds = async_graph.node_kinds() if async_graph is not None else []
    ok = dict(ways) == want and "MEM_ALLOC" in kinds and "MEM_FREE" in kinds
    return ok, f"{dict(ways)} (want {want}); the second graph's nodes: {kinds}"
grade(1, alloc_ways, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Find the stream left behind (GPU)
# Fork **two** side streams into one capture, join only the first, and end the capture under the doctor. Put the
# diagnosis's first finding in `left_behind` and the unjoined stream (a Stream you made) in `second`. The check:
# the finding's kind is "unjoined" and it names the second stream's handle.

# %% [exercise 2]
left_behind, second = None, None

# %% [check 2 gpu] the finding is an unjoined fork, naming the second stream
def _check2(finding):
    handle = f"{int(second.handle):#x}"
    return finding.kind == "unjoined" and handle in f"{finding.stream} {finding.detail}", \
        f"kind {finding.kind!r}, stream {finding.stream!r} (want {handle})"
grade(2, left_behind, _check2)

# %% [gpu] frees what this notebook made
for o in (exe, *execs.values(), good.graph, start, end, ev_fork, ev_join, side, ks, chain):
    o.close()
print("closed")
