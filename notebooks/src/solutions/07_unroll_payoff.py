# %% [solution 1]
import math
def break_even(setup_us, eager_us, graph_us):
    saved = eager_us - graph_us
    return None if saved <= 0 else math.ceil(setup_us / saved)

# %% [solution 2 gpu] captures eight iterations into one graph and replays it once
cu("cuStreamBeginCapture", s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
for _ in range(8):
    for L in chain.launches:
        cu("cuLaunchKernel", *L.call_args)
eight = Graph(dev, cu("cuStreamEndCapture", s))
with eight.instantiate() as e8:
    chain.randomize(); chain.poison()
    cu("cuGraphLaunch", e8.handle, s); cu("cuStreamSynchronize", s)
eight_out = chain.out.to_numpy()
