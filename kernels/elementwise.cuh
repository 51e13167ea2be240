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
// CGL_PDL_EARLY: programmatic dependent launch with the wait as late and the trigger as early as the data allow.
//   Each thread of map2 first loads its element of the second operand b (the chain's input y: no kernel of the
//   chain ever writes it, so reading it while the predecessor still runs is race-free), then waits
//   (griddepcontrol.wait: the predecessor grid has completed and its writes are visible), then loads its element
//   of a (the predecessor's output), then lets the next kernel launch (griddepcontrol.launch_dependents), then
//   computes and stores. map1 has only a, so it waits before its first load. Why this stays bit-exact:
//   * no load before the wait reads memory any kernel of the chain writes (only b; a and every later element
//     come after the wait);
//   * no store happens before the wait, so a kernel never overwrites a buffer its predecessor (or, through the
//     predecessor's own wait, any earlier kernel) still reads or writes: when wait returns, the predecessor has
//     completed, and it completed only after its own wait returned (every kernel waits at least once: CGL_END
//     waits again, at once), so every earlier kernel has completed too;
//   * the trigger carries no memory semantics: where it sits changes when the next grid starts, never what it
//     sees, because that grid reads its predecessor's output only after its own wait.
//   Both asm statements clobber "memory", so the compiler keeps loads on their side of each (the PTX keeps the
//   order ld b; griddepcontrol.wait; ld a; griddepcontrol.launch_dependents; st: tests/experiment check it).
//   With CGL_STAMP the start stamp is taken at block entry, before the wait (busy time includes the wait).
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

// The early-trigger / late-wait pair, used inside map1 and map2 (CGL_PDL_EARLY only; else nothing at all).
#if defined(CGL_PDL_EARLY) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CGL_EARLY 1
#define CGL_LATE_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define CGL_EARLY_TRIGGER() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#else
#define CGL_EARLY 0
#define CGL_LATE_WAIT() do { } while (0)
#define CGL_EARLY_TRIGGER() do { } while (0)
#endif

// Every kernel body is CGL_BEGIN(); ...; CGL_END();
#define CGL_BEGIN() do { CGL_PDL_TRIGGER(); CGL_PDL_WAIT(); CGL_STAMP_BEGIN(); } while (0)
#if CGL_EARLY
// A kernel without a map (empty) still waits once, at its end: a grid that never waits may complete before its
// predecessor, and the next kernel's wait would then not cover the one before. A second wait returns at once.
#define CGL_END() do { CGL_LATE_WAIT(); CGL_STAMP_END(); } while (0)
#else
#define CGL_END() CGL_STAMP_END()
#endif

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
        u64 i = tid;
#if CGL_EARLY
        if (i < n4) {  // the first element: b (never written by the chain) loaded before the wait
            const float4 y = b4[i];
            CGL_LATE_WAIT();
            const float4 x = a4[i];
            CGL_EARLY_TRIGGER();
            o4[i] = make_float4(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));
            i += stride;
        } else {
            CGL_LATE_WAIT();
            CGL_EARLY_TRIGGER();
        }
#endif
        for (; i < n4; i += stride) {
            const float4 x = a4[i], y = b4[i];
            o4[i] = make_float4(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));
        }
        done = n4 << 2;
    }
#if CGL_EARLY
    else {  // unaligned: everything goes through the scalar loop, after the wait
        CGL_LATE_WAIT();
        CGL_EARLY_TRIGGER();
    }
#endif
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
        u64 i = tid;
#if CGL_EARLY
        CGL_LATE_WAIT();  // a is the predecessor's output: nothing to load before the wait
        if (i < n4) {
            const float4 x = a4[i];
            CGL_EARLY_TRIGGER();
            o4[i] = make_float4(f(x.x), f(x.y), f(x.z), f(x.w));
            i += stride;
        } else {
            CGL_EARLY_TRIGGER();
        }
#endif
        for (; i < n4; i += stride) {
            const float4 x = a4[i];
            o4[i] = make_float4(f(x.x), f(x.y), f(x.z), f(x.w));
        }
        done = n4 << 2;
    }
#if CGL_EARLY
    else {
        CGL_LATE_WAIT();
        CGL_EARLY_TRIGGER();
    }
#endif
    for (u64 i = done + tid; i < n; i += stride) out[i] = f(a[i]);
}
