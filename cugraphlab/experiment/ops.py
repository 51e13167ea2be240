"""The chain's ops: their table, the NumPy float32 reference, the fused kernel's source and bit-exact checking.

The classic chain is ``add -> mul by 2.0 -> sub -> relu`` on float32: with inputs x and y,

    t1 = x + y;  t2 = t1 * s;  t3 = t2 - y;  out = relu(t3)

Any sequence of the four ops works: the first op reads x, binary ops take y as their second operand, ``mul`` uses the
scalar s, and each op writes its own buffer. Every way of running it is checked bit for bit against ``reference``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.sources import read_source

__all__ = ["Op", "OPS", "DEFAULT_OPS", "MODES", "FUSED_PER_GRAPH", "FUSED_SIGNATURE", "parse_ops", "reference",
           "fused_source", "op_arguments", "Verification", "compare_bits"]


@dataclass(frozen=True)
class Op:
    name: str
    signature: tuple[str, ...]  # argument kinds, see launch.ARG_FORMATS
    reads_y: bool = False
    uses_scalar: bool = False


OPS = {
    "add": Op("add", ("ptr", "ptr", "ptr", "u64"), reads_y=True),
    "mul": Op("mul", ("ptr", "ptr", "f32", "u64"), uses_scalar=True),
    "sub": Op("sub", ("ptr", "ptr", "ptr", "u64"), reads_y=True),
    "relu": Op("relu", ("ptr", "ptr", "u64")),
}
DEFAULT_OPS = ("add", "mul", "sub", "relu")
#: The chain's kernel sources (kernels/<name>.cu): its four ops and the fused kernel; the one list of them.
CHAIN_KERNELS = (*DEFAULT_OPS, "fused")
MODES = ("eager", "graph", "fused")
# The fused kernel alone runs in about 2.6 us at 2^20 floats, faster than Python can call cuLaunchKernel (about
# 5.5 us): launched one by one it would measure the host. So fused mode replays a graph of this many fused launches,
# which keeps the GPU busy and measures the kernel: the floor the other modes are compared with.
FUSED_PER_GRAPH = 50
FUSED_SIGNATURE = ("ptr", "ptr", "ptr", "f32", "u64")


def parse_ops(ops) -> tuple[str, ...]:
    """A validated op tuple from ``"add,mul,sub,relu"`` or a sequence of names."""
    names = [s.strip() for s in ops.split(",")] if isinstance(ops, str) else [str(s).strip() for s in ops]
    names = [n for n in names if n]
    if not names:
        raise InvalidArgumentError("the chain needs at least one op (add, mul, sub, relu)")
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise InvalidArgumentError(f"unknown op {unknown[0]!r}; known ops: {', '.join(OPS)}")
    return tuple(names)


def reference(ops, x: np.ndarray, y: np.ndarray, scalar: float) -> np.ndarray:
    """The chain in NumPy float32, op by op, rounding as the kernels do."""
    s = np.float32(scalar)
    t = x.astype(np.float32, copy=True)
    for name in parse_ops(ops):
        if name == "add":
            t = np.add(t, y, dtype=np.float32)
        elif name == "mul":
            t = np.multiply(t, s, dtype=np.float32)
        elif name == "sub":
            t = np.subtract(t, y, dtype=np.float32)
        else:
            t = np.where(t > 0, t, np.float32(0)).astype(np.float32)
    return t


def fused_source(ops) -> str:
    """Source of a ``fused`` kernel computing ``ops`` in one pass (kernels/fused.cu with CGL_CHAIN defined)."""
    expr = "(v)"
    for name in parse_ops(ops):
        expr = {"add": f"op_add({expr}, (y))", "mul": f"op_mul({expr}, (s))", "sub": f"op_sub({expr}, (y))",
                "relu": f"op_relu({expr})"}[name]
    return f"#define CGL_CHAIN(v, y, s) {expr}\n" + read_source("fused")


@dataclass(frozen=True)
class Verification:
    """How one mode's output compared with NumPy: bit-exact or not, and where it first differed."""

    mode: str
    n: int
    mismatches: int
    first_bad: int | None = None
    got: float | None = None
    expected: float | None = None

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def __str__(self) -> str:
        if self.ok:
            return f"{self.mode}: bit-exact ({self.n:,} elements)"
        if self.first_bad is None:
            return f"{self.mode}: {self.mismatches:,} of {self.n:,} elements differ"
        return (f"{self.mode}: {self.mismatches:,} of {self.n:,} elements differ; first at {self.first_bad}: "
                f"got {self.got!r}, expected {self.expected!r}")


def compare_bits(mode: str, got: np.ndarray, expected: np.ndarray) -> Verification:
    """Bit-for-bit comparison of two float32 arrays of any shape (NaN payloads included); arrays of different
    shapes differ everywhere. ``first_bad`` indexes the flattened arrays."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return Verification(f"{mode} (shape {got.shape}, expected {expected.shape})", int(expected.size),
                            int(max(expected.size, 1)))
    flat_got, flat_expected = got.reshape(-1), expected.reshape(-1)
    bad = np.flatnonzero(flat_got.view(np.uint32) != flat_expected.view(np.uint32))
    if bad.size == 0:
        return Verification(mode, got.size, 0)
    i = int(bad[0])
    return Verification(mode, got.size, int(bad.size), i, float(flat_got[i]), float(flat_expected[i]))


def op_arguments(ops, src, y, outs, scalar: float, n: int) -> list[tuple[str, tuple[str, ...], tuple]]:
    """(kernel name, argument kinds, argument values) of each op in order: the first reads ``src``, each next one
    the previous op's output; ``outs[i]`` is op i's output. What every way of launching the chain packs."""
    out = []
    for name, dst in zip(parse_ops(ops), outs):
        op = OPS[name]
        if op.reads_y:
            args = (dst, src, y, n)
        elif op.uses_scalar:
            args = (dst, src, scalar, n)
        else:
            args = (dst, src, n)
        out.append((name, op.signature, args))
        src = dst
    return out
