"""The chain with programmatic dependent launch (graphs.pdl): each next kernel may launch while the last one ends.

    with Device(0) as dev, PdlChain(dev, n=1 << 20) as pdl:
        print(pdl.verify("graph"))   # bit-exact against NumPy
        pdl.run("graph", 5000)       # replayed graphs whose edges are programmatic

``PdlChain(dev, early=True)`` uses the kernels compiled with ``-DCGL_PDL_EARLY`` instead (kernels/elementwise.cuh):
each thread loads the operand no kernel of the chain writes (y) before ``griddepcontrol.wait``, the predecessor's
output after it, and triggers the next launch (``griddepcontrol.launch_dependents``) once its loads are issued.
"""
from __future__ import annotations

from dataclasses import replace

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError
from ..graphs.pdl import PDL_OPTIONS, require_pdl
from .chain import Chain, chain_kernels
from .ops import DEFAULT_OPS, Verification, compare_bits
from .runners import RUN_MODES, Runner

__all__ = ["PdlChain", "load_pdl_kernels", "PDL_MODES", "PDL_EARLY_OPTIONS"]

PDL_MODES = RUN_MODES
#: Late wait, early trigger (kernels/elementwise.cuh, CGL_PDL_EARLY).
PDL_EARLY_OPTIONS = ("-DCGL_PDL_EARLY",)


def load_pdl_kernels(device, ops=DEFAULT_OPS, cache=None, early: bool = False):
    """The chain's kernels (and its fused kernel) compiled with ``-DCGL_PDL`` (``early``: ``-DCGL_PDL_EARLY``) for
    ``device``, as a KernelSet."""
    return chain_kernels(device, ops, PDL_EARLY_OPTIONS if early else PDL_OPTIONS, cache)


class PdlChain(Resource):
    """The chain with PDL kernels launched through cuLaunchKernelEx with programmatic stream serialization.

    Owns (unless given) a KernelSet compiled with ``-DCGL_PDL`` (``early=True``: ``-DCGL_PDL_EARLY``) and a :class:`Chain` over it (buffers, stream,
    reference): ``chain.run("eager"/"graph")`` launches the same kernels the ordinary way. ``run(mode, iters)``
    enqueues ``iters`` iterations ("eager" or "graph") with programmatic launches (their own Runner).
    """

    def __init__(self, device, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0, *, kernels=None,
                 stream=None, block: int = 256, seed: int | None = None, early: bool = False):
        require_pdl(device)
        self.device = device
        self.early = bool(early)
        try:
            if kernels is None:
                kernels = self.adopt(load_pdl_kernels(device, ops, early=self.early))
            self.kernels = kernels
            self.chain = self.adopt(Chain(device, ops, n, scalar, kernels=kernels, stream=stream, block=block,
                                           seed=seed))
            self.stream = self.chain.stream
            # The Chain's packed arguments, same buffers and order; only the launch call differs.
            config = replace(self.chain.config, programmatic=True)
            self.launches = [launch.with_config(config) for launch in self.chain.launches]
            self.runner = self.adopt(Runner(self.launches, self.stream))
        except BaseException:
            self.close()
            raise

    def capture(self, unroll: int = 1):
        """Capture ``unroll`` iterations of the PDL launches into a new Graph (owned by the caller).

        Stream capture turns each programmatic launch into a kernel node whose edge from the previous node is
        programmatic, so the overlap survives into the graph.
        """
        return self.runner.capture(unroll)

    def graph_exec(self, unroll: int = 1):
        return self.runner.graph_exec(unroll)

    def run(self, mode: str, iters: int, unroll: int = 1) -> None:
        """Enqueue ``iters`` iterations of ``mode`` ("eager" or "graph") with programmatic launches."""
        if mode not in PDL_MODES:
            raise InvalidArgumentError(f"unknown PDL mode {mode!r}; modes: {', '.join(PDL_MODES)}")
        self.runner.run(mode, iters, unroll)

    def check_result(self, mode: str) -> Verification:
        """Compare what the last PDL run left in the chain's output with NumPy on the current inputs."""
        return compare_bits(f"pdl {mode}", self.chain.result("eager"), self.chain.expected())

    def verify(self, mode: str, iters: int = 1, unroll: int = 1) -> Verification:
        """Fresh random inputs, poisoned outputs, ``iters`` PDL iterations of ``mode``, bit-exact comparison."""
        self.chain.randomize()
        self.chain.poison()
        self.run(mode, iters, unroll)
        return self.check_result(mode)

    def describe(self) -> str:
        return ("PDL early " if self.early else "PDL ") + self.chain.describe()

    def __repr__(self) -> str:
        return f"<PdlChain {self.chain.describe()}>"
