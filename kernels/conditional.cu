// Kernels that drive conditional graph nodes (WHILE and IF) from the GPU with cudaGraphSetConditional.
//
// cudaGraphSetConditional comes from set_conditional.cuh (the toolkit's header where cugraphlab finds it, else the
// same two declarations).
#include "set_conditional.cuh"

typedef unsigned long long u64;

// The loop's state in device memory: 16 bytes the host zeroes before a loop (a memset node in the graph) and reads
// after it. keep_going mirrors the decision, so a loop driven from Python can read it back.
struct CglLoopState {
    u64 count;          // body iterations completed
    float acc;          // running sum of the probed outputs (threshold loop)
    unsigned keep_going;  // the last decision: 1 continue, 0 stop
};

// One thread decides; racing calls to cudaGraphSetConditional are undefined behaviour.
__device__ __forceinline__ bool cgl_first_thread() { return threadIdx.x == 0 && blockIdx.x == 0; }

__device__ __forceinline__ void cgl_decide(cudaGraphConditionalHandle handle, int set_handle, CglLoopState* st,
                                           unsigned keep)
{
    st->keep_going = keep;
    if (set_handle) cudaGraphSetConditional(handle, keep);
}

// Counted loop (the kernel named like its file): one more iteration done; go on while count < limit.
// set_handle = 0 runs the same bookkeeping outside a conditional body (the loop driven from Python).
extern "C" __global__ void conditional(cudaGraphConditionalHandle handle, CglLoopState* st, u64 limit, int set_handle)
{
    if (!cgl_first_thread()) return;
    const u64 count = st->count + 1;
    st->count = count;
    cgl_decide(handle, set_handle, st, count < limit ? 1u : 0u);
}

// Threshold loop: add the sum of the first `probe` outputs (summed in order, rounded like NumPy float32) to a
// running total; go on while the total stays below `threshold`, and never past `limit` iterations.
extern "C" __global__ void cond_until(cudaGraphConditionalHandle handle, CglLoopState* st, const float* out,
                                      u64 probe, float threshold, u64 limit, int set_handle)
{
    if (!cgl_first_thread()) return;
    float s = 0.0f;
    for (u64 i = 0; i < probe; ++i) s = __fadd_rn(s, out[i]);
    const float acc = __fadd_rn(st->acc, s);
    const u64 count = st->count + 1;
    st->acc = acc;
    st->count = count;
    cgl_decide(handle, set_handle, st, (acc < threshold && count < limit) ? 1u : 0u);
}

// IF node: the body runs when the flag in device memory is non-zero.
extern "C" __global__ void cond_if_flag(cudaGraphConditionalHandle handle, const unsigned* flag)
{
    if (!cgl_first_thread()) return;
    cudaGraphSetConditional(handle, *flag != 0u ? 1u : 0u);
}
