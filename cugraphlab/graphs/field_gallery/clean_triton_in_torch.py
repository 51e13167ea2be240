"""A correct program: a Triton kernel, called once before, captured inside torch.cuda.graph and replayed.

The doctor must find nothing.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import check, inputs, need_torch, skip

try:
    import triton
    import triton.language as tl
except Exception as e:  # no Triton here
    triton, WHY = None, f"{type(e).__name__}: {e}"

if triton is not None:
    @triton.jit
    def triple(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 3.0, mask=m)


def main() -> None:
    torch = need_torch()
    if triton is None:
        skip(f"triton is not importable here ({WHY})")
    n = 4096
    x, out = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
    triple[(n // 256,)](x, out, n, BLOCK=256)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        triple[(n // 256,)](x, out, n, BLOCK=256)
    for _ in range(3):
        xh = inputs(n)
        x.copy_(torch.from_numpy(xh))
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        check("x * 3 by Triton", out.cpu().numpy(), xh * np.float32(3))


if __name__ == "__main__":
    main()
