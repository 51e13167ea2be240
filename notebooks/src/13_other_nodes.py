# %% [markdown]
# # 09 · Host, event, child-graph and empty nodes
#
# *Programming Guide, "Graph Structure" (node types).* Besides kernels, memset and memcpy: a **host** node runs a
# CPU function between GPU nodes; **event record/wait** nodes order work across graphs; a **child graph** node runs
# a whole graph as one node; an **empty** node joins many edges into one.
#
#     cuGraphAddHostNode(graph, deps, n, CUDA_HOST_NODE_PARAMS{fn, userData})
#     cuGraphAddChildGraphNode(graph, deps, n, child)       # the child is copied into the node
#     cuGraphAddEmptyNode(graph, deps, n)
#     cuGraphAddEventRecordNode(graph, deps, n, event) / cuGraphAddEventWaitNode(graph, deps, n, event)

# %% [markdown]
# ## Predict
# A host node between `mul` and `sub`: does the graph still run on the GPU alone, or does the CPU join in? A child
# graph holding the chain, then the original chain destroyed: does the parent still run?

# %% [gpu] makes the chain
from cugraphlab.graphs import HostCallback, add_launch_sequence, add_memset_node
from cugraphlab.graphs.host import host_node_params
chain = cgl.Chain(dev, n=1 << 16)
s = chain.stream.handle

# %% [markdown]
# ## A host node: add -> mul -> HOST -> sub -> relu
# The host function must outlive every graph and executable that holds it: `HostCallback` owns the C-callable
# trampoline, and the graph is told to keep it (`graph.keep_alive`).

# %% [gpu] builds the chain with a host node and runs it 3 times
cb = HostCallback.python()  # counts its calls
hg = Graph(dev)
first = add_launch_sequence(hg, chain.launches[:2])
host = cu("cuGraphAddHostNode", hg.handle, [first[-1]], 1, host_node_params(cb))
hg.keep_alive(cb)  # the graph (and its executables) now hold the trampoline
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
# Parent: 4 memset nodes (poison every output) -> one EMPTY node -> CHILD(chain). Without the empty node the child
# would need an edge from each memset; with K such groups the empty node saves K x 4 edges.

# %% [gpu] builds memsets -> empty -> child graph, destroys the original chain graph, runs the parent
inner = chain.capture()
parent = Graph(dev)
sets = [add_memset_node(parent, buf, 0x7FC00001) for buf in chain.outs]  # a NaN pattern
join = cu("cuGraphAddEmptyNode", parent.handle, sets, len(sets))
child = cu("cuGraphAddChildGraphNode", parent.handle, [join], 1, inner.handle)
inner.close()  # the node holds its own copy
show_graph(parent, "memsets -> empty -> child:")
pexe = parent.instantiate()
chain.randomize()
cu("cuGraphLaunch", pexe.handle, s); cu("cuStreamSynchronize", s)
v = cgl.compare_bits("child graph", chain.out.to_numpy(), chain.expected())
print(v)
assert v.ok, f"the child-graph parent differs from NumPy: {v}"

# %% [markdown]
# ## The package's checks of every node family
# Event record/wait across two graphs, nesting, clones (`cuGraphClone` + `cuGraphNodeFindInClone`), joins, node
# enable/disable, priorities: each builds its graph, runs it on fresh inputs with poisoned outputs and checks.

# %% [gpu] runs cugraphlab's node checks
results = [f(chain) for f in (cgl.check_events, cgl.check_nested, cgl.check_clone, cgl.check_join,
                              cgl.check_toggle)]
for r in results:
    print(r)
assert all(r.ok for r in results), "a node check failed"

# %% [markdown]
# ## Measure: what the host node costs per launch

# %% [gpu] times the plain chain graph against the one with a host node (device clock)
from cugraphlab.bench import timed_loop, summarize
plain = chain.graph_exec()
start, end = dev.create_event(), dev.create_event()
res = {}
for name, e in (("chain graph", plain.handle), ("with host node", hexe.handle)):
    run = lambda k, e=e: [cu("cuGraphLaunch", e, s) for _ in range(k)]
    run(20)
    res[name] = summarize([timed_loop(chain.stream, run, 200, start, end)[1] for _ in range(3)],
                          unit="us", clock="cuEventElapsedTime").median
    print(f"{name:16s} {res[name]:7.2f} us per launch (device clock)")
fig, ax = new_figure(); ax.bar(list(res), list(res.values()), color=["tab:gray", "tab:olive"])
ax.set_ylabel("device us per launch"); show_figure(fig)

# %% [markdown]
# ## On the H200: what host nodes, disabled nodes and priorities cost
# The committed `cugraphlab nodes` record, drawn without a GPU.

# %% [record] node costs on the H200
from cugraphlab.report.nodes import render_nodes
rec = h200_record("nodes")
if rec is not None:
    print(render_nodes(rec))

# %% [markdown]
# ## What it means
# A host node makes the GPU wait for a CPU thread of the driver: tens of microseconds, against a few for the
# kernels. The child graph is copied into its node, so the original can go. Empty nodes cost nearly nothing and
# keep the edge count linear.
#
# ## Change this and run again
# Move the host node to the front (`deps=[]`, and `add` after it). Does the cost per launch change? Why not?

# %% [gpu] frees what this notebook made
for o in (hexe, hg, pexe, parent, start, end, cb, chain):
    o.close()
print("closed")
