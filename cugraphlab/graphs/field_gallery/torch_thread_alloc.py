"""PyTorch: a data-loading thread allocates device memory while the main thread captures in 'global' mode.

Thread: pytorch/pytorch PR #174724 ("if a user wants to prevent a pin_memory() call from a data loading thread
from disrupting their stream capture, they use thread_local stream capture mode"). The loader's cudaMalloc (a size
the caching allocator has never served) is refused in global mode and the capture is invalidated.
Fix: torch.cuda.graph(g, capture_error_mode="thread_local").
"""
import threading

import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def loader(torch, got: list) -> None:
    buf = torch.empty(83_886_091, device="cuda")  # doctor: here
    got.append(buf.numel())


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x = torch.from_numpy(xh).cuda()
    out = torch.empty_like(x)
    warm_up(torch, lambda: out.copy_(x * 0.5))  # on a side stream, as PyTorch's docs ask
    g, got = torch.cuda.CUDAGraph(), []
    mode = "thread_local" if fixed() else "global"
    with torch.cuda.graph(g, capture_error_mode=mode):  # doctor: capture
        out.copy_(x * 0.5)
        t = threading.Thread(target=loader, args=(torch, got), name="loader")
        t.start()
        t.join()
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x * 0.5", out.cpu().numpy(), xh * np.float32(0.5))


if __name__ == "__main__":
    main()
