# %% [markdown]
# # 11 · Device graph launch
#
# *Programming Guide, "Device Graph Launch".* A graph instantiated with
# `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH` and uploaded can be launched **by a kernel**:
# `cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)` runs it beside the launching graph,
# `cudaStreamGraphTailLaunch` after it. A graph that tail-launches itself (`cudaGetCurrentGraphExec()`) until a
# counter says stop is a loop that drives itself. The device side needs relocatable code linked with the device
# runtime (NVRTC `-rdc=true`, nvJitLink + `libcudadevrt.a`: the `devlaunch` extra, which the first GPU cell below
# installs where it is missing).
#
# What it needs: the guide sets no compute capability of its own; it says "This functionality is only available
# on systems which support unified addressing" (CUDA Programming Guide, "Device Graph Launch"; the Driver API's
# `cuGraphInstantiate` says the same of the flag), and it came with CUDA 12.0. The cells below ask the package
# (`graphs.require_device_launch`: the driver, unified addressing, nvJitLink, `libcudadevrt.a`), not the GPU's
# generation, and say what is missing.
#
# *Prerequisites: notebooks 07 (unrolling) and 10 (a loop the GPU decides with a WHILE node).*

# %% [markdown]
# ## Predict
# A loop where each iteration is a new graph launched by the GPU: more or less µs per iteration than one graph
# holding 50 unrolled iterations (notebook 07), or than a WHILE node (notebook 10)?

# %% [markdown]
# ## The kernel that launches, written out
# One thread counts one more iteration and, while fewer than `limit` ran, launches the graph it runs in
# (`cudaGetCurrentGraphExec()`) into the named stream `cudaStreamGraphTailLaunch`: the new launch starts once this
# one (the whole graph) has completed. A failed device-side launch returns its `cudaError_t` to the kernel, not to
# the host, so the kernel keeps the first one.

# %%
AGAIN = r'''
#include <cuda_device_runtime_api.h>

extern "C" __global__ void again(unsigned long long* count, unsigned long long limit, unsigned* status)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;  // device launches are per thread: exactly one launches
    const unsigned long long c = *count + 1;
    *count = c;
    if (c < limit) {
        const cudaError_t e = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
        if (e != cudaSuccess && *status == 0) *status = (unsigned)e;
    }
}
'''
print(AGAIN)

# %% [gpu devlaunch] compiles it relocatable (NVRTC -rdc -dlto) and links it with the device runtime (nvJitLink)
import os, glob, site, sys
from cuda.bindings import nvjitlink
from cugraphlab.graphs import cuda_include_dir

def find_cudadevrt():
    """libcudadevrt.a: cuda.pathfinder where it can find static libraries, else the CUDA runtime wheels' folders."""
    try:
        from cuda.pathfinder import find_static_lib
        return str(find_static_lib("cudadevrt"))
    except Exception:
        for root in (*site.getsitepackages(), *sys.path, "/usr/local/cuda"):
            for sub in ("nvidia/cu13/lib", "nvidia/cuda_runtime/lib", "lib64"):
                hits = glob.glob(os.path.join(root, sub, "libcudadevrt.a"))
                if hits:
                    return hits[0]
        raise

devrt = find_cudadevrt()
inc = cuda_include_dir() or os.path.join(os.path.dirname(os.path.dirname(devrt)), "include")
ir = cgl.compile_source(AGAIN, "again", arch=dev.arch, kind="ltoir", options=("-rdc=true", "-dlto", f"-I{inc}"))
opts = [f"-arch={dev.arch}", "-lto"]
link = nvjitlink.create(len(opts), opts)  # nvJitLinkCreate
try:
    nvjitlink.add_data(link, nvjitlink.InputType.LTOIR, ir.image, len(ir.image), "again.ltoir")
    nvjitlink.add_file(link, nvjitlink.InputType.LIBRARY, devrt)  # the device runtime: cudaGraphLaunch lives here
    nvjitlink.complete(link)  # link-time optimisation, then ptxas: one cubin
    cubin = bytearray(nvjitlink.get_linked_cubin_size(link))
    nvjitlink.get_linked_cubin(link, cubin)
finally:
    nvjitlink.destroy(link)
again_module = dev.load_module(bytes(cubin))  # cuModuleLoadData, as for any cubin
again = again_module.kernel("again")
print(f"LTO-IR {len(ir.image):,} bytes + {os.path.basename(devrt)} -> cubin {len(cubin):,} bytes for {dev.arch}")

# %% [markdown]
# ## Run: the chain, then `again`, in one device graph launched once from the host

# %% [gpu devlaunch] builds chain -> again, instantiates it for device launch, runs it and checks count and bits
from cugraphlab.graphs import add_kernel_node, add_launch_sequence
chain = cgl.Chain(dev, n=1024)
s = chain.stream.handle
count, status = dev.array(2, "uint32"), dev.array(1, "uint32")  # count: one u64
LIMIT = 100
g = Graph(dev)
last = add_launch_sequence(g, chain.launches)[-1]
add_kernel_node(g, again.prepare(("ptr", "u64", "ptr"), (count, LIMIT, status), (1, 32), chain.stream), [last])
flag = int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
loop_exe = GraphExec(dev, cu("cuGraphInstantiate", g.handle, flag))  # may be launched from the device
cu("cuGraphUpload", loop_exe.handle, s)  # a device graph must be uploaded before a kernel launches it

def run_loop(exe):
    """Zero the count and status (ordered on the stream), launch once from the host, read both back."""
    cu("cuMemsetD32Async", count.handle, 0, 2, s); cu("cuMemsetD32Async", status.handle, 0, 1, s)
    cu("cuGraphLaunch", exe.handle, s)  # the stream's work ends when the last tail launch has ended
    return int(count.to_numpy(stream=chain.stream).view(np.uint64)[0]), int(status.to_numpy(stream=chain.stream)[0])

chain.randomize(); chain.poison()
ran, err = run_loop(loop_exe)
v = cgl.compare_bits("self-relaunching chain", chain.out.to_numpy(), chain.expected())
print(f"the graph ran {ran} times (1 host launch, {ran - 1} tail launches from the GPU); first device error: {err}; {v}")
assert ran == LIMIT and err == 0 and v.ok, (ran, err, v)

# %% [markdown]
# ## More launches from the GPU, checked by the package
# `experiment.device_loop` builds the same kind of graphs from `kernels/devlaunch.cu` (its launcher kernels) and
# checks each on fresh inputs with poisoned outputs: a fire-and-forget launch, a tail launch, the self loop, and a
# self loop whose output feeds the next iteration (x <- chain(x), 30 times, as NumPy says). The launcher kernel:

# %%
print(cuda_source("devlaunch.cu", "dl_launch"))

# %% [gpu devlaunch] runs fire-and-forget, tail launch and the self-relaunching loops
from cugraphlab.experiment import device_loop
loop = device_loop(chain)
N = 1000
checks = [loop.run_launch("fire_and_forget"), loop.run_launch("tail"), loop.run_loop("self", N),
          loop.run_loop("self", 30, feedback=True)]
for c in checks:
    print(("ok   " if c.ok else "FAIL ") + str(c))
assert all(c.ok for c in checks), "a device-launch check failed"

# %% [markdown]
# ## Measure: the device-driven loop against an unrolled graph (CUDA events)

# %% [gpu devlaunch] times the hand-written loop, the package's self loop and an unrolled graph
start, end = dev.create_event(), dev.create_event()
st = chain.stream
def per_iteration(enqueue, iterations):
    enqueue()  # warm-up
    st.synchronize()
    start.record(st); enqueue(); end.record(st); end.synchronize()
    return start.elapsed_us(end) / iterations
def enqueue_again():
    cu("cuMemsetD32Async", count.handle, 0, 2, s); cu("cuMemsetD32Async", status.handle, 0, 1, s)
    cu("cuGraphLaunch", loop_exe.handle, s)
self_exe = loop.self_exec(N)
rows = {"again (by hand), 100 iterations": per_iteration(enqueue_again, LIMIT),
        "package self loop, 1000": per_iteration(lambda: loop.enqueue(self_exe), N),
        "unrolled graph x50, 1000": per_iteration(lambda: chain.run("graph", N, 50), N)}
for k, us in rows.items():
    print(f"{k:34s} {us:6.2f} us/iteration (device clock)")
fig, ax = new_figure()
ax.bar(list(rows), list(rows.values()), color=["tab:pink", "tab:purple", "tab:gray"])
ax.set_ylabel("device us per iteration"); ax.tick_params(axis="x", labelsize=7); show_figure(fig)

# %% [markdown]
# ## On the H200: every device-launched loop, and where an iteration goes
# The committed `cugraphlab devlaunch` record, drawn without a GPU: the same loops at 1,024 floats, against the
# WHILE node, one host launch per iteration and an unrolled graph.

# %% [record] device-driven loops on the H200, at 1,024 floats
show_record("devlaunch", "us per iteration:",
            "re:^(device loop, self relaunch  |device loop, scheduler|WHILE node|Python, 1 cuGraphLaunch|unrolled graph x50)",
            within="1,024 floats, us per iteration")

# %% [markdown]
# ## What it means
# A tail launch waits for the whole launching graph to finish, then starts a new graph: more than the next node of
# one graph costs, but no host is involved, so a loop can run with a length the GPU decides. The record puts it
# beside the WHILE node (notebook 10), which decides without leaving the graph, and the unrolled graph (notebook
# 07), which decides nothing.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Count the device launches (no GPU needed)
# Write `device_launches(shape, n)`: how many `cudaGraphLaunch` calls the GPU makes for a loop of `n` iterations,
# for `shape = "self"` (the chain's graph tail-launches itself after each iteration but the last, as `again` does)
# and `shape = "scheduler"` (a scheduler graph that, each time it runs and the loop goes on, tail-launches the work
# graph and then itself; it stops the run after the n-th work graph).

# %% [exercise 1]
device_launches = None  # def device_launches(shape, n): ...

# %% [check 1] both shapes, n from 1 to 6 and 1000
def _check1(f):
    want = {(sh, n): (n - 1 if sh == "self" else 2 * n) for sh in ("self", "scheduler") for n in (1, 2, 3, 4, 5, 6, 1000)}
    wrong = sorted(k for k, w in want.items() if f(*k) != w)
    return not wrong, "all 14 right" if not wrong else f"wrong for {wrong[:4]}"
grade(1, device_launches, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · The relaunch alone (GPU)
# Build a device graph holding only the `again` node (no chain), with a limit of 37, instantiate it for device
# launch, upload it, and run it with `run_loop`. Put `(count, status)` in `alone`. The check: 37 runs, no device
# error.

# %% [exercise 2]
alone = None

# %% [check 2 gpu devlaunch] 37 runs of the one-node graph, no device-side error
grade(2, alone, lambda a: (tuple(a) == (37, 0), f"count {a[0]}, first device error {a[1]}"))

# %% [markdown]
# ## Change this and run again
# Use `loop.run_loop("scheduler", 1000)`: a scheduler graph that tail-launches the work graph, then itself. How
# many device launches does it count (exercise 1), and what does the record say one iteration costs?

# %% [gpu devlaunch] frees what this notebook made
for o in (loop_exe, g, again_module, count, status, start, end, loop, chain):
    o.close()
print("closed")
