"""Every Python stack ``cugraphlab compare`` times: its key, its label and the worker jobs it needs.

A stack's code is ``cugraphlab.bench.compare.stacks.<key>``, named exactly as the key ``--stacks`` takes, and is
imported only inside its own worker process. Most stacks need one worker job; JAX needs two because XLA reads
``XLA_FLAGS`` once per process (default flags; command buffers forced). Importing this module imports no stack
library.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["StackSpec", "STACKS", "stack_names", "BASELINE_STACKS", "QUICK_STACKS", "STACKS_PACKAGE"]

STACKS_PACKAGE = __name__.rsplit(".", 1)[0] + ".stacks"


@dataclass(frozen=True)
class StackSpec:
    """A stack: ``name`` (the ``--stacks`` key and its module's name); ``label`` for tables; ``jobs`` = (variant,
    extra environment for that worker process) per worker; ``same_cubin`` when it launches cugraphlab's own cubin."""

    name: str
    label: str
    same_cubin: bool
    jobs: tuple = field(default=(("", ()),))
    own: bool = False  # this project's own way (or the bare binding it depends on): a failure is a failure, never a skip

    @property
    def module(self) -> str:
        """The stack's module, derived from its key."""
        return f"{STACKS_PACKAGE}.{self.name}"


_JAX_ENV = (("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),)

STACKS: dict[str, StackSpec] = {s.name: s for s in (
    StackSpec("cugraphlab", "cugraphlab", True, own=True),
    StackSpec("bindings", "cuda.bindings (by hand)", True, own=True),
    StackSpec("cuda_core", "cuda.core", True),
    StackSpec("cupy_raw", "CuPy RawModule", True),
    StackSpec("ctypes", "ctypes -> libcuda", True, own=True),
    StackSpec("pycuda", "PyCUDA", True),
    StackSpec("cupy_ufunc", "CuPy ufuncs", False),
    StackSpec("torch", "PyTorch ops", False),
    StackSpec("triton", "Triton", False),
    StackSpec("numba", "numba-cuda", False),
    StackSpec("jax", "JAX", False,
              jobs=(("", _JAX_ENV), ("cmdbuf", _JAX_ENV + (("XLA_FLAGS", "+cmdbuf"),)))),
)}

# What ``cugraphlab run --compare`` shows under the run table.
BASELINE_STACKS = ("cugraphlab", "cupy_ufunc", "torch")

# ``compare --quick`` (a classroom run under a minute): the stacks that share cugraphlab's cubin, CuPy and PyTorch
# (Triton's and JAX's compiles alone take tens of seconds).
QUICK_STACKS = ("cugraphlab", "bindings", "cuda_core", "cupy_raw", "ctypes", "cupy_ufunc", "torch")


def stack_names() -> list[str]:
    return list(STACKS)
