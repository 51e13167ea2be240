# %% [markdown]
# # 11 · Device graph launch
#
# *Programming Guide, "Device Graph Launch".* A graph instantiated with
# `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH` and uploaded can be launched **by a kernel**:
# `cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)` runs it beside the launching graph,
# `cudaStreamGraphTailLaunch` after it. A graph that tail-launches itself (`cudaGetCurrentGraphExec()`) until a
# counter says stop is a loop that drives itself. The device side needs relocatable code linked with the device
# runtime (NVRTC `-rdc=true`, nvJitLink + `libcudadevrt.a`).

# %% [markdown]
# ## Predict
# A loop where each iteration is a new graph launched by the GPU: more or less µs per iteration than one graph
# holding 50 unrolled iterations (notebook 06)?

# %% [gpu sm90] makes the chain and instantiates its graph for device launch
chain = cgl.Chain(dev, n=1024)
s = chain.stream.handle
g = chain.capture()
flag = int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
w = GraphExec(dev, cu("cuGraphInstantiate", g.handle, flag))  # may be launched from the device
cu("cuGraphUpload", w.handle, s)  # a device-launchable graph must be uploaded before a kernel launches it
g.close()
print("device-launchable chain graph ready")

# %% [markdown]
# ## Run and grade: launches from the GPU
# `cgl.device_loop` builds and loads the relocatable launcher kernels (`kernels/devlaunch.cu`), then each check
# runs on fresh inputs with poisoned outputs and compares with NumPy (and counts the launches).

# %% [gpu sm90] runs fire-and-forget, tail launch and the self-relaunching loop
try:
    loop = cgl.device_loop(chain)
except UnsupportedError as e:
    loop = None
    print(f"device graph launch is not available here: {e}")
if loop is not None:
    N = 1000
    checks = [loop.run_launch("fire_and_forget"), loop.run_launch("tail"), loop.run_loop("self", N),
              loop.run_loop("self", 30, feedback=True)]  # x <- chain(x), 30 times, as NumPy says
    for c in checks:
        print(("ok   " if c.ok else "FAIL ") + str(c))
    assert all(c.ok for c in checks), "a device-launch check failed"

# %% [markdown]
# ## Measure: the device-driven loop against an unrolled graph (CUDA events)

# %% [gpu sm90] times both loops
if loop is not None:
    start, end = dev.create_event(), dev.create_event()
    exe = loop.self_exec(N)
    start.record(chain.stream); loop.enqueue(exe); end.record(chain.stream); end.synchronize()
    device_us = start.elapsed_us(end) / N
    chain.run("graph", 50, 50)
    start.record(chain.stream); chain.run("graph", N, 50); end.record(chain.stream); end.synchronize()
    unrolled_us = start.elapsed_us(end) / N
    print(f"device-driven loop: {device_us:.2f} us/iteration; unrolled graph x50: {unrolled_us:.2f} us/iteration")
    fig, ax = new_figure()
    ax.bar(["tail-launch loop", "unrolled x50"], [device_us, unrolled_us], color=["tab:pink", "tab:gray"])
    ax.set_ylabel("device us per iteration"); show_figure(fig)
    start.close(); end.close()

# %% [markdown]
# ## On the H200: every device-launched loop, and where an iteration goes
# The committed `cugraphlab devlaunch` record, drawn without a GPU (this is what the sm_90 cells above show on an
# H200).

# %% [record] device graph launch on the H200
from cugraphlab.report.devlaunch import render_devlaunch
rec = h200_record("devlaunch")
if rec is not None:
    print(render_devlaunch(rec))

# %% [markdown]
# ## What it means
# A tail launch waits for the whole launching graph to finish, then starts a new graph: more than the next node of
# one graph costs, but no host is involved, so a loop can run with a length the GPU decides.
#
# ## Change this and run again
# Use `loop.run_loop("scheduler", 1000)`: a scheduler graph that tail-launches the work graph, then itself. How
# many device launches does it count, and why twice as many?

# %% [gpu sm90] frees what this notebook made
w.close(); chain.close()
print("closed")
