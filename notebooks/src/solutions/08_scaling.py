# %% [solution 1]
def fit_line(nodes, us):
    nodes, us = np.asarray(nodes, dtype=float), np.asarray(us, dtype=float)
    keep = nodes >= 64  # where the cost is a straight line
    A = np.column_stack([np.ones(keep.sum()), nodes[keep]])
    (a, b), *_ = np.linalg.lstsq(A, us[keep], rcond=None)
    return a, b

# %% [solution 2 gpu] a fork/join of 4 branches of 16 adds, each into its own buffer
sides = [dev.create_stream() for _ in range(4)]
bufs = [dev.array(n) for _ in range(4)]
fork = dev.create_event(timing=False)
joins = [dev.create_event(timing=False) for _ in range(4)]
firsts = [chain.kernels["add"].prepare(SIG, (b_, chain.x, chain.y, n), chain.config, st_) for b_, st_ in zip(bufs, sides)]
steps = [chain.kernels["add"].prepare(SIG, (b_, b_, chain.y, n), chain.config, st_) for b_, st_ in zip(bufs, sides)]
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuEventRecord", fork.handle, s)
for k_ in range(4):
    side_ = sides[k_].handle
    cu("cuStreamWaitEvent", side_, fork.handle, 0)  # fork: this stream joins the capture
    cu("cuLaunchKernel", *firsts[k_].call_args)
    for _ in range(15):
        cu("cuLaunchKernel", *steps[k_].call_args)
    cu("cuEventRecord", joins[k_].handle, side_)
    cu("cuStreamWaitEvent", s, joins[k_].handle, 0)  # join: back into s
branches = Graph(dev, cu("cuStreamEndCapture", s))
with branches.instantiate() as eb:
    chain.randomize()
    for b_ in bufs:
        b_.poison(chain.stream)
    cu("cuGraphLaunch", eb.handle, s); cu("cuStreamSynchronize", s)
branch_outs = [b_.to_numpy() for b_ in bufs]
