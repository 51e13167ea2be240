"""PyTorch: a watchdog thread queries an event while the main thread captures in 'global' mode.

Thread: pytorch/pytorch#137844 ("if graph capture is thread local": capture state, modes and threads; PyTorch's
CUDAGraph.cpp waits for pending event queries, "as might happen in the NCCL watchdog", before a capture begins).
In GLOBAL mode (PyTorch's default) an event query in ANY thread is refused and invalidates the capture.
Fix: torch.cuda.graph(g, capture_error_mode="thread_local").
"""
import threading

import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def watchdog(ev, seen: list) -> None:
    seen.append(ev.query())  # doctor: here


def main() -> None:
    torch = need_torch()
    xh = inputs(4096)
    x = torch.from_numpy(xh).cuda()
    out = torch.empty_like(x)
    ev = torch.cuda.Event()
    ev.record()
    torch.cuda.synchronize()
    warm_up(torch, lambda: out.copy_(x - 1.0))  # on a side stream, as PyTorch's docs ask
    g, seen = torch.cuda.CUDAGraph(), []
    mode = "thread_local" if fixed() else "global"
    with torch.cuda.graph(g, capture_error_mode=mode):  # doctor: capture
        out.copy_(x - 1.0)
        t = threading.Thread(target=watchdog, args=(ev, seen), name="watchdog")
        t.start()
        t.join()
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x - 1", out.cpu().numpy(), xh - np.float32(1))
    print("the watchdog saw the event done:", seen)


if __name__ == "__main__":
    main()
