# %% [markdown]
# # 08 · Programmatic dependent launch (sm_90+)
#
# *Programming Guide, "Programmatic Dependent Launch and Synchronization".* Between two kernels on a stream the GPU
# normally drains the first grid before it starts launching the second. With PDL the next kernel may start
# launching while this one finishes:
#
#     kernel (compiled with -DCGL_PDL):  griddepcontrol.launch_dependents   # my successor may start launching
#                                        griddepcontrol.wait                # wait until my predecessor is done
#     host: cuLaunchKernelEx(config, f, args, 0) with the launch attribute
#           CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1
#
# Captured into a graph, such launches become kernel nodes joined by **programmatic edges**.

# %% [markdown]
# ## Predict
# Each kernel waits (`griddepcontrol.wait`) before touching memory. Can PDL change the results? How much time per
# kernel can it save?

# %% [gpu sm90] compiles the PDL kernels and makes the chain
pdl = cgl.PdlChain(dev, n=1 << 16)  # the chain's buffers; launches with a programmatic LaunchConfig
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
# `bench.measure_pdl`: the four variants interleaved per repeat, each verified (small repeats here).

# %% [gpu sm90] measures plain and PDL launches (3 repeats of 500 iterations)
res = cgl.measure_pdl(dev, size=1 << 16, iters=500, repeats=3)
for var in res.variants:
    print(f"{var.name:12s} {var.wall_us_per_iter.median:7.2f} us/iter wall  {var.device_us_per_iter.median:7.2f} "
          f"us/iter device  {'bit-exact' if var.verified else 'FAILED'}")
assert all(var.verified for var in res.variants), "a PDL variant gave wrong results"
fig, ax = new_figure(6.5, 3)
ax.bar([var.name for var in res.variants], [var.device_us_per_iter.median for var in res.variants],
       color=["tab:gray", "tab:blue", "tab:gray", "tab:blue"])
ax.set_ylabel("device us per iteration"); show_figure(fig)

# %% [markdown]
# ## What it means
# The results are those of serialized launches: each kernel waits before reading its predecessor's output. Only
# the launch work overlaps, so the saving is bounded by the gap between kernels (a fraction of a microsecond per
# kernel), visible when kernels are short.
#
# ## Change this and run again
# Run `res = cgl.measure_pdl(dev, size=1 << 22, iters=200, repeats=3)`. Does the saving per iteration stay the
# same as the kernels get longer? Why?

# %% [gpu sm90] frees what this notebook made
pdl.close()
print("closed")
