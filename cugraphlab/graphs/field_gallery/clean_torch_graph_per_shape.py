"""A correct PyTorch program: one graph per input size, captured once each in one loop, each replayed many times.

The pattern of a graph cache keyed by batch size (torch.compile's "reduce-overhead" mode keeps one per shape;
pytorch/pytorch#171672 is what goes wrong when it misses on every call). The names ``g``, ``static_x`` and ``out``
are bound anew at each capture while the earlier graphs and their tensors live on in the cache: the replay watch must
flag no re-capture (3 captures, 18 replays at the site) and no stale input. The doctor must find nothing.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, inputs, need_torch


def main() -> None:
    torch = need_torch()
    cache = {}
    for n in (1024, 2048, 4096):
        static_x, out = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up on a side stream
            out.copy_(static_x * 3.0)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):  # doctor: capture
            out.copy_(static_x * 3.0)
        cache[n] = (g, static_x, out)
    for step in range(6):
        for n, (g, static_x, out) in cache.items():
            xh = inputs(n)
            static_x.copy_(torch.from_numpy(xh))
            out.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            check(f"step {step}, {n} floats: x * 3", out.cpu().numpy(), xh * np.float32(3))


if __name__ == "__main__":
    main()
