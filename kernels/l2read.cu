// The L2 read roof: read a working set of n4 16-byte words `reps` times and write one 32-bit sum per block.
//
// Each thread walks the words grid-stride (word i, i + stride, ...; stride = gridDim.x * blockDim.x threads), four
// independent 16-byte loads in flight per step, and adds the four 32-bit lanes of every word into one unsigned
// accumulator; the block then adds its threads' sums (warp shuffles, then one value per warp in shared memory) and
// thread 0 writes out[blockIdx.x]. Unsigned addition wraps modulo 2^32 and is associative and commutative, so the
// result does not depend on the order of the loads or of the reduction: the host computes the same per-block sums
// exactly (bench.l2_roof.l2read_reference). Nothing can be optimized away: every word read reaches the output.
//
// Repetition r reads word (i + r * blockDim.x) mod n4 at the place of word i: each repetition shifts the mapping by
// one block's worth of words (4 KiB at 256 threads, so loads stay 128-byte aligned), so a block sums other words in
// every repetition and no compiler could hoist a repetition's loads out of the loop as the same values.
//
// Loads are __ldcg (cache global: L2 only, not L1), so a working set smaller than the L2 and read again and again is
// served from L2 and the bandwidth is the L2's.
typedef unsigned long long u64;
typedef unsigned int u32;

__device__ __forceinline__ u32 l2read_lanes(uint4 v) { return v.x + v.y + v.z + v.w; }

__device__ __forceinline__ uint4 l2read_load(const uint4* __restrict__ data, u64 i, u64 shift, u64 n4)
{
    u64 j = i + shift;
    if (j >= n4) j -= n4;
    return __ldcg(data + j);
}

extern "C" __global__ void l2read(u32* __restrict__ out, const uint4* __restrict__ data, u64 n4, u64 reps)
{
    const u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    u32 acc = 0;
    for (u64 r = 0; r < reps; ++r) {
        const u64 shift = (r * blockDim.x) % n4;
        u64 i = tid;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            const uint4 a = l2read_load(data, i, shift, n4);
            const uint4 b = l2read_load(data, i + stride, shift, n4);
            const uint4 c = l2read_load(data, i + 2 * stride, shift, n4);
            const uint4 d = l2read_load(data, i + 3 * stride, shift, n4);
            acc += l2read_lanes(a) + l2read_lanes(b) + l2read_lanes(c) + l2read_lanes(d);
        }
        for (; i < n4; i += stride) acc += l2read_lanes(l2read_load(data, i, shift, n4));
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    __shared__ u32 warp_sums[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        const unsigned warps = (blockDim.x + 31u) >> 5;
        u32 v = lane < warps ? warp_sums[lane] : 0u;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
