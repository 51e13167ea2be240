# %% [markdown]
# # 12 · Programmatic dependent launch (sm_90+)
#
# *Programming Guide, "Programmatic Dependent Launch and Synchronization".* Between two kernels on a stream the GPU
# normally drains the first grid before it starts launching the second. With PDL the next kernel may start
# launching while this one finishes. "Available starting with devices of compute capability 9.0" (the guide): on
# older GPUs the cells below say so, and the H200's outputs and record stay readable.
#
#     primary kernel:    cudaTriggerProgrammaticLaunchCompletion();  // PTX griddepcontrol.launch_dependents:
#                                                                    //   my successor may start launching
#     secondary kernel:  cudaGridDependencySynchronize();            // PTX griddepcontrol.wait: wait until my
#                                                                    //   predecessor is done and its writes visible
#     host: cuLaunchKernelEx(config, f, args, 0) with the launch attribute
#           CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1
#
# Captured into a graph, such launches become kernel nodes joined by **programmatic edges**. The chain's kernels
# do both, at their top, when compiled with `-DCGL_PDL` (`kernels/elementwise.cuh`, the PTX instructions in
# inline assembly; the `__CUDA_ARCH__ >= 900` guard makes them vanish on older targets):
#
# *Prerequisites: notebooks 02 and 07.*

# %%
src = cuda_source("elementwise.cuh")
i = src.index("#if defined(CGL_PDL) &&")
print(src[i:src.index("#endif", i) + len("#endif")])
print(next(line for line in src.splitlines() if line.startswith("#define CGL_BEGIN()")))

# %% [markdown]
# ## Predict
# Each kernel waits (`griddepcontrol.wait`) before touching memory. Can PDL change the results? How much time per
# kernel can it save?

# %% [gpu sm90] compiles the PDL kernels and makes the chain
from cugraphlab.experiment import PdlChain
pdl = PdlChain(dev, n=1 << 16)  # the chain's buffers; launches with a programmatic LaunchConfig
print(pdl.describe())

# %% [markdown]
# ## Run: cuLaunchKernelEx with the programmatic attribute, written out

# %% [gpu sm90] launches the chain once through cuLaunchKernelEx, then captures it
s = pdl.stream.handle
pdl.chain.randomize(); pdl.chain.poison()
for L in pdl.launches:
    cfg = d.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = L.config.grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = L.config.block
    cfg.sharedMemBytes, cfg.hStream = 0, s
    attr = d.CUlaunchAttribute()
    attr.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attr.value.programmaticStreamSerializationAllowed = 1
    cfg.attrs, cfg.numAttrs = [attr], 1
    cu("cuLaunchKernelEx", cfg, L.kernel.handle, L.args.address, 0)
cu("cuStreamSynchronize", s)
v_eager = cgl.compare_bits("PDL eager", pdl.chain.out.to_numpy(), pdl.chain.expected())
graph = pdl.capture()  # the same launches, captured (notebook 02)
from cugraphlab.graphs import programmatic_edge_count
print(f"captured: {graph.node_count} kernel nodes, {programmatic_edge_count(graph)} programmatic edges")
show_graph(graph, "the PDL chain:")

# %% [markdown]
# ## The answer, graded

# %% [gpu sm90] checks the eager and graph PDL runs bit for bit
v_graph = pdl.verify("graph")
for v in (v_eager, v_graph):
    print(v)
    assert v.ok, f"PDL changed the results: {v}"
assert programmatic_edge_count(graph) == 3, "4 programmatic launches in a row give 3 programmatic edges"
graph.close()

# %% [markdown]
# ## Measure: plain against PDL, eager and graph
# `bench.measure_pdl`: every variant (plain and PDL launches, eagerly and as graphs, and a graph of "PDL early"
# kernels that load what they can before the wait) interleaved per repeat, each verified (small repeats here).

# %% [gpu sm90] measures every variant (3 repeats of 500 iterations) and the saving per programmatic edge
from cugraphlab.bench import measure_pdl
res = measure_pdl(dev, size=1 << 16, iters=500, repeats=3)
for var in res.variants:
    print(f"{var.name:16s} {var.wall_us_per_iter.median:7.2f} us/iter wall  {var.device_us_per_iter.median:7.2f} "
          f"us/iter device  {'bit-exact' if var.verified else 'FAILED'}")
assert all(var.verified for var in res.variants), "a PDL variant gave wrong results"
dv = {var.name: var.device_us_per_iter.median for var in res.variants}
wall = {var.name: var.wall_us_per_iter.median for var in res.variants}
if "plain graph" in dv and "PDL graph" in dv:  # a graph of one iteration holds 3 programmatic edges
    print(f"graph: PDL saves {(dv['plain graph'] - dv['PDL graph']) / 3:.2f} us per programmatic edge "
          f"(3 per iteration: the graph's four kernels)")
if "plain eager" in dv and "PDL eager" in dv:  # a stream of PDL launches: 4 per iteration (the next iteration's too)
    bound = wall["plain eager"] > 1.5 * wall.get("plain graph", float("inf"))
    print(f"eager: plain cuLaunchKernel against PDL cuLaunchKernelEx differ by "
          f"{dv['plain eager'] - dv['PDL eager']:.2f} us per iteration (4 programmatic dependencies per iteration in "
          f"a stream); " + ("the loop is host-bound (its wall time per iteration is well above the graph's): the "
                            "GPU waits for the calls, PDL cannot shorten those gaps, so this is no PDL saving"
                            if bound else "the loop is not host-bound here"))
fig, ax = new_figure(7, 3)
ax.bar(list(dv), list(dv.values()), color=["tab:blue" if "PDL" in k else "tab:gray" for k in dv])
ax.set_ylabel("device us per iteration"); ax.tick_params(axis="x", labelsize=7); show_figure(fig)

# %% [markdown]
# ## On the H200: PDL in the chain's floor
# The committed floor study's record (`benchmarks/studies/floor`): the chain's graph per iteration, plain against
# PDL, and the saving per programmatic edge (a paired difference), at 2^20 and 1,024 floats (µs).

# %% [record] PDL against plain graphs on the H200
show_record("floor", "rows:", r"re:^ *(1048576|1024)  (graph_iter|pdl_graph_iter|pdl_saving) ", part=("floor",),
            within="rows:")

# %% [markdown]
# ## What it means
# The results are those of serialized launches: each kernel waits before reading its predecessor's output. Only
# the launch work overlaps, so the saving is bounded by the gap between kernels: about half a microsecond per
# programmatic edge in the graphs of the record (the cell above prints this GPU's). In an eager loop the host's
# calls set the pace: the GPU waits for each launch, and PDL cannot shorten those waits, so a difference between
# plain and PDL eager launches is the calls' (`cuLaunchKernel` against `cuLaunchKernelEx`), not PDL's; the cell
# above says whether its eager loop was host-bound. PDL shows when kernels are short and come from a graph; for
# long kernels it is a small part of the time.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · Where the instructions go (no GPU needed)
# Compile the chain's `add` kernel (`cuda_source("add.cu")`, which includes `elementwise.cuh`: pass it in
# `headers={"elementwise.cuh": cuda_source("elementwise.cuh")}`) with `options=("-DCGL_PDL",)` to PTX, once for
# `sm_90` and once for `sm_80`, and put the two PTX texts in `pdl_ptx = {"sm_90": ..., "sm_80": ...}`. The check:
# sm_90 has `griddepcontrol.launch_dependents` before `griddepcontrol.wait`; sm_80 has neither.

# %% [exercise 1]
pdl_ptx = None

# %% [check 1] the trigger then the wait on sm_90, nothing on sm_80
def _check1(ptx):
    p90, p80 = ptx["sm_90"], ptx["sm_80"]
    i, j = p90.find("griddepcontrol.launch_dependents"), p90.find("griddepcontrol.wait")
    ok = 0 <= i < j and "griddepcontrol" not in p80
    return ok, f"sm_90: trigger at {i}, wait at {j}; sm_80 mentions griddepcontrol: {'griddepcontrol' in p80}"
grade(1, pdl_ptx, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · Many PDL launches back to back (GPU, sm_90)
# Write `pdl_many(iterations)`: it launches the PDL chain (`pdl.launches`, through `cuLaunchKernelEx` as above)
# `iterations` times in a row without waiting in between, then waits once and returns the output (a NumPy array).
# The check gives the chain fresh inputs and a poisoned output, calls `pdl_many(100)`, and compares bit for bit
# (each iteration rewrites the same buffers from the same inputs, and every kernel waits for its predecessor
# before touching memory): a function that launches nothing returns the poison.

# %% [exercise 2]
pdl_many = None

# %% [check 2 gpu sm90] 100 overlapping iterations on fresh inputs and a poisoned output, bit for bit
def _check2(f):
    pdl.chain.randomize(); pdl.chain.poison()
    v = cgl.compare_bits("100 PDL iterations", np.asarray(f(100)), pdl.chain.expected())
    return v.ok, str(v)
grade(2, pdl_many, _check2)

# %% [markdown]
# ## Change this and run again
# Run `res = measure_pdl(dev, size=1 << 22, iters=200, repeats=3)`. Does the saving per iteration stay the
# same as the kernels get longer? Why?

# %% [gpu sm90] frees what this notebook made
pdl.close()
print("closed")
