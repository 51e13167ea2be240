// Does nothing: launching it measures the pure cost of a launch.
// With CGL_STAMP it records when it ran (see elementwise.cuh), to measure gaps between launches on the device.
#include "elementwise.cuh"

#ifdef CGL_STAMP
extern "C" __global__ void empty(u64* __restrict__ cgl_stamp)
#else
extern "C" __global__ void empty()
#endif
{
    CGL_BEGIN();
    CGL_END();
}
