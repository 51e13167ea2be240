// Reads the SM clock: one thread counts `cycles` SM cycles on clock64() and reads %globaltimer (ns) before and after,
// so (c1 - c0) / (t1 - t0) is the SM clock in GHz while it ran. Launch it as one block of 32 threads.
// out[0] = t0, out[1] = t1 (%globaltimer, ns), out[2] = c0, out[3] = c1 (clock64 of the SM it ran on).
// %globaltimer may tick in steps of up to a microsecond: count enough cycles (a million is ~0.5 ms at 2 GHz) that
// one step is a small error.
typedef unsigned long long u64;

__device__ __forceinline__ u64 probe_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void clockprobe(u64* out, u64 cycles)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const u64 t0 = probe_globaltimer();
    const long long c0 = clock64();
    long long c1 = c0;
    while ((u64)(c1 - c0) < cycles) c1 = clock64();
    const u64 t1 = probe_globaltimer();
    out[0] = t0;
    out[1] = t1;
    out[2] = (u64)c0;
    out[3] = (u64)c1;
}
