"""Example 16: your own kernel. A saxpy in a .cu file (examples/saxpy.cu), compiled, launched, captured, checked.
The course teaches it in notebooks/09_measure_your_kernel.ipynb (the course's own order: docs/course/course.md).

    compiled = cgl.compile_source(source, "saxpy")   # NVRTC: cubin for the current device's arch, --fmad=false
    module = dev.load_module(compiled)                # cuModuleLoadData
    saxpy = module.kernel("saxpy")                    # cuModuleGetFunction
    launch = saxpy.prepare(signature, args, (grid, block), stream)   # arguments packed once
    launch()                                          # cuLaunchKernel

The same kernel four more ways: captured into a graph; prepared without a stream and added to a graph as a kernel
node (cuGraphAddKernelNode needs no stream), then bound to one with ``launch.on(stream)``; with its scalars in a
struct passed by value (a NumPy structured scalar); and, where CuPy is installed, with CuPy arrays as arguments on
a CuPy stream. Every output is poisoned (NaN) first and compared bit for bit with NumPy on fresh random inputs.
Run (with the package installed): python3 examples/16_own_kernel.py

Expected output on the H200 (cu13 bindings, CuPy 14.2, commit b494260, 2026-12-01; as printed there:
benchmarks/results/2026-12-01_H200_round6/2026-12-01_H200_example_16_own_kernel.log):
    compiled saxpy.cu for sm_90 (cubin): the current device's arch
    eager: bit-exact (1,048,576 elements)
    graph (captured): bit-exact (1,048,576 elements)
    graph (built from a launch prepared without a stream): bit-exact (1,048,576 elements)
    struct argument (16 bytes, align 8): bit-exact (1,048,576 elements)
    cupy arrays on a cupy stream: bit-exact (1,048,576 elements)
"""
import sys
from pathlib import Path

import numpy as np

import cugraphlab as cgl
from cugraphlab import compare_bits
from cugraphlab.graphs import add_kernel_node

SOURCE = Path(__file__).with_name("saxpy.cu")
N = 1 << 20
BLOCK = 256
SIGNATURE = ("ptr", "ptr", "ptr", "f32", "u64")  # float* out, const float* x, const float* y, float a, u64 n
NAMES = ("out", "x", "y", "a", "n")  # only for error messages: "saxpy args[1] (x): ..."
PARAMS = np.dtype([("a", "f4"), ("n", "u8")], align=True)  # struct SaxpyParams { float a; unsigned long long n; }


def main() -> int:
    with cgl.Device(0) as dev, dev.create_stream() as stream:
        compiled = cgl.compile_source(SOURCE.read_text(), "saxpy")  # after the Device: its arch is the default
        print(f"compiled {SOURCE.name} for {compiled.arch} ({compiled.kind}): {compiled.arch_note.split(': ')[1]}")
        module = dev.load_module(compiled)
        saxpy, saxpy_struct = module.kernel("saxpy"), module.kernel("saxpy_struct")

        rng = np.random.default_rng()
        xh, yh = rng.standard_normal(N, dtype=np.float32), rng.standard_normal(N, dtype=np.float32)
        a = np.float32(rng.uniform(0.5, 4.0))
        expected = a * xh + yh  # NumPy float32: rounds after the multiply and after the add, as the kernel does
        x, y, out = dev.to_device(xh), dev.to_device(yh), dev.array(N)
        grid = cgl.grid_for(N, BLOCK, dev.sm_count)
        checks = []

        def check(label, launch_it):
            out.poison()  # NaN pattern: an element the kernel misses cannot pass
            launch_it()
            stream.synchronize()
            checks.append(compare_bits(label, out.to_numpy(), expected))
            print(checks[-1])

        # 1. eager: one cuLaunchKernel per call
        launch = saxpy.prepare(SIGNATURE, (out, x, y, a, N), (grid, BLOCK), stream, names=NAMES)
        check("eager", launch)

        # 2. the same launch captured into a graph, replayed with one cuGraphLaunch
        with cgl.capture(stream) as cap:
            launch()
        with cap.graph as graph, graph.instantiate() as exe:
            check("graph (captured)", lambda: exe.launch(stream))

        # 3. prepared without a stream: a kernel node of a graph built by hand; bound to a stream later
        unbound = saxpy.prepare(SIGNATURE, (out, x, y, a, N), (grid, BLOCK), names=NAMES)
        with cgl.Graph(dev) as graph:
            add_kernel_node(graph, unbound)
            with graph.instantiate() as exe:
                check("graph (built from a launch prepared without a stream)", lambda: exe.launch(stream))
        assert unbound.on(stream).args is unbound.args  # the same packed arguments, now with a stream

        # 4. a struct by value: a NumPy structured scalar laid out as C lays SaxpyParams out
        params = np.zeros((), PARAMS)
        params["a"], params["n"] = a, N
        by_struct = saxpy_struct.prepare(("ptr", "ptr", "ptr", "struct"), (out, x, y, params[()]), (grid, BLOCK),
                                         stream)
        check(f"struct argument ({PARAMS.itemsize} bytes, align {PARAMS.alignment})", by_struct)

        # 5. CuPy arrays and a CuPy stream, passed as they are (__cuda_array_interface__, __cuda_stream__ / .ptr)
        try:
            import cupy as cp
        except ImportError:
            print("cupy arrays on a cupy stream: skipped (CuPy is not installed)")
        else:
            cs = cp.cuda.Stream(non_blocking=True)
            with cs:
                xc, yc = cp.asarray(xh), cp.asarray(yh)
                outc = cp.full(N, np.nan, dtype=cp.float32)  # poisoned
            on_cupy = saxpy.prepare(SIGNATURE, (outc, xc, yc, a, N), (grid, BLOCK), cs, names=NAMES)
            on_cupy()  # enqueued on CuPy's stream, after CuPy's own work there
            cs.synchronize()
            checks.append(compare_bits("cupy arrays on a cupy stream", cp.asnumpy(outc), expected))
            print(checks[-1])

        for arr in (x, y, out):
            arr.close()
        module.close()
        return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
