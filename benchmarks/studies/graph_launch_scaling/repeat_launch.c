/* NVIDIA's protocol for graph launch against size (cuda-samples cudaGraphsPerfScaling, "repeat launch"), in C:
 * one cuGraphLaunch of an uploaded executable into an idle stream per trial, timed with CLOCK_MONOTONIC around the
 * call (API time) and until cuStreamSynchronize returns (total). The stream is drained before each trial, outside
 * the timing. No cuda.h and no -lcuda: the driver's entry points arrive as function pointers (libcuda.so.1's
 * cuGraphLaunch and cuStreamSynchronize, taken by Python), as in the package's native floor (bench.native.loops).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

typedef int CUresult;  /* CUDA_SUCCESS is 0 */
typedef void *CUstream;
typedef void *CUgraphExec;
typedef CUresult (*cgl_graph_launch_fn)(CUgraphExec exec, CUstream stream);
typedef CUresult (*cgl_stream_sync_fn)(CUstream stream);

static int64_t cgl_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

int cgl_repeat_abi(void) { return 1; }

/* trials repeat launches; api_ns[i], total_ns[i] per trial; *done: trials that completed. Returns the first
 * CUresult that was not CUDA_SUCCESS (0: none); *failed_call: 1 cuGraphLaunch, 2 cuStreamSynchronize. */
int cgl_repeat_launches(void *graph_launch, void *stream_sync, void *exec, void *stream, int64_t trials,
                        int64_t *api_ns, int64_t *total_ns, int64_t *done, int32_t *failed_call)
{
    cgl_graph_launch_fn launch = (cgl_graph_launch_fn)graph_launch;
    cgl_stream_sync_fn sync = (cgl_stream_sync_fn)stream_sync;
    CUresult status = 0;
    int64_t i = 0;
    *failed_call = 0;
    for (; i < trials; ++i) {
        status = sync((CUstream)stream);  /* idle stream: drained before the trial, outside the timing */
        if (status != 0) { *failed_call = 2; break; }
        const int64_t t0 = cgl_now_ns();
        status = launch((CUgraphExec)exec, (CUstream)stream);
        const int64_t t1 = cgl_now_ns();
        if (status != 0) { *failed_call = 1; break; }
        status = sync((CUstream)stream);
        const int64_t t2 = cgl_now_ns();
        if (status != 0) { *failed_call = 2; break; }
        api_ns[i] = t1 - t0;
        total_ns[i] = t2 - t0;
    }
    *done = i;
    return status;
}
