// out = max(x, 0), with NaN and -0.0 mapped to +0.0
#include "elementwise.cuh"

extern "C" __global__ void relu(float* out, const float* x, u64 n CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map1(out, x, n, [](float a) { return op_relu(a); });
    CGL_END();
}
