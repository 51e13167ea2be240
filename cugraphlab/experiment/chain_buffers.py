"""What every chain variant checks with: fresh random inputs, poisoned outputs, the NumPy reference, a bit-exact look.

``ChainBuffers`` is the base of the chain's variants that own their buffers (``Chain``, ``MemChain``, each set of
``ColdFused``); the variants that wrap a Chain (PDL, forkjoin, the conditional and device-loop graphs, branches,
scaling) check through the Chain's. A variant sets ``ops``, ``n``, ``scalar``, ``rng``, ``stream``, ``x`` and ``y``
and says which buffers are its outputs (``output_buffers``); the base gives the rest, one way for all:

- ``randomize()``: standard-normal float32 inputs (about half of the chain's results clipped by relu; never zeros),
  copied to ``x`` and ``y`` on the stream, kept on the host;
- ``poison()``: every output filled with a NaN pattern, so an element no kernel wrote cannot pass;
- ``expected()``: the NumPy float32 result of the ops on the current inputs (``ops.reference``, once per inputs);
- ``compare(label, got)``: ``got`` against it, bit for bit (``ops.compare_bits``).
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .ops import Verification, compare_bits, reference

__all__ = ["ChainBuffers", "random_inputs"]


def random_inputs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two fresh standard-normal float32 arrays of ``n`` elements (x, then y) from ``rng``."""
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


class ChainBuffers:
    """Inputs, outputs and reference of one chain of ops (see the module docstring for what a subclass sets)."""

    ops: tuple[str, ...]
    n: int
    scalar: float
    rng: np.random.Generator
    stream: Any
    x: Any
    y: Any
    x_host: np.ndarray
    y_host: np.ndarray
    _expected: np.ndarray | None = None

    def output_buffers(self) -> Iterable[Any]:
        """The device buffers the variant's kernels write (each poisoned before a checked run)."""
        raise NotImplementedError

    def randomize(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh standard-normal float32 inputs (about half the chain's results are clipped by relu)."""
        x, y = random_inputs(self.rng, self.n)
        self.set_inputs(x, y)
        return x, y

    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        """Copy ``x`` and ``y`` (float32) into the inputs on the stream and keep them for the reference."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        y = np.ascontiguousarray(y, dtype=np.float32)
        self.x.copy_from(x, self.stream)
        self.y.copy_from(y, self.stream)
        self.x_host, self.y_host, self._expected = x, y, None

    def poison(self) -> None:
        """Fill every output buffer with a NaN pattern, so an element no kernel wrote cannot pass."""
        for a in {id(a): a for a in self.output_buffers()}.values():  # a buffer two ops share: poisoned once
            a.poison(self.stream)

    def prepare(self) -> None:
        """Fresh inputs and poisoned outputs (before a checked run)."""
        self.randomize()
        self.poison()

    def expected(self) -> np.ndarray:
        """The NumPy result for the current inputs (computed once per set of inputs)."""
        if self._expected is None:
            self._expected = reference(self.ops, self.x_host, self.y_host, self.scalar)
        return self._expected

    def compare(self, label: str, got: np.ndarray) -> Verification:
        """``got`` (an output copied to the host) against ``expected()``, bit for bit."""
        return compare_bits(label, got, self.expected())
