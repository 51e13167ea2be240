// out = x * s
#include "elementwise.cuh"

extern "C" __global__ void mul(float* out, const float* x, float s, u64 n)
{
    map1(out, x, n, [s](float a) { return op_mul(a, s); });
}
