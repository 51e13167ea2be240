"""PyTorch: a loss read with .item() inside torch.cuda.graph.

Thread: Lightning-AI/lightning-thunder#727, "Tensor.item should be disallowed in the CUDA Graphs region"
(RuntimeError: CUDA error: operation not permitted when stream is capturing). Fix: keep the value on the device
and read it after g.replay().
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x, out = torch.from_numpy(xh).cuda(), torch.empty(4096, device="cuda")
    total = torch.empty((), device="cuda")
    warm_up(torch, lambda: out.copy_(x * 2.0))  # on a side stream, as PyTorch's docs ask
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
