// The WHILE body's last two kernels folded into one: relu, then the loop's decision, in a single kernel node.
//
// The body built by experiment.conditional ends in relu -> conditional(h, state, N): a one-warp kernel node whose
// only work is count += 1 and cudaGraphSetConditional(h, count < N). That node costs the device a scheduling step
// per iteration (about 1 us at 2^20 floats on the H200, more than the decision itself). cond_relu does relu over
// every element, exactly as relu.cu does (same map1, same op_relu: the bits are the same), and then block 0's
// thread 0, after its own elements, counts the iteration and sets the condition.
//
// Why one thread of block 0 may decide while other blocks still run relu:
// * the decision of a counted loop reads only the loop state, never relu's output, so it need not wait for the
//   other blocks (a data-dependent decision would: it would need the last block to finish, found with a
//   __threadfence() + atomicAdd on a block counter);
// * exactly one thread calls cudaGraphSetConditional (racing calls on one handle are undefined behaviour);
// * the WHILE node reads the condition only after the whole body graph has completed, every block of this kernel
//   included, and the next iteration's nodes start only then: no node of iteration k+1 overlaps any block of k;
// * st->count is written by one thread of one kernel per iteration, and the next write is in the next iteration's
//   instance of this kernel, after a kernel boundary that makes the first write visible.
//
// cudaGraphSetConditional comes from set_conditional.cuh, as for conditional.cu. The file is named for its kernel.
#include "set_conditional.cuh"

#include "elementwise.cuh"

// The loop state, laid out as conditional.cu's CglLoopState (16 bytes; the host zeroes it with a memset node).
struct CglFoldState {
    u64 count;            // body iterations completed
    float acc;            // unused here (the threshold loop's total)
    unsigned keep_going;  // the last decision: 1 continue, 0 stop
};

// One thread of block 0 counts `step` more iterations and sets the condition: go on while count < limit.
__device__ __forceinline__ void cgl_fold_decide(cudaGraphConditionalHandle handle, CglFoldState* st, u64 step,
                                                u64 limit)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const u64 count = st->count + step;
        const unsigned keep = count < limit ? 1u : 0u;
        st->count = count;
        st->keep_going = keep;
        cudaGraphSetConditional(handle, keep);
    }
}

// Built with -DCGL_PDL (the WHILE body with programmatic edges, experiment.while_pdl), CGL_BEGIN lets the next
// kernel launch and then waits (griddepcontrol.wait) for the predecessor (sub) to complete before the first
// memory access; the decision comes after the map, so after that wait too (with -DCGL_PDL_EARLY map1 waits before
// its first load). Without those options both are nothing and the kernel is the one described above.

// out = max(x, 0) (NaN and -0.0 to +0.0), then one more iteration counted; go on while count < limit.
extern "C" __global__ void cond_relu(float* out, const float* x, u64 n, cudaGraphConditionalHandle handle,
                                     CglFoldState* st, u64 limit CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map1(out, x, n, [](float a) { return op_relu(a); });
    cgl_fold_decide(handle, st, 1, limit);
    CGL_END();
}

// The same, counting `step` iterations at once: the last kernel of a body that holds `step` chain iterations
// (decision every `step` iterations; exact for a loop of a multiple of `step` iterations).
extern "C" __global__ void cond_relu_step(float* out, const float* x, u64 n, cudaGraphConditionalHandle handle,
                                          CglFoldState* st, u64 step, u64 limit CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map1(out, x, n, [](float a) { return op_relu(a); });
    cgl_fold_decide(handle, st, step, limit);
    CGL_END();
}
