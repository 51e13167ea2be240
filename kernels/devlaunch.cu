// cugraphlab: relocatable device code + device runtime (core/link.py builds this file; see below)
//
// Device graph launch: kernels that launch CUDA graphs from the GPU with cudaGraphLaunch(exec, named stream).
//
//   cudaStreamGraphFireAndForget   the graph starts now, beside the launching graph (a child of its environment)
//   cudaStreamGraphTailLaunch      the graph starts once the launching graph and all its children are complete
//   cudaStreamGraphFireAndForgetAsSibling   a fire-and-forget child of the launching graph's parent
//   cudaGetCurrentGraphExec()      the device graph this kernel runs in (NULL outside one): a graph may tail-launch
//                                  itself, one pending self-launch at a time
//
// The named streams are reserved handle values (0x01.., 0x02.., 0x03.. << 56 in cuda_device_runtime_api.h), so the
// host passes the one it wants as a plain 64-bit argument, and the executable graph as its CUgraphExec handle (a
// pointer-sized value, the same handle on host and device).
//
// cudaGraphLaunch on the device lives in the device runtime (libcudadevrt.a), so the launching kernels need
// relocatable device code: NVRTC -rdc=true (-dlto), then nvJitLink with libcudadevrt.a (core/link.py); NVRTC defines
// __CUDACC_RDC__ then. Compiled plainly (KernelSet.load, `cugraphlab compile` without nvJitLink), the file keeps only
// the kernel named like it, which needs no runtime, so loading every kernel source still works.
#include "elementwise.cuh"

#ifdef __CUDACC_RDC__
#include <cuda_device_runtime_api.h>
#endif

// The loop's state in device memory (32 bytes; the host zeroes it before each loop and reads it after).
struct CglDevLoop {
    u64 count;           // iterations completed (one per run of the chain)
    float acc;           // running total of the probed outputs (threshold loops)
    unsigned status;     // the first cudaError_t a device-side cudaGraphLaunch returned; 0: none failed
    unsigned started;    // scheduler graph: 1 once it has launched the work graph for the first time
    unsigned launches;   // device-side launches that succeeded
    unsigned blocks;     // folded loop: blocks of this iteration's dl_relu_relaunch that have finished (the last
                         // one resets it to 0 for the next iteration)
    unsigned reserved;
};

// A timeline of 4 %globaltimer columns per row (row = iterations completed when stamped); slots may be NULL.
//   0: the work graph's first kernel started     1: the launching kernel started
//   2: its cudaGraphLaunch call(s) returned     3: the launched graph's kernel started (latency probe)
__device__ __forceinline__ void cgl_dl_stamp(u64* slots, u64 capacity, u64 row, unsigned column, u64 t)
{
    if (slots != 0 && row < capacity) slots[4 * row + column] = t;
}

// One warp is launched; only thread 0 works (device-side launches are per thread: exactly one thread may launch).
__device__ __forceinline__ bool cgl_dl_first() { return threadIdx.x == 0 && blockIdx.x == 0; }

// Stamp column `column` of row st->count; with `advance`, count one more iteration. Needs no device runtime.
extern "C" __global__ void devlaunch(CglDevLoop* st, u64* slots, u64 capacity, unsigned column, int advance)
{
    if (!cgl_dl_first()) return;
    const u64 t = cgl_globaltimer();
    const u64 row = st->count;
    cgl_dl_stamp(slots, capacity, row, column, t);
    if (advance) st->count = row + 1;
}

#ifdef __CUDACC_RDC__
__device__ __forceinline__ void cgl_dl_result(CglDevLoop* st, cudaError_t e)
{
    if (e == cudaSuccess) {
        st->launches += 1;
    } else if (st->status == 0) {
        st->status = (unsigned)e;
    }
}

// One more iteration done: add sum(out[0..probe)) (in order, rounded like NumPy float32) to the total; go on while
// the total is below `threshold` and fewer than `limit` iterations ran (kernels/conditional.cu's cond_until rule).
__device__ __forceinline__ bool cgl_dl_step(CglDevLoop* st, const float* out, u64 probe, float threshold, u64 limit)
{
    float s = 0.0f;
    for (u64 i = 0; i < probe; ++i) s = __fadd_rn(s, out[i]);
    const float acc = __fadd_rn(st->acc, s);
    const u64 count = st->count + 1;
    st->acc = acc;
    st->count = count;
    return acc < threshold && count < limit;
}

// Launch `graph` into the named stream `stream` (fire-and-forget, tail or sibling), stamping before and after.
extern "C" __global__ void dl_launch(u64 graph, u64 stream, CglDevLoop* st, u64* slots, u64 capacity)
{
    if (!cgl_dl_first()) return;
    const u64 row = st->count;
    cgl_dl_stamp(slots, capacity, row, 1, cgl_globaltimer());
    const cudaError_t e = cudaGraphLaunch((cudaGraphExec_t)graph, (cudaStream_t)stream);
    cgl_dl_stamp(slots, capacity, row, 2, cgl_globaltimer());
    cgl_dl_result(st, e);
}

// The last node of a self-relaunching device graph (the chain, then this): decide, and if the loop goes on,
// tail-launch the graph this kernel runs in.
extern "C" __global__ void dl_relaunch(CglDevLoop* st, const float* out, u64 probe, float threshold, u64 limit,
                                       u64* slots, u64 capacity)
{
    if (!cgl_dl_first()) return;
    const u64 row = st->count;
    cgl_dl_stamp(slots, capacity, row, 1, cgl_globaltimer());
    if (cgl_dl_step(st, out, probe, threshold, limit)) {
        cgl_dl_result(st, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
    }
    cgl_dl_stamp(slots, capacity, row, 2, cgl_globaltimer());
}

// Like cgl_dl_step, for a graph holding `step` iterations of the chain (the decision made once per `step`): the
// probe of the last iteration's output is added `step` times (each add rounded, as `step` separate decisions
// would add it), and `step` iterations are counted. Without feedback every iteration's output is the same, so
// the total after each decision equals the per-iteration loop's total at that count (experiment.device_loop's
// predict_loop(every=step) computes it). The probe is read with ld.global.cg (L2, never this SM's L1): other
// blocks wrote those elements.
__device__ __forceinline__ bool cgl_dl_step_every(CglDevLoop* st, const float* out, u64 probe, float threshold,
                                                  u64 limit, u64 step)
{
    float s = 0.0f;
    for (u64 i = 0; i < probe; ++i) s = __fadd_rn(s, __ldcg(out + i));
    float acc = st->acc;
    for (u64 k = 0; k < step; ++k) acc = __fadd_rn(acc, s);
    const u64 count = st->count + step;
    st->acc = acc;
    st->count = count;
    return acc < threshold && count < limit;
}

// The self loop with its decision folded into the chain's last kernel: relu over every element, exactly as
// relu.cu (the same map1 and op_relu of elementwise.cuh, so the same bits), then the last block to finish decides
// and tail-launches the graph this kernel runs in. No dl_relaunch node: one kernel node fewer per iteration.
// `step` iterations are counted per decision (1: the graph holds one iteration of the chain; K: it holds K).
//
// Why the decision is race-free:
// * The decision of a threshold loop reads out[0..probe), which any block may have written, so it cannot be made
//   by a fixed block (block 0 may finish first). Each block, once all its threads have stored (__syncthreads),
//   makes its stores visible device-wide (__threadfence) and only then counts itself on st->blocks (atomicAdd).
//   The block that gets gridDim.x - 1 back is the last: every other block's fence came before its increment,
//   which came before this one in the atomic's order, so after its own fence (the acquire side) that block sees
//   every element of out; it reads them through L2 (__ldcg), never a stale L1 line.
// * Exactly one thread (thread 0 of the last block) touches the count, the total and calls cudaGraphLaunch
//   (device launches are per thread; two threads would enqueue two self-launches, and only one may be pending).
// * It resets st->blocks to 0 for the next iteration: no block of this iteration increments it after that (all
//   gridDim.x increments are already in), and the next iteration's blocks start only after this graph, this
//   kernel included, has completed and the tail launch began, a kernel boundary that makes the reset visible.
// * The tail launch starts the graph again only after this launch of it has completed, so no block of
//   iteration k+1 overlaps any block of iteration k (with feedback, relu writes x, which iteration k+1 reads).
extern "C" __global__ void dl_relu_relaunch(float* out, const float* x, u64 n, CglDevLoop* st, u64 probe,
                                            float threshold, u64 limit, u64 step, u64* slots, u64 capacity)
{
    map1(out, x, n, [](float a) { return op_relu(a); });
    __shared__ unsigned last;
    __syncthreads();  // every thread of this block has stored its elements
    if (threadIdx.x == 0) {
        __threadfence();  // release: this block's stores are visible device-wide before it is counted
        last = atomicAdd(&st->blocks, 1u) == gridDim.x - 1 ? 1u : 0u;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0) return;
    __threadfence();  // acquire: the loads below come after every other block's counted stores
    st->blocks = 0;
    const u64 row = st->count;
    cgl_dl_stamp(slots, capacity, row, 1, cgl_globaltimer());
    if (cgl_dl_step_every(st, out, probe, threshold, limit, step)) {
        cgl_dl_result(st, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
    }
    cgl_dl_stamp(slots, capacity, row, 2, cgl_globaltimer());
}

// The one node of a scheduler graph: decide (from its second run on, after the work graph ran), then tail-launch
// the work graph and then itself. Tail launches run one at a time in the order enqueued, so the work graph runs,
// then the scheduler again.
extern "C" __global__ void dl_schedule(u64 work, CglDevLoop* st, const float* out, u64 probe, float threshold,
                                       u64 limit, u64* slots, u64 capacity)
{
    if (!cgl_dl_first()) return;
    const u64 t = cgl_globaltimer();
    bool go = true;
    if (st->started) {
        go = cgl_dl_step(st, out, probe, threshold, limit);
    } else {
        st->started = 1;
    }
    const u64 row = st->count;
    cgl_dl_stamp(slots, capacity, row, 1, t);
    if (go) {
        cudaError_t e = cudaGraphLaunch((cudaGraphExec_t)work, cudaStreamGraphTailLaunch);
        cgl_dl_result(st, e);
        if (e == cudaSuccess) cgl_dl_result(st, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
    }
    cgl_dl_stamp(slots, capacity, row, 2, cgl_globaltimer());
}
#endif  // __CUDACC_RDC__
