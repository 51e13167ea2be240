// Kernels that decide IF/ELSE and SWITCH conditional nodes (CUDA 12.8+) from the GPU with cudaGraphSetConditional.
//
// cudaGraphSetConditional comes from set_conditional.cuh, as for conditional.cu. The file is named for its first
// kernel: every kernels/*.cu holds a kernel of its own name.
#include "set_conditional.cuh"

typedef unsigned long long u64;

// One thread decides: racing calls to cudaGraphSetConditional on one handle are undefined behaviour.
__device__ __forceinline__ bool cgl_switch_first_thread() { return threadIdx.x == 0 && blockIdx.x == 0; }

// SWITCH node: the condition is the index the host left in device memory. Body i runs when it is i; an index of
// K or more (K bodies) runs none.
extern "C" __global__ void cond_switch(cudaGraphConditionalHandle handle, const unsigned* index)
{
    if (!cgl_switch_first_thread()) return;
    cudaGraphSetConditional(handle, *index);
}

// K IF nodes standing in for one SWITCH: handles[i] (one per IF node) is set to 1 when the index is i, else 0.
extern "C" __global__ void cond_one_hot(const cudaGraphConditionalHandle* handles, unsigned count,
                                        const unsigned* index)
{
    if (!cgl_switch_first_thread()) return;
    const unsigned k = *index;
    for (unsigned i = 0; i < count; ++i) cudaGraphSetConditional(handles[i], i == k ? 1u : 0u);
}

// IF/ELSE node decided by a value the GPU computes: the sum of x[0..probe) (in order, rounded like NumPy float32)
// is positive -> the IF body, else the ELSE body. The decision is also written to *taken (1 IF, 0 ELSE), so the host
// can compare it with its own prediction.
extern "C" __global__ void cond_sign(cudaGraphConditionalHandle handle, const float* x, u64 probe, unsigned* taken)
{
    if (!cgl_switch_first_thread()) return;
    float s = 0.0f;
    for (u64 i = 0; i < probe; ++i) s = __fadd_rn(s, x[i]);
    const unsigned positive = s > 0.0f ? 1u : 0u;
    *taken = positive;
    cudaGraphSetConditional(handle, positive);
}
