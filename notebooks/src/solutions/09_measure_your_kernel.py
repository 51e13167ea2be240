# %% [solution 1]
def cheapest(rec, clock):
    ways = [w for w in rec.ways if w.way != "reference" and getattr(w, clock) is not None]
    return min(ways, key=lambda w: getattr(w, clock).median).way

# %% [solution 2 gpu] a scale kernel of our own, measured with a bit-exact check
SCALE = r'''
extern "C" __global__ void scale(float* out, const float* x, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i];
}
'''
scale_module = dev.load_module(cgl.compile_source(SCALE, "scale"))
scale_launch = scale_module.kernel("scale").prepare(("ptr", "ptr", "f32", "u64"), (out, x, np.float32(3.0), N),
                                                    (cgl.grid_for(N, 256, dev.sm_count), 256), stream)
scale_in = {}

def scale_prepare():
    scale_in["x"] = rng.standard_normal(N, dtype=np.float32)
    x.copy_from(scale_in["x"], stream)
    out.poison(stream)

def scale_check():
    return compare_bits("scale", out.to_numpy(stream=stream), np.float32(3.0) * scale_in["x"])

result = cgl.measure(scale_launch, ways=("eager",), check=scale_check, prepare=scale_prepare)
print(render_measure(result))
mine = (result, scale_launch)
