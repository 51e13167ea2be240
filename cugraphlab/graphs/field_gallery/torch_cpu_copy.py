"""PyTorch: a device-to-host copy (.cpu()) inside the capture.

Thread: csarofeen/pytorch#2098, "CudaGraph Capturing failures on _to_copy() operations". .cpu() copies and waits
for the copy. Fix: copy into a pinned host tensor with non_blocking=True inside the capture; read it after the
replay has been synchronized.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x = torch.from_numpy(xh).cuda()
    out = torch.empty_like(x)
    pinned = torch.empty(4096, pin_memory=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x * 4.0)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        out.copy_(x * 4.0)
        if fixed():
            pinned.copy_(out, non_blocking=True)
        else:
            host = out.cpu()  # doctor: here
            pinned.copy_(host)
    pinned.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x * 4 in pinned memory", pinned.numpy(), xh * np.float32(4))


if __name__ == "__main__":
    main()
