# %% [solution 1 gpu] without the free of t3: the second launch refused; with AUTO_FREE_ON_LAUNCH: two launches
gx = Graph(dev)
b1, u1 = alloc(gx, [])
na = kernel(gx, "add", ("ptr", "ptr", "ptr", "u64"), (u1, chain.x, chain.y, n), [b1])
b2, u2 = alloc(gx, [na])
nm = kernel(gx, "mul", ("ptr", "ptr", "f32", "u64"), (u2, u1, 2.0, n), [b2])
fr1 = free(gx, u1, [nm])
b3, u3 = alloc(gx, [fr1])
ns = kernel(gx, "sub", ("ptr", "ptr", "ptr", "u64"), (u3, u2, chain.y, n), [b3])
free(gx, u2, [ns])
kernel(gx, "relu", ("ptr", "ptr", "u64"), (chain.out, u3, n), [ns])  # and no free node for u3
ex = gx.instantiate()
cu("cuGraphLaunch", ex.handle, s); cu("cuStreamSynchronize", s)
try:
    cu("cuGraphLaunch", ex.handle, s)
    second_error = "CUDA_SUCCESS"
except CudaError as e:
    second_error = e.name
print("second launch:", second_error)
cu("cuMemFreeAsync", d.CUdeviceptr(u3), s); cu("cuStreamSynchronize", s)  # what the first launch left
ex.close()  # one executable of a graph with memory nodes at a time
auto_free = int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
ea = GraphExec(dev, cu("cuGraphInstantiate", gx.handle, auto_free))
chain.randomize(); chain.poison()
for _ in range(2):
    cu("cuGraphLaunch", ea.handle, s)  # the second frees what the first left, then runs
cu("cuStreamSynchronize", s)
autofree_out = chain.out.to_numpy()
cu("cuMemFreeAsync", d.CUdeviceptr(u3), s); cu("cuStreamSynchronize", s)
ea.close(); gx.close()

# %% [solution 2 gpu] t3 allocated right after add, while t1 is alive
go = Graph(dev)
o1, v1 = alloc(go, [])
oa = kernel(go, "add", ("ptr", "ptr", "ptr", "u64"), (v1, chain.x, chain.y, n), [o1])
o2, v2 = alloc(go, [oa])
o3, v3 = alloc(go, [oa])  # before t1 is freed
om = kernel(go, "mul", ("ptr", "ptr", "f32", "u64"), (v2, v1, 2.0, n), [o2])
free(go, v1, [om])
osub = kernel(go, "sub", ("ptr", "ptr", "ptr", "u64"), (v3, v2, chain.y, n), [o3, om])
free(go, v2, [osub])
orelu = kernel(go, "relu", ("ptr", "ptr", "u64"), (chain.out, v3, n), [osub])
free(go, v3, [orelu])
with go.instantiate() as eo:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", eo.handle, s); cu("cuStreamSynchronize", s)
overlap_addresses, overlap_out = (v1, v3), chain.out.to_numpy()
go.close()
