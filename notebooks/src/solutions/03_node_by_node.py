# %% [solution 1 gpu] adds the four nodes without dependencies, then the three edges
late_edges = Graph(dev)
late = [cu("cuGraphAddKernelNode", late_edges.handle, None, 0, kernel_params(L)) for L in chain.launches]
for before, after in zip(late, late[1:]):
    if d.CUDA_VERSION >= 13000:  # CUDA 13: an edge-data list (None: plain edges) before the count
        cu("cuGraphAddDependencies", late_edges.handle, [before], [after], None, 1)
    else:  # cuda-bindings 12.x: (graph, from, to, count)
        cu("cuGraphAddDependencies", late_edges.handle, [before], [after], 1)

# %% [solution 2 gpu] sets mul's scalar to 3.0 before its node is added
chain.launches[1].args.set(2, 3.0)
g2 = Graph(dev)
dep = []
for L in chain.launches:
    dep = [cu("cuGraphAddKernelNode", g2.handle, dep or None, len(dep), kernel_params(L))]
chain.launches[1].args.set(2, 2.0)  # the node keeps 3.0
with g2.instantiate() as e2:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", e2.handle, s); cu("cuStreamSynchronize", s)
scalar_out = chain.out.to_numpy()
g2.close()
