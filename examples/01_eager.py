"""Example 1: launching kernels one by one from Python (eager mode).
The course teaches it in notebooks/01_launch_overhead.ipynb (the course's own order: docs/course/course.md).

The chain out = relu((x + y) * 2 - y) is four kernels. Eagerly, the host makes one driver call per kernel:

    cuLaunchKernel(func, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, stream, kernelParams, extra)

where kernelParams is a void** to the argument values, packed once (cugraphlab.PackedArgs).
Run (with the package installed): python3 examples/01_eager.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    eager: 1000 iterations x 4 cuLaunchKernel calls on 1,048,576 floats: 20.77 us/iteration (host clock, perf_counter_ns, includes the final synchronize)
    eager: bit-exact (1,048,576 elements)
"""
import sys
import time

import numpy as np

import cugraphlab as cgl
from cugraphlab import compare_bits, reference

N = 1 << 20
ITERS = 1000


def main() -> int:
    with cgl.Device(0) as dev:
        ks = dev.load_kernels(names=["add", "mul", "sub", "relu"])  # NVRTC -> cubin -> cuModuleLoadData
        stream = dev.create_stream()  # cuStreamCreate(CU_STREAM_NON_BLOCKING)
        rng = np.random.default_rng()
        xh = rng.standard_normal(N, dtype=np.float32)
        yh = rng.standard_normal(N, dtype=np.float32)
        x, y = dev.to_device(xh), dev.to_device(yh)  # cuMemAlloc + cuMemcpyHtoD
        t = [dev.array(N) for _ in range(4)]
        for a in t:
            a.poison()  # NaN pattern: an element no kernel wrote cannot pass the check
        grid = cgl.grid_for(N // 4, 256, dev.sm_count)  # each thread handles a float4
        # Pack every argument list once; a launch then costs one binding call.
        launches = [
            ks["add"].prepare(("ptr", "ptr", "ptr", "u64"), (t[0], x, y, N), (grid, 256), stream),
            ks["mul"].prepare(("ptr", "ptr", "f32", "u64"), (t[1], t[0], 2.0, N), (grid, 256), stream),
            ks["sub"].prepare(("ptr", "ptr", "ptr", "u64"), (t[2], t[1], y, N), (grid, 256), stream),
            ks["relu"].prepare(("ptr", "ptr", "u64"), (t[3], t[2], N), (grid, 256), stream),
        ]
        launch = launches[0].fn  # the binding's cuLaunchKernel itself
        calls = [l.call_args for l in launches]
        for c in calls * 10:  # warm up
            launch(*c)
        stream.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(ITERS):
            for c in calls:
                r = launch(*c)  # returns (CUresult,): check it, cheaply
                if r[0]:
                    raise SystemExit(f"cuLaunchKernel failed: {r[0]}")
        stream.synchronize()  # cuStreamSynchronize: the launches above only queued work
        us = (time.perf_counter_ns() - t0) / 1e3 / ITERS
        v = compare_bits("eager", t[3].to_numpy(), reference("add,mul,sub,relu", xh, yh, 2.0))
        print(f"eager: {ITERS} iterations x 4 cuLaunchKernel calls on {N:,} floats: {us:.2f} us/iteration "
              f"(host clock, perf_counter_ns, includes the final synchronize)")
        print(v)
        for a in (x, y, *t):
            a.close()
        stream.close()
        ks.close()
        return 0 if v.ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
