"""On the GPU: a user's own kernels, compiled with compile_source's defaults, launched with every argument kind
(each scalar echoed back bit for bit; half, bfloat16 and struct arguments computed with and compared with NumPy on
fresh random inputs, outputs poisoned first); prepared without a stream and run as a graph node (gpu marker)."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab.core.args import RawBits, Struct, bf16_bits, f16_bits

pytestmark = pytest.mark.gpu

# No CUDA headers needed: __half and __nv_bfloat16 are passed as what they are in memory, two bytes aligned to 2
# (the ABI of cuda_fp16.h's __half and cuda_bf16.h's __nv_bfloat16), converted with PTX (half) and a shift (bf16).
SOURCE = r"""
struct __align__(2) half_bits { unsigned short x; };
struct __align__(2) bf16_bits { unsigned short x; };

__device__ float half_to_float(half_bits h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x)); return f; }
__device__ float bf16_to_float(bf16_bits b) { return __uint_as_float(((unsigned int)b.x) << 16); }

// Every scalar kind, in an order that mixes sizes (8 8 4 4 2 2 1 1 8 4 2 2): each one's raw bits into out[k].
extern "C" __global__ void echo_scalars(unsigned long long* out, unsigned long long u64, long long i64,
                                        unsigned int u32, int i32, unsigned short u16, short i16,
                                        unsigned char u8, signed char i8, double f64, float f32, half_bits f16,
                                        bf16_bits bf16)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    out[0] = u64;
    out[1] = (unsigned long long)i64;
    out[2] = u32;
    out[3] = (unsigned int)i32;
    out[4] = u16;
    out[5] = (unsigned short)i16;
    out[6] = u8;
    out[7] = (unsigned char)i8;
    out[8] = (unsigned long long)__double_as_longlong(f64);
    out[9] = __float_as_uint(f32);
    out[10] = f16.x;
    out[11] = bf16.x;
}

// out = x * h + b, with h a half and b a bfloat16 (both widened to float exactly)
extern "C" __global__ void scale_half(float* out, const float* x, half_bits h, bf16_bits b, unsigned long long n)
{
    float hf = half_to_float(h), bf = bf16_to_float(b);
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = x[i] * hf + bf;
}

// A struct with padding in two places, by value; its fields echoed, and used.
struct Mixed {
    unsigned char tag;      // 0, then 3 bytes of padding
    float a;                // 4
    unsigned long long n;   // 8
    short s;                // 16, then 6 bytes of padding
    double d;               // 24: sizeof 32, alignof 8
};

extern "C" __global__ void use_struct(float* out, const float* x, Mixed m, double* echo)
{
    unsigned long long i0 = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i0 == 0) { echo[0] = m.tag; echo[1] = m.a; echo[2] = (double)m.n; echo[3] = m.s; echo[4] = m.d; }
    for (unsigned long long i = i0; i < m.n; i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = m.a * x[i] + (float)m.s;
}

// A 16-byte aligned struct (as a float4 would be): only Struct(bytes, 16) can say that alignment.
struct __align__(16) Quad { float v[4]; };

extern "C" __global__ void use_quad(float* out, const float* x, unsigned int pad, Quad q, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = x[i] * q.v[i % 4] + (float)pad;
}
"""

MIXED = np.dtype([("tag", "u1"), ("a", "f4"), ("n", "u8"), ("s", "i2"), ("d", "f8")], align=True)
N = 100_003  # not a multiple of the block: the tail runs too


@pytest.fixture(scope="module")
def mod(device):
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    device.make_current()
    compiled = compile_source(SOURCE, "user_kinds", cache=Cache(None))  # defaults: this device's arch, cubin
    assert (compiled.arch, compiled.kind) == (device.arch, "cubin") or compiled.kind == "ptx"
    with device.load_module(compiled) as m:
        yield m


@pytest.fixture
def stream(device):
    with device.create_stream() as s:
        yield s


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32) if a.dtype == np.float32 else a.view(np.uint64)


def test_every_scalar_kind_arrives_bit_for_bit(device, mod, stream, rng):
    i = lambda lo, hi: int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if lo < 0 else np.uint64))
    values = [i(0, 2**64 - 1), i(-2**63, 2**63 - 1), i(0, 2**32 - 1), i(-2**31, 2**31 - 1), i(0, 2**16 - 1),
              i(-2**15, 2**15 - 1), i(0, 255), i(-128, 127), float(rng.standard_normal()) * 1e100,
              float(rng.standard_normal()), float(rng.standard_normal()), float(rng.standard_normal())]
    expected = np.array([values[0], values[1] % 2**64, values[2], values[3] % 2**32, values[4], values[5] % 2**16,
                         values[6], values[7] % 256, int(np.float64(values[8]).view(np.uint64)),
                         int(np.float32(values[9]).view(np.uint32)), f16_bits(values[10]), bf16_bits(values[11])],
                        dtype=np.uint64)
    poison = np.full(12, 0xDEADBEEFDEADBEEF, np.uint64)
    with device.to_device(poison) as out:  # poisoned
        kinds = ("ptr", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8", "f64", "f32", "f16", "bf16")
        mod.kernel("echo_scalars").prepare(kinds, (out, *values), (1, 32), stream)()
        stream.synchronize()
        np.testing.assert_array_equal(out.to_numpy(), expected)
        # the same through RawBits and NumPy scalars
        raw = [RawBits(int(b)) if k in ("f16", "bf16", "f32") else v
               for k, v, b in zip(kinds[1:], values, expected)]
        raw[8] = np.float64(values[8])
        out.copy_from(poison)
        mod.kernel("echo_scalars").prepare(kinds, (out, *raw), (1, 32), stream)()
        stream.synchronize()
        np.testing.assert_array_equal(out.to_numpy(), expected)


def test_half_and_bfloat16_arguments_compute_like_numpy(device, mod, stream, rng):
    x = rng.standard_normal(N, dtype=np.float32)
    h = np.float16(rng.uniform(-4, 4))
    b_bits = int(rng.integers(0x3C00, 0x4100))  # a bfloat16 between 2^-7 and 8, from its raw bits
    expected = x * np.float32(h) + np.uint32(b_bits << 16).view(np.float32)
    with device.to_device(x) as dx, device.array(N) as out:
        out.poison()
        launch = mod.kernel("scale_half").prepare(("ptr", "ptr", "f16", "bf16", "u64"),
                                                   (out, dx, h, RawBits(b_bits), N), (64, 256), stream)
        launch()
        stream.synchronize()
        assert np.array_equal(_bits(out.to_numpy()), _bits(expected))


def test_a_struct_by_value_lands_field_by_field(device, mod, stream, rng):
    x = rng.standard_normal(N, dtype=np.float32)
    rec = np.zeros((), MIXED)
    rec["tag"], rec["a"], rec["n"] = 200, np.float32(rng.uniform(0.5, 3)), N
    rec["s"], rec["d"] = int(rng.integers(-300, 300)), float(rng.standard_normal())
    expected = np.float32(rec["a"]) * x + np.float32(rec["s"])
    with device.to_device(x) as dx, device.array(N) as out, device.to_device(np.full(5, np.nan)) as echo:
        out.poison()
        mod.kernel("use_struct").prepare(("ptr", "ptr", "struct", "ptr"), (out, dx, rec[()], echo), (64, 256),
                                         stream)()
        stream.synchronize()
        assert np.array_equal(_bits(out.to_numpy()), _bits(expected))
        np.testing.assert_array_equal(echo.to_numpy(), [200, np.float32(rec["a"]), N, rec["s"], rec["d"]])
        # the same struct named by its dtype in the signature, from a tuple
        out.poison()
        mod.kernel("use_struct").prepare(("ptr", "ptr", MIXED, "ptr"), (out, dx, tuple(rec[()].item()), echo),
                                         (64, 256), stream)()
        stream.synchronize()
        assert np.array_equal(_bits(out.to_numpy()), _bits(expected))


def test_a_16_byte_aligned_struct_from_bytes(device, mod, stream, rng):
    x = rng.standard_normal(N, dtype=np.float32)
    q = rng.standard_normal(4, dtype=np.float32)
    pad = int(rng.integers(1, 9))
    expected = x * np.resize(q, N) + np.float32(pad)
    with device.to_device(x) as dx, device.array(N) as out:
        out.poison()
        launch = mod.kernel("use_quad").prepare(("ptr", "ptr", "u32", "struct", "u64"),
                                                (out, dx, pad, Struct(q.tobytes(), 16), N), (64, 256), stream)
        assert launch.args.offsets[3] % 16 == 0
        launch()
        stream.synchronize()
        assert np.array_equal(_bits(out.to_numpy()), _bits(expected))


def test_prepared_without_a_stream_runs_as_a_graph_node_and_bound_later(device, mod, stream, rng):
    from cugraphlab.graphs import Graph, add_kernel_node

    x = rng.standard_normal(N, dtype=np.float32)
    h = np.float16(rng.uniform(-4, 4))
    expected = x * np.float32(h) + np.float32(1.0)
    with device.to_device(x) as dx, device.array(N) as out:
        unbound = mod.kernel("scale_half").prepare(("ptr", "ptr", "f16", "bf16", "u64"), (out, dx, h, 1.0, N),
                                                    (64, 256))
        with Graph(device) as g:
            add_kernel_node(g, unbound)
            with g.instantiate() as exe:
                out.poison()
                exe.launch(stream)
                stream.synchronize()
                assert np.array_equal(_bits(out.to_numpy()), _bits(expected))
        out.poison()
        unbound.on(stream)()
        stream.synchronize()
        assert np.array_equal(_bits(out.to_numpy()), _bits(expected))


def test_memory_of_the_host_is_refused_before_any_launch(device, mod, stream):
    from cugraphlab.core.errors import InvalidArgumentError

    with device.array(4) as out:
        with pytest.raises(InvalidArgumentError, match=r"scale_half args\[1\] \(x\): a numpy.ndarray is host"):
            mod.kernel("scale_half").prepare(("ptr", "ptr", "f16", "bf16", "u64"),
                                             (out, np.ones(4, np.float32), 1.0, 1.0, 4), (1, 32), stream,
                                             names=("out", "x", "h", "b", "n"))
