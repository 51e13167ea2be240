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

# %% [solution 2 gpu] two chains, an executable of each, on their own streams
ca, cb = cgl.Chain(dev, n=1 << 16), cgl.Chain(dev, n=1 << 16)
exe_a, exe_b = ca.graph_exec(), cb.graph_exec()
for c in (ca, cb):
    c.randomize(); c.poison()
cu("cuGraphLaunch", exe_a.handle, ca.stream.handle)
cu("cuGraphLaunch", exe_b.handle, cb.stream.handle)
ca.stream.synchronize(); cb.stream.synchronize()
side_by_side = (ca.out.to_numpy(), cb.out.to_numpy())
