"""A correct PyTorch program: a graph replayed, dropped when the input size changes, captured again and replayed.

A legitimate re-capture (a new shape, pytorch/pytorch#171672's fix done right: capture once per shape change, not
per iteration), all in one function. On the H200 the replay watch itself broke the second capture of such a loop
(its read of the function's locals freed the dropped graph inside the next capture, which invalidated it); here the
old graph is freed before the new capture begins. 2 captures, 16 replays: no re-capture flagged, no finding.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, inputs, need_torch


def main() -> None:
    torch = need_torch()
    g = None
    for n in (2048, 4096):
        static_x, out = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up on a side stream
            out.copy_(static_x * 2.0)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()  # the previous size's graph is dropped here
        with torch.cuda.graph(g):  # doctor: capture
            out.copy_(static_x * 2.0)
        for step in range(8):
            xh = inputs(n)
            static_x.copy_(torch.from_numpy(xh))
            out.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            check(f"{n} floats, step {step}: x * 2", out.cpu().numpy(), xh * np.float32(2))


if __name__ == "__main__":
    main()
