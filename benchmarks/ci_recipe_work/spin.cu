// The device-bound work of benchmarks/ci_recipe.py: each thread runs SPIN_ITERS dependent multiply-adds on its
// element, so the kernel's time grows in proportion to SPIN_ITERS (about 50 µs on an H200 at 2^16 elements).
// ci_recipe.py writes two copies of this file, one with SPIN_ITERS raised by 10%, each named spin.cu in its own
// folder: the records of both then have one configuration and `measure --compare-to` compares them.
#define SPIN_ITERS 25000

extern "C" __global__ void spin(float* out, const float* x, unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < SPIN_ITERS; ++k)
            v = v * 0.9999f + 0.0001f;
        out[i] = v;
    }
}
