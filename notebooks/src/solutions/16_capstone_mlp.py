# %% [solution 1]
def idle_threads(rows, cols):
    gx, gy = (cols + 15) // 16, (rows + 15) // 16  # as `tiles` does: each dimension rounded up separately
    return gx * gy * 16 * 16 - rows * cols

# %% [solution 2 gpu] points the second matmul at halved weights, runs a step, points it back
W2half = dev.to_device((W2h * np.float32(0.5)).ravel())
half_mm = k_mm.prepare(MM, (out, h, W2half, B, HID, OUT), tiles(B, OUT), stream)
cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[3], kernel_node_params(half_mm))
cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[0], first_params[0])
h.poison(); out.poison()
cu("cuGraphLaunch", exe.handle, s); cu("cuStreamSynchronize", s)
halved_out = out.to_numpy().reshape(B, OUT)
cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[3], kernel_node_params(eager[0][3]))
W2half.close()
