"""The chain's kernels written in Triton (imported only by ``stacks.triton``, inside its worker).

One element per lane, ``BLOCK`` elements per program, masked tail. Every op rounds once in float32 like NumPy; the
wrappers compile with ``enable_fp_fusion=False`` so no multiply-add is contracted into an FMA (in the fused kernel
it could be; with the scalar 2.0 the product is exact and an FMA would not change a bit anyway).
"""
BLOCK = 1024
KERNELS: dict = {}
IMPORT_ERROR: BaseException | None = None

try:  # importable without Triton (the floors test imports every module alone); stacks.triton reports IMPORT_ERROR
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001 - a broken Triton install raises more than ImportError
    triton = tl = None
    IMPORT_ERROR = e

if triton is not None:
    @triton.jit
    def add_kernel(out, x, y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)

    @triton.jit
    def sub_kernel(out, x, y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) - tl.load(y + offs, mask=m), mask=m)

    @triton.jit
    def mul_kernel(out, x, s, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) * s, mask=m)

    @triton.jit
    def relu_kernel(out, x, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        t = tl.load(x + offs, mask=m)
        tl.store(out + offs, tl.where(t > 0.0, t, 0.0), mask=m)

    @triton.jit
    def fused_kernel(out, x, y, s, n, BLOCK: tl.constexpr):
        """The default chain (add, mul by s, sub, relu) in one pass."""
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        a = tl.load(x + offs, mask=m)
        b = tl.load(y + offs, mask=m)
        t = ((a + b) * s) - b
        tl.store(out + offs, tl.where(t > 0.0, t, 0.0), mask=m)


    KERNELS.update(add=add_kernel, sub=sub_kernel, mul=mul_kernel, relu=relu_kernel, fused=fused_kernel)
