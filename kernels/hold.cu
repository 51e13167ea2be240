// Holds a stream: work queued behind `hold` waits until the host lets go, so the host cost of enqueuing it can be
// timed while the device is busy (bench/hold.py, the one device hold of the package). It can never hang: it lets go
// by itself after `timeout_ns` of %globaltimer.
//
// `ctl` is mapped page-locked host memory (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP), eight u64 slots:
//   [0] the release flag in "mapped" mode (its low 32 bits are what `release` points at then)
//   [1] started: the kernel writes 1 once it spins (the host waits for it before queuing anything)
//   [2] %globaltimer when the kernel started          [3] %globaltimer when it let go
//   [4] 1 when it let go because of the timeout, 0 when it was released
//   [5] %globaltimer written by `stamp` (the end mark of the work queued between the two)
// `release` is the 32-bit flag the kernel waits on: ctl[0] ("mapped": the host writes it through mapped memory, works
// whatever CUDA_DEVICE_MAX_CONNECTIONS is), or a device-memory word ("memset": cuMemsetD32Async on ANOTHER stream,
// which needs that stream on another hardware queue, so not with CUDA_DEVICE_MAX_CONNECTIONS=1).
// Launched as one block of one thread. Reads of the flag are volatile, so each one goes to memory.
typedef unsigned long long u64;

__device__ __forceinline__ u64 hold_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void hold(volatile u64* ctl, u64 timeout_ns, const volatile unsigned int* release)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const u64 start = hold_globaltimer();
    ctl[2] = start;
    __threadfence_system();
    ctl[1] = 1;
    __threadfence_system();
    u64 now = start;
    while (*release == 0u && now - start < timeout_ns) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(64);  // a little less traffic on the bus; release latency stays well under a microsecond
#endif
        now = hold_globaltimer();
    }
    ctl[4] = *release == 0u ? 1ull : 0ull;
    ctl[3] = hold_globaltimer();
    __threadfence_system();
}

// Records when it ran: queued after the held work, it marks the end of that work on the device clock.
extern "C" __global__ void stamp(volatile u64* out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    *out = hold_globaltimer();
    __threadfence_system();
}
