# %% [solution 1]
def forkjoin_counts(K, L):
    return K * L + 1, K * (L - 1) + K  # K lines of L nodes, and the final node after each line's last

# %% [solution 2 gpu] three chains in parallel, then final = a + b and final = final + c3
c3 = cgl.Chain(dev, n=N, kernels=a.kernels)
join3 = dev.create_event(timing=False)
add_c3 = a.kernels["add"].prepare(("ptr", "ptr", "ptr", "u64"), (final, final, c3.out, N), a.config, a.stream)
s3 = c3.stream.handle
cu("cuStreamBeginCapture", sa, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
cu("cuEventRecord", fork_ev.handle, sa)
cu("cuStreamWaitEvent", sb, fork_ev.handle, 0)
cu("cuStreamWaitEvent", s3, fork_ev.handle, 0)
for chain_ in (a, b, c3):
    for L in chain_.launches:
        cu("cuLaunchKernel", *L.call_args)  # each on its own stream
cu("cuEventRecord", join_ev.handle, sb); cu("cuStreamWaitEvent", sa, join_ev.handle, 0)
cu("cuEventRecord", join3.handle, s3); cu("cuStreamWaitEvent", sa, join3.handle, 0)
cu("cuLaunchKernel", *join_add.call_args)  # final = a.out + b.out
cu("cuLaunchKernel", *add_c3.call_args)    # final = final + c3.out
three = Graph(dev, cu("cuStreamEndCapture", sa))
with three.instantiate() as e3:
    for chain_ in (a, b, c3):
        chain_.randomize(); chain_.poison()
    final.poison()
    cu("cuGraphLaunch", e3.handle, sa); cu("cuStreamSynchronize", sa)
three_out = final.to_numpy()
