# %% [solution 1 gpu] updates an executable of the old capture from a capture with the scalar 5.0
old_graph = chain.capture()  # mul's node: 2.0
old_exe = old_graph.instantiate()
chain.launches[1].args.set(2, 5.0)
new_graph = chain.capture()  # mul's node: 5.0
print("cuGraphExecUpdate:", try_exec_update(old_exe, new_graph))
chain.randomize(); chain.poison()
cu("cuGraphLaunch", old_exe.handle, s); cu("cuStreamSynchronize", s)
updated_out = chain.out.to_numpy()
chain.launches[1].args.set(2, 2.0)
for o in (old_exe, old_graph, new_graph):
    o.close()

# %% [solution 2 gpu] the add node pointed at a new buffer with cuGraphExecKernelNodeSetParams
g_moved = chain.capture()
exe_moved = g_moved.instantiate()
add_node = kernel_nodes_in_order(g_moved)[0]  # add, mul, sub, relu
xh_moved = rng.standard_normal(chain.n, dtype=np.float32)
x_moved = dev.to_device(xh_moved)
chain.launches[0].args.set(1, x_moved)  # add reads x_moved ...
cu("cuGraphExecKernelNodeSetParams", exe_moved.handle, add_node, kernel_node_params(chain.launches[0]))
chain.launches[0].args.set(1, chain.x)  # ... in the executable only; the eager launch reads chain.x again
chain.poison()
cu("cuGraphLaunch", exe_moved.handle, s); cu("cuStreamSynchronize", s)
moved_out = chain.out.to_numpy()
exe_moved.close(); g_moved.close()
