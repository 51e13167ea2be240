"""``cugraphlab measure FILE.cu --args``: the scalar kinds the Python API has (8- and 16-bit integers, f16, bf16),
read from the kernel's declaration or written KIND:VALUE, each range-checked in one line."""
from __future__ import annotations

import pytest

SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void mix(__half* out, const __half* x, short s, unsigned char u, __half h, __nv_bfloat16 b,
                               signed char c, unsigned short w, unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = __hadd(x[i], h);
}
"""


def _params():
    from cugraphlab.bench.measure.cu_kernel import parse_kernels

    kernels = parse_kernels(SOURCE)
    return kernels["mix"] if isinstance(kernels, dict) else kernels[0][1]


def test_the_small_kinds_come_from_the_declaration():
    from cugraphlab.bench.measure.cu_kernel import parse_args

    params = _params()
    assert [p.kind for p in params] == ["ptr", "ptr", "i16", "u8", "f16", "bf16", "i8", "u16", "u64"]
    assert [p.dtype for p in params[:2]] == ["float16", "float16"]
    got = parse_args("out,x,-3,200,0.5,1.5,-7,65535,n".split(","), params, 1024, "mix")
    assert [k for k, _, _ in got] == ["ptr", "ptr", "i16", "u8", "f16", "bf16", "i8", "u16", "u64"]
    assert [v for _, _, v in got][2:] == [-3, 200, 0.5, 1.5, -7, 65535, 1024]


@pytest.mark.parametrize("items, message", [
    ("out,x,40000,1,1.0,1.0,1,1,n", "does not fit i16 (-32,768 to 32,767)"),
    ("out,x,1,256,1.0,1.0,1,1,n", "does not fit u8 (0 to 255)"),
    ("out,x,1,1,70000.0,1.0,1,1,n", "does not fit a f16"),
    ("out,x,1,1,1.0,1.0,1.5,1,n", "is an integer, got 1.5"),
    ("out,x,1,1,n,1.0,1,1,n", "n is the element count"),
    ("out,x,1,1,1.0,1.0,1,q16:1,n", "unknown kind 'q16'; kinds: ptr, u64, i64, u32, i32, u16, i16, u8, i8, f32, "
                                    "f64, f16, bf16"),
])
def test_out_of_range_values_are_one_line(items, message):
    from cugraphlab.bench.measure.cu_kernel import parse_args
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_args(items.split(","), _params(), 1024, "mix")
