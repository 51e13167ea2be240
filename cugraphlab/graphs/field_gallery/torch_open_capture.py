"""PyTorch: capture_begin by hand, an exception before capture_end, and the capture stays open.

Thread: NVIDIA/cuda-python PR #1235 (review: "If an exception is thrown during graph capture, control can easily
escape without making a call to gb.end_building. That leaves the surrounding code in an unexpected state
(capturing on)"). Here the later torch.cuda.synchronize() is what fails, far from the real cause.
Fix: with torch.cuda.graph(g): ... ends the capture on any exit (and check the inputs before capturing).
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch


def step(torch, x, w):
    if x.shape[-1] != w.shape[0]:
        raise ValueError(f"shape mismatch: {tuple(x.shape)} @ {tuple(w.shape)}")  # doctor: here
    return x * w.sum()


def main() -> None:
    torch = need_torch()
    xh = inputs(1024)
    x = torch.from_numpy(xh).cuda()
    w_bad, w = torch.ones(7, device="cuda"), torch.ones(1024, device="cuda")
    out = torch.empty_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(step(torch, x, w))
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    if fixed():
        with torch.cuda.graph(g):  # doctor: capture
            out.copy_(step(torch, x, w))
    else:
        with torch.cuda.stream(side):
            g.capture_begin()  # doctor: capture
            try:
                out.copy_(step(torch, x, w_bad))
                g.capture_end()
            except ValueError as e:
                print("step failed, skipped:", e)
        torch.cuda.synchronize()
        return
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x * 1024", out.cpu().numpy(), xh * np.float32(1024))


if __name__ == "__main__":
    main()
