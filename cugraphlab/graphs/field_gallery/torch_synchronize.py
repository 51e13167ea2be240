"""PyTorch: torch.cuda.synchronize() inside the capture.

Thread: pytorch/pytorch PR #63269 (the CUDA graphs API and its documentation: "Ops that synchronize the CPU with
the GPU are prohibited" during capture). Fix: synchronize after g.replay().
"""

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    xh, yh = inputs(4096), inputs(4096)
    x, y = torch.from_numpy(xh).cuda(), torch.from_numpy(yh).cuda()
    out = torch.empty_like(x)
    warm_up(torch, lambda: out.copy_(x + y))  # on a side stream, as PyTorch's docs ask
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        out.copy_(x + y)
        if not fixed():
            torch.cuda.synchronize()  # doctor: here
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x + y", out.cpu().numpy(), xh + yh)


if __name__ == "__main__":
    main()
