// The capstone's kernels: a two-layer MLP inference step, out = relu(x W1 + b1) W2 + b2, on row-major float32.
//
// matmul_tiled  y[r, c] = sum over k of x[r, k] * w[k, c]   (x: rows x inner, w: inner x cols, y: rows x cols)
// add_bias      y[r, c] += bias[c]                           (in place)
// relu          y[i] = y[i] > 0 ? y[i] : 0                   (in place)
//
// Each thread of a 16 x 16 block computes one element of y. The block walks the inner dimension one 16-wide tile
// at a time: it loads a tile of x and a tile of w into shared memory (each thread one element of each, zero
// outside the matrices), waits for the whole tile (__syncthreads), accumulates, and waits again before the next
// tile overwrites it. The sum runs in k order, each product and each addition rounded on its own (__fmul_rn,
// __fadd_rn: never a fused multiply-add), so NumPy can reproduce it bit for bit: acc = acc + x[:, k] * w[k, :],
// k = 0, 1, ..., inner - 1, in float32 (the notebook's matmul_ref). Only the k inside the matrix are added: the
// zero padding of the last tile never enters the sum.
#define TILE 16

extern "C" __global__ void matmul_tiled(float* __restrict__ y, const float* __restrict__ x,
                                        const float* __restrict__ w, int rows, int inner, int cols)
{
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < inner; k0 += TILE) {
        const int kx = k0 + tx, kw = k0 + ty;
        xs[ty][tx] = (row < rows && kx < inner) ? x[(size_t)row * inner + kx] : 0.0f;
        ws[ty][tx] = (kw < inner && col < cols) ? w[(size_t)kw * cols + col] : 0.0f;
        __syncthreads();
        const int kmax = inner - k0 < TILE ? inner - k0 : TILE;
        for (int t = 0; t < kmax; ++t) acc = __fadd_rn(acc, __fmul_rn(xs[ty][t], ws[t][tx]));
        __syncthreads();
    }
    if (row < rows && col < cols) y[(size_t)row * cols + col] = acc;
}

extern "C" __global__ void add_bias(float* __restrict__ y, const float* __restrict__ bias, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = __fadd_rn(y[i], bias[i % cols]);
}

extern "C" __global__ void relu(float* __restrict__ y, int n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}
