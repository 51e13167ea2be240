# %% [solution 1 gpu] an allocation inside a capture, then a stream-ordered one
from cugraphlab.graphs import alloc_async, free_async
alloc_ways, made = {}, []
case = capture(chain.stream, explain=True)
try:
    with case:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        made.append(dev.array(1 << 20))  # cuMemAlloc: not a stream operation
except cgl.CugraphlabError as e:
    print(f"cuMemAlloc: {type(e).__name__} {getattr(e, 'name', '')}")
alloc_ways["cuMemAlloc"] = None if case.diagnosis.first is None else case.diagnosis.first.kind
if case.graph is not None:
    case.graph.close()
for arr in made:
    arr.close()
ordered = capture(chain.stream, explain=True)
with ordered:
    cu("cuLaunchKernel", *chain.launches[0].call_args)
    scratch = alloc_async(chain.stream, 1 << 22)  # an alloc node; the address is usable by work captured after it
    free_async(chain.stream, scratch)             # a free node
alloc_ways["cuMemAllocAsync"] = None if ordered.diagnosis.first is None else ordered.diagnosis.first.kind
async_graph = ordered.graph
print(alloc_ways, async_graph.node_kinds())

# %% [solution 2 gpu] forks two streams, joins only the first
second = dev.create_stream()
branch2 = ks["empty"].prepare((), (), ((1,), (1,)), second)
case2 = capture(chain.stream, explain=True)
try:
    with case2:
        cu("cuLaunchKernel", *chain.launches[0].call_args)
        cu("cuEventRecord", ev_fork.handle, s)
        cu("cuStreamWaitEvent", side.handle, ev_fork.handle, 0)
        cu("cuStreamWaitEvent", second.handle, ev_fork.handle, 0)
        cu("cuLaunchKernel", *branch.call_args)   # on the first side stream
        cu("cuLaunchKernel", *branch2.call_args)  # on the second
        cu("cuEventRecord", ev_join.handle, side.handle)
        cu("cuStreamWaitEvent", s, ev_join.handle, 0)  # only the first flows back
except CaptureError as e:
    print(f"CaptureError {e.name}")
left_behind = case2.diagnosis.first
print(left_behind.line())
