// A user's kernel, measured with no Python written: see cupy_saxpy.py for the same work from CuPy.
//
//   cugraphlab measure benchmarks/measure_demo/saxpy.cu --kernel saxpy --size 2^20 --args out,x,y,2.0,n \
//       --check benchmarks/measure_demo/saxpy_check.py:check
//
// extern "C": the name stays unmangled, so the driver finds "saxpy". Out of place (out = a * x + y), so that an
// output never written cannot pass the check. cugraphlab compiles with --fmad=false: a * x[i] + y[i] rounds after
// the multiply and after the add, as NumPy's float32 does, and the results compare bit for bit.
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        out[i] = a * x[i] + y[i];
    }
}
