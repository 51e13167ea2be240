// Counts its launches, and records when each ran: the probe of `cugraphlab scale`.
// Launched as one block of 32 threads, like the empty kernel. Thread 0 takes the next index from *counter, so after N
// launches *counter == N whatever issued them (cuLaunchKernel, or replays of one graph, whose arguments never change).
// When the index is below `capacity`, slots[2i] and slots[2i+1] get this launch's %globaltimer (ns) at its start and
// at its end: the device timeline of every launch, from which the GPU's idle time between kernels is read.
typedef unsigned long long u64;

__device__ __forceinline__ u64 count_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void count(unsigned int* counter, u64* slots, u64 capacity)
{
    const u64 start = count_globaltimer();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const unsigned int i = atomicAdd(counter, 1u);
        if ((u64)i < capacity) {
            slots[2 * (u64)i] = start;
            slots[2 * (u64)i + 1] = count_globaltimer();
        }
    }
}
