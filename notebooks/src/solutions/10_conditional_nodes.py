# %% [solution 1]
def while_runs(default, limit):
    # the value is tested before every iteration: 0 at the launch runs nothing; 1 runs the body, which then
    # keeps going while count < limit (so at least once)
    return 0 if default == 0 else max(limit, 1)

# %% [solution 2 gpu cuda12.3] the WHILE graph with a default value of 0
g0 = Graph(dev)
reset0 = add_memset_node(g0, state, 0)
h0 = cu("cuGraphConditionalHandleCreate", g0.handle, ctx, 0, int(d.CU_GRAPH_COND_ASSIGN_DEFAULT))
p0 = d.CUgraphNodeParams()
p0.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
p0.conditional.handle = h0
p0.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
p0.conditional.size = 1
p0.conditional.ctx = ctx
add_node(g0.handle, [reset0], p0)
body0 = p0.conditional.phGraph_out[0]
last0 = add_launch_sequence(body0, chain.launches, ctx=ctx)[-1]
add_kernel_node(body0, ck["conditional"].prepare(("u64", "ptr", "u64", "i32"), (int(h0), state, NITER, 1), (1, 32),
                                                 chain.stream), [last0], ctx=ctx)
with g0.instantiate() as e0:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", e0.handle, chain.stream.handle); cu("cuStreamSynchronize", chain.stream.handle)
zero_count = int(state.to_numpy()[:2].view(np.uint64)[0])
zero_out = chain.out.to_numpy()
g0.close()

# %% [solution 3 gpu cuda12.8] cond_if_flag(h, flag) -> IF(h, 2 bodies), each body a memset of its mark
flag, taken = dev.array(1, "uint32"), dev.array(1, "uint32")
gi = Graph(dev)
hi = cu("cuGraphConditionalHandleCreate", gi.handle, ctx, 0, 0)  # no default: cond_if_flag sets it every launch
if_flag = ck.modules["conditional"].kernel("cond_if_flag")
setter_i = add_kernel_node(gi, if_flag.prepare(("u64", "ptr"), (int(hi), flag), (1, 32), chain.stream))
pi = d.CUgraphNodeParams()
pi.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
pi.conditional.handle = hi
pi.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
pi.conditional.size = 2  # IF and ELSE
pi.conditional.ctx = ctx
add_node(gi.handle, [setter_i], pi)
if_body, else_body = tuple(pi.conditional.phGraph_out[:2])
add_memset_node(if_body, taken, 1, ctx=ctx)
add_memset_node(else_body, taken, 2, ctx=ctx)
marks = []
with gi.instantiate() as ei:
    for value in (1, 0):
        flag.copy_from(np.array([value], dtype=np.uint32)); taken.poison()
        cu("cuGraphLaunch", ei.handle, chain.stream.handle); chain.stream.synchronize()
        marks.append(int(taken.to_numpy()[0]))
if_else_marks = tuple(marks)
for o in (gi, flag, taken):
    o.close()
