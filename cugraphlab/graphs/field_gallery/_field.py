"""What every field case shares: the variant asked for, skipping with a reason, bit-exact checks, PyTorch's warm-up
on a side stream before a capture (``warm_up``) and a CuPy graph's checked replay (``launch_and_check``).

A case runs as ``python CASE.py`` (the mistake) or ``python CASE.py --fixed`` (its fixed twin); it exits SKIP (77)
with one line "skip: ..." when its stack or the GPUs it needs are missing, so that the gallery counts it as
skipped with that reason and never as caught or failed.
"""
from __future__ import annotations

import contextlib
import importlib
import sys

import numpy as np

SKIP = 77


def fixed() -> bool:
    """True for the fixed twin (``--fixed`` on the command line)."""
    return "--fixed" in sys.argv[1:]


def skip(reason: str) -> None:
    print(f"skip: {reason}", flush=True)
    raise SystemExit(SKIP)


def need(name: str):
    """Import ``name`` or skip the case with the reason (numba-cuda, say, broken against this numpy)."""
    try:
        return importlib.import_module(name)
    except Exception as e:  # ImportError, or a stack that fails while importing
        skip(f"{name} is not importable here ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")


@contextlib.contextmanager
def stack_works(name: str):
    """Around a stack's set-up before any capture (its first compile and launch): an error of the stack itself, not
    of CUDA (AttributeError, ImportError: numba-cuda against numpy 2.5, "module 'numpy' has no attribute
    'row_stack'", raised at its first compile, not at its import), skips the case with that reason."""
    try:
        yield
    except (AttributeError, ImportError) as e:
        first = str(e).splitlines()[0] if str(e) else ""
        skip(f"{name} is broken here ({type(e).__name__}: {first})")


def need_torch(gpus: int = 1):
    torch = need("torch")
    if not torch.cuda.is_available():
        skip("torch sees no CUDA device")
    if torch.cuda.device_count() < gpus:
        skip(f"needs {gpus} GPUs, torch sees {torch.cuda.device_count()}")
    return torch


def need_cupy():
    cupy = need("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        skip(f"CuPy sees no CUDA device ({type(e).__name__})")
    return cupy


def warm_up(torch, step) -> None:
    """Run ``step()`` once on a side stream and join it back, as PyTorch's CUDA graph docs ask before a capture
    (the kernels load, cuBLAS makes its workspace, the caching allocator has the blocks)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)


def launch_and_check(graph, stream, out, name: str, want) -> None:
    """A CuPy graph replayed on ``stream`` into ``out`` poisoned with NaN first, then ``out`` checked bit for bit."""
    out.fill(np.nan)
    graph.launch(stream)
    stream.synchronize()
    check(name, out.get(), want)


def inputs(n: int, seed: int | None = None) -> np.ndarray:
    """Fresh random float32 inputs (never zeros)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32)


def check(name: str, got, want) -> None:
    """Bit-exact comparison of float32 arrays; raises AssertionError naming the first difference."""
    got, want = np.asarray(got, dtype=np.float32), np.asarray(want, dtype=np.float32)
    if got.shape != want.shape or not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        bad = np.flatnonzero(got.ravel().view(np.uint32) != want.ravel().view(np.uint32))
        first = int(bad[0]) if bad.size else -1
        raise AssertionError(f"{name}: replay differs from the reference at {bad.size} element(s), first {first}")
    print(f"{name}: replay matches the reference bit for bit ({want.size} floats)")
