// Holds its stream: one thread spins until the host sets *flag, so that launches queued behind it on the same stream
// cannot start. While it spins, the host's time per launch is the call itself (the driver writing the launch into
// its queue), not the GPU pushing back. Launch it as one block of 32 threads.
//
// The flag is read with volatile loads, so every read goes to memory: either mapped, page-locked host memory that
// the host writes directly (works whatever CUDA_DEVICE_MAX_CONNECTIONS is), or device memory set by
// cuMemsetD32Async on ANOTHER stream (needs that stream on another hardware queue, so not with
// CUDA_DEVICE_MAX_CONNECTIONS=1). It can never hang the GPU: it gives up after timeout_ns of %globaltimer.
// report[0] = 1 when released by the flag, 2 when the timeout ended it; report[1] = nanoseconds it spun.
typedef unsigned long long u64;

__device__ __forceinline__ u64 spin_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void spin(const volatile unsigned int* flag, u64 timeout_ns, u64* report)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const u64 start = spin_globaltimer();
    u64 now = start;
    u64 how = 2ull;  // timed out, unless the flag comes first
    while (now - start < timeout_ns) {
        if (*flag != 0u) {
            how = 1ull;
            break;
        }
#if __CUDA_ARCH__ >= 700
        __nanosleep(200);  // fewer reads of the flag over the bus, same reaction time within a microsecond
#endif
        now = spin_globaltimer();
    }
    report[0] = how;
    report[1] = spin_globaltimer() - start;
    __threadfence_system();
}
