// Shared machinery of the chain kernels (included by add.cu, mul.cu, sub.cu, relu.cu, fused.cu).
//
// Every kernel is a grid-stride loop: a 16-byte (float4) main loop over the first n - n % 4 elements when all
// pointers are 16-byte aligned, then a scalar loop over what is left (the tail, or everything when unaligned),
// so any length n >= 1 is handled by any grid size.
//
// Arithmetic uses the explicitly rounded intrinsics (__fadd_rn, __fmul_rn, __fsub_rn): the compiler may not fuse
// them into an FMA, so each op rounds exactly as NumPy's float32 op does and results compare bit-exactly.
#pragma once

typedef unsigned long long u64;

// --- Optional instrumentation, chosen at compile time (each variant is its own cache entry) -------------------
// CGL_STAMP: every kernel takes one more argument, a pointer to two u64 {start, end} for this launch, and records
//   when block 0 started (blocks are dispatched in index order, so it is among the first) and the latest block end
//   (atomicMax over blocks), read from %globaltimer (ns). The host sets start to ~0 and end to 0 before the run.
//   One atomic per block: fewer would miss the last block, more would slow the kernel being measured.
// CGL_PDL: programmatic dependent launch. Each kernel lets the next one start launching at once
//   (griddepcontrol.launch_dependents) and waits for its predecessor's results before touching memory
//   (griddepcontrol.wait). Without the launch attribute both instructions are no-ops. sm_90 and newer.
__device__ __forceinline__ u64 cgl_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#ifdef CGL_STAMP
#define CGL_STAMP_PARAM , u64* __restrict__ cgl_stamp
#define CGL_STAMP_BEGIN() \
    do { if (blockIdx.x == 0 && threadIdx.x == 0) atomicMin(cgl_stamp, cgl_globaltimer()); } while (0)
#define CGL_STAMP_END() \
    do { __syncthreads(); if (threadIdx.x == 0) atomicMax(cgl_stamp + 1, cgl_globaltimer()); } while (0)
#else
#define CGL_STAMP_PARAM
#define CGL_STAMP_BEGIN() do { } while (0)
#define CGL_STAMP_END() do { } while (0)
#endif

#if defined(CGL_PDL) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CGL_PDL_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define CGL_PDL_TRIGGER() asm volatile("griddepcontrol.launch_dependents;" :::)
#else
#define CGL_PDL_WAIT() do { } while (0)
#define CGL_PDL_TRIGGER() do { } while (0)
#endif

// Every kernel body is CGL_BEGIN(); ...; CGL_END();
#define CGL_BEGIN() do { CGL_PDL_TRIGGER(); CGL_PDL_WAIT(); CGL_STAMP_BEGIN(); } while (0)
#define CGL_END() CGL_STAMP_END()

__device__ __forceinline__ float op_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float op_mul(float a, float s) { return __fmul_rn(a, s); }
__device__ __forceinline__ float op_sub(float a, float b) { return __fsub_rn(a, b); }
// NaN and -0.0 both become +0.0, like np.where(t > 0, t, 0).
__device__ __forceinline__ float op_relu(float a) { return a > 0.0f ? a : 0.0f; }

__device__ __forceinline__ u64 cgl_tid() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 cgl_stride() { return (u64)gridDim.x * blockDim.x; }
__device__ __forceinline__ bool cgl_aligned16(const void* p) { return ((u64)p & 15) == 0; }

// out[i] = f(a[i], b[i])
template <class F>
__device__ __forceinline__ void map2(float* __restrict__ out, const float* __restrict__ a,
                                     const float* __restrict__ b, u64 n, F f)
{
    const u64 tid = cgl_tid(), stride = cgl_stride();
    u64 done = 0;
    if (cgl_aligned16(out) && cgl_aligned16(a) && cgl_aligned16(b)) {
        const u64 n4 = n >> 2;
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* b4 = reinterpret_cast<const float4*>(b);
        float4* o4 = reinterpret_cast<float4*>(out);
        for (u64 i = tid; i < n4; i += stride) {
            const float4 x = a4[i], y = b4[i];
            o4[i] = make_float4(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));
        }
        done = n4 << 2;
    }
    for (u64 i = done + tid; i < n; i += stride) out[i] = f(a[i], b[i]);
}

// out[i] = f(a[i])
template <class F>
__device__ __forceinline__ void map1(float* __restrict__ out, const float* __restrict__ a, u64 n, F f)
{
    const u64 tid = cgl_tid(), stride = cgl_stride();
    u64 done = 0;
    if (cgl_aligned16(out) && cgl_aligned16(a)) {
        const u64 n4 = n >> 2;
        const float4* a4 = reinterpret_cast<const float4*>(a);
        float4* o4 = reinterpret_cast<float4*>(out);
        for (u64 i = tid; i < n4; i += stride) {
            const float4 x = a4[i];
            o4[i] = make_float4(f(x.x), f(x.y), f(x.z), f(x.w));
        }
        done = n4 << 2;
    }
    for (u64 i = done + tid; i < n; i += stride) out[i] = f(a[i]);
}
