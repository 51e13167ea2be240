# %% [solution 1 gpu] captures an allocation under each mode and keeps the first finding's class
alloc_modes = {}
for mode in ("global", "thread_local", "relaxed"):
    case, made = capture(chain.stream, explain=True, mode=mode), []
    try:
        with case:
            cu("cuLaunchKernel", *chain.launches[0].call_args)
            made.append(dev.array(1 << 20))  # the allocation inside the capture
    except cgl.CugraphlabError as e:
        print(f"{mode}: {type(e).__name__} {getattr(e, 'name', '')}")
    found = case.diagnosis.first
    alloc_modes[mode] = None if found is None else found.kind
    if case.graph is not None:
        case.graph.close()
    for arr in made:
        arr.close()
print(alloc_modes)

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
