"""PyTorch: the first matmul of the process inside the capture (no warm-up).

Threads: mstar-project/mstar PR #55 ("warmup ran on the default stream so cuDNN's per-stream workspace allocation
hit the capture stream mid-capture") and sgl-project/sglang PR #35427 ("Create the hipBLAS handle before CUDA graph
capture"). cuBLAS creates its handle and workspace on first use. Fix: warm up on a side stream, then capture.
"""
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch


def main() -> None:
    torch = need_torch()
    x = torch.from_numpy(inputs(128 * 256).reshape(128, 256)).cuda()
    w = torch.from_numpy(inputs(256 * 64).reshape(256, 64)).cuda()
    out = torch.empty(128, 64, device="cuda")
    if fixed():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                out.copy_(torch.matmul(x, w))
        torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        y = torch.matmul(x, w)  # doctor: here
        out.copy_(y)
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    got = out.cpu().numpy()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # the same cuBLAS call eager, on the capture's kind of stream
        want = torch.matmul(x, w).cpu().numpy()
    check("x @ w against the same matmul eager", got, want)


if __name__ == "__main__":
    main()
