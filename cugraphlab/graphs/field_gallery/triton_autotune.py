"""Triton through PyTorch: an autotuned kernel called for the first time inside torch.cuda.graph.

Thread: triton-lang/triton#10596, "cuda graph stream invalidate by sync call inside do_bench_cudagraph": the
first call of an @triton.autotune kernel benchmarks every config, and the benchmark synchronizes. Fix: call the
kernel once before the capture (it compiles, loads and picks its config), then capture.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import (
    check,
    fixed,
    inputs,
    need_torch,
    skip,
)

try:
    import triton
    import triton.language as tl
except Exception as e:  # no Triton here
    triton, WHY = None, f"{type(e).__name__}: {e}"

if triton is not None:
    @triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"])
    @triton.jit
    def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


def main() -> None:
    torch = need_torch()
    if triton is None:
        skip(f"triton is not importable here ({WHY})")
    n = 4096
    xh = inputs(n)
    x = torch.from_numpy(xh).cuda()
    out = torch.empty_like(x)

    def grid(meta):
        return (triton.cdiv(n, meta["BLOCK"]),)

    if fixed():
        double[grid](x, out, n)  # compiles, loads and autotunes before the capture
        torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # doctor: capture
        double[grid](x, out, n)  # doctor: here
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    check("x * 2 by the Triton kernel", out.cpu().numpy(), xh * np.float32(2))


if __name__ == "__main__":
    main()
