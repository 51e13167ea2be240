"""PyTorch: a loss read with .item() inside torch.cuda.graph.

Thread: Lightning-AI/lightning-thunder#727, "Tensor.item should be disallowed in the CUDA Graphs region"
(RuntimeError: CUDA error: operation not permitted when stream is capturing). Fix: keep the value on the device
and read it after g.replay().
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x, out = torch.from_numpy(xh).cuda(), torch.empty(4096, device="cuda")
    total = torch.empty((), device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up on a side stream, as PyTorch's docs ask
        out.copy_(x * 2.0)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        out.copy_(x * 2.0)
        total.copy_(out.sum())
        if not fixed():
            print("loss", total.item())  # doctor: here
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x * 2", out.cpu().numpy(), xh * np.float32(2))
    print("loss after the replay:", total.item())


if __name__ == "__main__":
    main()
