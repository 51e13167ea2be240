# %% [markdown]
# # 13 · Host, event, child-graph and empty nodes
#
# *Programming Guide, "Graph Structure" (node types).* Besides kernels, memset and memcpy: a **host** node runs a
# CPU function between GPU nodes; **event record/wait** nodes order work across graphs; a **child graph** node runs
# a whole graph as one node; an **empty** node joins many edges into one.
#
#     cuGraphAddHostNode(graph, deps, n, CUDA_HOST_NODE_PARAMS{fn, userData})
#     cuGraphAddChildGraphNode(graph, deps, n, child)       # the child is copied into the node
#     cuGraphAddEmptyNode(graph, deps, n)
#     cuGraphAddEventRecordNode(graph, deps, n, event) / cuGraphAddEventWaitNode(graph, deps, n, event)
#
# *Prerequisites: notebooks 03 and 04.*

# %% [markdown]
# ## Predict
# A host node between `mul` and `sub`: does the graph still run on the GPU alone, or does the CPU join in? A child
# graph holding the chain, then the original chain destroyed: does the parent still run?

# %% [gpu] makes the chain
from cugraphlab.graphs import HostCallback, add_host_node, add_launch_sequence, add_memset_node
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle

# %% [markdown]
# ## A host node: add -> mul -> HOST -> sub -> relu
# The host function must outlive every graph and executable that holds it: `HostCallback` owns the C-callable
# trampoline (its address is `CUDA_HOST_NODE_PARAMS.fn`, its counter `userData`), and `graphs.add_host_node` makes
# the `cuGraphAddHostNode` call and tells the graph to keep the trampoline alive.

# %% [gpu] builds the chain with a host node and runs it 3 times
cb = HostCallback.python()  # counts its calls
hg = Graph(dev)
first = add_launch_sequence(hg, chain.launches[:2])
host = add_host_node(hg, cb, [first[-1]])  # cuGraphAddHostNode(hg, [mul], 1, {fn, userData})
add_launch_sequence(hg, chain.launches[2:], [host])
show_graph(hg, "with a host node:")
hexe = hg.instantiate()
chain.randomize(); chain.poison()
for _ in range(3):
    cu("cuGraphLaunch", hexe.handle, s)
cu("cuStreamSynchronize", s)
v = cgl.compare_bits("host node graph", chain.out.to_numpy(), chain.expected())
print(f"host function called {cb.calls} times for 3 launches; {v}")
assert cb.calls == 3 and v.ok, f"host node: {cb.calls} calls, {v}"

# %% [markdown]
# ## A child graph and an empty join
# Parent: 4 memset nodes (poison every output) -> one EMPTY node -> CHILD(chain). Here the empty node adds an edge:
# 4 memsets -> empty -> child is 5 edges, where 4 memsets -> child would be 4. An empty node pays in an M-to-N
# join: M producers that all feed N consumers need M·N edges directly, M + N through one empty node (exercise 1
# asks when that is fewer).

# %% [gpu] builds memsets -> empty -> child graph, destroys the original chain graph, runs the parent
inner = chain.capture()
parent = Graph(dev)
sets = [add_memset_node(parent, buf, 0x7FC00001) for buf in chain.outs]  # a NaN pattern
join = cu("cuGraphAddEmptyNode", parent.handle, sets, len(sets))
child = cu("cuGraphAddChildGraphNode", parent.handle, [join], 1, inner.handle)
inner.close()  # the node holds its own copy
show_graph(parent, "memsets -> empty -> child:")
print(f"{parent.node_count} nodes, {len(parent.edges())} edges")
pexe = parent.instantiate()
chain.randomize()
cu("cuGraphLaunch", pexe.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("child graph", chain.out.to_numpy(), chain.expected())
print(v)
assert v.ok, f"the child-graph parent differs from NumPy: {v}"

# %% [markdown]
# ## The package's checks of every node family
# Event record/wait across two graphs, nesting, clones (`cuGraphClone` + `cuGraphNodeFindInClone`), joins, node
# enable/disable: each builds its graph, runs it on fresh inputs with poisoned outputs and checks.

# %% [gpu] runs cugraphlab's node checks
from cugraphlab.experiment import check_clone, check_events, check_join, check_nested, check_toggle
results = [f(chain) for f in (check_events, check_nested, check_clone, check_join, check_toggle)]
for r in results:
    print(r)
assert all(r.ok for r in results), "a node check failed"

# %% [markdown]
# ## Measure: what the host node costs per launch

# %% [gpu] times the plain chain graph against the one with a host node (device clock)
from cugraphlab.bench import summarize, timed_loop
plain = chain.graph_exec()
start, end = dev.create_event(), dev.create_event()
res = {}
for name, e in (("chain graph", plain.handle), ("with host node", hexe.handle)):
    run = lambda k, e=e: [cu("cuGraphLaunch", e, s) for _ in range(k)]
    run(20)
    res[name] = summarize([timed_loop(chain.stream, run, 200, start, end)[1] for _ in range(3)],
                          unit="us", clock="cuEventElapsedTime").median
    print(f"{name:16s} {res[name]:7.2f} us per launch (device clock)")
print(f"the host node adds {res['with host node'] - res['chain graph']:.2f} us per launch")
fig, ax = new_figure(); ax.bar(list(res), list(res.values()), color=["tab:gray", "tab:olive"])
ax.set_ylabel("device us per launch"); show_figure(fig)

# %% [markdown]
# ## On the H200: what host nodes and disabled nodes cost
# The committed `cugraphlab nodes` record (2^20 floats), drawn without a GPU.

# %% [record] host nodes and node controls on the H200
show_record("nodes", r"re:^graph, (no host node|host node \((python|c)\)) +\d", "host node gap us",
            r"re:^device per iteration, (mul enabled|mul disabled|no mul node) ")

# %% [markdown]
# ## What it means
# A host node makes the GPU wait for a CPU thread of the driver: in the H200 record, tens of microseconds, against
# a few for the kernels (and far more while another Python thread holds the GIL, in the full record). The child graph is copied
# into its node, so the original can go. An empty node is a node without work: it costs little, and it keeps an
# M-to-N join at M + N edges.
#
# ## Exercises

# %% [markdown exercise 1]
# ### Exercise 1 · When an empty node pays (no GPU needed)
# A graph in stages: `stages = [s0, s1, ...]` nodes, every node of a stage after every node of the stage before.
# Between two stages you may put one empty node (a join), or draw an edge for every pair. Write
# `fewest_edges(stages)`: the fewest edges such a graph needs, choosing for each pair of stages whichever is
# smaller (an empty node is not always worth it).

# %% [exercise 1]
fewest_edges = None  # def fewest_edges(stages): ...

# %% [check 1] the fewest edges for stages of 1 to 6 nodes
def _check1(f):
    cases = [[1, 1], [1, 4], [4, 1], [2, 2], [3, 3], [2, 5, 1, 6], [1, 6, 6, 1], [4, 4, 4, 4], [2, 3, 1, 1, 5]]
    want = {tuple(c): sum(min(a * b, a + b) for a, b in zip(c, c[1:])) for c in cases}
    wrong = [(c, f(list(c)), w) for c, w in want.items() if f(list(c)) != w]
    return not wrong, (f"all {len(cases)} right" if not wrong else
                       f"e.g. fewest_edges({list(wrong[0][0])}) = {wrong[0][1]}, want {wrong[0][2]}")
grade(1, fewest_edges, _check1)

# %% [markdown exercise 2]
# ### Exercise 2 · One child graph, used twice (GPU)
# Make a parent graph of two CHILD nodes of the chain's captured graph, one after the other
# (`cuGraphAddChildGraphNode` twice, the second depending on the first), launch it once on fresh inputs, and put
# the parent Graph in `twice_parent` and the output in `twice_child_out`. The check: two nodes of kind GRAPH and one
# edge, and the output bit-exact (the chain twice is the chain once).

# %% [exercise 2]
twice_parent, twice_child_out = None, None

# %% [check 2 gpu] two GRAPH nodes in a line, bit-exact
def _check2(g):
    kinds = g.node_kinds()
    v = cgl.compare_bits("child twice", np.asarray(twice_child_out), chain.expected())
    return kinds == ["GRAPH", "GRAPH"] and len(g.edges()) == 1 and v.ok, f"nodes {kinds}, {len(g.edges())} edge(s); {v}"
grade(2, twice_parent, _check2)

# %% [markdown]
# ## Change this and run again
# Move the host node to the front (`deps=[]`, and `add` after it). Does the cost per launch change? Why not?

# %% [gpu] frees what this notebook made
for o in (hexe, hg, pexe, parent, start, end, cb, chain):
    o.close()
print("closed")
