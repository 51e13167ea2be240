// out = x + y
#include "elementwise.cuh"

extern "C" __global__ void add(float* out, const float* x, const float* y, u64 n CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map2(out, x, y, n, [](float a, float b) { return op_add(a, b); });
    CGL_END();
}
