"""What the stacks share: cugraphlab's own cubin, the chain's launch shape, the op steps, inputs and references.

Stacks that can load a cubin (cuda.bindings, cugraphlab, cuda.core, CuPy RawModule, ctypes, PyCUDA) load THIS one,
compiled by ``cugraphlab.core.program.compile_source`` for the device's arch with the same options and cache as
``Device.load_kernels``, and launch it with the same grid and block as ``Chain``: their device time is then the
same and the wall-clock difference is launch cost alone.
"""
from __future__ import annotations

import numpy as np

from ...experiment.chain import BLOCK, BLOCKS_PER_SM, chain_grid, chain_sources
from ...experiment.ops import CHAIN_KERNELS, op_arguments

__all__ = ["BLOCK", "BLOCKS_PER_SM", "chain_grid", "compile_cubins", "op_steps", "make_inputs",
           "expected_for", "LAUNCH_OPS"]

LAUNCH_OPS = ("add",)  # what a "launch" row launches: add on n floats


def compile_cubins(compute_capability: tuple[int, int], ops) -> tuple[dict[str, bytes], str]:
    """cugraphlab's chain kernels and its fused kernel for ``ops``, compiled with NVRTC for one device.

    Returns ({kernel name: image bytes}, kind) where kind is "cubin" (or "ptx" for a device newer than NVRTC).
    Wraps ``nvrtcCreateProgram`` / ``nvrtcCompileProgram`` / ``nvrtcGetCUBIN`` through ``compile_source``
    (answers from cugraphlab's compile cache when it can). Needs no GPU.
    """
    from ...core.program import compile_source, resolve_arch
    from ...core.sources import read_headers, read_source

    arch, kind = resolve_arch(None, tuple(compute_capability))
    headers = read_headers()
    _names, extra = chain_sources(ops)
    images = {}
    for name in CHAIN_KERNELS:
        text = extra.get(name) or read_source(name)
        images[name] = compile_source(text, name, arch=arch, kind=kind, headers=headers).image
    return images, kind


def op_steps(ops, x, y, outs, scalar) -> list[tuple[str, object, object, object]]:
    """(op, destination, first operand, second operand or scalar or None) for each op, in the chain's wiring
    (experiment.ops.op_arguments, the one place it is written): for stacks that call an op, not a kernel."""
    return [(name, args[0], args[1], args[2] if len(args) == 4 else None)
            for name, _kinds, args in op_arguments(ops, x, y, outs, scalar, None)]


def make_inputs(seed: int, n: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` pairs of standard-normal float32 inputs of ``n`` elements; the same in every process for the same
    (seed, n), so every stack is checked and timed on the same data."""
    rng = np.random.default_rng([int(seed), int(n)])
    return [(rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32))
            for _ in range(count)]


def expected_for(mode: str, ops, inputs, scalar: float) -> list[np.ndarray]:
    """NumPy float32 references: x + y for ``launch``, the whole chain otherwise."""
    from ...experiment.ops import reference

    chain = LAUNCH_OPS if mode == "launch" else tuple(ops)
    return [reference(chain, x, y, scalar) for x, y in inputs]
