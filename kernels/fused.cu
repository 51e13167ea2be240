// The whole chain in one pass: one read of x and y, one write of out. The floor the separate kernels are
// measured against. CGL_CHAIN(v, y, s) is the chain as one expression; the default is the classic
// add -> mul by s -> sub -> relu. cugraphlab defines it before this file for other op sequences.
#include "elementwise.cuh"

#ifndef CGL_CHAIN
#define CGL_CHAIN(v, y, s) op_relu(op_sub(op_mul(op_add((v), (y)), (s)), (y)))
#endif

extern "C" __global__ void fused(float* out, const float* x, const float* y, float s, u64 n CGL_STAMP_PARAM)
{
    CGL_BEGIN();
    map2(out, x, y, n, [s](float v, float w) { return CGL_CHAIN(v, w, s); });
    CGL_END();
}
