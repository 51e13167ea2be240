# %% [markdown]
# # 09 · Measure your own kernel: eager, graph, native, and a verdict you can put in CI
#
# *Driver API, "Execution Control" and "Graph Management"; cugraphlab's `measure`, `diff` and pytest plugin.*
# Every lesson so far measured cugraphlab's own chain. This one measures **yours**: a kernel from a `.cu` file, or a
# few lines of CuPy, timed the ways it can run, with the clock of each figure named:
#
#     work                  ways
#     a prepared Launch     eager (cuLaunchKernel from Python), graph (captured once, one cuGraphLaunch per call),
#                           native (the same call from C behind a builtin), floor (a C loop: the driver alone)
#     a callable fn(stream) eager, graph
#
#     per call, in µs:  host   what the calls cost the launching thread (perf_counter_ns around the calls alone)
#                       wall   until the GPU is done (the end event's synchronize returned)
#                       device CUDA events on the stream around the same calls
#
# Then the same path a project takes: your kernel → `cugraphlab.measure` → `cugraphlab.diff_records` (did my change
# make it slower?) → the pytest plugin (`cgl_measure`, `--cgl-save`, `--cgl-compare`, `--cgl-fail-on slower`).

# %% [markdown]
# ## Predict
# A saxpy (`out = a * x + y`) on 2^20 floats reads 8 MiB and writes 4 MiB. (1) Is one call bound by the host or by
# the GPU: which is larger, its host µs per call or its device µs per call? (2) What does a graph save per call
# here, and after how many calls does capturing it pay off? (3) Would the answers change at 1,024 floats?

# %% [gpu] compiles saxpy from source and prepares one launch, with a check against NumPy
from cugraphlab import compare_bits
from cugraphlab.report.measure import render_measure

SAXPY = r'''
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
'''
N = 1 << 20
compiled = cgl.compile_source(SAXPY, "saxpy")  # NVRTC: this GPU's arch, cubin, --fmad=false (NumPy's rounding)
module = dev.load_module(compiled)
stream = dev.create_stream()
x, y, out = dev.array(N), dev.array(N), dev.array(N)
a = np.float32(2.5)
launch = module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"), (out, x, y, a, N),
                                        (cgl.grid_for(N, 256, dev.sm_count), 256), stream)
inputs = {}

def prepare():
    """Fresh random inputs and a poisoned output (NaN): run by measure before each way's checked call."""
    inputs["x"] = rng.standard_normal(N, dtype=np.float32)
    inputs["y"] = rng.standard_normal(N, dtype=np.float32)
    x.copy_from(inputs["x"], stream)
    y.copy_from(inputs["y"], stream)
    out.poison(stream)

def check():
    """After that call: bit for bit against NumPy float32."""
    return compare_bits("saxpy", out.to_numpy(stream=stream), a * inputs["x"] + inputs["y"])

prepare()
print(compiled.arch, compiled.kind, f"{len(compiled.image):,} bytes")

# %% [markdown]
# ## Run 1: your kernel, four ways
# `cgl.measure(launch, check=check, prepare=prepare)`: the ways run in turn, round after round (drift hits all of
# them alike), each sample about a millisecond of calls, until every median is known within one percent or a cap
# on samples stops them first (the output says which: "stopped by max_samples" is the cap, and the spread then
# says how well the median is known); the SM clock is read after each round; after the timed rounds each way runs once more on fresh inputs and `check` must pass.

# %% [gpu] measures the saxpy launch eager, as a graph, natively and in a C loop
r = cgl.measure(launch, check=check, prepare=prepare)
print(render_measure(r))

# %% [markdown]
# **Reading it.** *held* and *cold*, the first two columns, are the GPU's own time per call: calls queued back to
# back behind a kernel that holds the stream (no host gap between them), and one call after the L2 was flushed.
# *host* is what the thread pays per call; when the GPU is slower than the host, a full launch
# queue makes the host wait inside the call, and host approaches wall. *native* takes the binding out (a
# prepared call from C behind a Python builtin), *floor* takes Python out too: what is left is the driver.
# *reference* is a bare launch of an empty kernel timed in the same rounds, and *x ref* each way's host cost in
# those launches: the figure that repeats from one process to the next. The graph
# line says what capture + instantiate + upload cost once, and after how many calls the cheaper replays have paid
# for them. `r["graph"].wall.median`, `r.break_even`, `r.to_dict()` hold every figure.

# %% [record] a user's saxpy measured on the H200, 2^20 floats (cugraphlab measure saxpy.cu)
h200_saxpy = show_record("measure_saxpy_2_20", "way", "eager", "graph", "native", "floor", "reference",
                         "pays off", "never pays off")

# %% [gpu] the same at 1,024 floats, where the launch is everything
small = module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"), (out, x, y, a, 1024), (4, 256), stream)
r_small = cgl.measure(small, ways=("eager", "graph", "floor"))
print(render_measure(r_small))

# %% [markdown]
# ## Run 2: a Python callable, and a capture that fails
# Anything that enqueues work on the stream it is given can be measured: `fn(stream)`, with `stream="cupy"`,
# `"torch"` or `"cuda.core"` to get that library's view of the same stream. Here a callable that launches the
# saxpy, and one with a mistake in it: it synchronizes, which a capture cannot record. The eager figures are still
# measured; the graph way says which call broke the capture, from which line, and the fix.

# %% [gpu] measures a callable, then one that synchronizes inside its work
def step(s):
    launch()  # prepared on `stream`, the stream measure is given below

def step_with_a_sync(s):
    launch()
    s.synchronize()  # the mistake: nothing runs while a capture records

r_fn = cgl.measure(step, stream=stream, ways=("eager", "graph"))
print(render_measure(r_fn))
print()
r_bad = cgl.measure(step_with_a_sync, stream=stream, ways=("eager", "graph"))
print(render_measure(r_bad))

# %% [markdown]
# ## Run 3: did my change make it slower? `diff`
# Two records of the same work, compared row by row from the raw samples they keep: the ratio of medians with a
# bootstrap interval, a rank test, and a verdict (SAME, FASTER, SLOWER, AMBIGUOUS) against a threshold. First the
# same work measured twice, then a "change" that spends a microsecond more per call on the host.

# %% [gpu] two records of the same callable, then one 1 µs slower per call
from cugraphlab.report.diff import render_diff

DELAY_US = 0.0  # the "change": a host-side cost added to every call

def timed_step(s):
    launch()
    t0 = time.perf_counter_ns()
    while time.perf_counter_ns() - t0 < DELAY_US * 1000:
        pass

before = cgl.measure(timed_step, stream=stream, ways=("eager",))
again = cgl.measure(timed_step, stream=stream, ways=("eager",))
DELAY_US = 1.0
slower = cgl.measure(timed_step, stream=stream, ways=("eager",))
DELAY_US = 0.0
same = cgl.diff_records(before.to_dict(), again.to_dict(), threshold=0.10)
changed = cgl.diff_records(before.to_dict(), slower.to_dict(), threshold=0.10)
print(render_diff(same))
print()
print(render_diff(changed))

# %% [markdown]
# Read the two diffs for what they print, not for what you expected. Two records of the same work in one process
# need not read SAME on their raw host rows: host µs drift between the records (clocks, caches, whatever else the
# machine did meanwhile), and that drift can be as large as the microsecond added, so a raw row may call the same
# work FASTER and the slower work SAME. The lesson: **trust the ratio to the reference.** The *x ref* row divides
# each way's host cost by a bare launch measured in the same rounds, so what drifts for both cancels; *held* and
# *cold* are the GPU's own time, which the host's drift does not touch. Those are the rows `diff` judges by
# default; the raw host, wall and host-paced device rows are printed beside them, marked as not judged. Between
# two processes there is one more reason: the host cost of a launch has a *mode* set per process
# (docs/studies/launch-cost-modes.md), which moves raw host µs and leaves the ratio. `measure(..., processes=6)`
# (and `cugraphlab measure --processes 6`) measures in six fresh processes, one after the other, and keeps which
# process each sample came from; `diff` then takes the process, not the sample, as the unit.
#
# ## Run 4: the same in your test suite
# The pytest plugin comes with cugraphlab (entry point `pytest11`). A test asks for the `cgl_measure` fixture;
# `--cgl-save DIR` keeps each test's record, `--cgl-compare DIR --cgl-fail-on slower` fails a test that got slower
# (a ten percent threshold, six worker processes of the session per measurement).

# %% [gpu] writes a test file and runs pytest twice: save, then compare with a 1 µs slowdown
import os, subprocess, sys, tempfile, textwrap
folder = tempfile.mkdtemp(prefix="cgl-plugin-")
with open(os.path.join(folder, "test_saxpy_cost.py"), "w") as f:
    f.write(textwrap.dedent(f'''
        import os, time
        import numpy as np
        import cugraphlab as cgl

        SAXPY = {SAXPY!r}
        DELAY_NS = int(os.environ.get("DELAY_NS", "0"))

        def make(stream):                      # once per worker process: compile, load, prepare
            dev = stream.device
            arch, kind = cgl.core.resolve_arch(None, dev.compute_capability)
            module = dev.load_module(cgl.compile_source(SAXPY, "saxpy", arch=arch, kind=kind).image)
            bufs = [dev.array(1024) for _ in range(3)]
            launch = module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"),
                                                    (*bufs, 2.0, 1024), (4, 256), stream)
            return (launch, module, bufs)

        def step(stream, launch, module, bufs): # top-level: the plugin's workers import it by name
            launch()
            t0 = time.perf_counter_ns()
            while time.perf_counter_ns() - t0 < DELAY_NS:
                pass

        def test_saxpy_launch(cgl_measure):
            r = cgl_measure(step, setup=make, ways=("eager",))
            assert r["eager"].measured
    '''))
records = os.path.join(folder, "records")
for delay, options in ((0, ["--cgl-save", records]), (1000, ["--cgl-compare", records, "--cgl-fail-on", "slower"])):
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", folder, *options],
                       env=dict(os.environ, DELAY_NS=str(delay)), capture_output=True, text=True)
    print(f"--- delay {delay} ns: exit {p.returncode}")
    print("\n".join(line for line in p.stdout.splitlines() if "cgl" in line or "saxpy" in line or "passed" in line
                    or "failed" in line))

# %% [markdown]
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Read a record (no GPU needed)
# `h200_saxpy` is the committed H200 record shown above (a `MeasureResult`: `rec["eager"].host.median` and so on).
# Write `cheapest(rec, clock)`: the name of the way with the lowest median on `clock` ("host", "wall" or
# "device"), leaving out the reference and any way that was not measured.

# %% [exercise 1]
cheapest = None  # def cheapest(rec, clock): ...

# %% [check 1] on the H200 record, every clock
def _check1(f):
    rec = h200_saxpy
    if rec is None or isinstance(rec, dict):  # the record travels in the package: only an old cugraphlab lacks it
        return False, "no H200 record here to check against: run Setup 1/2 again (it installs the course's version)"
    want = {c: min((w for w in rec.ways if w.way != "reference" and getattr(w, c) is not None),
                   key=lambda w: getattr(w, c).median).way for c in ("host", "wall", "device")}
    got = {c: f(rec, c) for c in want}
    return got == want, f"got {got}, want {want}"
grade(1, cheapest, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · A kernel of your own (GPU)
# Write a kernel `scale` (`out[i] = a * x[i]`, float32, a grid-stride loop like saxpy's), compile it with
# `cgl.compile_source`, prepare one launch over the notebook's `x` and `out` on `stream` with `a = 3.0`, and
# measure it eagerly with a `check` that compares `out` bit for bit against NumPy (`compare_bits`) after fresh
# inputs and a poisoned output. Put `(the MeasureResult, your launch)` in `mine`. The check: the eager way
# measured and your check passed, and then the check's own: it writes fresh inputs to `x`, poisons `out`, runs your
# launch once and compares `out` with `3 * x` in NumPy, bit for bit (a check that cannot fail would not catch a
# wrong kernel; this one does).

# %% [exercise 2]
mine = None

# %% [check 2 gpu] the eager way measured, your check passed, and your launch bit-exact on fresh inputs
def _check2(answer):
    r, launch = answer
    w = r["eager"]
    xs = rng.standard_normal(N, dtype=np.float32)
    x.copy_from(xs, stream); out.poison(stream)
    cu("cuLaunchKernel", *launch.call_args); stream.synchronize()
    v = compare_bits("scale, run by the check", out.to_numpy(stream=stream), np.float32(3.0) * xs)
    return w.measured and w.check == "passed" and v.ok, f"measured: {w.measured}; your check: {w.check}; {v}"
grade(2, mine, _check2)

# %% [markdown]
# ## What it means
# Compare Run 1 with its 1,024-float version, reading each way's *held* µs per call (the GPU's own time) against
# its *host* µs per call (the thread's). Where host is above held, the GPU finishes a call before the host has made
# the next one: the host sets the pace, the GPU idles between kernels, and the *device* column (events around the
# host's loop) reads the host's pace, not the kernel's. Where held is above host and about the wall µs per call,
# the GPU sets the pace: the calls queue up behind the kernels, and a graph saves little. Which of the two holds at
# each size is what the tables above print, on this GPU. Where the host sets the pace, the launch is everything:
# eager pays Python, the binding and the driver, native the driver and a builtin call, the floor the driver alone,
# and one graph replay costs about what one launch does but carries any number of kernels. What a graph saves
# grows with the launches in one call: measure your real step, not one kernel. And a capture that fails is not a
# timing: it is a diagnosis.
#
# The command line does the same without a notebook:
#
#     cugraphlab measure saxpy.cu --kernel saxpy --size 2^20 --args out,x,y,2.0,n
#     cugraphlab measure step.py:step --setup make --stream cupy --processes 6 --json new.json --compare-to old.json
#
# ## Change this and run again
# (1) In Run 1, read the `cold` row beside `held` (one call after an L2 flush, against calls back to back with a warm L2): how much of a call's GPU time was the L2's?
# (2) In Run 3, make the spin a fifth of a microsecond: does `diff` still say SLOWER at a ten percent threshold, and what does the interval
# say? (3) Write a callable that launches the saxpy on *another* stream than the one it is given: what does
# `measure` say?

# %% [gpu] frees what this notebook made
for o in (x, y, out, stream, module):
    o.close()
print("closed")
