"""The capstone's kernels (kernels/mlp.cu, shipped in the wheel as cugraphlab.kernels), checked without a GPU in two ways.

NVRTC compiles them for a T4 (sm_75) and an H200 (sm_90) with no fused multiply-add in the PTX (the bit-exact
promise needs each product and sum rounded on its own). Then the same source runs on the CPU: a small C++ harness
defines the CUDA names the kernels use (threadIdx, blockIdx, __shared__, __syncthreads as a std::barrier of the
block's threads, __fadd_rn/__fmul_rn as plain float arithmetic), runs every block of a launch with one std::thread
per CUDA thread, and the results must equal the notebook's own NumPy reference (its matmul_ref, read from
notebooks/src/16_capstone_mlp.py) bit for bit, at sizes that are not multiples of the 16 x 16 tile.
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "mlp.cu"
NOTEBOOK = ROOT / "notebooks" / "src" / "16_capstone_mlp.py"

HARNESS = r'''
#include <barrier>
#include <cstddef>
#include <thread>
#include <vector>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static std::barrier<>* cgl_block_barrier = nullptr;
#define __global__
#define __restrict__
#define __shared__ static
static inline void __syncthreads() { cgl_block_barrier->arrive_and_wait(); }
static inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
static inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
#include KERNELS

template <class F> static void launch(dim3 grid, dim3 block, F body) {
    gridDim = grid; blockDim = block;
    const unsigned threads = block.x * block.y * block.z;
    for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx) {  // blocks one after the other: __shared__ is one per block
            std::barrier<> bar(threads);
            cgl_block_barrier = &bar;
            std::vector<std::thread> ts;
            for (unsigned ty = 0; ty < block.y; ++ty)
                for (unsigned tx = 0; tx < block.x; ++tx)
                    ts.emplace_back([=] { blockIdx = {bx, by, 0}; threadIdx = {tx, ty, 0}; body(); });
            for (auto& t : ts) t.join();
        }
}

extern "C" void emu_matmul(float* y, const float* x, const float* w, int rows, int inner, int cols) {
    launch({(unsigned)(cols + 15) / 16, (unsigned)(rows + 15) / 16, 1}, {16, 16, 1},
           [=] { matmul_tiled(y, x, w, rows, inner, cols); });
}
extern "C" void emu_add_bias(float* y, const float* b, int rows, int cols, unsigned blocks, unsigned threads) {
    launch({blocks, 1, 1}, {threads, 1, 1}, [=] { add_bias(y, b, rows, cols); });
}
extern "C" void emu_relu(float* y, int n, unsigned blocks, unsigned threads) {
    launch({blocks, 1, 1}, {threads, 1, 1}, [=] { relu(y, n); });
}
'''


def _notebook_reference():
    """matmul_ref from the capstone's source cell that defines it (run as the notebook runs it)."""
    text = NOTEBOOK.read_text()
    cell = next(c for c in re.split(r"^# %%.*$", text, flags=re.M) if "def matmul_ref" in c)
    ns = {"np": np, "rng": np.random.default_rng(0), "__name__": "capstone"}
    exec(compile(cell, str(NOTEBOOK), "exec"), ns)
    return ns


@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_the_capstone_kernels_compile_with_nvrtc_and_never_fuse_a_multiply_add(arch):
    import cugraphlab as cgl

    src = KERNELS.read_text()
    cubin = cgl.compile_source(src, "mlp", arch=arch, kind="cubin")
    assert len(cubin.image) > 1000
    ptx = bytes(cgl.compile_source(src, "mlp", arch=arch, kind="ptx").image).decode()
    assert {".entry matmul_tiled", ".entry add_bias", ".entry relu"} <= {f".entry {n}" for n in
                                                                     re.findall(r"\.entry (\w+)", ptx)}
    assert "fma" not in ptx and "mul.rn.f32" in ptx and "add.rn.f32" in ptx


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++ or clang++) to run the kernels on the CPU")
    folder = tmp_path_factory.mktemp("capstone")
    (folder / "harness.cpp").write_text(HARNESS)
    lib = folder / "libmlp_emu.so"
    r = subprocess.run([cxx, "-std=c++20", "-O1", "-ffp-contract=off", "-fPIC", "-shared", "-pthread",
                        f'-DKERNELS="{KERNELS}"', "-o", str(lib), str(folder / "harness.cpp")],
                       capture_output=True, text=True)
    if r.returncode != 0 and "barrier" in r.stderr:
        pytest.skip(f"{cxx} has no C++20 <barrier>: {r.stderr.strip().splitlines()[0]}")
    assert r.returncode == 0, r.stderr
    return ctypes.CDLL(str(lib))


def _ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


@pytest.mark.parametrize("rows, inner, cols", [(20, 37, 50), (16, 16, 16), (1, 1, 1), (33, 64, 17)])
def test_the_kernels_on_the_cpu_match_the_notebooks_numpy_reference_bit_for_bit(emulated, rows, inner, cols):
    ref = _notebook_reference()
    rng = np.random.default_rng(rows * 1000 + inner)
    x = rng.standard_normal((rows, inner), dtype=np.float32)
    w = (rng.standard_normal((inner, cols)) / np.sqrt(inner)).astype(np.float32)
    b = rng.standard_normal(cols, dtype=np.float32)
    y = np.full((rows, cols), np.nan, np.float32)
    emulated.emu_matmul(_ptr(y), _ptr(x), _ptr(w), rows, inner, cols)
    want = ref["matmul_ref"](x, w)
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32)), np.abs(y - want).max()
    emulated.emu_add_bias(_ptr(y), _ptr(b), rows, cols, 3, 32)  # fewer threads than elements: the stride loop
    want = want + b
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))
    emulated.emu_relu(_ptr(y), rows * cols, 2, 64)
    want = np.where(want > 0, want, np.float32(0))
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))


def test_the_notebooks_float32_reference_is_within_its_stated_tolerance_of_float64():
    ref = _notebook_reference()
    for x in ref["xs_host"][:2]:
        ok, err = ref["within_tol"](ref["mlp_ref"](x), x)
        assert ok and err > 0, err  # float32 is not exact, and close enough
