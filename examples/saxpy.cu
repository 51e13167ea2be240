// A user's own kernels, for examples/16_own_kernel.py: nothing of cugraphlab's headers, only CUDA C++.
//
// extern "C" keeps the names as written (no C++ mangling), so module.kernel("saxpy") finds them.
// Compiled with --fmad=false (cugraphlab's default): a * x[i] + y[i] rounds after the multiply and after the add,
// as NumPy's float32 does, so the results compare bit for bit.
// Out of place (out = a * x + y, not y += a * x): an output poisoned before the launch then shows any element the
// kernel failed to write.

// out = a * x + y over n floats, grid-stride (any grid covers any n)
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        out[i] = a * x[i] + y[i];
    }
}

// The same with its scalars in a struct passed by value. C lays it out as a float, 4 bytes of padding, then the
// 8-byte count (16 bytes, aligned to 8); NumPy does the same for np.dtype([("a", "f4"), ("n", "u8")], align=True).
struct SaxpyParams {
    float a;
    unsigned long long n;
};

extern "C" __global__ void saxpy_struct(float* out, const float* x, const float* y, SaxpyParams p)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < p.n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        out[i] = p.a * x[i] + y[i];
    }
}
