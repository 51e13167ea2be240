# %% [solution 1 gpu] captures the chain twice in one capture and replays it once
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for _ in range(2):
    for L in chain.launches:
        cu("cuLaunchKernel", *L.call_args)
twice = Graph(dev, cu("cuStreamEndCapture", s))
with twice.instantiate() as e2:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", e2.handle, s); cu("cuStreamSynchronize", s)
twice_out = chain.out.to_numpy()

# %% [solution 2 gpu] the chain with scalar 3.0, captured and replayed once
chain3 = cgl.Chain(dev, n=N, scalar=3.0)
g3 = chain3.capture()
with g3.instantiate() as e3:
    chain3.poison()
    cu("cuGraphLaunch", e3.handle, chain3.stream.handle); cu("cuStreamSynchronize", chain3.stream.handle)
scaled_out = chain3.out.to_numpy()
g3.close(); chain3.close()  # its inputs (x_host, y_host) stay readable for the check
