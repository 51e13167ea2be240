"""PyTorch: new data bound to the captured input's name; the replays still read the tensor of the capture.

Thread: triton-lang/triton#3166 (CUDA graphs remove the launch overhead, but "expect the tensors to be at the same
address and shape"): the name x now holds a new tensor, the captured one is freed, and each replay reads memory the
caching allocator may have given to another tensor. Nothing fails. Fix: keep the captured tensor and copy the new
data into it (x.copy_(new)).
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    n = 4096
    x = torch.from_numpy(inputs(n)).cuda()
    out = torch.empty_like(x)
    warm_up(torch, lambda: out.copy_(x * 2.0))  # on a side stream, as PyTorch's docs ask
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        out.copy_(x * 2.0)
    for step in range(3):
        xh = inputs(n)
        if fixed():
            x.copy_(torch.from_numpy(xh))
        else:
            x = torch.from_numpy(xh).cuda()  # the name now holds a new tensor; the captured one is freed
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        if fixed():
            check(f"step {step}: x * 2", out.cpu().numpy(), xh * np.float32(2))
        else:
            same = np.array_equal(out.cpu().numpy(), xh * np.float32(2))
            print(f"step {step}: the replay {'happened to read' if same else 'did not read'} the new data")


if __name__ == "__main__":
    main()
