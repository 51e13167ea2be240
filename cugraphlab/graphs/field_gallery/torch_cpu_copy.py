"""PyTorch: a device-to-host copy (.cpu()) inside the capture.

Thread: csarofeen/pytorch#2098, "CudaGraph Capturing failures on _to_copy() operations". .cpu() copies and waits
for the copy. Fix: copy to the host after the replay (g.replay(), then .cpu()).
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x = torch.from_numpy(xh).cuda()
    out = torch.empty_like(x)
    warm_up(torch, lambda: out.copy_(x * 4.0))  # on a side stream, as PyTorch's docs ask
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        out.copy_(x * 4.0)
        if not fixed():
            host = out.cpu()  # doctor: here
            print(host[:4])
    out.fill_(float("nan"))
    g.replay()
    check("x * 4, copied after the replay", out.cpu().numpy(), xh * np.float32(4))


if __name__ == "__main__":
    main()
