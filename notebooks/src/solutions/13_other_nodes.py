# %% [solution 1]
def fewest_edges(stages):
    # every pair directly (a*b) or through one empty node (a + b): 1-to-N and 2-to-2 gain nothing from the node
    return sum(min(a * b, a + b) for a, b in zip(stages, stages[1:]))

# %% [solution 2 gpu] two child-graph nodes of the chain, one after the other
inner2 = chain.capture()
twice_parent = Graph(dev)
first_child = cu("cuGraphAddChildGraphNode", twice_parent.handle, None, 0, inner2.handle)
cu("cuGraphAddChildGraphNode", twice_parent.handle, [first_child], 1, inner2.handle)
inner2.close()  # each node holds its own copy
with twice_parent.instantiate() as et:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", et.handle, s); cu("cuStreamSynchronize", s)
twice_child_out = chain.out.to_numpy()
