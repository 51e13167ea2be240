# %% [solution 1 gpu] points mul's node at the scalar -0.5, the rest unchanged
half = chain_launches(*bufs_b, -0.5)
cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[1], kernel_node_params(half[1]))
chain.poison()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
half_out = chain.out.to_numpy()

# %% [solution 2 gpu] captures the launches with mul first and tries the update
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for L in (launches_b[1], launches_b[0], launches_b[2], launches_b[3]):
    cu("cuLaunchKernel", *L.call_args)
g_reordered = Graph(dev, cu("cuStreamEndCapture", s))
report = try_exec_update(exe, g_reordered)
reordered = (False, report)  # predicted: updated (the nodes pair up by kind and position: four kernels in a line)
print(f"updated: {report.updated} ({report.result})")
