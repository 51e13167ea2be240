// out = x * s
#include "elementwise.cuh"

extern "C" __global__ void mul(float* out, const float* x, float s, u64 n CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map1(out, x, n, [s](float a) { return op_mul(a, s); });
    CGL_END();
}
