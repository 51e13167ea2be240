"""Every Python stack ``cugraphlab compare`` times, each in its own module, imported only inside its own worker.

``STACKS`` maps a stack's name (what ``--stacks`` takes) to its module and the worker jobs it needs: most need one;
JAX needs two because XLA reads ``XLA_FLAGS`` once per process (default flags; command buffers forced).
Importing this package imports no stack library.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["StackSpec", "STACKS", "stack_names", "BASELINE_STACKS"]


@dataclass(frozen=True)
class StackSpec:
    """A stack: ``module`` under ``cugraphlab.bench.stacks``; ``label`` for tables; ``jobs`` = (variant, extra
    environment for that worker process) per worker; ``same_cubin`` when it launches cugraphlab's own cubin."""

    name: str
    module: str
    label: str
    same_cubin: bool
    jobs: tuple = field(default=(("", ()),))


_JAX_ENV = (("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),)

STACKS: dict[str, StackSpec] = {s.name: s for s in (
    StackSpec("cugraphlab", "cugraphlab_way", "cugraphlab", True),
    StackSpec("bindings", "bindings", "cuda.bindings (by hand)", True),
    StackSpec("cuda_core", "cuda_core", "cuda.core", True),
    StackSpec("cupy_raw", "cupy_raw", "CuPy RawModule", True),
    StackSpec("ctypes", "ctypes_way", "ctypes -> libcuda", True),
    StackSpec("pycuda", "pycuda_way", "PyCUDA", True),
    StackSpec("cupy_ufunc", "cupy_ufunc", "CuPy ufuncs", False),
    StackSpec("torch", "torch_ops", "PyTorch ops", False),
    StackSpec("triton", "triton_way", "Triton", False),
    StackSpec("numba", "numba_way", "numba-cuda", False),
    StackSpec("jax", "jax_way", "JAX", False,
              jobs=(("", _JAX_ENV), ("cmdbuf", _JAX_ENV + (("XLA_FLAGS", "+cmdbuf"),)))),
)}

# What ``cugraphlab run --compare`` shows under the run table (the two libraries compare had before issue 9).
BASELINE_STACKS = ("cugraphlab", "cupy_ufunc", "torch")


def stack_names() -> list[str]:
    return list(STACKS)
