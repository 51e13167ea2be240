"""PyTorch: a data-dependent shape (masked_select) inside the capture.

Thread: pytorch/pytorch#92684, "Crash when using CUDA Graphs and calling" x.masked_select(mask): the op calls
cudaStreamSynchronize to learn its output size, which a capture refuses. Fix: a fixed-shape form (torch.where).
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x = torch.from_numpy(xh).cuda()
    mask = x > 0
    out = torch.empty_like(x)
    warm_up(torch, lambda: out.copy_(torch.where(mask, x, torch.zeros_like(x))))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        if fixed():
            out.copy_(torch.where(mask, x, torch.zeros_like(x)))
        else:
            picked = x.masked_select(mask)  # doctor: here
            out[: picked.numel()].copy_(picked)
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("where(x > 0, x, 0)", out.cpu().numpy(), np.where(xh > 0, xh, np.float32(0)))


if __name__ == "__main__":
    main()
